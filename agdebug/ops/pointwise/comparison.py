"""Comparisons and selection by value: clamp, maximum/minimum, where, eq/ne/lt..., the
logical and bitwise ops, isnan/isinf/isfinite (most without gradient, as in torch)."""

from __future__ import annotations

import numpy as np

from ... import backend
from ...backend import result_dtype
from ..core.registry import defop
from ..core.gradients import attr_array, needs
from ..core.checks import broadcast_error, kernel_missing
from .promotion import _BOOL, checked, promote


# ----------------------------------------------------------------------------- clamp & co

@defop("clamp", node="ClampBackward1", saves=("x",))
def clamp(xp, x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = _clamp_dtype(x, min, max)
    if dtype == _BOOL:   # no bool kernel for number bounds (tensor bounds have one)
        kernel = "clamp_scalar" if min is not None and max is not None else \
            "clamp_min_scalar" if min is not None else "clamp_max_scalar"
        _not_implemented(xp, kernel, dtype)
    min, max = checked(min, dtype), checked(max, dtype)
    out = x
    if min is not None:
        out = xp.maximum(out, min)
    if max is not None:
        out = xp.minimum(out, max)
    return out.astype(dtype, copy=False)


def _clamp_dtype(x, *bounds):
    """torch promotes clamp's operands: an int tensor clamped to 0.5 is float32."""
    dtype = x.dtype
    for b in bounds:
        if b is not None:
            dtype = result_dtype(np.empty(0, dtype), b, x.ndim, getattr(b, "ndim", -1))
    return dtype


@clamp.vjp
def clamp_vjp(ctx, grad):
    x, lo, hi = ctx.x, ctx.min, ctx.max
    inside = x == x
    if lo is not None:
        inside = inside.logical_and(x >= lo)
    if hi is not None:
        inside = inside.logical_and(x <= hi)
    # where, not grad * inside: an inf or NaN gradient outside the bounds is still 0
    return (grad.where(inside, 0.0),)


@defop("clamp_tensor", node="ClampBackward0", broadcasts=True, saves=("x", "min", "max"))
def clamp_tensor(xp, x, min, max):
    dtype = _clamp_dtype(x, min, max)
    out = x
    if min is not None:
        out = xp.maximum(out, min)
    if max is not None:
        out = xp.minimum(out, max)
    return out.astype(dtype, copy=False)


@clamp_tensor.vjp
def clamp_tensor_vjp(ctx, grad):
    x, lo, hi = ctx.x, ctx.min, ctx.max
    inside = x == x
    grad_lo = grad_hi = None
    if lo is not None:
        inside = inside.logical_and(x >= lo)
        grad_lo = grad.where(x < lo, 0.0) if needs(ctx, 1) else None
    if hi is not None:
        inside = inside.logical_and(x <= hi)
        grad_hi = grad.where(x > hi, 0.0) if needs(ctx, 2) else None
    return grad.where(inside, 0.0), grad_lo, grad_hi


@defop("maximum", node="MaximumBackward0", broadcasts=True, saves=("x", "y"))
def maximum(xp, x, y):
    x, y = promote(x, y)
    return xp.maximum(x, y)


@maximum.vjp
def maximum_vjp(ctx, grad):
    return _min_max_grads(ctx, grad, ctx.x > ctx.y)


@defop("minimum", node="MinimumBackward0", broadcasts=True, saves=("x", "y"))
def minimum(xp, x, y):
    x, y = promote(x, y)
    return xp.minimum(x, y)


@minimum.vjp
def minimum_vjp(ctx, grad):
    return _min_max_grads(ctx, grad, ctx.x < ctx.y)


def _min_max_grads(ctx, grad, x_wins):
    # Ties split the gradient evenly, as torch does.
    tie = (ctx.x == ctx.y) * 0.5
    grad_x = grad * (x_wins + tie) if needs(ctx, 0) else None
    grad_y = grad * (x_wins.logical_not() * 1.0 - tie) if needs(ctx, 1) else None
    return grad_x, grad_y


@defop("where", node="WhereBackward0", saves=("condition",))
def where(xp, x, y, condition=None):
    # condition is a keyword: torch gives it no edge (it is not differentiable).
    dtype = condition.dtype   # a Tensor's (agdebug dtype), or an array's
    if dtype is not backend.bool_ and dtype != np.bool_:
        dtype = dtype if isinstance(dtype, backend.dtype) else backend.get_dtype(dtype)
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {dtype._legacy}")
    if type(x) is int or type(y) is int:   # converted to the result dtype, overflow checked
        dt = result_dtype(x, y, getattr(x, "ndim", -1), getattr(y, "ndim", -1))
        x, y = checked(x, dt), checked(y, dt)
    x, y = promote(x, y)
    if not hasattr(x, "dtype") and not hasattr(y, "dtype"):
        # two Python numbers: a float result is the default float (NumPy: float64)
        dtype = result_dtype(x, y, -1, -1)
        if dtype.kind == "f":
            dtype = backend.DEFAULT_FLOAT.np
        return xp.where(attr_array(condition), x, y).astype(dtype, copy=False)
    try:
        return xp.where(attr_array(condition), x, y)
    except ValueError:
        broadcast_error(condition, x, y)
        raise


@where.vjp
def where_vjp(ctx, grad):
    cond = ctx.condition
    grad_x = grad.where(cond, 0.0) if needs(ctx, 0) else None
    grad_y = grad.where(cond.logical_not(), 0.0) if needs(ctx, 1) else None
    return grad_x, grad_y


# ----------------------------------------------------------------------------- no gradient

def _comparison(name: str, fn):
    @defop(name, node="NotDifferentiable", differentiable=False, broadcasts=True)
    def forward(xp, x, y):
        x, y = promote(x, y)
        return fn(xp, x, y)
    return forward


eq = _comparison("eq", lambda xp, x, y: x == y)
ne = _comparison("ne", lambda xp, x, y: x != y)
lt = _comparison("lt", lambda xp, x, y: x < y)
le = _comparison("le", lambda xp, x, y: x <= y)
gt = _comparison("gt", lambda xp, x, y: x > y)
ge = _comparison("ge", lambda xp, x, y: x >= y)
logical_and = _comparison("logical_and", lambda xp, x, y: xp.logical_and(x, y))
logical_or = _comparison("logical_or", lambda xp, x, y: xp.logical_or(x, y))
logical_xor = _comparison("logical_xor", lambda xp, x, y: xp.logical_xor(x, y))


@defop("logical_not", node="NotDifferentiable", differentiable=False)
def logical_not(xp, x):
    return xp.logical_not(x)


# ----------------------------------------------------------------------------- bitwise

def _bitwise(name: str, fn):
    @defop(name, node="NotDifferentiable", differentiable=False, broadcasts=True)
    def forward(xp, x, y):
        x, y = _integral_operands(xp, name, x, y)
        return fn(x, y)
    return forward


def _integral_operands(xp, name: str, x, y):
    """Promote as torch does; refuse a floating result as torch's kernel does; wrap a Python
    int to the result dtype (``uint8 & -1`` is ``uint8 & 255`` in torch; NumPy 2 raises)."""
    x, y = promote(x, y)
    dt = x.dtype if hasattr(x, "dtype") else y.dtype   # promote left one dtype (or a number)
    if dt.kind == "f":
        _not_implemented(xp, name, dt)
    if type(x) is int:
        x = np.int64(x).astype(dt)
    if type(y) is int:
        y = np.int64(y).astype(dt)
    return x, y


def _floating_only(xp, x, kernel: str) -> None:
    """torch has no integer or bool kernel for these activations (NumPy computes one)."""
    if x.dtype.kind in "biu":
        _not_implemented(xp, kernel, x.dtype)


def _not_implemented(xp, kernel: str, dt):
    raise kernel_missing(f"{kernel}_{'cpu' if xp is np else 'cuda'}", dt)


# On bool operands these are the logical ops (bool results), as in torch.
bitwise_and = _bitwise("bitwise_and", lambda x, y: x & y)
bitwise_or = _bitwise("bitwise_or", lambda x, y: x | y)
bitwise_xor = _bitwise("bitwise_xor", lambda x, y: x ^ y)


@defop("bitwise_not", node="NotDifferentiable", differentiable=False)
def bitwise_not(xp, x):
    if x.dtype.kind == "f":
        _not_implemented(xp, "bitwise_not", x.dtype)
    return xp.invert(x)


# ----------------------------------------------------------------------------- predicates

@defop("isnan", node="NotDifferentiable", differentiable=False)
def isnan(xp, x):
    return xp.isnan(x)


@defop("isinf", node="NotDifferentiable", differentiable=False)
def isinf(xp, x):
    return xp.isinf(x)


@defop("isfinite", node="NotDifferentiable", differentiable=False)
def isfinite(xp, x):
    return xp.isfinite(x)
