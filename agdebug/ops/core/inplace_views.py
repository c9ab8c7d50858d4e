"""In-place ops on views: torch's CopySlices and AsStridedBackward0.

When an in-place op writes through a view, the write changes the view's base
too, so the base's history must change with it. As torch does, the base is
rebased onto a ``CopySlices`` node ("the old base, with the view's region
replaced by the op's result") and the view onto an ``AsStridedBackward0`` node
that reads its region back out of the new base.

A region is the flat (row-major) index, in the base, of every element of the
view: computed once from the two arrays' memory layouts, whatever chain of
views (slices, transposes, reshapes) produced the view.
"""

from __future__ import annotations

import numpy as np

from ... import backend
from ...events import WATCH, probe
from ...graph.node import Node, shared_nrs
from ...tensor import Tensor
from .registry import defop
from .inplace import write_into
from .storage import data_pointer, element_offsets


@defop("copy_slices_region", node="CopySlices")
def copy_slices_region(xp, base, values, region=None):
    out = base.copy()
    out.reshape(-1)[region] = values
    return out


@copy_slices_region.vjp
def copy_slices_region_vjp(ctx, grad):
    region = ctx.region
    keep = np.ones(int(np.prod(grad.shape, dtype=np.int64)), dtype=bool)
    keep[backend.move_array(region, backend.CPU).reshape(-1)] = False
    keep_mask = Tensor._wrap(backend.move_array(keep.reshape(grad.shape), grad.device))
    grad_base = grad * keep_mask
    grad_values = grad.reshape(-1)[Tensor._wrap(region)]
    return grad_base, grad_values


@defop("as_strided_region", node="AsStridedBackward0",
       saved_as={"region": None, "base_shape": None})   # torch: size, stride, offset
def as_strided_region(xp, base, region=None, base_shape=None):
    return base.reshape(-1)[region]


@as_strided_region.vjp
def as_strided_region_vjp(ctx, grad):
    shape = ctx.base_shape
    zeros = Tensor._wrap(backend.xp_of(grad._data).zeros(shape, dtype=grad._data.dtype))
    return (copy_slices_region(zeros, grad, region=ctx.region),)


class CopySlices(Node):
    """The base's new history after an in-place op wrote through one of its views.

    As in torch it wraps the op's node ``fn`` instead of linking to it: its edges
    are the base's old edge plus ``fn``'s edges to its other inputs, and its
    backward runs ``fn`` on the view's region of the incoming gradient.
    """

    __slots__ = ("fn", "region", "view_shape")

    def __init__(self, base_edge: tuple, fn: Node, region, view_shape: tuple, meta: tuple):
        base_node, base_nr = base_edge
        super().__init__((base_node,) + fn._next[1:],
                         shared_nrs((base_nr,) + fn._next_nr[1:]), (meta,))
        self.fn, self.region, self.view_shape = fn, region, view_shape
        self._saved = fn._saved   # the op's saved tensors are this node's to check and free

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    @property
    def saved_as(self) -> dict:
        """The wrapped node's saved values keep its names (``self``) in the events."""
        return getattr(self.fn, "saved_as", {})

    def apply(self, grads):
        grad = grads[0]
        region = Tensor._wrap(self.region)
        results = self.fn.apply([grad.reshape(-1)[region]])
        grad_view = results[0]
        if grad_view is None:
            grad_view = Tensor._wrap(backend.xp_of(grad._data).zeros(
                self.view_shape, dtype=grad._data.dtype))
        elif tuple(grad_view.shape) != self.view_shape:
            grad_view = grad_view.sum_to_size(self.view_shape)
        return (copy_slices_region(grad, grad_view, region=self.region), *results[1:])


def rebase_view(view: Tensor, result: Tensor) -> None:
    """Write ``result`` (the in-place op's output) through ``view`` and rebase both histories."""
    write_into(view, result._data)
    rebase_history(view, result._grad_fn)


def rebase_history(view: Tensor, fn, announce: bool = True) -> CopySlices:
    """After ``fn`` (an in-place op's node) wrote ``view``: its base gets a CopySlices around
    ``fn``, and the view reads its region back out of the base (torch's rebase_history)."""
    base = view._base
    region = region_of(view._data, base._data)
    node = CopySlices(base._gradient_edge(), fn, region, tuple(view._data.shape),
                      (base._data.shape, base._data.dtype))
    base._set_history(node, 0)
    if announce and WATCH.on:
        probe.node_created(node, (base,), (base,))
    reread = as_strided_region(base, region=region, base_shape=base._data.shape)
    view._set_history(reread._grad_fn, 0)
    return node


def region_of(view, base):
    """Flat row-major indices in ``base`` of each element of ``view`` (which aliases it)."""
    item = base.dtype.itemsize
    base_offsets = element_offsets(base.shape, [s // item for s in base.strides], 0)
    start = (data_pointer(view) - data_pointer(base)) // item
    view_offsets = element_offsets(view.shape, [s // item for s in view.strides], start)
    order = np.argsort(base_offsets, kind="stable")
    found = order[np.searchsorted(base_offsets[order], view_offsets)]
    return backend.move_array(found.reshape(view.shape), backend.device_of_array(base))
