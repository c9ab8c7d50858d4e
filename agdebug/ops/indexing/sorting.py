"""Sorting ops: sort, argsort, topk, msort; searchsorted, bucketize, histc; unique.

Each returns values and int64 indices along one dim. The indices are not
differentiable; the values' gradient goes back to the positions they came
from (a scatter, as torch's ``value_selecting_reduction_backward``), so the
derivative of that derivative is a gather and ``create_graph=True`` works.
"""

from __future__ import annotations

import numpy as np

from ..core import tie_order
from .gather_scatter import scatter_add_op
from ..reduction.signatures import values_indices
from ...tensor import Tensor
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..core.checks import dims_of
from ..core.gradients import input_shape, no_derivative, zeros_grad


def _order(xp, x, axis: int, descending: bool):
    """Stable argsort along ``axis``: ties keep their order, NaN counts as the largest.

    Descending sorts the flipped input ascending and flips back, so ties still come in
    index order and NaN comes first (negating would move NaN and fail for bool/unsigned).
    """
    kind = {"kind": "stable"} if xp is np else {}   # CuPy's sort is stable and takes no kind
    if not descending:
        return xp.argsort(x, axis=axis, **kind)
    flipped = xp.argsort(xp.flip(x, axis=axis), axis=axis, **kind)
    return x.shape[axis] - 1 - xp.flip(flipped, axis=axis)


def _sorted(xp, x, dim: int, descending: bool, k=None, stable=True, sort=True):
    """``((values, indices), indices)``: the first ``k`` (all if None) along ``dim``, ties
    in index order if ``stable``, else where torch's CPU kernels leave them."""
    if x.ndim == 0:   # a scalar sorts to itself, at index 0
        index = xp.zeros((), dtype=np.int64)
        return (x.copy(), index), index
    index = _order(xp, x, dim, descending).astype(np.int64, copy=False)
    if xp is np and not stable:
        index = _replayed(x, dim, index, descending, k, sort)
    elif k is not None:
        index = index[(slice(None),) * dim + (slice(0, k),)]
    index = xp.ascontiguousarray(index)
    return (xp.take_along_axis(x, index, axis=dim), index), index


def _replayed(x, dim: int, index, descending: bool, k, sort: bool):
    """``index`` (a stable order) cut to ``k``, its slices where a tie decides the order
    replayed as torch's CPU kernel: ``std::sort`` (sort) or ``topk_impl_loop`` (k given)."""
    n = x.shape[dim]
    if k is None and _sorts_stably(x, dim, descending):
        return index
    replay = tie_order.sort_indices if k is None else \
        lambda keys: tie_order.topk_indices(keys, k, sort)
    redo = _tied(x, index, dim) if sort else np.ones(index.shape[:dim] + index.shape[dim + 1:],
                                                     bool)
    index = np.moveaxis(index[(slice(None),) * dim + (slice(0, n if k is None else k),)],
                        dim, -1).copy()
    rows = np.moveaxis(x, dim, -1)
    for position in map(tuple, np.argwhere(redo)):   # (argwhere: redo may be 0-d)
        index[position] = replay(_keys(rows[position], descending))
    return np.moveaxis(index, -1, dim)


def _sorts_stably(x, dim: int, descending: bool) -> bool:
    """Where torch's unstable CPU sort is stable all the same: up to 16 elements (an
    insertion sort), a slice of one repeated element (stride 0: left as it is), and fbgemm's
    radix sort (1-d integers, ascending, from GRAIN_SIZE = 32768 elements on)."""
    radix = x.ndim == 1 and x.dtype.kind in "iu" and not descending and x.size >= 32768
    return x.shape[dim] <= 16 or x.strides[dim] == 0 or radix


def _tied(x, index, dim: int):
    """For each slice along ``dim``: whether two of its elements tie (NaNs tie)."""
    ranked = np.take_along_axis(x, index, axis=dim)
    head = ranked[(slice(None),) * dim + (slice(1, None),)]
    tail = ranked[(slice(None),) * dim + (slice(None, -1),)]
    same = head == tail
    if x.dtype.kind == "f":
        same |= np.isnan(head) & np.isnan(tail)
    return same.any(axis=dim)


def _keys(row, descending: bool) -> list:
    """``row`` as ranks that ``<`` orders as torch's comparator (NaN the largest, its ties)."""
    ranks = np.unique(row, return_inverse=True)[1].reshape(-1)
    return (-ranks if descending else ranks).tolist()


def _to_positions(ctx, grad):
    """The values' gradient scattered back to the positions the indices name."""
    shape = input_shape(ctx, 0)
    if not shape:
        return (grad,)
    zeros = zeros_grad(grad, shape)
    return (scatter_add_op(zeros, grad, index=ctx.indices._data, dim=ctx.dim),)


def _sort_forward(xp, x, dim=-1, descending=False):
    return _sorted(xp, x, dim, descending, stable=False)


def _sort_stable_forward(xp, x, dim=-1, descending=False, stable=True):
    return _sorted(xp, x, dim, descending, stable=stable)


