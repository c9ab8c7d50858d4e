"""torch's call signatures for the shape ops: ``x.permute(1, 0)``, ``agdebug.cat([a, b], 1)``.

Argument handling only: dims are checked and wrapped with torch's messages
here, then the ops in ``shape`` do the work.
"""

from __future__ import annotations

import math
import warnings

from ..tensor import Tensor
from .pointwise import copying
from . import methods as m
from . import shape as sh
from .core.inplace import apply_shape_inplace
from .core.checks import dims_of


def _dim(dim: int, ndim: int) -> int:
    """One dim, wrapped, with torch's IndexError when out of range."""
    return dims_of(int(dim), ndim)[0]


def _dims_arg(dims) -> tuple:
    """``f(1, 0)``, ``f((1, 0))`` and ``f([1, 0])`` all mean the dims (1, 0)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return tuple(int(d) for d in dims)


def _required(name: str, argument: str, args: tuple, keyword) -> tuple:
    """A shape-like argument given as ``f(2, 3)``, ``f((2, 3))`` or ``f(argument=(2, 3))``;
    torch's TypeError when it is missing or given both ways."""
    if args and keyword is not None:
        raise TypeError(f"{name}() got multiple values for argument '{argument}'")
    if not args and keyword is None:
        raise TypeError(f'{name}() missing 1 required positional arguments: "{argument}"')
    return args if keyword is None else (keyword,)


def _no_duplicates(dims: tuple) -> None:
    seen = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)


# ----------------------------------------------------------------------------- one tensor

def flatten(input, start_dim=0, end_dim=-1):
    """``x.flatten(start_dim, end_dim)``: a view when possible; a 1-D tensor is returned as is.

    >>> import agdebug as ag
    >>> ag.zeros(2, 3, 4).flatten(1).shape
    torch.Size([2, 12])
    """
    start, end = _dim(start_dim, input.ndim), _dim(end_dim, input.ndim)
    if input.ndim == 0:
        return input.reshape(1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = tuple(input.shape)
    return input.reshape(shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def squeeze(input, dim=None):
    """``x.squeeze()``, ``x.squeeze(dim)`` or ``x.squeeze((d0, d1))``: drop size-1 dims."""
    if dim is None:
        return sh.squeeze(input)
    if isinstance(dim, (tuple, list)):
        dims = tuple(_dim(d, input.ndim) for d in dim)
        _no_duplicates(dims)
        return sh.squeeze_dims(input, dims=dims)
    return sh.squeeze_dim(input, dim=_dim(dim, input.ndim))


def squeeze_(self, dim=None):
    """``x.squeeze_()``: ``squeeze`` in place (the tensor takes the new shape)."""
    if dim is None:
        return apply_shape_inplace(sh.squeeze_, self, {})
    if isinstance(dim, (tuple, list)):
        dims = tuple(_dim(d, self.ndim) for d in dim)
        _no_duplicates(dims)
        return apply_shape_inplace(sh.squeeze_dims_, self, {"dims": dims})
    return apply_shape_inplace(sh.squeeze_dim_, self, {"dim": _dim(dim, self.ndim)})


def unsqueeze_(self, dim):
    """``x.unsqueeze_(dim)``: ``unsqueeze`` in place."""
    return apply_shape_inplace(sh.unsqueeze_, self, {"dim": _dim(dim, self.ndim + 1)})


def transpose_(self, dim0, dim1):
    """``x.transpose_(dim0, dim1)`` (also ``swapdims_``, ``swapaxes_``): in place."""
    return apply_shape_inplace(sh.transpose_, self, {"dim0": _dim(dim0, self.ndim),
                                                      "dim1": _dim(dim1, self.ndim)})


def t_(self):
    """``x.t_()``: ``t`` in place."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return apply_shape_inplace(sh.t_, self, {})


def unsqueeze(input, dim):
    """``x.unsqueeze(dim)``: a size-1 dim inserted at ``dim`` (negative counts from the end)."""
    return sh.unsqueeze(input, dim=_dim(dim, input.ndim + 1))


def permute(input, *args, dims=None):
    """``x.permute(1, 0)`` or ``x.permute((1, 0))``: the dims reordered (a view)."""
    dims = _dims_arg(_required("permute", "dims", args, dims))
    if len(dims) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{input.ndim} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return sh.permute(input, dims=wrapped)


def transpose(input, dim0, dim1):
    """``x.transpose(dim0, dim1)``: two dims swapped (a view)."""
    return sh.transpose(input, dim0=_dim(dim0, input.ndim), dim1=_dim(dim1, input.ndim))


def t(input):
    """``x.t()``: the transpose of a matrix; tensors of fewer dims come back as they are."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    return sh.t(input)


def _T(self):
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    elif self.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
    return sh.permute(self, dims=tuple(range(self.ndim - 1, -1, -1)))


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return sh.transpose(self, dim0=self.ndim - 2, dim1=self.ndim - 1)


def repeat(self, *args, repeats=None):
    """``x.repeat(2, 1)``: the tensor tiled ``sizes`` times along each dim (a copy)."""
    sizes = _dims_arg(_required("repeat", "repeats", args, repeats))
    if len(sizes) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(sizes) - self.ndim) + tuple(self.shape)
    target = [r * s for r, s in zip(sizes, padded)]
    for size in target:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                               f"{target}")
    return sh.repeat(self, repeats=sizes)


