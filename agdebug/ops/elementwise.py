"""Elementwise ops: arithmetic, unary math, activations, comparisons.

Derivatives return gradients in the output's shape; the engine sums
broadcast dimensions back to each input's shape.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend
from ..backend import result_dtype
from .core.registry import defop
from .core.gradients import attr_array, derivative_formula, needs, per_element, zeros_grad
from .core.checks import broadcast_error, kernel_missing


def promote(a, b):
    """Cast two operands (arrays or Python scalars) to torch's result dtype."""
    a_is_array, b_is_array = hasattr(a, "dtype"), hasattr(b, "dtype")
    if a_is_array and b_is_array:
        if a.dtype is b.dtype or a.dtype == b.dtype:   # ``is``: cheap, and nearly always so
            return a, b
    elif a_is_array:   # a Python scalar of the array's kind (or lower) keeps its dtype
        if type(b) in _WEAK_KINDS.get(a.dtype.kind, ()):
            return a, weak(b, a)
    elif b_is_array and type(a) in _WEAK_KINDS.get(b.dtype.kind, ()):
        return weak(a, b), b
    dt = result_dtype(a, b, a.ndim if a_is_array else -1, b.ndim if b_is_array else -1)
    if type(a) is int or type(b) is int:   # a bool tensor and an int (the others are weak)
        _check_promoted_int(a if type(a) is int else b, b if type(a) is int else a, dt)
    if a_is_array and a.dtype != dt:
        a = a.astype(dt)
    if b_is_array and b.dtype != dt:
        b = b.astype(dt)
    return a, b


def scaled(t, number):
    """``t * number`` as torch's C++ derivative formulas record it: aten's ``mul.Scalar``
    (MulBackward1, one edge), where Python's ``t * number`` is MulBackward0."""
    from .attention import mul_scalar   # (that module imports this one)
    return mul_scalar(t, other=number)


def shifted(t, number):
    """``t + number`` as a C++ formula records it: ``add.Scalar`` (AddBackward1)."""
    from .loss import add_scalar   # (that module imports this one)
    return add_scalar(t, other=number)


def minus(t, number):
    """``t - number`` as a C++ formula records it: ``sub.Scalar`` (SubBackward1)."""
    from .loss import sub_scalar   # (that module imports this one)
    return sub_scalar(t, other=number)


_WEAK_KINDS = {"f": (float, int, bool), "i": (int, bool), "u": (int, bool), "b": (bool,)}


def _check_promoted_int(number: int, other, dtype) -> None:
    """torch reads an int beyond int64 as uint64, which it will not promote with bool."""
    _check_int_scalar(number)
    if number > 0x7FFF_FFFF_FFFF_FFFF and dtype.kind in "iu":
        name = backend.get_dtype(other.dtype)._legacy if hasattr(other, "dtype") else "Long"
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {name} and UInt64")


def weak(number, array):
    """A Python number as the read-only 0-d array of ``array``'s (float) dtype it becomes
    in ``array <op> number``, cached per value.

    NumPy converts the number to the array's dtype before the op anyway (NEP 50), so the
    result is the same to the bit, but that conversion costs as much again as the op on a
    small array (``x * 1.5``: 0.9 us against 0.45 us on a (4,) float32); scalar operands
    are everywhere in derivatives. NaN, zero (``-0.0 == 0.0``) and CuPy arrays take the
    number as it is; integer dtypes take it wrapped into their range (see ``in_dtype``).
    """
    if type(array) is not np.ndarray:
        return in_dtype(number, array.dtype)
    table = _WEAK_ARRAYS.get(array.dtype)
    if table is None:
        return in_dtype(number, array.dtype)
    found = table.get(number)
    if found is None:
        if not number or number != number:
            return number
        if type(number) is int:   # on a miss only: the cached values passed this check
            _check_int_scalar(number)
        if len(table) >= 4096:
            return number
        found = table[number] = np.array(number, dtype=array.dtype)
        found.flags.writeable = False
    return found


_WEAK_ARRAYS: dict = {np.dtype(t): {} for t in (np.float16, np.float32, np.float64)}


