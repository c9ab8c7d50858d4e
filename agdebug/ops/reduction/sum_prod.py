"""Reductions that add or multiply: sum, mean, var, std, prod, with ``dim``/``keepdim``
as torch spells them, and the helpers the other reductions share."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ...tensor import Tensor
from ..pointwise.comparison import where
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES, as_ints
from ..core.checks import dims_of
from ..core.gradients import expand_reduced, input_shape


def _axes(dim, ndim: int):
    """``dim`` as a numpy axis (None: all), with torch's range and duplicate checks."""
    axes = dims_of(dim, ndim)
    if axes is None or ndim == 0:
        return None
    seen = set()
    for a in axes:
        if a in seen:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
        seen.add(a)
    return axes


def _count(shape, dim) -> int:
    """How many elements each output of a reduction over ``dim`` summarises."""
    axes = _axes(dim, len(shape))
    picked = shape if axes is None else [shape[a] for a in axes]
    return math.prod(picked)


def _kept(t: Tensor, shape: tuple, dim, keepdim: bool) -> Tensor:
    """A reduced tensor reshaped so it broadcasts against the input ``shape``."""
    if keepdim or not shape:
        return t
    axes = _axes(dim, len(shape))
    kept = [1 if axes is None or i in axes else s for i, s in enumerate(shape)]
    return t.reshape(tuple(kept))


def _const(array, like: Tensor) -> Tensor:
    """A constant (never differentiated) tensor in ``like``'s dtype."""
    return Tensor._wrap(_xp(like).asarray(array, dtype=like._data.dtype))


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def array_mean(x, axis=None, keepdims: bool = False, dtype=None):
    """``x.mean(axis, keepdims=..., dtype=...)``, for a float32 or float64 host array as
    the sum divided by the count: numpy's own mean is that sum and that division (in float64,
    then rounded: the same bits for a count below 2**24) behind a Python layer costing some
    3 us a call. Other dtypes, an empty ``x`` and GPU arrays get numpy's (cupy's) mean."""
    if (type(x) is np.ndarray and x.dtype in _FLOATS and x.size and x.size < 2 ** 24
            and (dtype is None or dtype == x.dtype)):
        count = x.size if axis is None else math.prod([x.shape[a] for a in axis])
        return x.sum(axis=axis, keepdims=keepdims) / count
    return x.mean(axis=axis, keepdims=keepdims, dtype=dtype)


def _check_floating(x, dtype, name: str = "mean") -> None:
    if dtype is None and x.dtype.kind not in "fc":
        from ...backend import get_dtype
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {get_dtype(x.dtype)._legacy}")


def _int_as_long(x):
    # torch sums and multiplies bool and integer tensors as int64.
    return "int64" if x.dtype.kind in "biu" else None


# ----------------------------------------------------------------------------- sum, mean

@defop("sum", node="SumBackward0", sizes=SELF_SIZES,
       saved_as={"dtype": None})
def sum_all(xp, x, dtype=None):
    return x.sum(dtype=dtype if dtype is not None else _int_as_long(x))


@sum_all.vjp
def sum_all_vjp(ctx, grad):
    return (grad.expand(input_shape(ctx, 0)),)


@defop("sum_dim", node="SumBackward1", sizes=SELF_SIZES)
def sum_dim(xp, x, dim=None, keepdim=False, dtype=None):
    axes = _axes(dim, x.ndim)
    return x.sum(axis=axes, keepdims=keepdim,
                 dtype=dtype if dtype is not None else _int_as_long(x))


@sum_dim.vjp
def sum_dim_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim),)


@defop("sum_to_size", node="SumBackward1", sizes=SELF_SIZES)
def sum_to_size(xp, x, size=()):
    if size and x.shape[1:] == size and x.ndim == len(size) + 1:
        # One leading dim summed (every Linear bias's gradient); not to (): NumPy's sum of a
        # vector is a scalar, not a 0-d array.
        return x.sum(axis=0)
    lead = x.ndim - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and x.shape[lead + i] != 1)
    out = x.sum(axis=axes, keepdims=True) if axes else x
    return out.reshape(size)


@sum_to_size.vjp
def sum_to_size_vjp(ctx, grad):
    return (grad.expand(input_shape(ctx, 0)),)


@defop("mean", node="MeanBackward0", sizes=SELF_SIZES,
       saved_as={"dtype": None})
def mean_all(xp, x, dtype=None):
    _check_floating(x, dtype)
    return array_mean(x, dtype=dtype)


@mean_all.vjp
def mean_all_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (grad.expand(shape) / max(math.prod(shape), 1),)