def narrow(input, dim, start, length):
    """``x.narrow(dim, start, length)``: ``length`` elements from ``start`` (a view)."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _dim(dim, input.ndim)
    size = input.shape[dim]
    start, length = int(start), int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return sh.narrow(input, dim=dim, start=start, length=length)


def flip(input, *args, dims=None):
    """``x.flip(0)`` / ``agdebug.flip(x, (0, 1))``: elements reversed along ``dims`` (a copy)."""
    dims = _dims_arg(_required("flip", "dims", args, dims))
    wrapped = tuple(_dim(d, input.ndim) for d in dims)
    _no_duplicates(wrapped)
    return sh.flip(input, dims=wrapped)


# view, reshape and expand are methods.py's; these check only that a shape was given (as
# torch's signatures do, ``x.view()`` is a TypeError), and accept it as a keyword too.

def _view(self, *shape, dtype=None, size=None):
    if not shape and dtype is None and size is None:
        raise TypeError("view() received an invalid combination of arguments - got (), but "
                        "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")
    if size is not None:
        shape = _required("view", "size", shape, size)
    return m.view(self, *shape, dtype=dtype)


def _reshape(self, *args, shape=None):
    return m.reshape(self, *_required("reshape", "shape", args, shape))


def _expand(self, *args, size=None, implicit=False):
    return m.expand(self, *_required("expand", "size", args, size))


def contiguous(self, memory_format=None):
    """The tensor itself when contiguous, else a contiguous copy (CloneBackward0)."""
    return self if self._data.flags.c_contiguous else copying.clone(self)


def _ints(name: str, argument: str, position: int, value) -> tuple:
    """An int or a sequence of ints as a tuple; anything else is torch's TypeError."""
    if isinstance(value, int):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be tuple of "
                    f"ints, not {type(value).__name__}")