# torch names the node after the overload: ``sort(dim, descending)`` is SortBackward0 (never
# stable), the ``stable=`` overload (whatever its value) SortBackward1.
sort_op = defop("sort", node="SortBackward0", outputs=2, nondiff_outputs=(1,),
                extras=("indices",), saves=("indices",), sizes=SELF_SIZES,
                saved_as={"descending": None})(_sort_forward)
sort_stable_op = defop("sort_stable", node="SortBackward1", outputs=2, nondiff_outputs=(1,),
                       extras=("indices",), saves=("indices",),
                       sizes=SELF_SIZES, saved_as={"descending": None, "stable": None})(
    _sort_stable_forward)


@sort_op.vjp
def sort_vjp(ctx, grad):
    return _to_positions(ctx, grad)


sort_stable_op.vjp(sort_vjp)


@defop("topk", node="TopkBackward0", outputs=2, nondiff_outputs=(1,), extras=("indices",),
       saves=("indices",), sizes=SELF_SIZES,
       saved_as={"k": None, "largest": None, "sorted": None})
def topk_op(xp, x, k=1, dim=-1, largest=True, sorted=True):
    return _sorted(xp, x, dim, largest, k, stable=False, sort=sorted)


@topk_op.vjp
def topk_vjp(ctx, grad):
    return _to_positions(ctx, grad)


# ----------------------------------------------------------------------------- signatures

_UNSET = object()   # ``stable`` not passed: torch's first overload (SortBackward0)


def _dim(dim, ndim: int) -> int:
    return dims_of(int(dim), ndim)[0]


def sort(input, *args, dim=-1, descending=False, stable=_UNSET):
    """``(values, indices)`` of ``input`` sorted along ``dim``; ties keep their order with
    ``stable=True``, else come as torch's CPU ``std::sort`` leaves them.

    >>> import agdebug as ag
    >>> ag.tensor([3.0, 1.0, 2.0]).sort()
    torch.return_types.sort(
    values=tensor([1., 2., 3.]),
    indices=tensor([1, 2, 0]))
    """
    if args and stable is not _UNSET:   # torch's stable overload takes keywords only
        raise TypeError(_sort_arguments(args))
    if len(args) > 2:
        raise TypeError(f"sort() takes from 0 to 3 positional arguments but {len(args) + 1} "
                        "were given")
    dim, descending = args + (dim, descending)[len(args):]
    dim = _dim(dim, input.ndim)
    if stable is _UNSET:
        return values_indices["sort"](*sort_op(input, dim=dim, descending=bool(descending)))
    return values_indices["sort"](*sort_stable_op(input, dim=dim, descending=bool(descending),
                                                  stable=bool(stable)))


def _sort_arguments(args: tuple) -> str:
    got = ", ".join(type(a).__name__ for a in args)
    return (f"sort() received an invalid combination of arguments - got ({got}, stable=bool), "
            "but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n"
            " * (int dim = -1, bool descending = False)\n      didn't match because some of "
            "the keywords were incorrect: stable\n")


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (int64, never differentiable)."""
    from ...graph.grad_mode import no_grad
    with no_grad():   # only the indices are wanted: record no node for the values
        return sort(input, dim=dim, descending=descending, stable=stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices.

    With ``sorted=False`` they come in the order torch's CPU kernel leaves them.

    >>> import agdebug as ag
    >>> ag.tensor([1.0, 5.0, 3.0]).topk(2).indices
    tensor([1, 2])
    """
    dim = _dim(dim, input.ndim)
    size = input.shape[dim] if input.ndim else 1
    k = int(k)
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    return values_indices["topk"](*topk_op(input, k=k, dim=dim, largest=bool(largest),
                                           sorted=bool(sorted)))


def msort(input):
    """``input`` sorted along its first dim (SortBackward0)."""
    return sort(input, 0).values


# ----------------------------------------------------------------------------- searchsorted

@defop("searchsorted", node="NotDifferentiable", differentiable=False)
def searchsorted_op(xp, sorted_sequence, values, right=False, out_int32=False):
    side = "right" if right else "left"
    dtype = np.int32 if out_int32 else np.int64
    if sorted_sequence.ndim == 1:
        return xp.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    flat = values.reshape(rows.shape[0], -1)
    out = xp.stack([xp.searchsorted(r, v, side=side) for r, v in zip(rows, flat)])
    return out.reshape(values.shape).astype(dtype)


