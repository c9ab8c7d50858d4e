"""More index-tensor ops: index_fill, index_copy, masked_select, masked_scatter, take, put,
scatter_reduce, index_reduce.

As in gather.py, index and mask tensors are keyword attributes (no edge in the graph), and
every derivative is written with the ops of gather.py and this module, so it is itself
differentiable. The derivatives are torch's (``FunctionsManual.cpp``), masks included.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import backend
from ..tensor import Tensor
from .pointwise.comparison import where
from .gather import (_along, _check_gather_args, _on, _pad, _region, _ufunc_at, gather_op,
                     index_select_op, masked_fill_op, scatter_value_op)
from .index import _add_at
from .core.inplace import apply_inplace
from .core.registry import defop
from .core.checks import dims_of
from .core.gradients import input_shape, needs, zeros_grad


def _const(array, like: Tensor) -> Tensor:
    return Tensor._wrap(backend.xp_of(like._data).asarray(array, dtype=like._data.dtype))


def _legacy(t: Tensor) -> str:
    return backend.get_dtype(t._data.dtype)._legacy


# ----------------------------------------------------------------------------- index_fill

def _slot(x, index, dim: int) -> tuple:
    return (slice(None),) * dim + (index.reshape(-1),)


@defop("index_fill", node="IndexFillBackward0", saves=("index=array",))
def index_fill_op(xp, x, index=None, dim=0, value=0.0):
    out = x.copy()
    if out.ndim == 0:
        return xp.asarray(value, dtype=x.dtype) if index.size else out
    out[_slot(x, index, dim)] = value
    return out


@index_fill_op.vjp
def index_fill_vjp(ctx, grad):
    return (index_fill_op(grad, index=ctx.index, dim=ctx.dim, value=0.0),)


@defop("index_fill_tensor", node="IndexFillBackward1", saves=("index=array",))
def index_fill_tensor_op(xp, x, value, index=None, dim=0):
    return index_fill_op.forward(xp, x, index=index, dim=dim, value=value.astype(x.dtype))


@index_fill_tensor_op.vjp
def index_fill_tensor_vjp(ctx, grad):
    grad_x = index_fill_op(grad, index=ctx.index, dim=ctx.dim, value=0.0) if needs(ctx, 0) \
        else None
    grad_value = None
    if needs(ctx, 1):   # torch sums each filled slice once, however often it is named
        xp = backend.xp_of(grad._data)
        once = xp.unique(ctx.index.reshape(-1) % max(_size(grad, ctx.dim), 1))
        grad_value = (index_select_op(grad, index=once, dim=ctx.dim).sum() if grad.ndim
                      else grad)
    return grad_x, grad_value


def _size(t, dim: int) -> int:
    return t.shape[dim] if t.ndim else 1


def _check_index(name: str, x: Tensor, dim: int, index: Tensor, kind=IndexError) -> int:
    """torch's index_fill_/index_copy_ checks: an int64 vector, within the dim's size."""
    dim = dims_of(dim, x.ndim)[0] if x.ndim else dims_of(dim, 0)[0]
    if index._data.dtype != np.int64:
        raise IndexError(f"{name}(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = _size(x, dim)
    data = index._data.reshape(-1)
    bad = (data < -size) | (data >= size) if name == "index_fill_" else \
        (data < 0) | (data >= size)
    if bool(bad.any()):
        value = int(data[int(bad.argmax())])
        prefix = "" if name == "index_fill_" else f"{name}(): "
        raise IndexError(f"{prefix}index {value} is out of bounds for dimension {dim} with "
                         f"size {size}")
    return dim


def _fill_args(x: Tensor, dim, index: Tensor, value):
    dim = _check_index("index_fill_", x, dim, index)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    return dim, index._data % max(_size(x, dim), 1)


def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``.

    >>> import agdebug as ag
    >>> ag.zeros(2, 3).index_fill(1, ag.tensor([0, 2]), -1.0)
    tensor([[-1.,  0., -1.],
            [-1.,  0., -1.]])
    """
    dim, index = _fill_args(input, dim, index, value)
    if isinstance(value, Tensor):
        return index_fill_tensor_op(input, value, index=index, dim=dim)
    return index_fill_op(input, index=index, dim=dim, value=value)


def index_fill_(self, dim, index, value):
    dim, index = _fill_args(self, dim, index, value)
    if isinstance(value, Tensor):
        return apply_inplace(index_fill_tensor_op, self, (value,), {"index": index, "dim": dim})
    return apply_inplace(index_fill_op, self, (), {"index": index, "dim": dim, "value": value})


# ----------------------------------------------------------------------------- index_copy

@defop("index_copy", node="IndexCopyBackward0", saves=("index=array", "source@1"))
def index_copy_op(xp, x, source, index=None, dim=0):
    out = x.copy()
    if out.ndim == 0:
        return source.reshape(()).astype(x.dtype, copy=True)
    out[_slot(x, index, dim)] = source
    return out


@index_copy_op.vjp
def index_copy_vjp(ctx, grad):
    grad_x = index_fill_op(grad, index=ctx.index, dim=ctx.dim, value=0.0) if needs(ctx, 0) \
        else None
    grad_source = None
    if needs(ctx, 1):
        grad_source = index_select_op(grad, index=ctx.index, dim=ctx.dim) if grad.ndim else grad
        grad_source = grad_source.reshape(input_shape(ctx, 1))
    return grad_x, grad_source


def _copy_args(x: Tensor, dim, index: Tensor, source: Tensor) -> int:
    dim = _check_index("index_copy_", x, dim, index)
    count, have = index.numel(), _size(source, dim)
    if count != have:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to "
                         f"source.size(dim) ({have})")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_legacy(x)} and (source) {_legacy(source)}")
    return dim


