"""Sorting ops: sort, argsort, topk.

Each returns values and int64 indices along one dim. The indices are not
differentiable; the values' gradient goes back to the positions they came
from (a scatter, as torch's ``value_selecting_reduction_backward``), so the
derivative of that derivative is a gather and ``create_graph=True`` works.
"""

from __future__ import annotations

import numpy as np

from .gather import scatter_add_op
from .reduce import values_indices
from .registry import defop
from .util import dims_of, input_shape, zeros_grad


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


def _sorted(xp, x, dim: int, descending: bool, k=None):
    """``((values, indices), indices)``: the first ``k`` (all if None) along ``dim``."""
    if x.ndim == 0:   # a scalar sorts to itself, at index 0
        index = xp.zeros((), dtype=np.int64)
        return (x.copy(), index), index
    index = _order(xp, x, dim, descending).astype(np.int64, copy=False)
    if k is not None:
        index = index[(slice(None),) * dim + (slice(0, k),)]
    index = xp.ascontiguousarray(index)
    return (xp.take_along_axis(x, index, axis=dim), index), index


def _to_positions(ctx, grad):
    """The values' gradient scattered back to the positions the indices name."""
    shape = input_shape(ctx, 0)
    if not shape:
        return (grad,)
    zeros = zeros_grad(grad, shape)
    return (scatter_add_op(zeros, grad, index=ctx.indices._data, dim=ctx.dim),)


def _sort_forward(xp, x, dim=-1, descending=False):
    return _sorted(xp, x, dim, descending)


# torch names the node after the overload: ``sort(dim, descending)`` is SortBackward0, the
# ``stable=`` overload (whatever its value) SortBackward1. One forward, two node types.
sort_op = defop("sort", node="SortBackward0", outputs=2, nondiff_outputs=(1,),
                extras=("indices",), saves=("indices",))(_sort_forward)
sort_stable_op = defop("sort_stable", node="SortBackward1", outputs=2, nondiff_outputs=(1,),
                       extras=("indices",), saves=("indices",))(_sort_forward)


@sort_op.vjp
def sort_vjp(ctx, grad, grad_indices):
    return _to_positions(ctx, grad)


sort_stable_op.vjp(sort_vjp)


@defop("topk", node="TopkBackward0", outputs=2, nondiff_outputs=(1,), extras=("indices",),
       saves=("indices",))
def topk_op(xp, x, k=1, dim=-1, largest=True):
    return _sorted(xp, x, dim, largest, k)


@topk_op.vjp
def topk_vjp(ctx, grad, grad_indices):
    return _to_positions(ctx, grad)


# ----------------------------------------------------------------------------- signatures

_UNSET = object()   # ``stable`` not passed: torch's first overload (SortBackward0)


def _dim(dim, ndim: int) -> int:
    return dims_of(int(dim), ndim)[0]


def sort(input, *args, dim=-1, descending=False, stable=_UNSET):
    """``(values, indices)`` of ``input`` sorted along ``dim``; ties keep their order.

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
    op = sort_op if stable is _UNSET else sort_stable_op
    return values_indices["sort"](*op(input, dim=_dim(dim, input.ndim),
                                      descending=bool(descending)))


def _sort_arguments(args: tuple) -> str:
    got = ", ".join(type(a).__name__ for a in args)
    return (f"sort() received an invalid combination of arguments - got ({got}, stable=bool), "
            "but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n"
            " * (int dim = -1, bool descending = False)\n      didn't match because some of "
            "the keywords were incorrect: stable\n")


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (int64, never differentiable)."""
    from ..graph.grad_mode import no_grad
    with no_grad():   # only the indices are wanted: record no node for the values
        return sort(input, dim, descending).indices


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices.

    They come sorted whatever ``sorted`` says (torch leaves the order unspecified then).

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
    return values_indices["topk"](*topk_op(input, k=k, dim=dim, largest=bool(largest)))


FUNCTIONS = {"sort": sort, "argsort": argsort, "topk": topk}
METHODS = dict(FUNCTIONS)
