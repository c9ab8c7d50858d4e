"""``scatter_reduce`` and ``index_reduce`` (sum, mean, prod, amax, amin), and the table of
the index-tensor functions of index_fill_copy.py, masking.py and take_put.py."""

from __future__ import annotations

import warnings

import numpy as np

from ... import backend
from ...tensor import Tensor
from ..pointwise.comparison import where
from .gather_scatter import (_along, _check_gather_args, _pad, _region, _ufunc_at, gather_op,
                             masked_fill_op, scatter_value_op)
from .subscript import _add_at
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.checks import dims_of
from ..core.gradients import input_shape, needs
from .index_fill_copy import (_const, _legacy, _size, index_copy, index_copy_, index_fill,
                              index_fill_)
from .masking import masked_scatter, masked_scatter_, masked_select
from .take_put import put, put_, take


# ----------------------------------------------------------------------------- scatter_reduce

# torch's forward also takes "max" and "min" (its legacy scatter names); its backward refuses
# them (see scatter_reduce_vjp).
_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum",
           "amin": "minimum", "max": "maximum", "min": "minimum"}


def _identity(reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dtype.kind == "f" else (True if dtype.kind == "b" else np.iinfo(dtype).max)
    low = -np.inf if dtype.kind == "f" else (False if dtype.kind == "b" else np.iinfo(dtype).min)
    return low if reduce in ("amax", "max") else big


@defop("scatter_reduce", node="ScatterReduceBackward0",
       saves=("x", "src", "index=array", "result"))
def scatter_reduce_op(xp, x, src, index=None, dim=0, reduce="sum", include_self=True):
    out = x.copy()
    key = _along(xp, index, dim)
    values = src[_region(index.shape)]
    if not include_self:
        out[key] = _identity(reduce, x.dtype)
    _ufunc_at(xp, _UFUNCS[reduce], out, key, values)
    if reduce == "mean":
        count = xp.full(x.shape, 1 if include_self else 0, dtype=np.int64)
        _add_at(xp, count, key, xp.ones(index.shape, dtype=np.int64))
        count = xp.maximum(count, 1)
        out = out // count.astype(x.dtype) if x.dtype.kind in "biu" else \
            (out / count).astype(x.dtype)
    return out


@scatter_reduce_op.vjp
def scatter_reduce_vjp(ctx, grad):
    """torch's scatter_reduce_backward, one reduction at a time."""
    reduce, dim, index = ctx.reduce, ctx.dim, ctx.index
    if reduce not in _REDUCE_GRADS:
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                           f"'amin' but got {reduce}.")
    src_shape = input_shape(ctx, 1)
    src = ctx.src[_region(index.shape)] if tuple(index.shape) != tuple(src_shape) else ctx.src
    grad_self, grad_src = _REDUCE_GRADS[reduce](ctx, grad, src)
    if not ctx.include_self:
        grad_self = scatter_value_op(grad_self, index=index, dim=dim, value=0.0)
    grad_src = _pad(grad_src, src_shape)
    return (grad_self if needs(ctx, 0) else None), (grad_src if needs(ctx, 1) else None)


def _sum_grads(ctx, grad, src):
    return grad, gather_op(grad, index=ctx.index, dim=ctx.dim)


def _mean_grads(ctx, grad, src):
    xp = backend.xp_of(grad._data)
    count = xp.full(grad.shape, 1 if ctx.include_self else 0, dtype=grad._data.dtype)
    _add_at(xp, count, _along(xp, ctx.index, ctx.dim), xp.ones(ctx.index.shape, count.dtype))
    count = xp.where(count == 0, 1, count)
    picked = xp.take_along_axis(count, ctx.index, axis=ctx.dim)
    return grad / _const(count, grad), gather_op(grad, index=ctx.index, dim=ctx.dim) / \
        _const(picked, grad)