def roll(input, shifts, dims=None, *, _method=False):
    """``x.roll(shifts, dims)``: elements shifted cyclically along ``dims`` (a copy); without
    ``dims`` the flattened tensor is rolled and given its shape back.

    >>> import agdebug as ag
    >>> ag.tensor([1, 2, 3]).roll(1)
    tensor([3, 1, 2])
    """
    first = 1 if _method else 2   # torch counts ``self`` in the function's positions only
    shifts = _ints("roll", "shifts", first, shifts)
    dims = () if dims is None else _ints("roll", "dims", first + 1, dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims == () and len(shifts) == 1:
        return sh.roll(input, shifts=shifts, dims=None)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    if input.ndim == 0:   # dim 0 or -1 (torch names it 0, as unbind does)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return sh.roll(input, shifts=shifts, dims=tuple(_dim(d, input.ndim) for d in dims))


def movedim(input, source, destination, *, _method=False):
    """``x.movedim(source, destination)``: dims moved, the others kept in order (a permute
    view, PermuteBackward0 as in torch).

    >>> import agdebug as ag
    >>> ag.zeros(2, 3, 4).movedim(0, -1).shape
    torch.Size([3, 4, 2])
    """
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(_movedim_types(source, destination, _method))
    first = 1 if _method else 2
    src = _ints("movedim", "source", first, source)
    dst = _ints("movedim", "destination", first + 1, destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    src = tuple(_dim(d, input.ndim) for d in src)
    dst = tuple(_dim(d, input.ndim) for d in dst)
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    order = [None] * input.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(input.ndim) if d not in src)   # the others, in order
    return sh.permute(input, dims=tuple(o if o is not None else next(rest) for o in order))


def _movedim_types(source, destination, method: bool) -> str:
    def kind(v):
        return "int" if isinstance(v, int) else type(v).__name__
    got = f"({'' if method else 'Tensor, '}{kind(source)}, {kind(destination)})"
    return f"movedim() received an invalid combination of arguments - got {got}, but " \
           "expected one of:\n * (Tensor input, int source, int destination)\n * (Tensor " \
           "input, tuple of ints source, tuple of ints destination)\n"


# ----------------------------------------------------------------------------- atleast_*d

def _at_least(name: str, tensors: tuple, grow):
    """``atleast_Nd(x)`` gives one tensor, ``atleast_Nd(x, y)`` or ``([x, y])`` a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return grow(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    if not all(isinstance(t, Tensor) for t in tensors):
        bad = next(type(t).__name__ for t in tensors if not isinstance(t, Tensor))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({bad}), "
                        "but expected one of:\n * (Tensor input)\n * (tuple of Tensors "
                        "tensors)\n")
    return tuple(grow(t) for t in tensors)


def _grow_1d(x):
    return x.reshape(1) if x.ndim == 0 else x   # a scalar: ViewBackward0, as in torch


def _grow_2d(x):
    if x.ndim == 0:
        return x.reshape(1, 1)
    return sh.unsqueeze(x, dim=0) if x.ndim == 1 else x


def _grow_3d(x):
    if x.ndim == 0:
        return x.reshape(1, 1, 1)
    if x.ndim == 1:
        return sh.unsqueeze(sh.unsqueeze(x, dim=0), dim=2)
    return sh.unsqueeze(x, dim=2) if x.ndim == 2 else x


def atleast_1d(*tensors):
    return _at_least("atleast_1d", tensors, _grow_1d)


def atleast_2d(*tensors):
    return _at_least("atleast_2d", tensors, _grow_2d)


def atleast_3d(*tensors):
    return _at_least("atleast_3d", tensors, _grow_3d)


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


def chunk(input, chunks, dim=0):
    """``x.chunk(n, dim)``: at most ``n`` pieces of equal size (the last may be smaller)."""
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input.shape[_dim(dim, input.ndim)]
    if size == 0:
        return split(input, [0] * chunks, dim)
    return split(input, -(-size // chunks), dim)


def unbind(input, dim=0):
    """``x.unbind(dim)``: a tuple of the slices along ``dim`` (views, one dim fewer)."""
    dim = _dim(dim, input.ndim)
    if input.ndim == 0:   # dim was 0 or -1 (torch reports both as 0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(sh.unbind(input, dim=dim))


# ----------------------------------------------------------------------------- many tensors

def cat(tensors, dim=0):
    """``agdebug.cat([a, b], dim)``: tensors joined along an existing dim.

    >>> import agdebug as ag
    >>> ag.cat([ag.zeros(2, 3), ag.ones(1, 3)]).shape
    torch.Size([3, 3])
    """
    tensors = tensor_sequence("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # torch still accepts (and skips) legacy empty 1-D tensors next to any others.
    skipped = [_legacy_empty(x) for x in tensors]
    if all(skipped):
        skipped = [False] * len(tensors)
    first = tensors[skipped.index(False)]
    dim = _dim(dim, first.ndim)
    for i, (x, skip) in enumerate(zip(tensors, skipped)):
        if not skip:
            _check_cat_shape(first, x, dim, i)
    sizes = tuple(None if skip else x.shape[dim] for x, skip in zip(tensors, skipped))
    return sh.cat(*tensors, dim=dim, sizes=sizes)


def tensor_sequence(name: str, tensors) -> list:
    """``tensors`` as a list, refused as torch refuses it: a Tensor is not a sequence of
    tensors here (Python would iterate over its rows), nor is anything else not a list or
    tuple of Tensors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _legacy_empty(x: Tensor) -> bool:
    return tuple(x.shape) == (0,)


def _check_cat_shape(first: Tensor, x: Tensor, dim: int, i: int) -> None:
    if x.ndim != first.ndim:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and "
                           f"{x.ndim}")
    for d, (a, b) in enumerate(zip(first.shape, x.shape)):
        if d != dim and a != b:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                               f"Expected size {a} but got size {b} for tensor number {i} in "
                               "the list.")


