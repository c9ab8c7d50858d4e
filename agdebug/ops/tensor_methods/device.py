"""Copying a tensor to another device and/or dtype, as one differentiable op (torch's
``_to_copy``, whose node is ``ToCopyBackward0``)."""

from __future__ import annotations

from ... import backend
from ..pointwise.copying import copy
from ..core.registry import defop


@defop("to_device", node="ToCopyBackward0")
def to_device_op(xp, x, device=None, dtype=None, source=None):
    out = backend.move_array(x, device)
    if dtype is not None and out.dtype != dtype:
        out = out.astype(dtype)
    return x.copy() if out is x else out   # ``_to_copy`` always copies


@to_device_op.vjp
def to_device_vjp(ctx, grad):
    return (grad.to(ctx.source),)   # the engine casts it back to the input's dtype


def to_device(tensor, device, dtype=None):
    """A copy of ``tensor`` on ``device`` (a Device) with numpy ``dtype`` (None: kept).

    >>> import agdebug as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> to_device(x, ag.device("cpu")).grad_fn.name()
    'ToCopyBackward0'
    """
    return to_device_op(tensor, device=device, dtype=dtype, source=tensor.device)


@defop("copy_across_devices", node="CopyBackwards", any_device=True)
def copy_across_devices(xp, x, src, source=None):
    """``x.copy_(src)`` with ``src`` on another device (its array arrives moved to x's)."""
    return copy.forward(xp, x, src)


@copy_across_devices.vjp
def copy_across_devices_vjp(ctx, grad):
    return grad * 0, grad.to(ctx.source)   # src's gradient goes back to src's device
