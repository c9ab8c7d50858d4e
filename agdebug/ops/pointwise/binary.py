"""Binary and ternary pointwise math: hypot, logaddexp, fmod, copysign, xlogy, heaviside,
fmax/fmin, clamp_min/clamp_max, lerp, addcmul, addcdiv.

Where torch has a Tensor and a Scalar overload the two are separate nodes
(``FmodBackward0`` for a number, ``FmodBackward1`` for a tensor): one forward, two ops.
Operands are promoted as torch promotes them; derivatives follow ``derivatives.yaml``,
including its choices at special points (fmax ties go to ``self``, xlogy's ``self``
gradient is 0 where ``self`` is 0).
"""

from __future__ import annotations

import functools

import numpy as np

from ... import backend
from ...backend import cpp_name
from . import comparison, arithmetic as ew
from .comparison import _not_implemented
from .promotion import checked, promote, to_float
from ..core.inplace import can_cast
from ..core.registry import defop
from ..core.gradients import needs, zeros_grad


def _floating_result(xp, name: str, x, y):
    """Promoted operands of an op with floating kernels only (``hypot_cpu`` for Long)."""
    x, y = promote(x, y)
    dt = x.dtype if hasattr(x, "dtype") else y.dtype
    if dt.kind in "biu":
        _not_implemented(xp, name, dt)
    return x, y


def _both(ctx, grad_x, grad_y):
    """(grad_x(), grad_y()), each computed only if its input needs a gradient."""
    return (grad_x() if needs(ctx, 0) else None), (grad_y() if needs(ctx, 1) else None)


# ----------------------------------------------------------------------------- float only

@defop("hypot", node="HypotBackward0", broadcasts=True, saves=("x@0", "y@1", "result"))
def hypot(xp, x, y):
    x, y = _floating_result(xp, "hypot", x, y)
    return xp.hypot(x, y)


@hypot.vjp
def hypot_vjp(ctx, grad):
    # grad * x / result: NaN at (0, 0), as in torch
    return _both(ctx, lambda: grad * ctx.x / ctx.result, lambda: grad * ctx.y / ctx.result)


@defop("logaddexp", node="LogaddexpBackward0", broadcasts=True, saves=("x", "y"))
def logaddexp(xp, x, y):
    x, y = _floating_result(xp, "logaddexp", x, y)
    return xp.logaddexp(x, y)


@logaddexp.vjp
def logaddexp_vjp(ctx, grad):
    x, y = ctx.x, ctx.y
    return _both(ctx, lambda: grad / ((y - x).exp() + 1), lambda: grad / ((x - y).exp() + 1))


@defop("logaddexp2", node="Logaddexp2Backward0", broadcasts=True, saves=("x", "y"))
def logaddexp2(xp, x, y):
    x, y = _floating_result(xp, "logaddexp2", x, y)
    return xp.logaddexp2(x, y)


@logaddexp2.vjp
def logaddexp2_vjp(ctx, grad):
    x, y = ctx.x, ctx.y
    return _both(ctx, lambda: grad / ((y - x).exp2() + 1), lambda: grad / ((x - y).exp2() + 1))


# ----------------------------------------------------------------------------- fmod, copysign

def _fmod_forward(xp, x, y):
    x, y = promote(x, y)   # a Python int wraps into an integer dtype, as in torch
    dt = x.dtype if hasattr(x, "dtype") else y.dtype
    if dt.kind == "b":
        _not_implemented(xp, "fmod", dt)
    if dt.kind in "iu" and not xp.all(y):   # NumPy gives 0; torch raises
        raise RuntimeError("ZeroDivisionError")
    return xp.fmod(x, y)


fmod_scalar = defop("fmod_scalar", node="FmodBackward0")(
    lambda xp, x, other=1.0: _fmod_forward(xp, x, other))
fmod = defop("fmod", node="FmodBackward1", broadcasts=True, saves=("x@1", "y@1"))(_fmod_forward)


