"""``index_fill`` and ``index_copy`` (IndexFillBackward0, IndexCopyBackward0)."""

from __future__ import annotations

import numpy as np

from ... import backend
from ...tensor import Tensor
from .gather_scatter import (index_select_op)
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.checks import dims_of
from ..core.gradients import input_shape, needs


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
