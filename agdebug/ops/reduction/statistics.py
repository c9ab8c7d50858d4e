"""More reductions: var_mean, std_mean, aminmax, nansum, nanmean, count_nonzero,
logcumsumexp, and the closeness tests isclose, allclose, equal.

``var_mean``/``std_mean``/``aminmax`` record one node with two differentiable outputs,
as torch does; ``nanmean`` is torch's composite (a nansum divided by a count).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import backend
from ...tensor import Tensor
from ..pointwise.comparison import where
from .signatures import NO_DIM, _correction, _np_dtype, missing_arguments
from .sum_prod import _axes, _const, _count, _var_backward
from .extremes import _evenly
from ..core.running import _unwrap
from ..core.registry import defop
from ..core.saved_names import as_ints
from ..core.checks import dims_of, kernel_missing
from ..core.gradients import expand_reduced, return_type

# ----------------------------------------------------------------------------- var_mean

def _moments(xp, x, dim, correction, keepdim, name: str):
    """``(variance, mean)``; torch's dtype check and degrees-of-freedom warning."""
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    if _count(x.shape, dim) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=6)
    axes = _axes(dim, x.ndim)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (xp.var(x, axis=axes, ddof=correction, keepdims=keepdim),
                xp.mean(x, axis=axes, keepdims=keepdim))


def _mean_backward(grad: Tensor, shape: tuple, dim) -> Tensor:
    return grad / max(_count(shape, dim), 1)


def _moments_vjp(ctx, grad_spread, grad_mean, spread_grad):
    """var_mean's and std_mean's: the spread's gradient (as var/std) plus the mean's."""
    x = ctx.x
    shape = tuple(x.shape)
    total = None
    if grad_spread is not None:
        total = spread_grad(grad_spread, ctx)
    if grad_mean is not None:
        mean_part = _mean_backward(expand_reduced(grad_mean, shape, ctx.dim, ctx.keepdim),
                                   shape, ctx.dim)
        total = mean_part if total is None else total + mean_part
    return (total,)


@defop("var_mean", node="VarMeanBackward0", outputs=2, saves=("x",),
       saved_as={"dim": ("dim", as_ints)})
def var_mean_op(xp, x, dim=None, correction=1, keepdim=False):
    return _moments(xp, x, dim, correction, keepdim, "var_mean")


@var_mean_op.vjp
def var_mean_vjp(ctx, grad_var, grad_mean):
    def var_grad(grad, ctx):
        return _var_backward(grad, ctx.x, ctx.dim, ctx.correction, ctx.keepdim)
    return _moments_vjp(ctx, grad_var, grad_mean, var_grad)


@defop("std_mean", node="StdMeanBackward0", outputs=2, saves=("x", "result0=result0"),
       saved_as={"dim": ("dim", as_ints)})
def std_mean_op(xp, x, dim=None, correction=1, keepdim=False):
    var, mean = _moments(xp, x, dim, correction, keepdim, "std_mean")
    return xp.sqrt(var), mean


@std_mean_op.vjp
def std_mean_vjp(ctx, grad_std, grad_mean):
    def std_grad(grad, ctx):
        # d std = d var / (2 std), defined as 0 where std is 0 (as torch's std_backward).
        # The std is recomputed from x with agdebug ops, so a second derivative sees it.
        std = ctx.x.var(ctx.dim, correction=ctx.correction, keepdim=ctx.keepdim).sqrt()
        zero = std._data == 0
        grad_var = (grad / ((std + _const(zero, std)) * 2)) * _const(~zero, std)
        return _var_backward(grad_var, ctx.x, ctx.dim, ctx.correction, ctx.keepdim)
    return _moments_vjp(ctx, grad_std, grad_mean, std_grad)


def _moments_function(op, name: str):
    def function(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):          # var_mean(x, False): the unbiased flag
            dim, unbiased = None, dim
        return op(input, dim=dim, correction=_correction(name, unbiased, correction),
                  keepdim=keepdim)
    function.__name__ = name
    function.__doc__ = f"torch.{name}: ``({name[:3]}, mean)`` over ``dim`` in one node."
    return function


