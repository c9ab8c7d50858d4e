"""Helpers shared by derivatives: shapes of inputs, undoing reductions."""

from __future__ import annotations

from .. import backend
from ..backend import xp_of
from ..tensor import Tensor


def zeros_grad(like: Tensor, shape: tuple) -> Tensor:
    """A gradient of zeros with ``like``'s dtype and device, outside any graph."""
    return Tensor._wrap(xp_of(like._data).zeros(shape, dtype=like._data.dtype))


def needs(ctx, i: int) -> bool:
    """Whether forward input ``i`` gets a gradient (torch's ``needs_input_grad[i]``)."""
    return ctx._next[i] is not None


def input_shape(ctx, i: int) -> tuple:
    """The shape of forward input ``i``, read from the node it came from (no copy kept)."""
    return ctx._next[i]._out_meta[ctx._next_nr[i]][0]


def dims_of(dim, ndim: int):
    """torch's ``dim`` argument as a numpy ``axis``: None, or a tuple of non-negative ints."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return None
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    out = []
    for d in dims:
        if not lo <= d <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(out)


def expand_reduced(grad, shape: tuple, dim, keepdim: bool):
    """Broadcast the gradient of a reduction over ``dim`` back to the input ``shape``."""
    axes = dims_of(dim, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if not keepdim and len(shape) > 0:
        kept = list(shape)
        for a in axes:
            kept[a] = 1
        grad = grad.reshape(tuple(kept))
    return grad.expand(shape)


def kernel_missing(kernel: str, dtype) -> NotImplementedError:
    """torch's error for a dtype that its kernel ``kernel`` has no version for (to raise)."""
    if not isinstance(dtype, backend.dtype):
        dtype = backend.get_dtype(dtype)
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype._legacy}\'')