@fmod_scalar.vjp
def fmod_scalar_vjp(ctx, grad):
    return (grad,)


@fmod.vjp
def fmod_vjp(ctx, grad):
    return _both(ctx, lambda: grad,
                 lambda: -grad * ctx.x.div(ctx.y, rounding_mode="trunc"))


def _copysign_forward(xp, x, y):
    x, y = promote(x, y)
    return xp.copysign(to_float(x), to_float(y))


copysign = defop("copysign", node="CopysignBackward0", broadcasts=True,
                 saves=("x@0", "result"))(_copysign_forward)
copysign_scalar = defop("copysign_scalar", node="CopysignBackward1", saves=("x", "result"))(
    lambda xp, x, other=1.0: _copysign_forward(xp, x, other))


def _copysign_self_grad(ctx, grad):
    # torch: grad * result / self, and 0 where self is 0 (either sign)
    x = ctx.x
    return grad * (ctx.result / x).where(x != 0, 0.0)


@copysign.vjp
def copysign_vjp(ctx, grad):
    return _both(ctx, lambda: _copysign_self_grad(ctx, grad),
                 lambda: zeros_grad(grad, tuple(grad.shape)))


@copysign_scalar.vjp
def copysign_scalar_vjp(ctx, grad):
    return (_copysign_self_grad(ctx, grad),)


# ----------------------------------------------------------------------------- xlogy

def _xlogy_forward(xp, x, y):
    """x * log(y), 0 where x is 0 (unless y is NaN)."""
    x, y = promote(x, y)
    x, y = to_float(x), to_float(y)
    if not hasattr(y, "dtype"):   # a number: its log in x's dtype (NumPy's would be float64)
        y = xp.asarray(y, dtype=x.dtype)
    product = x * xp.log(y)
    return xp.where((x == 0) & ~xp.isnan(y), 0, product).astype(product.dtype, copy=False)


# torch's three overloads: two tensors, a number as ``self``, a number as ``other``.
xlogy = defop("xlogy", node="XlogyBackward0", broadcasts=True, saves=("x", "y"))(_xlogy_forward)
xlogy_self_scalar = defop("xlogy_self_scalar", node="XlogyBackward1", saves=("x", "y"))(
    _xlogy_forward)
xlogy_other_scalar = defop("xlogy_other_scalar", node="XlogyBackward2", saves=("x",))(
    lambda xp, x, other=1.0: _xlogy_forward(xp, x, other))


def _xlogy_self_grad(grad, x, y):
    # torch: xlogy(grad, other), masked to 0 where self == 0 and other <= 0 (so at
    # self == 0 the gradient is log(other) where that is finite)
    if isinstance(y, (int, float)):
        scaled = xlogy_other_scalar(grad, other=y)
        return scaled.masked_fill(x == 0, 0.0) if y <= 0 else scaled
    return xlogy(grad, y).masked_fill((x == 0).logical_and(y <= 0), 0.0)


@xlogy.vjp
def xlogy_vjp(ctx, grad):
    x, y = ctx.x, ctx.y
    return _both(ctx, lambda: _xlogy_self_grad(grad, x, y), lambda: grad * x / y)


@xlogy_self_scalar.vjp
def xlogy_self_scalar_vjp(ctx, grad):
    return None, grad * ctx.x / ctx.y


@xlogy_other_scalar.vjp
def xlogy_other_scalar_vjp(ctx, grad):
    return (_xlogy_self_grad(grad, ctx.x, ctx.other),)


# ----------------------------------------------------------------------------- heaviside

@defop("heaviside", node="NotImplemented", broadcasts=True)
def heaviside(xp, x, values):
    if x.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    # torch's kernel: values where x == 0, else (x > 0) (so NaN gives 0, not NaN)
    return xp.where(x == 0, values, x > 0).astype(x.dtype, copy=False)


@heaviside.vjp
def heaviside_vjp(ctx, grad):
    raise RuntimeError("derivative for aten::heaviside is not implemented")


# ----------------------------------------------------------------------------- fmax, fmin