var_mean = _moments_function(var_mean_op, "var_mean")
std_mean = _moments_function(std_mean_op, "std_mean")


# ----------------------------------------------------------------------------- aminmax

AMINMAX = return_type("aminmax", ("min", "max"))


@defop("aminmax", node="AminmaxBackward0", outputs=2,
       saves=("x", "min=result0", "max=result1"))   # torch keeps both results
def aminmax_op(xp, x, dim=None, keepdim=False):
    if dim is not None and x.ndim and x.shape[dim] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    if dim is None and x.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    axis = None if dim is None or x.ndim == 0 else dim
    low, high = xp.min(x, axis=axis, keepdims=keepdim), xp.max(x, axis=axis, keepdims=keepdim)
    if dim is None and keepdim:
        low, high = low.reshape((1,) * x.ndim), high.reshape((1,) * x.ndim)
    return low, high


@aminmax_op.vjp
def aminmax_vjp(ctx, grad_min, grad_max):
    """Each gradient split evenly between the elements equal to its extreme (as amin)."""
    x = ctx.x
    xp = backend.xp_of(x._data)
    dim = ctx.dim if x.ndim else None
    axis = None if dim is None else dim
    total = None
    for grad, pick in ((grad_min, xp.min), (grad_max, xp.max)):
        if grad is None:
            continue
        value = Tensor._wrap(xp.asarray(pick(x._data, axis=axis,
                                             keepdims=ctx.keepdim and dim is not None)))
        part = _evenly(grad.reshape(tuple(value.shape)), x, value, dim,
                       ctx.keepdim and dim is not None)
        total = part if total is None else total + part
    return (total,)


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of ``input``, over all elements or along ``dim``.

    >>> import agdebug as ag
    >>> ag.tensor([3.0, -1.0, 2.0]).aminmax()
    torch.return_types.aminmax(
    min=tensor(-1.),
    max=tensor(3.))
    """
    if dim is not None:
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
        dim = dims_of(dim, input.ndim)[0]
    return AMINMAX(*aminmax_op(input, dim=dim, keepdim=bool(keepdim)))


# ----------------------------------------------------------------------------- nansum, nanmean

@defop("nansum", node="NansumBackward0", saves=("x",),
       saved_as={"dim": ("dim", as_ints), "dtype": None})
def nansum_op(xp, x, dim=None, keepdim=False, dtype=None):
    if x.dtype.kind in "biu":   # no NaN in integers: a sum, as int64
        return xp.sum(x, axis=_axes(dim, x.ndim), keepdims=keepdim, dtype=dtype or np.int64)
    return xp.nansum(x, axis=_axes(dim, x.ndim), keepdims=keepdim, dtype=dtype)


@nansum_op.vjp
def nansum_vjp(ctx, grad):
    x = ctx.x
    grad = grad.to(x.dtype) if grad.dtype != x.dtype else grad
    expanded = expand_reduced(grad, tuple(x.shape), ctx.dim, ctx.keepdim)
    return (expanded * _const(~backend.xp_of(x._data).isnan(x._data), x),)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the elements, NaN counted as zero (integers sum as int64)."""
    return nansum_op(input, dim=dim, keepdim=keepdim, dtype=_np_dtype(dtype))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the non-NaN elements: torch's nansum divided by a count (DivBackward0).

    >>> import agdebug as ag
    >>> ag.tensor([1.0, float("nan"), 3.0]).nanmean()
    tensor(2.)
    """
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {backend.get_dtype(input._data.dtype)._legacy}")
    count = count_nonzero_op(input.isnan().logical_not(), dim=dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


# ----------------------------------------------------------------------------- count_nonzero

@defop("count_nonzero", node="NotDifferentiable", differentiable=False)
def count_nonzero_op(xp, x, dim=None, keepdim=False):
    axes = _axes(dim, x.ndim)
    counts = xp.asarray(xp.count_nonzero(x, axis=axes), dtype=np.int64)
    if keepdim:   # (CuPy's count_nonzero has no ``keepdims``)
        counts = counts.reshape([1 if axes is None or d in axes else n
                                 for d, n in enumerate(x.shape)])
    return counts


def count_nonzero(input, dim=None):
    """The number of non-zero elements, over ``dim`` (an int or a tuple); int64."""
    return count_nonzero_op(input, dim=dim)


# ----------------------------------------------------------------------------- logcumsumexp

@defop("logcumsumexp", node="LogcumsumexpBackward0", saves=("x", "result"))
def logcumsumexp_op(xp, x, dim=0):
    if x.dtype.kind not in "fc":
        raise kernel_missing("logcumsumexp_out_cpu", x.dtype)
    if x.ndim == 0 or x.size == 0:
        return x.copy()
    if xp is np:
        return np.logaddexp.accumulate(x, axis=dim)
    top = xp.max(x, axis=dim, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)
    return xp.log(xp.cumsum(xp.exp(x - top), axis=dim)) + top


@logcumsumexp_op.vjp
def logcumsumexp_vjp(ctx, grad):
    """d out_j / d x_i = exp(x_i - out_j) for j >= i (at most 1, so no overflow).

    Written as an (n, n) weighted sum with agdebug ops, so it is differentiable again;
    it costs n times the input.
    """
    x, result, dim = ctx.x, ctx.result, ctx.dim
    if not x.shape or not x.numel():
        return (grad,)
    n = x.shape[dim]
    gap = x.unsqueeze(dim + 1) - result.unsqueeze(dim)              # [.., i, j, ..]
    xp = backend.xp_of(x._data)
    later = xp.triu(xp.ones((n, n), dtype=bool)).reshape(
        (1,) * dim + (n, n) + (1,) * (x.ndim - dim - 1))            # j >= i
    weights = where(gap, -math.inf, condition=Tensor._wrap(later)).exp()
    return ((grad.unsqueeze(dim) * weights).sum(dim + 1),)


def logcumsumexp(input, dim=NO_DIM):
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow."""
    if dim is NO_DIM:
        raise missing_arguments("logcumsumexp", "dim")
    return logcumsumexp_op(input, dim=dims_of(dim, input.ndim)[0])


