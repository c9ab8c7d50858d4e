"""Reductions: sum, mean, var, prod, max, norm... with ``dim``/``keepdim`` as torch spells them.

Derivatives are written with Tensor ops, so ``create_graph=True`` differentiates
them again. Where a reduction selects elements (max, amax, an inf-norm), the
selection is a constant mask: torch splits the gradient evenly between ties for
full reductions and ``amax``, and sends it to the returned index for ``max(dim)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..tensor import Tensor
from .pointwise.comparison import where
from .core.registry import defop
from .core.saved_names import SELF_SIZES, as_ints
from .core.checks import dims_of
from .core.gradients import expand_reduced, input_shape, return_type


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


def _check_floating(x, dtype, name: str = "mean") -> None:
    if dtype is None and x.dtype.kind not in "fc":
        from ..backend import get_dtype
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
    return xp.sum(x, dtype=dtype if dtype is not None else _int_as_long(x))


@sum_all.vjp
def sum_all_vjp(ctx, grad):
    return (grad.expand(input_shape(ctx, 0)),)


@defop("sum_dim", node="SumBackward1", sizes=SELF_SIZES)
def sum_dim(xp, x, dim=None, keepdim=False, dtype=None):
    axes = _axes(dim, x.ndim)
    return xp.sum(x, axis=axes, keepdims=keepdim,
                  dtype=dtype if dtype is not None else _int_as_long(x))


@sum_dim.vjp
def sum_dim_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim),)


@defop("sum_to_size", node="SumBackward1", sizes=SELF_SIZES)
def sum_to_size(xp, x, size=()):
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
    return xp.mean(x, dtype=dtype)


@mean_all.vjp
def mean_all_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (grad.expand(shape) / max(math.prod(shape), 1),)


@defop("mean_dim", node="MeanBackward1", sizes=SELF_SIZES,
       saved_as={"dim": ("dim", as_ints), "dtype": None})
def mean_dim(xp, x, dim=None, keepdim=False, dtype=None):
    _check_floating(x, dtype)
    return xp.mean(x, axis=_axes(dim, x.ndim), keepdims=keepdim, dtype=dtype)


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
    from ..backend import xp_of
    return xp_of(t._data)


# ----------------------------------------------------------------------------- max, min

def _check_nonempty(x, name: str, dim=None) -> None:
    if dim is None and x.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    if dim is not None and x.ndim and x.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _selected(x: Tensor, value: Tensor):
    """Where ``x`` equals the selected ``value`` (NaN selects NaN, as torch's max does)."""
    data, chosen, xp = x._data, value._data, _xp(x)
    return (data == chosen) | (xp.isnan(data) & xp.isnan(chosen))


def _evenly(grad: Tensor, x: Tensor, value: Tensor, dim, keepdim: bool) -> Tensor:
    """The gradient of a selecting reduction, split evenly between ties."""
    shape = tuple(x.shape)
    value = _kept(value, shape, dim, keepdim)
    mask = _selected(x, value)
    count = mask.sum(axis=_axes(dim, len(shape)), keepdims=True)
    return expand_reduced(grad, shape, dim, keepdim) * _const(mask / count, grad)


@defop("max", node="MaxBackward1", saves=("x", "result"))
def max_all(xp, x):
    _check_nonempty(x, "max")
    return xp.max(x)


@max_all.vjp
def max_all_vjp(ctx, grad):
    return (_evenly(grad, ctx.x, ctx.result, None, False),)


@defop("min", node="MinBackward1", saves=("x", "result"))
def min_all(xp, x):
    _check_nonempty(x, "min")
    return xp.min(x)


@min_all.vjp
def min_all_vjp(ctx, grad):
    return (_evenly(grad, ctx.x, ctx.result, None, False),)


def _arg_select(xp, x, dim: int, keepdim: bool, largest: bool, name: str):
    """(values, indices) of max/min along one dim; indices are also saved (keepdim form)."""
    axis = _axes(dim, x.ndim)
    _check_nonempty(x, name, dim % max(x.ndim, 1))
    if axis is None:   # a 0-d tensor: itself, at index 0
        return x.copy(), xp.zeros((), dtype=np.int64)
    pick = xp.argmax if largest else xp.argmin
    index = pick(x, axis=axis[0], keepdims=True).astype(np.int64)
    values = xp.take_along_axis(x, index, axis=axis[0])
    if not keepdim:
        return values.squeeze(axis[0]), index.squeeze(axis[0])
    return values, index


def _to_index(grad: Tensor, ctx) -> Tensor:
    """Send each gradient to the index its value came from (a constant one-hot mask)."""
    shape = input_shape(ctx, 0)
    grad = expand_reduced(grad, shape, ctx.dim, ctx.keepdim)
    if not shape:
        return grad
    index = ctx.indices._data   # as returned: squeezed unless keepdim, as torch saves it
    axis = ctx.dim % len(shape)
    xp = _xp(ctx.indices)
    if not ctx.keepdim:
        index = xp.expand_dims(index, axis)
    positions = xp.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return grad * _const(positions == index, grad)


@defop("max_dim", node="MaxBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("indices=result1",), sizes=SELF_SIZES)
def max_dim(xp, x, dim=0, keepdim=False):
    return _arg_select(xp, x, dim, keepdim, True, "max")


@max_dim.vjp
def max_dim_vjp(ctx, grad, grad_indices):
    return (_to_index(grad, ctx),)


@defop("min_dim", node="MinBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("indices=result1",), sizes=SELF_SIZES)
def min_dim(xp, x, dim=0, keepdim=False):
    return _arg_select(xp, x, dim, keepdim, False, "min")


@min_dim.vjp
def min_dim_vjp(ctx, grad, grad_indices):
    return (_to_index(grad, ctx),)


@defop("amax", node="AmaxBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def amax(xp, x, dim=(), keepdim=False):
    axes = _axes(dim, x.ndim)
    if axes is None:
        _check_nonempty(x, "amax")
    else:   # torch names the first empty reduced dim (NumPy: a ValueError)
        for d in sorted(axes):
            _check_nonempty(x, "amax", d)
    return xp.max(x, axis=axes, keepdims=keepdim)


@amax.vjp
def amax_vjp(ctx, grad):
    """amax's and amin's: the gradient split evenly between the tied extreme values."""
    return (_evenly(grad, ctx.x, ctx.result, ctx.dim, ctx.keepdim),)


@defop("amin", node="AminBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def amin(xp, x, dim=(), keepdim=False):
    axes = _axes(dim, x.ndim)
    if axes is None:
        _check_nonempty(x, "amin")
    else:   # torch names the first empty reduced dim (NumPy: a ValueError)
        for d in sorted(axes):
            _check_nonempty(x, "amin", d)
    return xp.min(x, axis=axes, keepdims=keepdim)


amin.vjp(amax_vjp)


def _arg(xp, x, dim, keepdim, largest: bool, name: str):
    if x.dtype == np.bool_:   # NumPy picks the first True; torch has no bool kernel
        raise RuntimeError(f"{name}(): does not support bool input")
    pick = xp.argmax if largest else xp.argmin
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        index = pick(x.reshape(-1))
        return index.reshape((1,) * x.ndim).astype(np.int64) if keepdim else index
    axis = _axes(dim, x.ndim)
    if axis is None:
        return xp.zeros((), dtype=np.int64)
    _check_nonempty(x, name, axis[0])
    return pick(x, axis=axis[0], keepdims=keepdim).astype(np.int64)


@defop("argmax", node="ArgmaxBackward0", differentiable=False)
def argmax(xp, x, dim=None, keepdim=False):
    return _arg(xp, x, dim, keepdim, True, "argmax")


@defop("argmin", node="ArgminBackward0", differentiable=False)
def argmin(xp, x, dim=None, keepdim=False):
    return _arg(xp, x, dim, keepdim, False, "argmin")


# ----------------------------------------------------------------------------- all, any

@defop("all", node="AllBackward0", differentiable=False)
def all_(xp, x, dim=None, keepdim=False):
    return _truth(xp, xp.all, x, dim, keepdim)


@defop("any", node="AnyBackward0", differentiable=False)
def any_(xp, x, dim=None, keepdim=False):
    return _truth(xp, xp.any, x, dim, keepdim)


def _truth(xp, reduce, x, dim, keepdim: bool):
    """torch's all/any: bool, except uint8 in, uint8 out (its legacy); NaN counts as true."""
    out = xp.asarray(reduce(x, axis=_axes(dim, x.ndim), keepdims=keepdim))
    return out.astype(np.uint8 if x.dtype == np.uint8 else np.bool_, copy=False)


# ----------------------------------------------------------------------------- logsumexp, norm

@defop("logsumexp", node="LogsumexpBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def logsumexp(xp, x, dim=(), keepdim=False):
    if x.dtype.kind in "biu":
        x = x.astype(np.float32)
    axes = _axes(dim, x.ndim)
    if x.size == 0:
        return xp.log(xp.sum(xp.exp(x), axis=axes, keepdims=keepdim))
    top = xp.max(x, axis=axes, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)     # all -inf (or inf) slices: no shift
    with np.errstate(divide="ignore"):     # log(0) = -inf is the answer for all -inf
        out = xp.log(xp.sum(xp.exp(x - top), axis=axes, keepdims=True)) + top
    return out if keepdim else out.reshape(xp.sum(x, axis=axes).shape)


@logsumexp.vjp
def logsumexp_vjp(ctx, grad):
    x = ctx.x
    shape = tuple(x.shape)
    weights = (x - _kept(ctx.result, shape, ctx.dim, ctx.keepdim)).exp()
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim) * weights,)


@defop("norm", node="LinalgVectorNormBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def norm(xp, x, ord=2.0, dim=None, keepdim=False):
    if x.dtype.kind not in "fc":
        from ..backend import get_dtype
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {get_dtype(x.dtype)._legacy}")
    axes = _axes(dim, x.ndim)
    if abs(ord) == math.inf:
        check_inf_norm(ord, x.shape, dim if axes is not None else None)
    size = abs(x)
    if ord == math.inf:
        return xp.max(size, axis=axes, keepdims=keepdim)
    if ord == -math.inf:
        return xp.min(size, axis=axes, keepdims=keepdim)
    if ord == 0:
        return xp.sum(size != 0, axis=axes, keepdims=keepdim).astype(x.dtype)
    total = xp.sum(size ** ord, axis=axes, keepdims=keepdim)
    return xp.sqrt(total) if ord == 2 else total ** (1.0 / ord)


def check_inf_norm(ord: float, shape: tuple, dim) -> None:
    """torch refuses the inf and -inf norms (a max, a min) over an empty dimension, or of an
    empty tensor (``dim`` None): they have no identity."""
    if dim is None:
        if math.prod(shape) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                               "tensor because the operation does not have an identity")
        return
    for d in dim if isinstance(dim, (tuple, list)) else (dim,):
        if shape[d] == 0:   # (torch's words, without the space after the dimension)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the "
                               f"dimension {d}because this dimension is empty and the operation "
                               "does not have an identity")


@norm.vjp
def norm_vjp(ctx, grad):
    return (norm_backward(grad, ctx.x, ctx.ord, ctx.result, ctx.dim, ctx.keepdim),)


def norm_backward(grad, x, p, result, dim, keepdim: bool):
    """The gradient for ``x`` of ``result``, its ``p``-norm over ``dim`` (torch's
    ``norm_backward``; renorm's derivative uses it too)."""
    shape = tuple(x.shape)
    if p == 0:
        return expand_reduced(grad, shape, dim, keepdim) * 0
    if math.isinf(p):
        return _evenly(grad, x.abs(), result, dim, keepdim) * x.sign()
    grad = expand_reduced(grad, shape, dim, keepdim)
    if p == 1:
        return grad * x.sign()
    result = _kept(result, shape, dim, keepdim)
    safe = result + _const(result._data == 0, result)   # x is 0 wherever the norm is
    if p == 2:
        return grad * x / safe
    if p < 1:   # |x| ** (p - 1) is infinite at 0, where torch takes 0
        scaled = x.sign() * (x.abs() ** (p - 1)).masked_fill(x.detach() == 0, 0)
        return scaled * grad * result ** (1 - p)
    return grad * x.sign() * x.abs() ** (p - 1) / safe ** (p - 1)


# ----------------------------------------------------------------------------- cumsum

def _cumulative(scan, x, dim, dtype):
    """cumsum's and cumprod's forward: integers and bools accumulate as int64, as in torch."""
    axis = _axes(dim, x.ndim)
    if axis is None:   # a 0-d tensor: itself, in the result dtype
        return x.astype(dtype or _int_as_long(x) or x.dtype, copy=True)
    return scan(x, axis=axis[0], dtype=dtype if dtype is not None else _int_as_long(x))


@defop("cumsum", node="CumsumBackward0",
       saved_as={"dtype": None})
def cumsum(xp, x, dim=0, dtype=None):
    return _cumulative(xp.cumsum, x, dim, dtype)


@cumsum.vjp
def cumsum_vjp(ctx, grad):
    if not input_shape(ctx, 0):
        return (grad,)
    return (grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim),)


# ----------------------------------------------------------------------------- cumprod

@defop("cumprod", node="CumprodBackward0", saves=("x", "result"),
       saved_as={"dtype": None})
def cumprod(xp, x, dim=0, dtype=None):
    return _cumulative(xp.cumprod, x, dim, dtype)


@cumprod.vjp
def cumprod_vjp(ctx, grad):
    """d out_j / d x_i = out_j / x_i for j >= i: a reversed cumsum, divided by x.

    With a zero in ``x`` that division is 0/0, so the exact products of the others are
    used instead (as torch does); they cost n times the input, so only then.
    """
    x = ctx.x
    if not x.shape:
        return (grad,)
    dim = ctx.dim % x.ndim
    if not (x._data == 0).any():
        summed = (grad * ctx.result).flip(dim).cumsum(dim).flip(dim)
        return (summed / x,)
    return (_cumprod_with_zeros(grad, x, dim),)


def _cumprod_with_zeros(grad: Tensor, x: Tensor, dim: int) -> Tensor:
    """sum over j >= i of grad_j * prod(x_k, k <= j, k != i), written with cumprod itself
    (x_i replaced by 1 in row i) so every order of derivative is exact."""
    shape = tuple(x.shape)
    n = shape[dim]
    after = (1,) * (len(shape) - dim - 1)
    expanded = x.unsqueeze(dim).expand(shape[:dim] + (n,) + shape[dim:])   # [.., i, k, ..]
    xp = _xp(x)
    eye = xp.eye(n, dtype=bool).reshape((1,) * dim + (n, n) + after)
    others = cumprod(where(1.0, expanded, condition=Tensor._wrap(eye)), dim=dim + 1)
    later = xp.triu(xp.ones((n, n), dtype=bool)).reshape((1,) * dim + (n, n) + after)  # j >= i
    return (grad.unsqueeze(dim) * others * _const(later, grad)).sum(dim + 1)


# ----------------------------------------------------------------------------- signatures

# torch.return_types of the (values, indices) results; selection.py adds its own names
values_indices = {name: return_type(name, ("values", "indices"))
                  for name in ("max", "min", "sort", "topk")}


def _correction(name: str, unbiased, correction) -> int:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both "
                        "unbiased and correction")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _variance(op, name):
    def method(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):          # x.var(False): the unbiased flag, not a dim
            dim, unbiased = None, dim
        return op(input, dim=dim, correction=_correction(name, unbiased, correction),
                  keepdim=keepdim)
    method.__name__ = name
    return method


def prod(input, dim=None, keepdim=False, *, dtype=None):
    np_dtype = _np_dtype(dtype)
    if dim is None:
        return prod_all(input, dtype=np_dtype)
    if not isinstance(dim, int):
        raise TypeError(f"prod() received an invalid combination of arguments - got "
                        f"(dim={type(dim).__name__}), but expected one of: (int dim)")
    return prod_dim(input, dim=dim, keepdim=keepdim, dtype=np_dtype)


def _selecting(all_op, dim_op, elementwise_name: str, name: str):
    """torch.max / torch.min: all elements, along a dim (values, indices), or elementwise."""
    def method(input, dim=None, keepdim=False, *, other=None):
        if isinstance(dim, Tensor) or other is not None:
            from .pointwise import comparison
            return getattr(comparison, elementwise_name)(input, other if other is not None
                                                         else dim)
        if dim is None:
            return all_op(input)
        return values_indices[name](*dim_op(input, dim=dim, keepdim=keepdim))
    method.__name__ = name
    return method


def _extreme(op, name):
    def method(input, dim=(), keepdim=False):
        return op(input, dim=dim, keepdim=keepdim)
    method.__name__ = name
    return method


def _over_dim(op, name):
    def method(input, dim=None, keepdim=False):
        return op(input, dim=dim, keepdim=keepdim)
    method.__name__ = name
    return method


def missing_arguments(name: str, *missing: str) -> TypeError:
    """torch's TypeError for required arguments left out (its parser's words, grammar and
    quotes: ``cumsum() missing 1 required positional arguments: "dim"``)."""
    if len(missing) == 1:
        return TypeError(f'{name}() missing 1 required positional arguments: "{missing[0]}"')
    return TypeError(f"{name}() missing {len(missing)} required positional argument: "
                     + ", ".join(f'"{m}"' for m in missing))


NO_DIM = object()   # a required ``dim`` left out: torch's TypeError, not Python's


def logsumexp_(input, dim=NO_DIM, keepdim=False):
    if dim is NO_DIM:
        raise missing_arguments("logsumexp", "dim")
    return logsumexp(input, dim=dim, keepdim=keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm."""
    if dtype is not None:
        x = x.to(dtype)
    return norm(x, ord=float(ord), dim=dim, keepdim=keepdim)


def norm_(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``x.norm()`` / ``torch.norm``: vector norms (``'fro'`` is the 2-norm)."""
    if p == "fro":
        p = 2
    elif isinstance(p, str):
        raise RuntimeError(f"agdebug supports vector norms only (p a number or 'fro'), got "
                           f"p={p!r}")
    return vector_norm(input, p, dim=dim, keepdim=keepdim, dtype=dtype)


def _scan_signature(op, name: str):
    """``torch.cumsum(input, dim, *, dtype=None)`` and cumprod's: ``dim`` is required."""
    def method(input, dim=NO_DIM, *, dtype=None):
        if dim is NO_DIM:
            raise missing_arguments(name, "dim")
        return op(input, dim=dim, dtype=_np_dtype(dtype))
    method.__name__ = name
    return method


def _np_dtype(dtype):
    if dtype is None:
        return None
    from ..backend import to_numpy_dtype
    return to_numpy_dtype(dtype)


FUNCTIONS = {
    "var": _variance(var, "var"), "std": _variance(std, "std"), "prod": prod,
    "max": _selecting(max_all, max_dim, "maximum", "max"),
    "min": _selecting(min_all, min_dim, "minimum", "min"),
    "amax": _extreme(amax, "amax"), "amin": _extreme(amin, "amin"),
    "argmax": _over_dim(argmax, "argmax"), "argmin": _over_dim(argmin, "argmin"),
    "all": _over_dim(all_, "all"), "any": _over_dim(any_, "any"),
    "logsumexp": logsumexp_, "norm": norm_, "cumsum": _scan_signature(cumsum, "cumsum"),
    "cumprod": _scan_signature(cumprod, "cumprod"),
}
METHODS = dict(FUNCTIONS)