def index_copy(input, dim, index, source):
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s."""
    dim = _copy_args(input, dim, index, source)
    return index_copy_op(input, source, index=index._data, dim=dim)


def index_copy_(self, dim, index, source):
    dim = _copy_args(self, dim, index, source)
    return apply_inplace(index_copy_op, self, (source,), {"index": index._data, "dim": dim})


# ----------------------------------------------------------------------------- masked_select

@defop("masked_select", node="MaskedSelectBackward0", saves=("x", "mask=array"))
def masked_select_op(xp, x, mask=None):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return xp.broadcast_to(x, shape)[xp.broadcast_to(mask, shape)]


@masked_select_op.vjp
def masked_select_vjp(ctx, grad):
    """Scattered back into the broadcast shape (the engine sums it to the input's)."""
    shape = np.broadcast_shapes(input_shape(ctx, 0), ctx.mask.shape)
    mask = backend.xp_of(ctx.mask).broadcast_to(ctx.mask, shape)
    return (masked_scatter_op(zeros_grad(grad, shape), grad, mask=mask),)


def _check_bool_mask(name: str, mask: Tensor) -> None:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a 1-d tensor (broadcasting).

    >>> import agdebug as ag
    >>> ag.tensor([1.0, 2.0, 3.0]).masked_select(ag.tensor([True, False, True]))
    tensor([1., 3.])
    """
    _check_bool_mask("masked_select", mask)
    return masked_select_op(input, mask=_on(mask, input))


# ----------------------------------------------------------------------------- masked_scatter

@defop("masked_scatter", node="MaskedScatterBackward0", saves=("mask=array",))
def masked_scatter_op(xp, x, source, mask=None):
    out = x.copy()
    mask = xp.broadcast_to(mask, x.shape)
    count = int(mask.sum())
    out[mask] = source.reshape(-1)[:count]
    return out


@masked_scatter_op.vjp
def masked_scatter_vjp(ctx, grad):
    mask = backend.xp_of(ctx.mask).broadcast_to(ctx.mask, tuple(grad.shape))
    grad_x = masked_fill_op(grad, mask=mask, value=0.0) if needs(ctx, 0) else None
    grad_source = None
    if needs(ctx, 1):
        shape = input_shape(ctx, 1)
        taken = masked_select_op(grad, mask=mask)
        grad_source = _pad(taken, (int(np.prod(shape)),)).reshape(shape)
    return grad_x, grad_source


def _scatter_args(x: Tensor, mask: Tensor, source: Tensor):
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_legacy(mask)}")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but "
                           f"got {_legacy(x)} and {_legacy(source)}")
    mask = _on(mask, x)
    if int(backend.xp_of(mask).broadcast_to(mask, x.shape).sum()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return mask


def masked_scatter(input, mask, source):
    """``input`` with ``source``'s elements, in order, written where ``mask`` is True."""
    return masked_scatter_op(input, source, mask=_scatter_args(input, mask, source))


def masked_scatter_(self, mask, source):
    return apply_inplace(masked_scatter_op, self, (source,),
                         {"mask": _scatter_args(self, mask, source)})


# ----------------------------------------------------------------------------- take, put

@defop("take", node="TakeBackward0", saves=("x", "index=array"))
def take_op(xp, x, index=None):
    return x.reshape(-1)[index]


@take_op.vjp
def take_vjp(ctx, grad):
    zeros = zeros_grad(grad, input_shape(ctx, 0))
    return (put_op(zeros, grad, index=ctx.index, accumulate=True),)


@defop("put", node="PutBackward0", saves=("index=array", "source@1"))
def put_op(xp, x, source, index=None, accumulate=False):
    out = x.copy()
    flat = out.reshape(-1)
    if accumulate:
        _add_at(xp, flat, (index.reshape(-1),), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return flat.reshape(x.shape)


@put_op.vjp
def put_vjp(ctx, grad):
    grad_x = None
    if needs(ctx, 0):
        grad_x = grad if ctx.accumulate else \
            put_op(grad, zeros_grad(grad, input_shape(ctx, 1)), index=ctx.index)
    grad_source = None
    if needs(ctx, 1):
        grad_source = take_op(grad, index=ctx.index).reshape(input_shape(ctx, 1))
    return grad_x, grad_source


def _flat_index(name: str, x: Tensor, index: Tensor):
    """``index`` wrapped into ``x``'s flat range (negative counts from the end)."""
    if index._data.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{_legacy(index)}")
    n = x.numel()
    data = _on(index, x)
    bad = (data < -n) | (data >= n)
    if bool(bad.any()):
        value = int(data.reshape(-1)[int(bad.reshape(-1).argmax())])
        raise IndexError(f"out of range: tried to access index {value} on a tensor of {n} "
                         "elements.")
    return data % max(n, 1)


def take(input, index):
    """The elements of ``input``, read as a 1-d tensor, at ``index`` (shaped like it)."""
    return take_op(input, index=_flat_index("take", input, index))


def _put_args(x: Tensor, index: Tensor, source: Tensor):
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    return _flat_index("put_", x, index)


def put(input, index, source, accumulate=False):
    """``input`` (read as 1-d) with ``source`` written (or added) at ``index``."""
    return put_op(input, source, index=_put_args(input, index, source),
                  accumulate=bool(accumulate))


def put_(self, index, source, accumulate=False):
    attrs = {"index": _put_args(self, index, source), "accumulate": bool(accumulate)}
    return apply_inplace(put_op, self, (source,), attrs)


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