def in_dtype(number, dtype):
    """A Python number as torch casts it to an integer tensor's dtype: an out-of-range int
    wraps (``uint8 + 300`` is ``uint8 + 44``, ``uint8 < -1`` is ``uint8 < 255``), where NumPy 2
    raises OverflowError. Other numbers and dtypes pass unchanged."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None:
        if type(number) is int:
            _check_int_scalar(number)
        return number
    low, high = bounds
    if low <= number <= high or type(number) is not int:
        return number
    _check_int_scalar(number)
    span = high - low + 1
    number %= span
    return number - span if number > high else number


_INT_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.int8, np.uint8, np.int16, np.int32, np.int64)}


def _check_int_scalar(number: int) -> None:
    # torch reads a Python int as int64, or as uint64 where it is larger; beyond, it raises.
    if number > 0xFFFF_FFFF_FFFF_FFFF:
        raise OverflowError("int too big to convert")
    if number < -0x8000_0000_0000_0000:
        raise OverflowError("can't convert negative int to unsigned")


def checked(value, dtype):
    """A Python int converted as torch converts ``alpha``, clamp's bounds and where's or
    fill's values to an integer dtype: out of range is an error (where the operands wrap),
    but an unsigned dtype takes a negative down to -max, wrapped (two's complement)."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None or type(value) is not int:
        return value
    low, high = bounds
    if low <= value <= high:
        return value
    if low == 0 and -high <= value < 0:
        return value + high + 1
    _check_int_scalar(value)
    raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without overflow")


def converted(value, dtype):
    """A Python number converted as torch converts ``full``'s, ``fill_``'s and ``scatter``'s
    value (``checked_convert``): an int beyond uint64 is an OverflowError whatever the
    dtype; a float out of an integer dtype's range (NaN, inf, a negative one for unsigned)
    or a finite one beyond a float dtype's largest is a RuntimeError; ints go as ``checked``.
    """
    if type(value) is int:
        _check_int_scalar(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu" and type(value) is float:
        low, high = _INT_BOUNDS[dtype]
        if not float(low) <= value <= float(high):   # compared in double; False for NaN
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without "
                               "overflow")
        number = int(value)   # 2.0**63 passes that check: x86's cast makes it int64's lowest
        return number if number <= high else low
    if dtype.kind == "f" and math.isfinite(value) and abs(value) > _largest(dtype):
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype]} without "
                           "overflow")
    return checked(value, dtype)


def _largest(dtype) -> float:
    return float(np.finfo(dtype).max)


_C_TYPES = {np.dtype(t): name for t, name in (
    (np.int8, "int8_t"), (np.uint8, "uint8_t"), (np.int16, "int16_t"), (np.int32, "int"),
    (np.int64, "int64_t"), (np.float16, "c10::Half"), (np.float32, "float"),
    (np.float64, "double"))}   # as torch names them


_BOOL = np.dtype(np.bool_)   # one object: ``is`` tests it (NumPy and CuPy arrays alike)


def _is_bool(x) -> bool:
    return getattr(x, "dtype", None) is _BOOL or type(x) is bool


def _check_bool_sub(x, y):
    # torch refuses ``-`` on bool operands (NumPy raises TypeError, or computes float - bool).
    if _is_bool(x) and _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(x) or _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def to_float(x):
    """Integer/bool arrays become the default float dtype (torch's true division etc.)."""
    if hasattr(x, "dtype") and x.dtype.kind in "biu":
        return x.astype(np.float32)
    return x


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
    return x ** exponent


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


# ----------------------------------------------------------------------------- unary math

@defop("exp", node="ExpBackward0", saves=("result",))
def exp(xp, x):
    return xp.exp(to_float(x))


@exp.vjp
def exp_vjp(ctx, grad):
    return (grad * ctx.result,)


@defop("expm1", node="Expm1Backward0", saves=("result",))
def expm1(xp, x):
    return xp.expm1(to_float(x))


@expm1.vjp
def expm1_vjp(ctx, grad):
    return (grad * shifted(ctx.result, 1),)


