"""``embedding_bag`` (EmbeddingBagBackward0): sum, mean and max bags, its derivative
written with agdebug ops."""

from __future__ import annotations

import numpy as np

from ...backend import xp_of
from ..indexing.gather_scatter import index_add_op, index_select_op
from ..core.registry import defop
from ..core.gradients import input_shape, needs, zeros_grad
from .margin_losses import _const


# ----------------------------------------------------------------------------- embedding_bag

def _bags(xp, indices, offsets, include_last_offset: bool, padding_idx):
    """``(bag, keep, count)``: each index's bag, which indices count (inside a bag and not
    the padding row) and the number of bags. Bag b holds indices offsets[b]:offsets[b + 1],
    the last one to the end: torch's CPU kernel ignores where ``include_last_offset``'s last
    offset says it ends."""
    count = offsets.shape[0] - bool(include_last_offset)
    positions = xp.arange(indices.shape[0])
    bag = xp.searchsorted(offsets[:count], positions, side="right") - 1
    keep = bag >= 0
    if padding_idx is not None:
        keep &= indices != padding_idx
    return bag, keep, count


def _membership(xp, bag, keep, count: int):
    """(bags, indices) 0/1 matrix: which index each bag sums."""
    return (bag[None, :] == xp.arange(count)[:, None]) & keep[None, :]


@defop("embedding_bag", node="EmbeddingBagBackward0", extras=("max_indices",),
       saves=("weight@1", "per_sample_weights@0", "max_indices"))
def embedding_bag(xp, weight, per_sample_weights, indices=None, offsets=None, mode="mean",
                  include_last_offset=False, padding_idx=None, scale_grad_by_freq=False):
    """Sums, means or maxima of bags of ``weight``'s rows (``indices`` split by ``offsets``);
    the max mode also gives the index (into ``indices``) each maximum came from."""
    bag, keep, count = _bags(xp, indices, offsets, include_last_offset, padding_idx)
    member = _membership(xp, bag, keep, count)
    rows = weight[indices]
    if mode == "max":
        return _bag_max(xp, member, rows)
    scale = member.astype(weight.dtype)
    if per_sample_weights is not None:
        scale = scale * per_sample_weights[None, :]
    if mode == "mean":
        scale = scale / xp.maximum(member.sum(axis=1, keepdims=True), 1)
    out = scale @ rows if rows.shape[0] else xp.zeros((count, weight.shape[1]), weight.dtype)
    return out.astype(weight.dtype, copy=False), xp.zeros((count, weight.shape[1]), np.int64)


def _bag_max(xp, member, rows):
    """Each bag's maximum per column, and where it came from (the first of ties, as torch)."""
    count, dim = member.shape[0], rows.shape[1]
    if not rows.shape[0]:
        return xp.zeros((count, dim), rows.dtype), xp.full((count, dim), -1, np.int64)
    candidates = xp.where(member[:, :, None], rows[None, :, :], -xp.inf)
    where = candidates.argmax(axis=1)
    empty = ~member.any(axis=1)[:, None]
    out = xp.where(empty, 0, xp.take_along_axis(rows, where, axis=0))
    return out.astype(rows.dtype, copy=False), xp.where(empty, -1, where)


@embedding_bag.vjp
def embedding_bag_vjp(ctx, grad):
    xp = xp_of(grad._data)
    if ctx.mode == "max":
        return _bag_max_vjp(ctx, grad, xp), None
    bag, keep, _ = _bags(xp, ctx.indices, ctx.offsets, ctx.include_last_offset, ctx.padding_idx)
    pos = xp.nonzero(keep)[0]
    rows = index_select_op(grad, index=bag[pos], dim=0)
    if ctx.mode == "mean":
        sizes = xp.bincount(bag[pos], minlength=grad.shape[0])[bag[pos]]
        rows = rows * _const((1.0 / sizes).astype(grad._data.dtype)[:, None])
    grad_weight = grad_psw = None
    if needs(ctx, 0):
        grad_weight = _bag_weight_grad(ctx, rows, pos, xp)
    if needs(ctx, 1):
        looked_up = index_select_op(ctx.weight, index=ctx.indices[pos], dim=0)
        grad_psw = index_add_op(zeros_grad(grad, (ctx.indices.shape[0],)),
                                (rows * looked_up).sum(1), index=pos, dim=0)
    return grad_weight, grad_psw


def _bag_weight_grad(ctx, rows, pos, xp):
    """Each counted index's row of the gradient added into its row of the weight."""
    index = ctx.indices[pos]
    if ctx.per_sample_weights is not None:
        rows = rows * index_select_op(ctx.per_sample_weights, index=pos, dim=0).reshape(-1, 1)
    num, dim = input_shape(ctx, 0)
    if ctx.scale_grad_by_freq:
        rows = rows * _const(_frequency_scale(xp, ctx.indices, num)[index][:, None].astype(
            rows._data.dtype))
    return index_add_op(zeros_grad(rows, (num, dim)), rows, index=index, dim=0)


def _frequency_scale(xp, indices, num: int):
    """Per weight row, the 1 / frequency its gradient is scaled by. torch's CPU kernel divides
    the i-th distinct index's gradient by the frequency of the i-th *sorted* index (not its
    own: ``counts[indices[i]]`` where ``indices[start]`` was meant), so [4, 4, 5] scales row 5
    by 1/2; agdebug does the same, to give torch's gradients."""
    counts = xp.bincount(indices, minlength=num)
    distinct = xp.unique(indices)
    scale = xp.zeros(num)
    scale[distinct] = 1.0 / counts[xp.sort(indices)[:distinct.shape[0]]]
    return scale


def _bag_max_vjp(ctx, grad, xp):
    """Each maximum's gradient to the weight element it came from."""
    where = ctx.max_indices._data
    num, dim = input_shape(ctx, 0)
    found = where >= 0
    flat = ctx.indices[xp.where(found, where, 0)] * dim + xp.arange(dim)[None, :]
    source = grad * _const(found.astype(grad._data.dtype))
    zeros = zeros_grad(grad, (num * dim,))
    return index_add_op(zeros, source.reshape(-1), index=flat.reshape(-1), dim=0).reshape(
        num, dim)
