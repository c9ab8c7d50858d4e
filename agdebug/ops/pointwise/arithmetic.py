"""Arithmetic: add, sub, rsub, mul, div, neg, reciprocal, pow, floor_divide, remainder.

Derivatives return gradients in the output's shape; the engine sums
broadcast dimensions back to each input's shape.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.registry import defop
from ..core.gradients import needs, zeros_grad
from ..core.checks import kernel_missing
from .promotion import (_BOOL, _check_bool_sub, _check_int_scalar, _is_bool, checked, in_dtype,
                        minus, promote, scaled, to_float)
from .unary import floor, round_, round_decimals, sign, zero_vjp
from .comparison import _not_implemented, where
from .copying import fill, zero


# ----------------------------------------------------------------------------- arithmetic

@defop("add", node="AddBackward0", broadcasts=True, same_dtype_kernel=np.add)
def add(xp, x, y, alpha=1):
    x, y = promote(x, y)
    return x + y if alpha == 1 else x + _times_alpha(y, alpha, x)


@add.vjp
def add_vjp(ctx, grad):
    alpha = ctx.alpha
    return grad, (grad if alpha == 1 else grad * alpha) if needs(ctx, 1) else None


@defop("sub", node="SubBackward0", broadcasts=True)
def sub(xp, x, y, alpha=1):
    # torch refuses bool operands; tested inline, as a call would cost every subtraction
    if x.dtype is _BOOL or getattr(y, "dtype", None) is _BOOL or type(y) is bool:
        _check_bool_sub(x, y)
    x, y = promote(x, y)
    return x - y if alpha == 1 else x - _times_alpha(y, alpha, x)


@sub.vjp
def sub_vjp(ctx, grad):
    return grad, (-grad if ctx.alpha == 1 else grad * -ctx.alpha) if needs(ctx, 1) else None


@defop("rsub", node="RsubBackward1")
def rsub(xp, x, other):
    if x.dtype is _BOOL or _is_bool(other):
        _check_bool_sub(x, other)
    x, other = promote(x, other)
    return other - x


@rsub.vjp
def rsub_vjp(ctx, grad):
    return -grad, None


@defop("mul", node="MulBackward0", broadcasts=True, saves=("x@1", "y@0"),
       same_dtype_kernel=np.multiply)
def mul(xp, x, y):
    x, y = promote(x, y)
    return x * y


def _times_alpha(y, alpha, x):
    """``alpha * y`` as torch computes it, in the result dtype: alpha is converted with an
    overflow check, an integral product wraps (NumPy 2 raises for a Python int out of range)."""
    dt = x.dtype if hasattr(x, "dtype") else y.dtype
    if type(alpha) is int:
        _check_int_scalar(alpha)
    if dt.kind == "b":   # torch casts alpha to bool: True + 2 * True is True
        return y * bool(alpha)
    if dt.kind not in "iu":
        return alpha * y
    alpha = checked(alpha, dt)
    return y * alpha if hasattr(y, "dtype") else in_dtype(alpha * y, dt)


@mul.vjp
def mul_vjp(ctx, grad):
    grad_x = grad * ctx.y if needs(ctx, 0) else None
    grad_y = grad * ctx.x if needs(ctx, 1) else None
    return grad_x, grad_y


@defop("div", node="DivBackward0", broadcasts=True, saves=("x@1", "y"))
def div(xp, x, y):
    # Promote first, then make an integral result float: float16 / int64 stays float16 and
    # int64 / a 0-d float64 tensor is float64, as in torch (not always the default float).
    x, y = promote(x, y)
    x, y = to_float(x), to_float(y)
    return x / y


@div.vjp
def div_vjp(ctx, grad):
    y = ctx.y
    grad_x = grad / y if needs(ctx, 0) else None
    grad_y = -grad * ((ctx.x / y) / y) if needs(ctx, 1) else None   # torch's grouping
    return grad_x, grad_y


@defop("div_rounded", node="DivBackward2", broadcasts=True, saves=("x@1", "y"))
def div_rounded(xp, x, y, rounding_mode="floor"):
    """``div(x, y, rounding_mode=...)``: integers stay integers (torch's integer division),
    floats are floor(x / y) as Python's ``//`` (``-5.0 // inf`` is -1) or trunc(x / y)."""
    x, y = promote(x, y)
    dt = x.dtype if hasattr(x, "dtype") else y.dtype
    if dt.kind == "f":
        return xp.floor_divide(x, y) if rounding_mode == "floor" else xp.trunc(x / y)
    if dt.kind == "b":
        _not_implemented(xp, f"div_{rounding_mode}", dt)
    if type(y) is int:   # wrapped to the dtype, as torch does (NumPy 2 would raise)
        y = np.int64(y).astype(dt)
    if type(x) is int:
        x = np.int64(x).astype(dt)
    if rounding_mode == "floor":
        out = xp.floor_divide(x, y)
    else:
        out = (x - xp.fmod(x, y)) // y   # exact: the division has no remainder
    if not xp.all(y):   # NumPy gives 0 (shapes checked first, as torch does); torch raises
        raise RuntimeError("ZeroDivisionError")
    return out


@div_rounded.vjp
def div_rounded_vjp(ctx, grad):
    # Piecewise constant in both inputs: torch returns zeros (outside any graph) for each.
    zeros = zeros_grad(grad, tuple(grad.shape))
    return (zeros if needs(ctx, 0) else None), (zeros if needs(ctx, 1) else None)


@defop("neg", node="NegBackward0")
def neg(xp, x):
    if x.dtype is _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return -x


@neg.vjp
def neg_vjp(ctx, grad):
    return (-grad,)


@defop("reciprocal", node="ReciprocalBackward0", saves=("result",))
def reciprocal(xp, x):
    return 1 / to_float(x)


@reciprocal.vjp
def reciprocal_vjp(ctx, grad):
    r = ctx.result
    return (-grad * (r * r),)


@defop("pow", node="PowBackward0", saves=("x",))
def pow_scalar(xp, x, exponent=1.0):
    x, _ = promote(x, exponent)
    if x.dtype.kind in "biu" and type(exponent) is int:
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        exponent = checked(exponent, x.dtype)
    if x.dtype.kind == "f" and type(exponent) in (int, float):
        return float_power(xp, x, exponent)
    return x ** exponent


def float_power(xp, x, e):
    """``x ** e`` for a floating ``x`` and a real number ``e``, rounded as torch's CPU kernel
    rounds it: exact products and quotients for 2, 3, -1, -2, sqrt for +-0.5, and otherwise a
    double-precision power rounded once (NumPy's float32 ``power`` is off by one unit in the
    last place ten times as often as torch's; torch's own vectorised power still rounds an
    occasional value near a halfway point the other way)."""
    if e == 2:
        return x * x
    if e == 3:
        return x * x * x
    if e == -1 or e == -2:
        return 1 / (x if e == -1 else x * x)
    if e == 0.5 or e == -0.5:
        root = xp.sqrt(x)
        return root if e == 0.5 else 1 / root
    if e == 1:
        return x.copy()
    if x.dtype.itemsize < 8:
        return (x.astype(xp.float64) ** e).astype(x.dtype)
    return x ** e


@pow_scalar.vjp
def pow_scalar_vjp(ctx, grad):
    e = ctx.exponent
    if e == 0:   # torch: zeros_like(self), a constant (grad * 0 would make -inf NaN)
        return (zeros_grad(grad, tuple(grad.shape)),)
    x = ctx.x
    if isinstance(e, complex):
        return (grad * (e * x ** (e - 1)),)
    return (grad * scaled(x ** (e - 1), e),)


@defop("pow_tensor", node="PowBackward1", broadcasts=True, saves=("x", "y", "result"))
def pow_tensor(xp, x, y):
    x, y = promote(x, y)
    return int_power(xp, x, y)


def int_power(xp, x, y):
    """``x ** y``; where both are integral, a negative exponent gives torch's answer (1 for a
    base of 1, +-1 for -1, else 0, as integer division would) where NumPy raises."""
    if getattr(y, "dtype", None) is None or y.dtype.kind != "i" or x.dtype.kind not in "iu" \
            or not (y < 0).any():
        return x ** y
    negative = y < 0
    return xp.where(negative & (xp.abs(x) != 1), 0, x) ** xp.abs(y)


@pow_tensor.vjp
def pow_tensor_vjp(ctx, grad):
    x, y = ctx.x, ctx.y
    zero = zeros_grad(grad, ())
    # torch: 0 where the exponent is 0 (0 * 0 ** -1 would be NaN)
    grad_x = where(zero, grad * (y * x ** minus(y, 1)), condition=y == 0) \
        if needs(ctx, 0) else None
    # torch: d/dy x**y = x**y * log(x), defined as 0 where x == 0 and y >= 0
    grad_y = None
    if needs(ctx, 1):
        grad_y = grad * where(zero, ctx.result * x.log(),
                              condition=(x == 0).logical_and(y >= 0))
    return grad_x, grad_y


@defop("rpow", node="PowBackward2", saves=("result",))
def rpow(xp, x, base=1.0):
    x, base = promote(x, base)
    if type(base) is int and x.dtype.kind == "i":   # ``2 ** int_tensor``: negative exponents
        return int_power(xp, xp.asarray(base, dtype=x.dtype), x)   # on x's device
    return base ** x


@rpow.vjp
def rpow_vjp(ctx, grad):
    base = ctx.base
    if base > 0:
        return (grad * scaled(ctx.result, math.log(base)),)
    if base < 0:   # torch: result * log(base) is NaN (math.log raises)
        return (grad * scaled(ctx.result, math.nan),)
    # base 0: torch masks result * log(0) to 0 where the exponent is >= 0 (the result is 0
    # or 1 there); where it is < 0 the result is inf and the gradient -inf. Written as torch
    # writes it, through the result, so that its own derivative matches too.
    result = ctx.result
    return (grad * where(zeros_grad(grad, ()), scaled(result, -math.inf), condition=result <= 1),)


# ----------------------------------------------------------------------------- integer division

@defop("floor_divide", node="NotImplemented")
def floor_divide(xp, x, y):
    # torch: floor division, integers stay integers.
    x, y = promote(x, y)
    _check_integer_division(xp, x, y, "div_floor")
    return xp.floor_divide(x, y)


@floor_divide.vjp
def floor_divide_vjp(ctx, grad):
    # torch records the op but defines no derivative: backward through it fails.
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


def _remainder_forward(xp, x, y):
    # Python's sign convention (the result has the divisor's sign), as torch.remainder.
    x, y = promote(x, y)
    _check_integer_division(xp, x, y, "remainder")
    return xp.remainder(x, y)


def _check_integer_division(xp, x, y, kernel: str) -> None:
    """torch's integer kernels: none for bools, and a zero divisor raises (NumPy gives 0)."""
    kind = x.dtype.kind
    if kind == "b":
        raise kernel_missing(f"{kernel}_cpu" if type(x) is np.ndarray else f"{kernel}_cuda",
                             x.dtype)
    if kind in "iu" and not bool(xp.all(y)):
        raise RuntimeError("ZeroDivisionError")


@defop("remainder", node="RemainderBackward1", saves=("x@1", "y@1"))
def remainder(xp, x, y):
    return _remainder_forward(xp, x, y)


@remainder.vjp
def remainder_vjp(ctx, grad):
    grad_y = -grad * (ctx.x / ctx.y).floor() if needs(ctx, 1) else None
    return grad, grad_y


@defop("remainder_scalar", node="RemainderBackward0")
def remainder_scalar(xp, x, other=1.0):
    return _remainder_forward(xp, x, other)


@remainder_scalar.vjp
def remainder_scalar_vjp(ctx, grad):
    return (grad,)


for _op in (sign, floor, round_, round_decimals, zero, fill):
    _op.vjp(zero_vjp)