@defop("log", node="LogBackward0", saves=("x",))
def log(xp, x):
    return xp.log(to_float(x))


@log.vjp
def log_vjp(ctx, grad):
    return (grad / ctx.x,)


@defop("log2", node="Log2Backward0", saves=("x",))
def log2(xp, x):
    return xp.log2(to_float(x))


@log2.vjp
def log2_vjp(ctx, grad):
    return (grad / scaled(ctx.x, math.log(2.0)),)


@defop("log1p", node="Log1PBackward0", saves=("x",))
def log1p(xp, x):
    return xp.log1p(to_float(x))


@log1p.vjp
def log1p_vjp(ctx, grad):
    return (grad / shifted(ctx.x, 1),)


@defop("sqrt", node="SqrtBackward0", saves=("result",))
def sqrt(xp, x):
    return xp.sqrt(to_float(x))


@sqrt.vjp
def sqrt_vjp(ctx, grad):
    return (grad / scaled(ctx.result, 2),)


@defop("rsqrt", node="RsqrtBackward0", saves=("result",))
def rsqrt(xp, x):
    return 1 / xp.sqrt(to_float(x))


@rsqrt.vjp
def rsqrt_vjp(ctx, grad):
    return (grad * -0.5 * ctx.result ** 3,)


@defop("abs", node="AbsBackward0", saves=("x",))
def abs_(xp, x):
    if x.dtype is _BOOL:   # NumPy's abs of bool is the identity; torch has no bool kernel
        _not_implemented(xp, "abs", x.dtype)
    return xp.abs(x)


@abs_.vjp
def abs_vjp(ctx, grad):
    return (grad * ctx.x.sgn(),)


def zero_vjp(ctx, grad):
    """Piecewise-constant ops: torch's ``zeros_like(grad)``, a constant (no graph; grad * 0
    would require grad under create_graph and make an incoming -inf NaN)."""
    return (zeros_grad(grad, tuple(grad.shape)),)


@defop("sign", node="SignBackward0")
def sign(xp, x):
    if x.dtype is _BOOL:   # NumPy has no bool sign; torch returns the tensor's values
        return x.copy()
    return xp.sign(x)



@defop("floor", node="FloorBackward0")
def floor(xp, x):
    if x.dtype is _BOOL:   # NumPy floors bool to float16; torch has no bool kernel
        _not_implemented(xp, "floor_vml", x.dtype)
    return xp.floor(x)



@defop("round", node="RoundBackward0")
def round_(xp, x, decimals=0):
    if x.dtype is _BOOL:   # NumPy rounds bool to float16; torch has no bool kernel
        _not_implemented(xp, "round_vml", x.dtype)
    return xp.round(x, decimals)


@defop("round_decimals", node="RoundBackward1")
def round_decimals(xp, x, decimals=0):
    """``round(x, decimals=d)``, d given even as 0: torch's other overload, whose kernels
    are floating only (``round()`` of an integer tensor is the tensor)."""
    if x.dtype.kind != "f":
        _not_implemented(xp, "round_vml" if decimals == 0 else "round", x.dtype)
    return xp.round(x, decimals)



@defop("sin", node="SinBackward0", saves=("x",))
def sin(xp, x):
    return xp.sin(to_float(x))


@sin.vjp
def sin_vjp(ctx, grad):
    return (grad * ctx.x.cos(),)


@defop("cos", node="CosBackward0", saves=("x",))
def cos(xp, x):
    return xp.cos(to_float(x))


@cos.vjp
def cos_vjp(ctx, grad):
    return (grad * -ctx.x.sin(),)


@defop("tan", node="TanBackward0", saves=("result",))
def tan(xp, x):
    return xp.tan(to_float(x))


@tan.vjp
def tan_vjp(ctx, grad):
    return (grad * shifted(ctx.result ** 2, 1),)


@defop("tanh", node="TanhBackward0", saves=("result",))
def tanh(xp, x):
    return xp.tanh(to_float(x))


@tanh.vjp
def tanh_vjp(ctx, grad):
    return (tanh_backward(grad, ctx.result),)