@defop("mean_dim", node="MeanBackward1", sizes=SELF_SIZES,
       saved_as={"dim": ("dim", as_ints), "dtype": None})
def mean_dim(xp, x, dim=None, keepdim=False, dtype=None):
    _check_floating(x, dtype)
    return array_mean(x, _axes(dim, x.ndim), keepdim, dtype)


@mean_dim.vjp
def mean_dim_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    count = _count(shape, ctx.dim)
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim) / max(count, 1),)


# ----------------------------------------------------------------------------- var, std

def _dof_check(x, dim, correction, name: str) -> None:
    if x.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if _count(x.shape, dim) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=5)


def _var(xp, x, dim, correction, keepdim):
    # Too few degrees of freedom: torch's warning was given; numpy's would repeat it.
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.var(x, axis=_axes(dim, x.ndim), ddof=correction, keepdims=keepdim)


@defop("var", node="VarBackward0", saves=("x",),
       saved_as={"dim": ("dim", as_ints)})
def var(xp, x, dim=None, correction=1, keepdim=False):
    _dof_check(x, dim, correction, "var")
    return _var(xp, x, dim, correction, keepdim)


def _var_backward(grad: Tensor, x: Tensor, dim, correction, keepdim) -> Tensor:
    dof = _count(tuple(x.shape), dim) - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    axes = _axes(dim, x.ndim)
    centred = x - (x.mean(axes, keepdim=True) if axes is not None else x.mean())
    return expand_reduced(grad, tuple(x.shape), dim, keepdim) * centred * scale


@var.vjp
def var_vjp(ctx, grad):
    return (_var_backward(grad, ctx.x, ctx.dim, ctx.correction, ctx.keepdim),)


@defop("std", node="StdBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def std(xp, x, dim=None, correction=1, keepdim=False):
    _dof_check(x, dim, correction, "std")
    return xp.sqrt(_var(xp, x, dim, correction, keepdim))


@std.vjp
def std_vjp(ctx, grad):
    result = ctx.result
    zero = result._data == 0
    # d std = d var / (2 std); torch defines it as 0 where std is 0.
    safe = result + _const(zero, result)
    grad_var = (grad / (safe * 2)) * _const(~zero, result)
    return (_var_backward(grad_var, ctx.x, ctx.dim, ctx.correction, ctx.keepdim),)


# ----------------------------------------------------------------------------- prod

@defop("prod", node="ProdBackward0", saves=("x", "result"),
       saved_as={"dtype": None})
def prod_all(xp, x, dtype=None):
    return xp.prod(x, dtype=dtype if dtype is not None else _int_as_long(x))


@prod_all.vjp
def prod_all_vjp(ctx, grad):
    x = ctx.x
    if not (x._data == 0).any():
        return (grad * (ctx.result / x),)
    flat = x.reshape(-1)
    return (grad * _prod_of_others(flat, 0).reshape(tuple(x.shape)),)


@defop("prod_dim", node="ProdBackward1", saves=("x", "result"),
       saved_as={"dtype": None})
def prod_dim(xp, x, dim=0, keepdim=False, dtype=None):
    axis = _axes(dim, x.ndim)
    return xp.prod(x, axis=axis, keepdims=keepdim,
                   dtype=dtype if dtype is not None else _int_as_long(x))


@prod_dim.vjp
def prod_dim_vjp(ctx, grad):
    x = ctx.x
    shape = tuple(x.shape)
    grad = expand_reduced(grad, shape, ctx.dim, ctx.keepdim)
    if not shape:
        return (grad,)
    if not (x._data == 0).any():
        return (grad * (_kept(ctx.result, shape, ctx.dim, ctx.keepdim) / x),)
    return (grad * _prod_of_others(x, ctx.dim % x.ndim),)


def _prod_of_others(x: Tensor, dim: int) -> Tensor:
    """For each element, the product of the other elements along ``dim`` (zeros allowed).

    Written as a product (element i replaced by 1) so every order of derivative
    is exact; it costs n times the input, so it is used only when ``x`` has zeros.
    """
    shape = tuple(x.shape)
    n = shape[dim]
    expanded = x.unsqueeze(dim).expand(shape[:dim] + (n,) + shape[dim:])
    xp = _xp(x)
    eye = xp.eye(n, dtype=bool).reshape((1,) * dim + (n, n) + (1,) * (len(shape) - dim - 1))
    ones_at_self = where(1.0, expanded, condition=Tensor._wrap(eye))
    return prod_dim(ones_at_self, dim=dim + 1)


def _xp(t: Tensor):
    from ...backend import xp_of
    return xp_of(t._data)