def _side(side, right: bool) -> bool:
    if side is None:
        return bool(right)
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                           f"{side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                           "got side of left while right was True")
    return side == "right"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """For each value, the index where it would be inserted to keep the innermost dim of
    ``sorted_sequence`` sorted (int64, or int32 with ``out_int32``).

    >>> import agdebug as ag
    >>> ag.searchsorted(ag.tensor([1.0, 2.0, 3.0]), ag.tensor([2.0, 0.5]))
    tensor([1, 0])
    """
    right = _side(side, right)
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    values = input if isinstance(input, Tensor) else Tensor._wrap(
        np.asarray(input, dtype=sorted_sequence._data.dtype))
    lead_ok = sorted_sequence.ndim == 1 or (
        values.ndim == sorted_sequence.ndim and
        tuple(values.shape[:-1]) == tuple(sorted_sequence.shape[:-1]))
    if not lead_ok:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor "
                           f"{list(sorted_sequence.shape)} and input value tensor "
                           f"{list(values.shape)}")
    return searchsorted_op(sorted_sequence, values, right=right, out_int32=bool(out_int32))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of ``boundaries`` (1-d, sorted) each value falls in."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----------------------------------------------------------------------------- histc

@defop("histc", node="NotDifferentiable", differentiable=False)
def histc_op(xp, x, bins=100, min=0, max=0):
    if x.dtype.kind not in "f":
        from ..core.checks import kernel_missing
        raise kernel_missing("histogram_cpu", x.dtype)
    low, high = float(min), float(max)
    if low == high and x.size:
        low, high = float(x.min()), float(x.max())
    if low == high:   # torch widens an empty range by one on each side
        low, high = low - 1, high + 1
    counts, _ = xp.histogram(x.reshape(-1), bins=bins, range=(low, high))
    return counts.astype(x.dtype)


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``input`` in ``bins`` equal bins over [min, max] (the data's range if
    both are 0); values outside are ignored. Never differentiable."""
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    return histc_op(input, bins=int(bins), min=min, max=max)


# ----------------------------------------------------------------------------- unique

def _unique_forward(xp, x, dim=None, consecutive=False):
    """``(values, inverse, counts)``: NaNs are all distinct, as in torch."""
    if dim is None:
        flat = x.reshape(-1)
        if consecutive:
            return _runs(xp, flat, flat, x.shape)
        values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True,
                                            equal_nan=False) if xp is np else \
            xp.unique(flat, return_inverse=True, return_counts=True)
        return values, inverse.reshape(x.shape).astype(np.int64), counts.astype(np.int64)
    moved = xp.moveaxis(x, dim, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    if consecutive:
        values, inverse, counts = _runs(xp, rows, rows, (x.shape[dim],))
    else:
        values, inverse, counts = xp.unique(rows, axis=0, return_inverse=True,
                                            return_counts=True)
    values = xp.moveaxis(values.reshape((-1,) + moved.shape[1:]), 0, dim)
    return (xp.ascontiguousarray(values), inverse.reshape(-1).astype(np.int64),
            counts.astype(np.int64))


def _runs(xp, items, keys, shape):
    """unique_consecutive: the first of each run of equal items, run numbers and lengths."""
    n = items.shape[0]
    if n == 0:
        empty = xp.zeros(0, dtype=np.int64)
        return items[:0], empty.reshape(shape), empty
    change = keys[1:] != keys[:-1]
    if change.ndim > 1:
        change = change.any(axis=tuple(range(1, change.ndim)))
    starts = xp.concatenate([xp.ones(1, dtype=bool), change])
    inverse = xp.cumsum(starts) - 1
    first = xp.flatnonzero(starts)
    counts = xp.diff(xp.append(first, n))
    return items[first], inverse.reshape(shape).astype(np.int64), counts.astype(np.int64)


def _unique_op(name: str, node: str, derivative: str):
    op = defop(name, node=node, outputs=3, nondiff_outputs=(1, 2))(_unique_forward)
    op.vjp(no_derivative(derivative))
    return op


unique_op = _unique_op("unique", "Unique2Backward0", "_unique2")
unique_dim_op = _unique_op("unique_dim", "UniqueDimBackward0", "unique_dim")
unique_consecutive_op = _unique_op("unique_consecutive", "UniqueConsecutiveBackward0",
                                   "unique_consecutive")


def _unique_result(outs, return_inverse: bool, return_counts: bool):
    values, inverse, counts = outs
    picked = (values,) + ((inverse,) if return_inverse else ()) + \
        ((counts,) if return_counts else ())
    return picked[0] if len(picked) == 1 else picked


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input`` (sorted; slices along ``dim`` if given), with
    optionally the inverse indices and the counts.

    >>> import agdebug as ag
    >>> ag.tensor([3, 1, 3, 2]).unique(return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if dim is None:
        outs = unique_op(input)
    else:
        outs = unique_dim_op(input, dim=dims_of(dim, input.ndim)[0])
    return _unique_result(outs, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``input`` with each run of equal consecutive elements (or slices) kept once."""
    dim = None if dim is None else dims_of(dim, input.ndim)[0]
    outs = unique_consecutive_op(input, dim=dim, consecutive=True)
    return _unique_result(outs, return_inverse, return_counts)


FUNCTIONS = {"sort": sort, "argsort": argsort, "topk": topk, "msort": msort,
             "searchsorted": searchsorted, "bucketize": bucketize, "histc": histc,
             "unique": unique, "unique_consecutive": unique_consecutive}
METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("searchsorted", "bucketize")}