@defop("atan2", node="Atan2Backward0", broadcasts=True, saves=("x", "y"))
def atan2(xp, x, y):
    x, y = promote(x, y)
    x, y = to_float(x), to_float(y)   # integral operands give the default float, as in torch
    return xp.arctan2(x, y)


@atan2.vjp
def atan2_vjp(ctx, grad):
    # d/dx atan2(x, y) = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2) (torch's atan2_backward)
    x, y = ctx.x, ctx.y
    scaled = grad / (x * x + y * y)
    return (scaled * y if needs(ctx, 0) else None), (scaled * -x if needs(ctx, 1) else None)


# torch's fused derivatives: one node (TanhBackwardBackward0...) instead of three in a
# create_graph=True graph, and one array pass instead of three.

@defop("tanh_backward", node="TanhBackwardBackward0", saves=("grad@1", "output"))
def tanh_backward(xp, grad, output):
    return grad * (weak(1, output) - output * output)


@tanh_backward.vjp
def tanh_backward_vjp(ctx, grad_grad):
    r = ctx.output
    grad_grad_in = tanh_backward(grad_grad, r) if needs(ctx, 0) else None   # linear in grad
    grad_result = None
    if needs(ctx, 1):
        grad_result = derivative_formula(_tanh_second, grad_grad, ctx.grad, r)
    return grad_grad_in, grad_result


def _tanh_second(grad_grad, grad, r):   # on arrays or tensors (see derivative_formula)
    return grad_grad * grad * (r * -2)


@defop("sigmoid", node="SigmoidBackward0", saves=("result",))
def sigmoid(xp, x):
    x = to_float(x)
    # Split by sign so that exp never overflows.
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


@sigmoid.vjp
def sigmoid_vjp(ctx, grad):
    return (sigmoid_backward(grad, ctx.result),)


@defop("sigmoid_backward", node="SigmoidBackwardBackward0", saves=("grad@1", "output"))
def sigmoid_backward(xp, grad, output):
    return grad * output * (1 - output)


@sigmoid_backward.vjp
def sigmoid_backward_vjp(ctx, grad_grad):
    r = ctx.output
    grad_grad_in = sigmoid_backward(grad_grad, r) if needs(ctx, 0) else None   # linear in grad
    grad_result = None
    if needs(ctx, 1):
        grad_result = derivative_formula(_sigmoid_second, grad_grad, ctx.grad, r)
    return grad_grad_in, grad_result


def _sigmoid_second(grad_grad, grad, r):
    return grad_grad * grad * (1 - 2 * r)


# ----------------------------------------------------------------------------- activations

@defop("relu", node="ReluBackward0", saves=("result",))
def relu(xp, x):
    if x.dtype is _BOOL:
        raise RuntimeError("Boolean inputs not supported for relu")
    return xp.maximum(x, 0).astype(x.dtype, copy=False)


@relu.vjp
def relu_vjp(ctx, grad):
    # threshold 0 is the op's default: called without the keyword, the call takes the
    # registry's short path (``run_direct``), and a recorded node reads the default.
    return (threshold_backward(grad, ctx.result),)


@defop("threshold_backward", node="ThresholdBackwardBackward0", saves=("self",))
def threshold_backward(xp, grad, self, threshold=0):
    """0 where ``self <= threshold``, else ``grad``: the gradient at exactly 0 is 0, and at a
    NaN input it passes, as in torch.

    torch's fused derivative of relu: one op, and in a create_graph=True graph one node
    whose edge to ``self`` carries a zero gradient, as torch's does.
    """
    drop = self <= threshold
    bits = _SAME_SIZE_INT.get(grad.dtype.itemsize) if grad.dtype.kind == "f" else None
    if xp is np and bits is not None:
        # where's values bit for bit (+0.0 where dropped, NaN and inf passed where kept), as
        # an AND with all-ones or all-zeros per element: on a CPU several times faster than
        # where's per-element choice. (``grad * keep`` would give -0.0 for a negative grad,
        # and NaN for an inf one.)
        keep = drop.view(np.int8) - np.int8(1)    # -1 (every bit set) where kept, else 0
        return np.bitwise_and(grad.view(bits), keep).view(grad.dtype)
    return xp.where(drop, 0, grad).astype(grad.dtype, copy=False)


