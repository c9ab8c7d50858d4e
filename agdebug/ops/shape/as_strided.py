"""``as_strided``: a view of the input's storage with any sizes, strides and offset.

Sizes, strides and the offset count elements from the start of the storage (the array
that owns the memory), not from the input's first element: ``x[1:].as_strided((2,), (1,))``
reads the storage from the element ``x[1:]`` starts at, ``x[1:].as_strided((2,), (1,), 0)``
from the storage's first element.

Storage here is the NumPy (or CuPy) array that owns the tensor's memory: the last array
down its chain of ``.base`` references (``util.storage_root``), read in memory order. It is
torch's storage wherever agdebug makes the same views and copies torch makes, but not
always (a known limitation, not reproduced):

- a result that agdebug cuts out of a larger buffer, where torch allocates just the result
  (conv input gradients are crops of a padded buffer: here their storage is the whole
  buffer, so their ``stride()``, ``storage_offset()`` and what ``as_strided`` reads differ);
- a result that agdebug copies where torch returns a view (``unsafe_split``'s pieces are
  each their own storage here, the input's storage in torch);
- on a GPU, CuPy's strided views (``as_strided``, ``diagonal``, ``unfold``) keep no link to
  their base: such a view is its own storage.

Where the storages agree (slices, transposes, ``view``, ``expand``, ``detach`` of
a slice, results of elementwise ops), sizes, strides, offsets, values and gradients are
torch's; where they differ, ``as_strided`` reads other elements than torch does (or raises
torch's out-of-bounds error where torch would not), and so does its gradient.

The derivative is torch's ``as_strided_backward``: the gradient of each view element is
added into a zero buffer shaped like the storage (several view elements may read one
storage element: their gradients add up), and the input's own elements are read back out
of it (divided by how often the input itself reads each one, when it overlaps too). Both
steps are ops (``index_add``, ``index_select``), so the derivative is differentiable again.
"""

from __future__ import annotations

import numpy as np

from ... import backend
from ...tensor import Tensor
from ..indexing.gather_scatter import index_add_op, index_select_op
from ..reduction.signatures import missing_arguments
from ..core.inplace import apply_shape_inplace
from ..core.registry import defop
from ..core.storage import element_offsets, storage_root
from ..core.gradients import zeros_grad


def _as_strided(xp, x, size=(), stride=(), storage_offset=None, self_geometry=None):
    """The view; ``self_geometry`` is the input's (sizes, strides, offset), for the
    derivative (torch's node keeps it as ``TensorGeometry(self)``)."""
    return strided_view(xp, x, size, stride, _offset(self_geometry, storage_offset))


# as_strided_'s node is the same view, which the tensor then becomes
as_strided_op = defop("as_strided", node="AsStridedBackward0", view=True)(_as_strided)
as_strided_inplace_op = defop("as_strided_", node="AsStridedBackward1")(_as_strided)


def _offset(geometry: tuple, storage_offset):
    """The view's storage offset: the input's own (from its ``geometry``) unless given."""
    return geometry[2] if storage_offset is None else storage_offset


def strided_view(xp, x, size: tuple, stride: tuple, offset: int):
    """The view of ``x``'s storage with ``size``, ``stride`` and ``offset`` (in elements)."""
    flat = _flat_storage(storage_root(x))
    item = x.dtype.itemsize
    view = xp.lib.stride_tricks.as_strided(flat[offset:], tuple(size),
                                           tuple(s * item for s in stride))
    if any(s == 0 and n > 1 for n, s in zip(size, stride)) and hasattr(view.flags, "writeable"):
        # torch refuses in-place writes where several elements are one memory location;
        # write_into reads this flag (as for ``expand``). CuPy arrays have no such flag.
        view.flags.writeable = False
    return view


def _flat_storage(root):
    """The storage as a 1-d view in memory order (the owner of the memory is dense, but it
    may be laid out in any order of its dims: ``exp`` of a transposed tensor keeps it)."""
    order = sorted(range(root.ndim), key=lambda d: -root.strides[d])
    return root.transpose(order).reshape(-1)