def _extreme_grads(ctx, grad, src):
    """amax's and amin's: split evenly between self and src elements equal to the result."""
    x, result, index, dim = ctx.x, ctx.result, ctx.index, ctx.dim
    xp = backend.xp_of(x._data)
    value = xp.take_along_axis(result._data, index, axis=dim)
    self_hit, src_hit = x._data == result._data, src._data == value
    share = self_hit.astype(x._data.dtype)
    _add_at(xp, share, _along(xp, index, dim), src_hit.astype(x._data.dtype))
    spread = grad / _const(share, grad)
    return (spread * _const(self_hit, grad),
            gather_op(spread, index=index, dim=dim) * _const(src_hit, grad))


def _prod_grads(ctx, grad, src):
    """Products of the others: zeros in self or src are masked out of the division."""
    x, result, index, dim = ctx.x, ctx.result, ctx.index, ctx.dim
    xp = backend.xp_of(x._data)
    attrs = {"index": index, "dim": dim, "reduce": "prod", "include_self": ctx.include_self}
    masked_self = masked_fill_op(x, mask=x._data == 0, value=1.0)
    grad_self = grad * scatter_reduce_op(masked_self, ctx.src, **attrs) / masked_self
    src_zero = src._data == 0
    zeros = xp.zeros(x.shape, dtype=np.int64)
    _add_at(xp, zeros, _along(xp, index, dim), src_zero.astype(np.int64))
    single = src_zero & (xp.take_along_axis(zeros, index, axis=dim) == 1)
    masked_src = _pad(masked_fill_op(src, mask=single, value=1.0), tuple(ctx.src.shape)) \
        if tuple(src.shape) != tuple(ctx.src.shape) else masked_fill_op(src, mask=single,
                                                                        value=1.0)
    without = scatter_reduce_op(x, masked_src, **attrs)
    grad_src = where(gather_op(grad * without, index=index, dim=dim),
                     gather_op(grad * result, index=index, dim=dim) /
                     masked_fill_op(src, mask=src_zero, value=1.0),
                     condition=Tensor._wrap(single))
    return grad_self, grad_src


_REDUCE_GRADS = {"sum": _sum_grads, "mean": _mean_grads, "amax": _extreme_grads,
                 "amin": _extreme_grads, "prod": _prod_grads}


