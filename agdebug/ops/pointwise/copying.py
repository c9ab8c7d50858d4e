"""Copies and overwrites: to_dtype, clone, and the in-place zero, fill and copy."""

from __future__ import annotations

from ..core.registry import defop
from .promotion import converted


# ----------------------------------------------------------------------------- type changes

@defop("to_dtype", node="ToCopyBackward0")
def to_dtype(xp, x, dtype=None):
    return x.astype(dtype)


@to_dtype.vjp
def to_dtype_vjp(ctx, grad):
    return (grad,)   # the engine casts it back to the input's dtype


@defop("clone", node="CloneBackward0")
def clone(xp, x):
    return x.copy()


@clone.vjp
def clone_vjp(ctx, grad):
    return (grad,)


# ----------------------------------------------------------------------------- overwrite (in place)

@defop("zero", node="ZeroBackward0")
def zero(xp, x):
    return xp.zeros_like(x)



@defop("fill", node="FillBackward2")
def fill(xp, x, value=0.0):
    return xp.full_like(x, converted(value, x.dtype))


@defop("copy", node="CopyBackwards")
def copy(xp, x, src):
    src = src if hasattr(src, "dtype") else xp.asarray(src)
    return xp.broadcast_to(src, x.shape).astype(x.dtype)


@copy.vjp
def copy_vjp(ctx, grad):
    return grad * 0, grad
