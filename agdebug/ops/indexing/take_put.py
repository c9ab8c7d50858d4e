"""``take`` and ``put``: flat indices into the input."""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from .gather_scatter import (_on)
from .subscript import _add_at
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.gradients import input_shape, needs, zeros_grad
from .index_fill_copy import _legacy


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
