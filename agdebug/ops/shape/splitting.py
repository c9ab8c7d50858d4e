"""torch's splits: split, split_with_sizes, chunk, unbind (views of the input)."""

from __future__ import annotations

from . import views_copies as sh
from ..core.arguments import must_be
from .as_strided import _as_int
from .signatures import _dim


# ----------------------------------------------------------------------------- splitting

def split(tensor, split_size_or_sections, dim=0):
    """``x.split(2)`` (equal pieces) or ``x.split([1, 2])`` (given sizes): a tuple of views."""
    if isinstance(split_size_or_sections, (tuple, list)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    dim, split_size = split_size_arguments(tensor, split_size_or_sections, dim)
    return tuple(sh.split(tensor, split_size=split_size, dim=dim))


def split_with_sizes(input, split_sizes, dim=0):
    """``x.split_with_sizes([1, 2])``: pieces of the given sizes along ``dim`` (views)."""
    dim, sizes = split_sizes_arguments(input, split_sizes, dim)
    return tuple(sh.split_with_sizes(input, split_sizes=sizes, dim=dim))


def split_size_arguments(input, split_size, dim) -> tuple:
    """``(dim, split_size)`` checked as torch checks ``split`` (and ``unsafe_split``)."""
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _dim(dim, input.ndim)
    size, split_size = input.shape[dim], int(split_size)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    return dim, split_size


def split_sizes_arguments(input, split_sizes, dim) -> tuple:
    """``(dim, sizes)`` checked as torch checks ``split_with_sizes`` (the signs first)."""
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _dim(dim, input.ndim)
    sizes = tuple(int(s) for s in split_sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={list(sizes)}")
    if sum(sizes) != input.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input "
            f"tensor's size at dimension {dim}), but got split_sizes={list(sizes)}")
    return dim, sizes


def chunks_argument(name: str, chunks, method: bool) -> int:
    """``chunks`` as an int (a numpy integer or one-element integer tensor is one), else
    torch's TypeError, which counts positions after ``self`` for the method."""
    found = _as_int(chunks)
    if found is None:
        raise must_be(name, "chunks", 1 if method else 2, "int", chunks)
    return found


def chunk(input, chunks, dim=0, *, _method=False):
    """``x.chunk(n, dim)``: at most ``n`` pieces of equal size (the last may be smaller)."""
    chunks = chunks_argument("chunk", chunks, _method)
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _dim(dim, input.ndim)
    size = input._data.shape[dim]
    if size == 0:
        return split(input, [0] * chunks, dim)
    # A split size of at least 1 that split_size_arguments would pass: the op, directly.
    return tuple(sh.split(input, split_size=int(-(-size // chunks)), dim=dim))


def unbind(input, dim=0):
    """``x.unbind(dim)``: a tuple of the slices along ``dim`` (views, one dim fewer)."""
    dim = _dim(dim, input.ndim)
    if input.ndim == 0:   # dim was 0 or -1 (torch reports both as 0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(sh.unbind(input, dim=dim))
