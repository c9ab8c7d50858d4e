"""torch's NumPy-style shape functions, built as torch builds them.

Most record the nodes of the ops they are made of (``diff``: SubBackward0 over
two SliceBackward0; ``meshgrid``: ExpandBackward0 over ViewBackward0); only
``rot90`` and ``narrow_copy`` are ops of their own (in ``shape``). Which ones
return views follows torch: the slices of ``tensor_split``, ``broadcast_to``,
``meshgrid`` and ``unflatten`` share their input's storage; the others copy.
"""

from __future__ import annotations

import math
import warnings

from ... import backend
from ...backend import xp_of
from ...tensor import Size, Tensor
from ..pointwise import comparison
from . import views_copies as sh
from .signatures import _dim, _grow_3d, _ints, _required, repeat
from .joining import _non_empty, cat, hstack, tensor_sequence
from ..core.checks import broadcast_shape, kernel_missing

# ----------------------------------------------------------------------------- broadcasting


def _int_tuple(name: str, argument: str, position: int, value) -> tuple:
    """A tuple or list of ints; one int alone is torch's TypeError in these signatures."""
    if isinstance(value, int):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be tuple of "
                        "ints, not int")
    return _ints(name, argument, position, value)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (no tensors are made).

    >>> import agdebug as ag
    >>> ag.broadcast_shapes((2,), (3, 1), (1, 1, 1))
    torch.Size([1, 3, 2])
    """
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max((len(s) for s in shapes), default=0)
    for i, s in enumerate(shapes):
        for d in range(-1, -1 - len(s), -1):
            if s[d] == common[d]:
                continue
            if common[d] == 1:
                if s[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = s[d]
            elif s[d] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[d]} at "
                                   f"{d}! Mismatching argument at index {i} had {tuple(s)}; but "
                                   f"expected shape should be broadcastable to {common}")
    return Size(common)


def broadcast_to(input, size):
    """``input`` expanded to ``size`` (a view, ExpandBackward0), as ``input.expand(size)``.

    >>> import agdebug as ag
    >>> ag.broadcast_to(ag.tensor([1, 2]), (3, 2)).shape
    torch.Size([3, 2])
    """
    return input.expand(_int_tuple("broadcast_to", "size", 2, size))


def _broadcast_to_method(self, *args, size=None):
    return self.expand(*_required("broadcast_to", "size", args, size))


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape; one already of that shape is returned
    itself, as torch does.

    >>> import agdebug as ag
    >>> [t.shape for t in ag.broadcast_tensors(ag.zeros(2, 1), ag.zeros(3))]
    [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    tensors = tensor_sequence("broadcast_tensors", tensors)
    shape = broadcast_shape(*(t._data.shape for t in tensors))   # (torch's error if none)
    # the shape is checked: the expand op itself, without Tensor.expand's checks again
    return tuple(t if t._data.shape == shape else sh.expand(t, shape=shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: each viewed along its own dim, then expanded
    (ExpandBackward0 over ViewBackward0, views of the inputs). ``indexing='xy'`` swaps the
    first two dims; leaving it out means ``'ij'`` and warns, as torch does.

    >>> import agdebug as ag
    >>> [g.shape for g in ag.meshgrid(ag.zeros(2), ag.zeros(3), indexing='xy')]
    [torch.Size([3, 2]), torch.Size([3, 2])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]   # the older form: one list of tensors
    tensors = tensor_sequence("meshgrid", tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    _check_meshgrid(tensors, indexing)
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    shape = tuple(t.numel() for t in tensors)
    grids = []
    for i, t in enumerate(tensors):
        along = tuple(n if d == i else 1 for d, n in enumerate(shape))
        grids.append(t.view(along).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _check_meshgrid(tensors: list, indexing: str) -> None:
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")


# ----------------------------------------------------------------------------- repeating

def tile(input, dims):
    """``input`` repeated ``dims`` times along each dim; missing leading ``dims`` count as 1
    (a ``repeat``: RepeatBackward0).

    >>> import agdebug as ag
    >>> ag.tile(ag.tensor([[1, 2]]), (2,)).tolist()
    [[1, 2, 1, 2]]
    """
    dims = _int_tuple("tile", "dims", 2, dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def _tile_method(self, *args, dims=None):
    dims = _required("tile", "dims", args, dims)
    return tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element repeated ``repeats`` times along ``dim`` (the flattened input when
    ``dim`` is None). An int repeats as torch does it, a view of an expanded copy
    (ViewBackward0 over CloneBackward0 over ExpandBackward0); a tensor of repeats picks
    rows with ``index_select`` (IndexSelectBackward0). With only a tensor of counts, the
    indices that repeat each position: ``repeat_interleave(tensor([1, 2])) = [0, 1, 1]``.

    >>> import agdebug as ag
    >>> ag.tensor([1, 2]).repeat_interleave(2).tolist()
    [1, 1, 2, 2]
    """
    if repeats is None:
        return _repeat_indices(input, output_size)
    if isinstance(repeats, Tensor):
        return _repeat_by_tensor(input, repeats, dim, output_size)
    if isinstance(repeats, bool) or not isinstance(repeats, int):
        raise TypeError("repeat_interleave() received an invalid combination of arguments - got "
                        f"(Tensor, {type(repeats).__name__}), but expected one of:")
    flat = input if dim is not None else input.flatten()
    dim = _dim(0 if dim is None else dim, input.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    grown = sh.unsqueeze(flat, dim=_dim(dim + 1, flat.ndim + 1))
    shape = list(grown.shape)
    shape[dim + 1] = repeats
    if output_size is not None and output_size != shape[dim] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{shape[dim] * repeats} but got {output_size}")
    copied = grown.expand(tuple(shape)).clone()
    return copied.view(tuple(shape[:dim]) + (shape[dim] * repeats,) + tuple(shape[dim + 2:]))


def _repeat_by_tensor(input, repeats, dim, output_size):
    from ..indexing.gather_scatter import index_select_op  # (gather is loaded after this module)
    flat = input if dim is not None else input.flatten()
    dim = 0 if dim is None else _dim(dim, input.ndim)
    size = flat.shape[dim]
    if repeats.ndim == 0 or repeats.ndim == 1 and repeats.shape[0] == 1:
        repeats = repeats.reshape(1).expand(size)
    elif repeats.ndim == 1:
        if repeats.shape[0] != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size(0) = {size}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    index = _repeat_indices(repeats, output_size)
    return index_select_op(flat, index=index._data, dim=dim)


def _repeat_indices(repeats, output_size):
    """``repeat_interleave(repeats)``: position i repeated repeats[i] times (no gradient)."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype.is_floating_point or repeats.dtype.is_complex or repeats.dtype.itemsize < 4:
        kernel = "repeat_interleave_cuda" if repeats.device.type == "cuda" else \
            "repeat_interleave_cpu"
        raise kernel_missing(kernel, repeats.dtype)
    counts = repeats._data
    xp = xp_of(counts)
    if counts.size and int(counts.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    # (CuPy's repeat takes the counts as a list only; the output size needs them on the host)
    index = xp.repeat(xp.arange(counts.size, dtype=counts.dtype), counts.tolist())
    return Tensor._wrap(index)


# ----------------------------------------------------------------------------- reshaping

def unflatten(input, dim, sizes, *, _method=False):
    """Dim ``dim`` split into ``sizes`` (one may be -1): a view (ViewBackward0).

    >>> import agdebug as ag
    >>> ag.zeros(2, 6).unflatten(1, (2, 3)).shape
    torch.Size([2, 2, 3])
    """
    sizes = _int_tuple("unflatten", "sizes", 2 if _method else 3, sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input.ndim == 0:   # torch's wording: its own check fails inside another
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    dim = _dim(dim, input.ndim)
    size = input.shape[dim]
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1 or -1 in sizes and known == 0:
        raise RuntimeError("unflatten got an unexpected error:")
    if -1 in sizes and size % known == 0:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    elif -1 in sizes or known != size:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({size}) in the input tensor")
    shape = tuple(input.shape)
    return input.view(shape[:dim] + sizes + shape[dim + 1:])


def _unflatten_method(self, dim, sizes):
    return unflatten(self, dim, sizes, _method=True)


_unflatten_method.__qualname__ = "Tensor.unflatten"   # named so in a missing-argument error


def ravel(input):
    """The elements as a 1-D tensor: a view when contiguous (ViewBackward0), else a view of a
    contiguous copy (ViewBackward0 over CloneBackward0), as torch's ``contiguous().view(-1)``.
    """
    return input.contiguous().view(-1)


# ----------------------------------------------------------------------------- flips

def rot90(input, k=1, dims=(0, 1)):
    """Rotated by 90 degrees ``k`` times, from the first of ``dims`` towards the second
    (Rot90Backward0; a copy).

    >>> import agdebug as ag
    >>> ag.tensor([[1, 2], [3, 4]]).rot90().tolist()
    [[2, 4], [1, 3]]
    """
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    wrapped = (_dim(dims[0], input.ndim), _dim(dims[1], input.ndim))
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return sh.rot90(input, k=int(k) % 4, dims=wrapped)


def fliplr(input):
    """Columns reversed (dim 1): a ``flip`` (FlipBackward0)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return sh.flip(input, dims=(1,))


def flipud(input):
    """Rows reversed (dim 0): a ``flip`` (FlipBackward0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return sh.flip(input, dims=(0,))


def narrow_copy(input, dim, start, length):
    """``narrow`` as a copy, not a view (NarrowCopyBackward0)."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if not -input.ndim <= dim < input.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    dim = dim % input.ndim
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return sh.narrow_copy(input, dim=dim, start=start, length=length)


# ----------------------------------------------------------------------------- splitting

def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of ``input`` along ``dim``: ``sections`` nearly equal pieces (the first ones one
    longer), or the pieces between ``indices`` (Python slice bounds: negative counts from
    the end, past the end is clamped). Each piece is a slice (SliceBackward0).

    >>> import agdebug as ag
    >>> [p.tolist() for p in ag.arange(5).tensor_split(2)]
    [[0, 1, 2], [3, 4]]
    """
    given = [a for a in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if a is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() received an invalid combination of arguments")
    split = _split_points(given[0])
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with {input.ndim} dims")
    dim = _dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(split, int):
        if split <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {split}")
        small, extra = divmod(size, split)
        lengths = [small + (i < extra) for i in range(split)]
        starts = [sum(lengths[:i]) for i in range(split)]
    else:
        bounds = [0, *split, size]
        starts, lengths = [], []
        for lo, hi in zip(bounds, bounds[1:]):
            lo, hi, _ = slice(lo, hi).indices(size)
            starts.append(lo)
            lengths.append(max(hi - lo, 0))
    return tuple(sh.narrow(input, dim=dim, start=s, length=n) for s, n in zip(starts, lengths))


def _split_points(value):
    """An int (sections) or a tuple of ints (indices); a tensor gives either, as torch reads it.
    """
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.dtype.itemsize != 8 or value.dtype.is_complex:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {value.dtype._legacy}")
        if value.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {value.ndim} dims")
        return int(value.item()) if value.ndim == 0 else tuple(value.tolist())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise TypeError("tensor_split() received an invalid combination of arguments - got "
                    f"(Tensor, {type(value).__name__}), but expected one of:")


def _split_along(name: str, min_ndim: int, input, indices_or_sections):
    """hsplit/vsplit/dsplit: ``tensor_split`` along one dim; whole sections only."""
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    dim = {"hsplit": 0 if input.ndim == 1 else 1, "vsplit": 0, "dsplit": 2}[name]
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {indices_or_sections}!")
    elif not isinstance(indices_or_sections, (tuple, list)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(indices_or_sections).__name__}), but expected one of:")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), into whole sections only."""
    return _split_along("hsplit", 1, input, indices_or_sections)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of 2 or more dims."""
    return _split_along("vsplit", 2, input, indices_or_sections)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of 3 or more dims."""
    return _split_along("dsplit", 3, input, indices_or_sections)


# ----------------------------------------------------------------------------- stacking

def column_stack(tensors):
    """Tensors side by side as columns: 0-D and 1-D ones become columns (ViewBackward0), then
    ``hstack`` (CatBackward0).

    >>> import agdebug as ag
    >>> ag.column_stack([ag.zeros(3), ag.ones(3)]).shape
    torch.Size([3, 2])
    """
    tensors = _non_empty("column_stack", tensors)
    return hstack([t.view(t.numel(), 1) if t.ndim <= 1 else t for t in tensors])


def dstack(tensors):
    """Tensors joined depth-wise (dim 2) after making each at least 3-D (CatBackward0)."""
    return cat([_grow_3d(t) for t in _non_empty("dstack", tensors)], 2)


# ----------------------------------------------------------------------------- differences

def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``, after joining ``prepend`` and ``append``:
    ``x[1:] - x[:-1]`` (SubBackward0 over two SliceBackward0) ``n`` times; ``logical_xor``
    for bool tensors.

    >>> import agdebug as ag
    >>> ag.tensor([1, 4, 9, 16]).diff().tolist()
    [3, 5, 7]
    """
    if input.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for name, other in (("prepend", prepend), ("append", append)):
        _check_diff_operand(input, name, other, dim)
    dim = _dim(dim, input.ndim)
    if n == 0:   # torch: zeros_like(x).copy_(x), a copy (CopyBackwards)
        return Tensor._wrap(xp_of(input._data).zeros_like(input._data)).copy_(input)
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], dim)
    result, length = input, input.shape[dim] - 1
    for _ in range(min(n, input.shape[dim])):
        later = sh.narrow(result, dim=dim, start=1, length=length)
        earlier = sh.narrow(result, dim=dim, start=0, length=length)
        result = comparison.logical_xor(later, earlier) if input.dtype == backend.bool_ else \
            later - earlier
        length -= 1
    return result


def _check_diff_operand(input, name: str, other, dim: int) -> None:
    """torch's checks of ``prepend``/``append``: a tensor of the input's shape but ``dim``."""
    if other is None:
        return
    if not isinstance(other, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(other).__name__}")
    if other.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    dim = _dim(dim, input.ndim)
    for i, (a, b) in enumerate(zip(input.shape, other.shape)):
        if i != dim and a != b:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match "
                               "that of input except along the differencing dimension; "
                               f"input.size({i}) = {a}, but got tensor.size({i}) = {b}")


FUNCTIONS = {
    "broadcast_shapes": broadcast_shapes, "broadcast_to": broadcast_to,
    "broadcast_tensors": broadcast_tensors, "meshgrid": meshgrid, "tile": tile,
    "repeat_interleave": repeat_interleave, "unflatten": unflatten, "ravel": ravel,
    "rot90": rot90, "fliplr": fliplr, "flipud": flipud, "narrow_copy": narrow_copy,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "column_stack": column_stack, "dstack": dstack, "diff": diff,
}

METHODS = {
    "broadcast_to": _broadcast_to_method, "tile": _tile_method,
    "repeat_interleave": repeat_interleave, "unflatten": _unflatten_method, "ravel": ravel,
    "rot90": rot90, "fliplr": fliplr, "flipud": flipud, "narrow_copy": narrow_copy,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "diff": diff,
}