@as_strided_op.vjp
def as_strided_vjp(ctx, grad):
    return (as_strided_backward(grad, ctx.self_geometry, ctx.size, ctx.stride,
                                ctx.storage_offset),)


as_strided_inplace_op.vjp(as_strided_vjp)


def as_strided_backward(grad: Tensor, geometry: tuple, size: tuple, stride: tuple,
                        storage_offset) -> Tensor:
    """torch's ``as_strided_backward``: the gradient of the input of geometry ``geometry``
    (sizes, strides, offset) from that of its view (``size``, ``stride``, ``storage_offset``)."""
    in_size, in_stride, in_offset = geometry
    out_offset = _offset(geometry, storage_offset)
    if grad.numel() == 0 or int(np.prod(in_size, dtype=np.int64)) == 0:
        return zeros_grad(grad, tuple(in_size))
    shared = min(in_offset, out_offset)
    out_index = element_offsets(size, stride, out_offset - shared)
    in_index = element_offsets(in_size, in_stride, in_offset - shared)
    storage_size = int(max(out_index.max(), in_index.max())) + 1
    device = grad.device
    storage = index_add_op(zeros_grad(grad, (storage_size,)), grad.reshape(-1),
                           index=backend.move_array(out_index, device), dim=0)
    grad_input = index_select_op(storage, index=backend.move_array(in_index, device), dim=0)
    counts = np.bincount(in_index, minlength=storage_size)[in_index]
    if counts.max() > 1:   # the input reads some storage elements more than once
        count = backend.move_array(counts.astype(grad._data.dtype), device)
        grad_input = grad_input / Tensor._wrap(count)
    return grad_input.reshape(tuple(in_size))


# ----------------------------------------------------------------------------- signatures

def geometry(x: Tensor) -> tuple:
    """``(sizes, strides, storage offset)`` of ``x``, in elements (torch's TensorGeometry)."""
    from ..tensor_methods.views import _storage_offset, _strides  # (methods imports the op modules)
    data = x._data
    return tuple(data.shape), tuple(_strides(data)), _storage_offset(data)


def _where(name: str, argument: str, position) -> str:
    """torch names the position of an argument given positionally, not of a keyword."""
    at = "" if position is None else f" (position {position})"
    return f"{name}(): argument '{argument}'{at}"


def _as_int(value):
    """An int, numpy integer or one-element integer tensor as an int; None for anything
    else (a bool is no int to torch)."""
    if isinstance(value, Tensor) and value._data.dtype.kind in "iu" and value.numel() == 1:
        return int(value.item())
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return None


def _int_list(name: str, argument: str, position, value) -> tuple:
    """A tuple or list of ints (a torch.Size is one); torch's TypeError otherwise."""
    where = f"{_where(name, argument, position)} must be tuple of ints"
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where}, not {type(value).__name__}")
    ints = tuple(_as_int(v) for v in value)
    for i, v in enumerate(ints):
        if v is None:
            raise TypeError(f"{where}, but found element of type {type(value[i]).__name__} "
                            f"at pos {i}")
    return ints


def _check_offset(name: str, argument: str, position, storage_offset):
    if storage_offset is None:   # (None is the default, given or not)
        return None
    offset = _as_int(storage_offset)
    if offset is None:
        raise TypeError(f"{_where(name, argument, position)} must be int, not "
                        f"{type(storage_offset).__name__}")
    return offset


def _check_input(name: str, argument: str, position, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{_where(name, argument, position)} must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def check_geometry(x: Tensor, size: tuple, stride: tuple, offset: int) -> None:
    """torch's checks of a view's geometry against the storage, in its order and words."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = _storage_elements(size, stride, offset)
    root = storage_root(x._data)
    item = x._data.dtype.itemsize
    if needed * item > root.nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {item} requiring a storage size of "
                           f"{needed * item} are out of bounds for storage of size "
                           f"{root.nbytes}")


def _storage_elements(size: tuple, stride: tuple, offset: int) -> int:
    """torch's ``computeStorageNbytes`` in elements: 0 for an empty view."""
    extent = 1
    for n, s in zip(size, stride):
        if n == 0:
            return 0
        if n < 0 and s != 0:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} "
                               f"and strides={list(stride)}")
        extent += s * (n - 1)
    if any(n < 0 for n in size):   # a zero stride passes the check above; numel() fails
        raise RuntimeError("numel: integer multiplication overflow")
    return offset + extent


