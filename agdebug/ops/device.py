"""Moving tensors between devices, as a differentiable op (torch's ``_to_copy``)."""

from __future__ import annotations

from .. import backend
from .registry import defop


@defop("to_device", node="ToCopyBackward0")
def to_device_op(xp, x, device=None, source=None):
    return backend.move_array(x, device)


@to_device_op.vjp
def to_device_vjp(ctx, grad):
    return (grad.to(ctx.source),)


def to_device(tensor, device):
    return to_device_op(tensor, device=device, source=tensor.device)