@defop("fmax", node="FmaxBackward0", broadcasts=True, saves=("x", "y"))
def fmax(xp, x, y):
    x, y = promote(x, y)
    return xp.fmax(x, y)


@fmax.vjp
def fmax_vjp(ctx, grad):
    # torch: self gets the gradient where self >= other or other is NaN (ties go to self)
    return _fmax_fmin_grads(ctx, grad, ctx.x >= ctx.y)


@defop("fmin", node="FminBackward0", broadcasts=True, saves=("x", "y"))
def fmin(xp, x, y):
    x, y = promote(x, y)
    return xp.fmin(x, y)


@fmin.vjp
def fmin_vjp(ctx, grad):
    return _fmax_fmin_grads(ctx, grad, ctx.x <= ctx.y)


def _fmax_fmin_grads(ctx, grad, x_wins):
    x_takes = x_wins.logical_or(ctx.y.isnan())
    return _both(ctx, lambda: grad.where(x_takes, 0.0),
                 lambda: grad.where(x_takes.logical_not(), 0.0))


# ----------------------------------------------------------------------------- clamp_min/max

@defop("clamp_min", node="ClampMinBackward0", saves=("x",))
def clamp_min(xp, x, min=0.0):
    return comparison.clamp.forward(xp, x, min=min)


@clamp_min.vjp
def clamp_min_vjp(ctx, grad):
    return (grad.where(ctx.x >= ctx.min, 0.0),)


@defop("clamp_max", node="ClampMaxBackward0", saves=("x",))
def clamp_max(xp, x, max=0.0):
    return comparison.clamp.forward(xp, x, max=max)


@clamp_max.vjp
def clamp_max_vjp(ctx, grad):
    return (grad.where(ctx.x <= ctx.max, 0.0),)


@defop("clamp_min_tensor", node="ClampMinBackward1", broadcasts=True, saves=("x", "min"))
def clamp_min_tensor(xp, x, min):
    return comparison.clamp_tensor.forward(xp, x, min, None)


@clamp_min_tensor.vjp
def clamp_min_tensor_vjp(ctx, grad):
    x, lo = ctx.x, ctx.min
    return _both(ctx, lambda: grad.where(x >= lo, 0.0), lambda: grad.where(x < lo, 0.0))


@defop("clamp_max_tensor", node="ClampMaxBackward1", broadcasts=True, saves=("x", "max"))
def clamp_max_tensor(xp, x, max):
    return comparison.clamp_tensor.forward(xp, x, None, max)


@clamp_max_tensor.vjp
def clamp_max_tensor_vjp(ctx, grad):
    x, hi = ctx.x, ctx.max
    return _both(ctx, lambda: grad.where(x <= hi, 0.0), lambda: grad.where(x > hi, 0.0))


def check_bound_cast(x, *bounds) -> None:
    """``int_tensor.clamp_min_(0.5)``: torch's cast check for number bounds, which names
    the target by its C++ type (``long int``) where other in-place ops say ``Long``."""
    data = x._data
    dt = data.dtype
    for b in bounds:
        if b is not None:
            dt = backend.result_dtype(np.empty(1, dt), b, data.ndim, -1)
    if not can_cast(dt, data.dtype):
        raise RuntimeError(f"result type {backend.get_dtype(dt)._legacy} can't be cast to the "
                           f"desired output type {cpp_name(data.dtype)}")


# ----------------------------------------------------------------------------- lerp


def _check_lerp(xp, x, end, weight, kernel: str) -> None:
    """torch's lerp takes no promotion: every tensor has ``self``'s (floating) dtype."""
    for name, other in (("end", end), ("weight", weight)):
        if hasattr(other, "dtype") and other.dtype != x.dtype:
            raise RuntimeError(f"expected dtype {cpp_name(x.dtype)} for `{name}` but got dtype "
                               f"{cpp_name(other.dtype)}")
    if x.dtype.kind in "biu":
        raise ew.kernel_missing(kernel, x.dtype)