def concat(tensors, dim=0):
    return cat(tensor_sequence("concat", tensors), dim)


def concatenate(tensors, axis=0):
    return cat(tensor_sequence("concatenate", tensors), axis)


def stack(tensors, dim=0):
    """``agdebug.stack([a, b], dim)``: equal-shaped tensors joined along a new dim.

    >>> import agdebug as ag
    >>> ag.stack([ag.zeros(2), ag.ones(2)], 1).shape
    torch.Size([2, 2])
    """
    tensors = tensor_sequence("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tuple(tensors[0].shape)
    for i, x in enumerate(tensors[1:], 1):
        if tuple(x.shape) != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(x.shape)} at entry {i}")
    return sh.stack_op(*tensors, dim=_dim(dim, len(first) + 1))


def _non_empty(name: str, tensors) -> list:
    tensors = tensor_sequence(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """Tensors joined column-wise: along dim 0 for 1-D inputs, dim 1 otherwise (scalars
    become 1-D first). A CatBackward0, as in torch.

    >>> import agdebug as ag
    >>> ag.hstack([ag.zeros(2, 1), ag.ones(2, 2)]).shape
    torch.Size([2, 3])
    """
    grown = [_grow_1d(x) for x in _non_empty("hstack", tensors)]
    return cat(grown, 0 if grown[0].ndim == 1 else 1)


def vstack(tensors):
    """Tensors joined row-wise, after making each at least 2-D (1-D: one row).

    >>> import agdebug as ag
    >>> ag.vstack([ag.zeros(3), ag.ones(3)]).shape
    torch.Size([2, 3])
    """
    return cat([_grow_2d(x) for x in _non_empty("vstack", tensors)], 0)


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


def _roll_method(self, shifts, dims=None):
    return roll(self, shifts, dims, _method=True)


def _movedim_method(self, source, destination):
    return movedim(self, source, destination, _method=True)


FUNCTIONS = {
    "flatten": flatten, "squeeze": squeeze, "unsqueeze": unsqueeze, "permute": permute,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t,
    "narrow": narrow, "flip": flip, "split": split, "split_with_sizes": split_with_sizes,
    "chunk": chunk, "unbind": unbind, "cat": cat, "concat": concat, "concatenate": concatenate,
    "stack": stack,
    "roll": roll, "movedim": movedim, "moveaxis": movedim, "atleast_1d": atleast_1d,
    "atleast_2d": atleast_2d, "atleast_3d": atleast_3d, "hstack": hstack, "vstack": vstack,
    "row_stack": vstack,
}

METHODS = {
    "flatten": flatten, "squeeze": squeeze, "unsqueeze": unsqueeze, "permute": permute,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t,
    "T": property(_T), "mT": property(_mT), "repeat": repeat, "narrow": narrow, "flip": flip,
    "contiguous": contiguous, "split": _split_method, "split_with_sizes": split_with_sizes,
    "chunk": chunk, "unbind": unbind,
    "roll": _roll_method, "movedim": _movedim_method, "moveaxis": _movedim_method,
    "view": _view, "reshape": _reshape, "expand": _expand, "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_, "transpose_": transpose_, "swapdims_": transpose_,
    "swapaxes_": transpose_, "t_": t_,
}
