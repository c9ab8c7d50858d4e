"""Helpers shared by derivatives: shapes of inputs, undoing reductions."""

from __future__ import annotations

import collections

import numpy as np

from .. import backend
from ..backend import xp_of
from ..graph.grad_mode import MODE
from ..tensor import Tensor


def zeros_grad(like: Tensor, shape: tuple) -> Tensor:
    """A gradient of zeros with ``like``'s dtype and device, outside any graph."""
    return Tensor._wrap(xp_of(like._data).zeros(shape, dtype=like._data.dtype))


def derivative_formula(formula, *tensors) -> Tensor:
    """``formula(*tensors)``: on the tensors' arrays in one go when ``unrecorded_host`` allows
    it and they share one shape; else on the tensors themselves, as ops (with torch's
    promotion, broadcasting and errors).

    Written with ops, a derivative is differentiable, but each op is a call through the
    registry; unrecorded, nothing needs those ops (torch's kernels compute such a formula in
    one pass too). The same operations in the same order: the same bits.
    """
    if not unrecorded_host(*tensors):
        return formula(*tensors)
    arrays = [t._data for t in tensors]
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        return formula(*tensors)
    return Tensor._wrap(np.asarray(formula(*arrays)))   # (a 0-d result comes as a scalar)


def unrecorded_host(*tensors) -> bool:
    """Whether a derivative may compute on these tensors' arrays directly, as the ops would:
    nothing records it (grad mode off, as in a backward without ``create_graph``) and all
    are NumPy arrays of one dtype. (On a GPU the ops also pick the arrays' device, so there
    they stay ops.)"""
    if MODE.grad_enabled:
        return False
    dtype = tensors[0]._data.dtype
    return all(type(t._data) is np.ndarray and t._data.dtype == dtype for t in tensors)


def attr_array(value):
    """A tensor passed as a keyword attribute (a target, a weight, a condition: not an input,
    so not an edge) as its array; anything else (None, a number) as it is. The forward gets
    keywords as given, and CuPy, unlike NumPy, takes no Tensor in place of an array."""
    return value._data if isinstance(value, Tensor) else value


def c_div(a: int, b: int) -> int:
    """C++'s integer division (it truncates toward zero), as torch's checks compute it."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


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


def zero_grads(ctx, grad):
    """The derivative of a piecewise-constant op: zeros for each input that needs one,
    outside any graph (as torch's)."""
    return tuple(zeros_grad(grad, tuple(grad.shape)) if needs(ctx, i) else None
                 for i in range(len(ctx._next)))


def per_element(xp, x, scalar, cupy_name: str):
    """``scalar`` (a float function, e.g. ``math.erf``) on each element on the CPU, exactly;
    ``cupyx.scipy.special.<cupy_name>`` on the GPU."""
    if xp is np:   # np.array: on a 0-d input frompyfunc returns a bare Python float
        return np.array(np.frompyfunc(scalar, 1, 1)(x), dtype=x.dtype)
    import importlib
    return getattr(importlib.import_module("cupyx.scipy.special"), cupy_name)(x)


def check_divisor_override(function: str, divisor) -> None:
    """The average pools' ``divisor_override``: None, or a non-zero int (torch's errors)."""
    if divisor is None:
        return
    if not isinstance(divisor, (int, np.integer)) or isinstance(divisor, bool):
        raise TypeError(f"{function}(): argument 'divisor_override' must be int, not "
                        f"{type(divisor).__name__}")
    if divisor == 0:
        raise RuntimeError("divisor must be not zero")


def data_pointer(array) -> int:
    """The address of an array's first element (a device pointer for a CuPy array)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr   # CuPy


def storage_root(array):
    """The array that owns ``array``'s memory (torch: its storage): the last array of
    ``array``'s kind down its chain of ``.base`` references, which may pass through other
    objects (the ``DummyArray`` NumPy's ``as_strided`` puts between a view and its base).
    CuPy's ``as_strided`` keeps no base: on a GPU such a view is its own storage here."""
    root, link = array, array.base
    while link is not None:
        if isinstance(link, type(array)):
            root = link
        link = getattr(link, "base", None)
    return root


def element_offsets(shape, strides, start: int) -> np.ndarray:
    """The memory offset of every element of a strided array, row-major, flattened: its
    ``strides`` and ``start`` in elements."""
    offsets = np.array([start], dtype=np.int64)
    for n, s in zip(shape, strides):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
    return offsets


def kernel_missing(kernel: str, dtype) -> NotImplementedError:
    """torch's error for a dtype that its kernel ``kernel`` has no version for (to raise)."""
    if not isinstance(dtype, backend.dtype):
        dtype = backend.get_dtype(dtype)
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype._legacy}\'')


def no_derivative(name: str):
    """The derivative of an op torch has none for: its node raises, in torch's words, when a
    backward reaches it (``name``: the op in torch's message, e.g. ``'_unique2'``)."""
    def vjp(ctx, *grads):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return vjp


def return_type(name: str, fields: tuple):
    """torch.return_types.<name>: a named tuple of ``fields`` printed as torch prints it."""
    def __repr__(self):
        items = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"torch.return_types.{name}(\n{items})"
    base = collections.namedtuple(name, fields)
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__module__": "torch.return_types"})


def broadcast_shape(*shapes) -> tuple:
    """The shape ``shapes`` broadcast to, or torch's RuntimeError where they do not: checked
    as torch's ``infer_size``, pairwise from the first, each pair right to left (so the error
    names the last dimension that differs)."""
    shape = ()
    for other in shapes:
        other = tuple(other)
        ndim = max(len(shape), len(other))
        a, b = (1,) * (ndim - len(shape)) + shape, (1,) * (ndim - len(other)) + other
        for d in range(ndim - 1, -1, -1):
            if a[d] != b[d] and a[d] != 1 and b[d] != 1:
                raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of "
                                   f"tensor b ({b[d]}) at non-singleton dimension {d}") from None
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    return shape


def broadcast_error(*operands):
    """Called where NumPy raised ValueError: torch's RuntimeError if the operands' shapes do
    not broadcast (see :func:`broadcast_shape`); else nothing, and the caller re-raises."""
    broadcast_shape(*(getattr(operand, "shape", ()) for operand in operands))