# ----------------------------------------------------------------------------- isclose

@defop("isclose", node="NotDifferentiable", differentiable=False, broadcasts=True)
def isclose_op(xp, x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    close = x == y
    if x.dtype.kind in "fc" and equal_nan:
        close = close | (xp.isnan(x) & xp.isnan(y))
    if x.dtype.kind in "biu":   # torch computes the tolerance of integers in float32
        x, y = x.astype(np.float32), y.astype(np.float32)
    dtype = x.dtype.type
    with np.errstate(invalid="ignore", over="ignore"):
        allowed = dtype(atol) + xp.abs(dtype(rtol) * y)
        actual = xp.abs(x - y)
    return close | (xp.isfinite(actual) & (actual <= allowed))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (bool; same dtypes only).

    >>> import agdebug as ag
    >>> ag.isclose(ag.tensor([1.0, 2.0]), ag.tensor([1.0 + 1e-7, 2.1]))
    tensor([ True, False])
    """
    if not isinstance(other, Tensor):
        raise TypeError("isclose(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    if input._data.dtype != other._data.dtype:
        names = (backend.get_dtype(t._data.dtype)._legacy for t in (input, other))
        raise RuntimeError("{} did not match {}".format(*names))
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    return isclose_op(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements (NaN is never equal)."""
    arrays = _unwrap((input, other))[0]
    if arrays[0].shape != arrays[1].shape:
        return False
    return bool((arrays[0] == arrays[1]).all())


FUNCTIONS = {"var_mean": var_mean, "std_mean": std_mean, "aminmax": aminmax,
             "nansum": nansum, "nanmean": nanmean, "count_nonzero": count_nonzero,
             "logcumsumexp": logcumsumexp, "isclose": isclose, "allclose": allclose,
             "equal": equal}
# torch has no Tensor.var_mean / Tensor.std_mean
METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("var_mean", "std_mean")}