_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}   # a float's bits, by itemsize


@threshold_backward.vjp
def threshold_backward_vjp(ctx, grad_grad):
    self = ctx.self
    grad_grad_in = threshold_backward(grad_grad, self, threshold=ctx.threshold) \
        if needs(ctx, 0) else None   # linear in grad
    # torch's ``zeros_like(grad)``: constant zeros (no node), even where grad_grad is NaN.
    return grad_grad_in, (zeros_grad(grad_grad, tuple(grad_grad.shape)) if needs(ctx, 1) else None)


@defop("leaky_relu", node="LeakyReluBackward0", saves=("x",))
def leaky_relu(xp, x, negative_slope=0.01):
    _floating_only(xp, x, "leaky_relu")
    return xp.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


@leaky_relu.vjp
def leaky_relu_vjp(ctx, grad):
    positive = ctx.x > 0
    return (grad.where(positive, grad * ctx.negative_slope),)


@defop("elu", node="EluBackward0", saves=("x",))
def elu(xp, x, alpha=1.0):
    _floating_only(xp, x, "elu")
    return xp.where(x > 0, x, alpha * xp.expm1(xp.minimum(x, 0))).astype(x.dtype, copy=False)


@elu.vjp
def elu_vjp(ctx, grad):
    x = ctx.x
    return (grad.where(x > 0, grad * ctx.alpha * x.clamp(max=0).exp()),)


@defop("silu", node="SiluBackward0", saves=("x",))
def silu(xp, x):
    _floating_only(xp, x, "silu")
    return x * sigmoid.forward(xp, x)


@silu.vjp
def silu_vjp(ctx, grad):
    s = ctx.x.sigmoid()
    return (grad * s * (1 + ctx.x * (1 - s)),)


@defop("gelu", node="GeluBackward0", saves=("x",))
def gelu(xp, x, approximate="none"):
    if approximate not in ("none", "tanh"):   # torch checks the argument first
        raise RuntimeError("approximate argument must be either none or tanh.")
    if x.dtype.kind in "biu":   # no integer kernel; torch names it without the device suffix
        raise kernel_missing("GeluKernelImpl" if xp is np else "GeluCUDAKernelImpl", x.dtype)
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
        return (0.5 * x * (1 + xp.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * x * (1 + erf(xp, x / math.sqrt(2.0)))).astype(x.dtype, copy=False)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@gelu.vjp
def gelu_vjp(ctx, grad):
    x = ctx.x
    if ctx.approximate == "tanh":
        inner = (x + x ** 3 * 0.044715) * _SQRT_2_OVER_PI
        t = inner.tanh()
        d_inner = (1 + x * x * (3 * 0.044715)) * _SQRT_2_OVER_PI
        return (grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner),)
    cdf = 0.5 * (1 + (x * (1 / math.sqrt(2.0))).erf())
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return (grad * (cdf + x * pdf),)


@defop("erf", node="ErfBackward0", saves=("x",))
def erf_op(xp, x):
    return erf(xp, to_float(x))


@erf_op.vjp
def erf_vjp(ctx, grad):
    return (scaled((-(ctx.x ** 2)).exp(), 2 / math.sqrt(math.pi)) * grad,)


def erf(xp, x):
    """The error function on numpy (exact, via math.erf) or cupy (cupyx)."""
    return per_element(xp, x, math.erf, "erf")


@defop("softplus", node="SoftplusBackward0", saves=("x",))
def softplus(xp, x, beta=1.0, threshold=20.0):
    _floating_only(xp, x, "softplus")
    scaled = x * beta
    soft = xp.log1p(xp.exp(-xp.abs(scaled))) + xp.maximum(scaled, 0)
    return xp.where(scaled > threshold, x, soft / beta).astype(x.dtype, copy=False)


@softplus.vjp
def softplus_vjp(ctx, grad):
    scaled = ctx.x * ctx.beta
    return (grad.where(scaled > ctx.threshold, grad * scaled.sigmoid()),)


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
