"""Shape ops: views and copies that move elements around without changing them."""

from __future__ import annotations

from .registry import defop
from .util import input_shape


@defop("view", node="ViewBackward0", view=True)
def view(xp, x, shape=()):
    return x.reshape(shape)


@view.vjp
def view_vjp(ctx, grad):
    return (grad.reshape(input_shape(ctx, 0)),)


@defop("expand", node="ExpandBackward0", view=True)
def expand(xp, x, shape=()):
    return xp.broadcast_to(x, shape)


@expand.vjp
def expand_vjp(ctx, grad):
    return (grad.sum_to_size(input_shape(ctx, 0)),)


@defop("unsafe_view", node="UnsafeViewBackward0")
def unsafe_view(xp, x, shape=()):
    return x.reshape(shape)


@unsafe_view.vjp
def unsafe_view_vjp(ctx, grad):
    return (grad.reshape(input_shape(ctx, 0)),)