def _lerp(xp, x, end, weight):
    # torch's formula, exact at both ends: from self below |w| = 0.5, from end above
    low = abs(weight) < 0.5
    near_self = x + weight * (end - x)
    near_end = end - (end - x) * (1 - weight)
    if isinstance(weight, float):
        return near_self if low else near_end
    return xp.where(low, near_self, near_end)


@defop("lerp", node="LerpBackward0", broadcasts=True)
def lerp(xp, x, end, weight=0.5):
    _check_lerp(xp, x, end, None, "lerp_kernel_scalar")
    return _lerp(xp, x, end, float(weight)).astype(x.dtype, copy=False)


@lerp.vjp
def lerp_vjp(ctx, grad):
    w = ctx.weight
    return _both(ctx, lambda: grad * (1 - w), lambda: grad * w)


@defop("lerp_tensor", node="LerpBackward1", broadcasts=True,
       saves=("x@2", "end@2", "weight"))
def lerp_tensor(xp, x, end, weight):
    _check_lerp(xp, x, end, weight, "lerp_kernel_tensor")
    return _lerp(xp, x, end, weight)


@lerp_tensor.vjp
def lerp_tensor_vjp(ctx, grad):
    x, end, w = ctx.x, ctx.end, ctx.weight
    grad_w = grad * (end - x) if needs(ctx, 2) else None
    return (*_both(ctx, lambda: grad * (1 - w), lambda: grad * w), grad_w)


# ----------------------------------------------------------------------------- addcmul/addcdiv

def _promote3(x, a, b):
    """Three tensors cast to the dtype torch's TensorIterator gives them: dimensioned
    tensors promote together, 0-d ones only lift the category (as ``result_dtype``)."""
    arrays = (x, a, b)
    dims = [t.dtype for t in arrays if t.ndim]
    zeros = [t.dtype for t in arrays if not t.ndim]
    dt = functools.reduce(backend.promote_types, dims or zeros)
    if dims and zeros:
        zero = functools.reduce(backend.promote_types, zeros)
        dt = backend.result_dtype(np.empty(1, dt), np.empty((), zero), 1, 0)
    return tuple(t.astype(dt, copy=False) for t in arrays)


def _value(value, dt):
    """``value`` as torch converts it to the result dtype: truncated for integers."""
    if dt.kind in "iu":
        return checked(int(value), dt)
    return dt.type(value)


@defop("addcmul", node="AddcmulBackward0", broadcasts=True, saves=("tensor1@2", "tensor2@1"))
def addcmul(xp, x, tensor1, tensor2, value=1):
    x, tensor1, tensor2 = _promote3(x, tensor1, tensor2)
    if x.dtype.kind == "b":   # (torch's CPU kernel is the ``out`` variant's)
        raise ew.kernel_missing("addcmul_cpu_out" if xp is np else "addcmul_cuda", x.dtype)
    return x + _value(value, x.dtype) * tensor1 * tensor2


@addcmul.vjp
def addcmul_vjp(ctx, grad):
    value = ctx.value
    grad_a = grad * (ctx.tensor2 * value) if needs(ctx, 1) else None
    grad_b = grad * (ctx.tensor1 * value) if needs(ctx, 2) else None
    return grad, grad_a, grad_b


@defop("addcdiv", node="AddcdivBackward0", broadcasts=True, saves=("tensor1@2", "tensor2"))
def addcdiv(xp, x, tensor1, tensor2, value=1):
    if tensor1.dtype.kind in "biu" and tensor2.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_INTEGER)
    x, tensor1, tensor2 = _promote3(x, tensor1, tensor2)
    return x + _value(value, x.dtype) * tensor1 / tensor2


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


@addcdiv.vjp
def addcdiv_vjp(ctx, grad):
    value, b = ctx.value, ctx.tensor2
    grad_a = grad * (value / b) if needs(ctx, 1) else None
    grad_b = -grad * value * ctx.tensor1 / (b * b) if needs(ctx, 2) else None
    return grad, grad_a, grad_b

