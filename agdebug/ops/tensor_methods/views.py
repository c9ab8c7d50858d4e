"""torch's signatures of view, reshape, expand (their shape arguments, ``view(dtype)``),
and a tensor's strides and storage offset."""

from __future__ import annotations

import math

from ... import backend
from ...graph.grad_mode import MODE
from ...tensor import Tensor
from ..pointwise import copying
from ..shape import views_copies as sh
from ..core.storage import data_pointer, storage_root


# ----------------------------------------------------------------------------- shapes

def shape_arg(size) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    if type(size) is tuple and all(type(s) is int for s in size):
        return size   # (the common case: already a tuple of ints)
    return tuple(int(s) for s in size)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` and check the element count, with torch's messages."""
    if shape and min(shape) >= 0 and math.prod(shape) == numel:
        return shape   # (the common case: nothing to infer, the count right)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view(self, *shape, dtype=None):
    if dtype is not None or (shape and not isinstance(shape[0], (tuple, list, int))
                             and backend.as_dtype(shape[0]) is not None):
        return view_dtype(self, *shape, dtype=dtype)
    target = infer_shape(shape_arg(shape), self.numel())
    if not self._data.flags.c_contiguous and self._data.ndim > 1 and self._data.size > 1:
        if not _viewable(self._data, target):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return sh.view(self, shape=target)


def view_dtype(self, *args, dtype=None):
    """``x.view(torch.int32)``: the same bytes read as another dtype.

    torch's ``view(dtype)`` is not differentiable: the result never requires grad, has no
    grad_fn and is no view for autograd (``_base`` is None), whatever the dtype; it shares
    the storage and so the version counter, as ``detach()`` does. Nor does it inherit
    ``is_inference()``: torch makes it as any new tensor in the current mode.
    """
    if dtype is None and len(args) == 1:
        (dtype,), args = args, ()
    if args:   # torch takes a dtype or a shape, not both
        got = ", ".join("torch.dtype" if backend.as_dtype(a) is not None else type(a).__name__
                        for a in (*args, *([dtype] if dtype is not None else [])))
        raise TypeError(f"view() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:")
    new = backend.as_dtype(dtype)   # ``x.view(float)``: Python's float is torch's double
    if new is None:
        raise TypeError(f"view(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    old = self.dtype
    array = self._data
    if new.itemsize != old.itemsize:
        _check_view_dtype(array, old, new)
    out = Tensor._wrap(array.view(new.np), None, 0, self._version_counter())
    out._inference = MODE.inference   # torch: a new tensor of the mode, whatever self was
    return out


def _check_view_dtype(array, old, new) -> None:
    """torch's checks, in its order, where the element size changes (numpy's differ)."""
    def fail(what, tail=""):
        raise RuntimeError(f"{what} to view {old._legacy} as {new._legacy} (different element "
                           f"sizes){tail}")
    if array.ndim == 0:
        fail("self.dim() cannot be 0")
    strides = _strides(array)
    if strides[-1] != 1:
        fail("self.stride(-1) must be 1", f", but got {strides[-1]}")
    if new.itemsize < old.itemsize:
        return
    ratio = new.itemsize // old.itemsize
    if array.shape[-1] % ratio:
        fail(f"self.size(-1) must be divisible by {ratio}", f", but got {array.shape[-1]}")
    offset = _storage_offset(array)
    if offset % ratio:
        fail(f"self.storage_offset() must be divisible by {ratio}", f", but got {offset}")
    for i, stride in enumerate(strides[:-1]):
        if stride % ratio:
            fail(f"self.stride({i}) must be divisible by {ratio}", f", but got {stride}")


def _strides(array) -> list:
    """torch's strides, in elements. NumPy gives an empty array zero strides; torch gives it
    contiguous ones (each size counted as at least 1)."""
    if array.size:
        return [s // array.itemsize for s in array.strides]
    strides, step = [], 1
    for size in reversed(array.shape):
        strides.insert(0, step)
        step *= max(size, 1)
    return strides


def _storage_offset(array) -> int:
    """Elements from the start of the array's storage (its last base) to its first one."""
    return (data_pointer(array) - data_pointer(storage_root(array))) // array.itemsize


def _viewable(array, target) -> bool:
    try:
        view_of = array.view()
        view_of.shape = target   # numpy refuses exactly when a copy would be needed
        return True
    except AttributeError:
        return False


def reshape(self, *shape):
    target = infer_shape(shape_arg(shape), self.numel())
    if self._data.flags.c_contiguous:
        return sh.view(self, shape=target)
    if _viewable(self._data, target):
        return sh.reshape_alias(self, shape=target)
    return sh.unsafe_view(copying.clone(self), shape=target)


def expand(self, *sizes):
    sizes = shape_arg(sizes)
    current = self.shape
    if len(sizes) < len(current):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(current)}}}, size={list(sizes)}): the number of "
            "sizes provided (%d) must be greater or equal to the number of dimensions in the "
            "tensor (%d)" % (len(sizes), len(current)))
    lead = len(sizes) - len(current)
    target = []
    for i, s in enumerate(sizes):
        if i >= lead:
            have = current[i - lead]
            if s == -1:
                s = have
            elif have != 1 and have != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size "
                    f"({have}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(current)}")
        elif s == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading,"
                               f" non-existing dimension {i}")
        target.append(s)
    return sh.expand(self, shape=tuple(target))


def expand_as(self, other):
    return expand(self, other.shape)