_CHECKS = {"input": _check_input, "size": _int_list, "stride": _int_list,
           "storage_offset": _check_offset}
_METHOD = ("size", "stride", "storage_offset")   # the method's parameters, after self
_FUNCTION = ("input",) + _METHOD
_ABSENT = object()


def _parse(name: str, params: tuple, args: tuple, kwargs: dict) -> dict:
    """``params``' values from ``args`` and ``kwargs`` as torch's argument parser takes them
    (``FunctionSignature::parse``, one signature), its errors in its order and words: too
    many positional arguments; then, parameter by parameter, a required one missing (torch
    lists every required one from there on, given or not) or of the wrong type; last, a
    keyword that names no parameter or one already given by position."""
    if len(args) > len(params):
        raise TypeError(f"{name}() takes from {len(params) - 1} to {len(params)} positional "
                        f"arguments but {len(args)} were given")
    values = {}
    for i, param in enumerate(params):
        value, position = (args[i], i + 1) if i < len(args) else \
            (kwargs.get(param, _ABSENT), None)
        if value is _ABSENT and param != "storage_offset":
            raise missing_arguments(name, *(p for p in params[i:] if p != "storage_offset"))
        values[param] = _CHECKS[param](name, param, position,
                                       None if value is _ABSENT else value)
    for key in kwargs:
        if key not in params:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        if params.index(key) < len(args):
            raise TypeError(f"{name}() got multiple values for argument '{key}'")
    return values


def _arguments(x: Tensor, values: dict) -> dict:
    """The op's keywords from the parsed arguments, the geometry checked against ``x``'s
    storage as torch checks it."""
    size, stride, storage_offset = (values[name] for name in _METHOD)
    shape = geometry(x)
    check_geometry(x, size, stride, _offset(shape, storage_offset))
    return {"size": size, "stride": stride, "storage_offset": storage_offset,
            "self_geometry": shape}


def as_strided(*args, **kwargs) -> Tensor:
    """``as_strided(input, size, stride, storage_offset=None)``: a view of ``input``'s
    storage with the given sizes, strides and storage offset (all in elements; the offset
    defaults to ``input``'s own).

    >>> import agdebug as ag
    >>> ag.as_strided(ag.arange(6), (2, 2), (1, 2), 1)
    tensor([[1, 3],
            [2, 4]])
    """
    values = _parse("as_strided", _FUNCTION, args, kwargs)
    return as_strided_op(values["input"], **_arguments(values["input"], values))


def as_strided_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.as_strided(size, stride, storage_offset=None)``: see :func:`as_strided`."""
    return as_strided_op(self, **_arguments(self, _parse("as_strided", _METHOD, args, kwargs)))


def as_strided_(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.as_strided_(size, stride, storage_offset=None)``: in place, ``x`` becomes the
    view of its storage with this geometry."""
    values = _parse("as_strided_", _METHOD, args, kwargs)
    return apply_shape_inplace(as_strided_inplace_op, self, _arguments(self, values))


def as_strided_function(*args, **kwargs) -> Tensor:
    """``as_strided_(input, size, stride, storage_offset=None)``: see :meth:`as_strided_`."""
    values = _parse("as_strided_", _FUNCTION, args, kwargs)
    x = values["input"]
    return apply_shape_inplace(as_strided_inplace_op, x, _arguments(x, values))


FUNCTIONS = {"as_strided": as_strided, "as_strided_": as_strided_function}
METHODS = {"as_strided": as_strided_method, "as_strided_": as_strided_}
