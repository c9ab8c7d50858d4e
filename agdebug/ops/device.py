"""Copying a tensor to another device and/or dtype, as one differentiable op (torch's
``_to_copy``, whose node is ``ToCopyBackward0``)."""

from __future__ import annotations

from .. import backend
from .registry import defop


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
