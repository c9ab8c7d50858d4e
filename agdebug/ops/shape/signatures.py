"""torch's call signatures for the shape ops: ``x.permute(1, 0)``, ``agdebug.cat([a, b], 1)``.

Argument handling only: dims are checked and wrapped with torch's messages
here, then the ops in ``shape`` do the work.
"""

from __future__ import annotations

import math
import warnings

from ...tensor import Tensor
from ..pointwise import copying
from ..tensor_methods import views
from . import views_copies as sh
from ..core.inplace import apply_shape_inplace
from ..core.checks import dims_of


def _dim(dim: int, ndim: int) -> int:
    """One dim, wrapped, with torch's IndexError when out of range."""
    if type(dim) is int and -ndim <= dim < ndim:   # the common case, without dims_of's tuple
        return dim if dim >= 0 else dim + ndim
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


# view, reshape and expand are tensor_methods/views.py's; these check only that a shape was
# given (as torch's signatures do, ``x.view()`` is a TypeError), and accept it as a keyword too.

def _view(self, *shape, dtype=None, size=None):
    if not shape and dtype is None and size is None:
        raise TypeError("view() received an invalid combination of arguments - got (), but "
                        "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")
    if size is not None:
        shape = _required("view", "size", shape, size)
    return views.view(self, *shape, dtype=dtype)


def _reshape(self, *args, shape=None):
    return views.reshape(self, *_required("reshape", "shape", args, shape))


def _expand(self, *args, size=None, implicit=False):
    return views.expand(self, *_required("expand", "size", args, size))


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
