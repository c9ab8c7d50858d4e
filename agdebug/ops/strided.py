"""``as_strided``: a view of the input's storage with any sizes, strides and offset.

Sizes, strides and the offset count elements from the start of the storage (the array
that owns the memory), not from the input's first element: ``x[1:].as_strided((2,), (1,))``
reads the storage from the element ``x[1:]`` starts at, ``x[1:].as_strided((2,), (1,), 0)``
from the storage's first element.

The derivative is torch's ``as_strided_backward``: the gradient of each view element is
added into a zero buffer shaped like the storage (several view elements may read one
storage element: their gradients add up), and the input's own elements are read back out
of it (divided by how often the input itself reads each one, when it overlaps too). Both
steps are ops (``index_add``, ``index_select``), so the derivative is differentiable again.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..tensor import Tensor
from .gather import index_add_op, index_select_op
from .reduce import missing_arguments
from .registry import apply_shape_inplace, defop
from .util import element_offsets, storage_root, zeros_grad


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
    from .methods import _storage_offset, _strides   # (methods imports the op modules)
    data = x._data
    return tuple(data.shape), tuple(_strides(data)), _storage_offset(data)


def _where(argument: str, position) -> str:
    """torch names the position of an argument given positionally, not of a keyword."""
    at = "" if position is None else f" (position {position})"
    return f"as_strided(): argument '{argument}'{at}"


def _as_int(value):
    """An int, numpy integer or one-element integer tensor as an int; None for anything
    else (a bool is no int to torch)."""
    if isinstance(value, Tensor) and value._data.dtype.kind in "iu" and value.numel() == 1:
        return int(value.item())
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    return None


def _int_list(argument: str, position, value) -> tuple:
    """A tuple or list of ints (a torch.Size is one); torch's TypeError otherwise."""
    where = f"{_where(argument, position)} must be tuple of ints"
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where}, not {type(value).__name__}")
    ints = tuple(_as_int(v) for v in value)
    for i, v in enumerate(ints):
        if v is None:
            raise TypeError(f"{where}, but found element of type {type(value[i]).__name__} "
                            f"at pos {i}")
    return ints


def _check_offset(position, storage_offset):
    if storage_offset is None:
        return None
    offset = _as_int(storage_offset)
    if offset is None:
        raise TypeError(f"{_where('storage_offset', position)} must be int, not "
                        f"{type(storage_offset).__name__}")
    return offset


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


_NAMES = ("size", "stride", "storage_offset")


def _arguments(x: Tensor, args: tuple, kwargs: dict, first: int) -> dict:
    """The op's keywords from ``as_strided``'s arguments, checked as torch checks them
    (``first``: the position torch gives ``size``, after ``self`` in the function only)."""
    if len(args) > len(_NAMES) or set(kwargs) - set(_NAMES):
        raise TypeError("as_strided() received an invalid combination of arguments")
    given = {name: (value, first + i) for i, (name, value) in enumerate(zip(_NAMES, args))}
    given.update((name, (value, None)) for name, value in kwargs.items())
    missing = [name for name in _NAMES[:2] if name not in given]
    if missing:
        raise missing_arguments("as_strided", *missing)
    size = _int_list("size", given["size"][1], given["size"][0])
    stride = _int_list("stride", given["stride"][1], given["stride"][0])
    value, position = given.get("storage_offset", (None, None))
    storage_offset = _check_offset(position, value)
    shape = geometry(x)
    check_geometry(x, size, stride, _offset(shape, storage_offset))
    return {"size": size, "stride": stride, "storage_offset": storage_offset,
            "self_geometry": shape}


def as_strided(input: Tensor, *args, **kwargs) -> Tensor:
    """``as_strided(input, size, stride, storage_offset=None)``: a view of ``input``'s
    storage with the given sizes, strides and storage offset (all in elements; the offset
    defaults to ``input``'s own).

    >>> import agdebug as ag
    >>> ag.as_strided(ag.arange(6), (2, 2), (1, 2), 1)
    tensor([[1, 3],
            [2, 4]])
    """
    return as_strided_op(input, **_arguments(input, args, kwargs, 2))


def as_strided_method(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.as_strided(size, stride, storage_offset=None)``: see :func:`as_strided`."""
    return as_strided_op(self, **_arguments(self, args, kwargs, 1))


def as_strided_(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.as_strided_(size, stride, storage_offset=None)``: in place, ``x`` becomes the
    view of its storage with this geometry."""
    return apply_shape_inplace(as_strided_inplace_op, self, _arguments(self, args, kwargs, 1))


FUNCTIONS = {"as_strided": as_strided}
METHODS = {"as_strided": as_strided_method, "as_strided_": as_strided_}