def _reduce_args(x: Tensor, dim, index: Tensor, src: Tensor, reduce: str) -> int:
    if reduce not in _UFUNCS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if src._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return _check_gather_args("scatter_reduce", x, dim, index, src)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with ``src`` reduced (sum, prod, mean, amax, amin) into it at ``index``.

    >>> import agdebug as ag
    >>> ag.zeros(2).scatter_reduce(0, ag.tensor([0, 0, 1]), ag.tensor([1.0, 5.0, 2.0]), "amax")
    tensor([5., 2.])
    """
    dim = _reduce_args(input, dim, index, src, reduce)
    return scatter_reduce_op(input, src, index=index._data, dim=dim, reduce=reduce,
                             include_self=bool(include_self))


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    dim = _reduce_args(self, dim, index, src, reduce)
    attrs = {"index": index._data, "dim": dim, "reduce": reduce,
             "include_self": bool(include_self)}
    return apply_inplace(scatter_reduce_op, self, (src,), attrs)


# ----------------------------------------------------------------------------- index_reduce

def _spread(xp, index, dim: int, shape: tuple):
    """index_reduce's index as scatter_reduce's: ``index[k]`` at each position k along dim."""
    view = [1] * len(shape)
    view[dim] = -1
    return xp.broadcast_to(index.reshape(view), shape)


@defop("index_reduce", node="IndexReduceBackward0",
       saves=("x", "source", "index=array", "result"))
def index_reduce_op(xp, x, source, index=None, dim=0, reduce="prod", include_self=True):
    if x.ndim == 0:   # one slot: as a 1-element vector
        return index_reduce_op.forward(xp, x.reshape(1), source.reshape(1), index.reshape(1),
                                       0, reduce, include_self).reshape(())
    spread = _spread(xp, index, dim, source.shape)
    return scatter_reduce_op.forward(xp, x, source, index=spread, dim=dim, reduce=reduce,
                                     include_self=include_self)


class _AsScatter:
    """An index_reduce node read as the scatter_reduce node the derivatives expect."""

    def __init__(self, ctx, grad):
        xp = backend.xp_of(grad._data)
        shape = tuple(ctx.source.shape)
        self.x, self.src, self.result = _flat0(ctx.x), _flat0(ctx.source), _flat0(ctx.result)
        self.dim = ctx.dim if shape else 0
        self.index = _spread(xp, ctx.index, self.dim, shape) if shape else ctx.index.reshape(1)
        self.include_self, self.reduce = ctx.include_self, ctx.reduce


def _flat0(t: Tensor) -> Tensor:
    return t.reshape(1) if t.ndim == 0 else t


@index_reduce_op.vjp
def index_reduce_vjp(ctx, grad):
    """torch's index_reduce_backward: scatter_reduce's, with the index spread over source."""
    view = _AsScatter(ctx, grad)
    flat = _flat0(grad)
    grad_self, grad_source = _REDUCE_GRADS[ctx.reduce](view, flat, view.src)
    if not ctx.include_self:
        grad_self = scatter_value_op(grad_self, index=view.index, dim=view.dim, value=0.0)
    if grad.ndim == 0:
        grad_self, grad_source = grad_self.reshape(()), grad_source.reshape(())
    return (grad_self if needs(ctx, 0) else None), (grad_source if needs(ctx, 1) else None)


_BETA_WARNED: list = []   # torch's beta warning, once given


def _index_reduce_args(x: Tensor, dim, index: Tensor, source: Tensor, reduce: str) -> int:
    """torch's checks of index_reduce's arguments; the dim, made non-negative."""
    if not _BETA_WARNED:
        _BETA_WARNED.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    dim = dims_of(dim, x.ndim)[0]
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {_legacy(index)}"
                         f" and size: {list(index.shape)}")
    if index._data.dtype.kind not in "iu":
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_legacy(index)}")
    _check_index_reduce_shapes(x, dim, index, source)
    size = _size(x, dim)
    if bool(((index._data < 0) | (index._data >= size)).any()):
        raise IndexError("index out of range in self")
    return dim


def _check_index_reduce_shapes(x: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    count, have = index.numel(), _size(source, dim)
    if count != have:
        raise RuntimeError(f"index_reduce_(): Number of indices ({count}) should be equal to "
                           f"source.size(dim): ({have}), for dim: {dim}")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_legacy(x)}) and source ({_legacy(source)}) "
                           "must have the same scalar type")
    if x.ndim != source.ndim or any(a != b for d, (a, b) in enumerate(zip(x.shape, source.shape))
                                    if d != dim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(source.shape)}")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with ``source``'s slices reduced (prod, mean, amax, amin) into the slices
    named by ``index`` along ``dim`` (IndexReduceBackward0).

    >>> import agdebug as ag
    >>> ag.ones(2).index_reduce(0, ag.tensor([0, 0]), ag.tensor([2.0, 3.0]), "prod")
    tensor([6., 1.])
    """
    dim = _index_reduce_args(input, dim, index, source, reduce)
    return index_reduce_op(input, source, index=index._data.reshape(-1), dim=dim,
                           reduce=reduce, include_self=bool(include_self))


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    dim = _index_reduce_args(self, dim, index, source, reduce)
    attrs = {"index": index._data.reshape(-1), "dim": dim, "reduce": reduce,
             "include_self": bool(include_self)}
    return apply_inplace(index_reduce_op, self, (source,), attrs)


FUNCTIONS = {"index_fill": index_fill, "index_copy": index_copy,
             "masked_select": masked_select, "masked_scatter": masked_scatter, "take": take,
             "put": put, "scatter_reduce": scatter_reduce, "index_reduce": index_reduce}
METHODS = {**FUNCTIONS, "index_fill_": index_fill_, "index_copy_": index_copy_,
           "masked_scatter_": masked_scatter_, "put_": put_, "scatter_reduce_": scatter_reduce_,
           "index_reduce_": index_reduce_}
