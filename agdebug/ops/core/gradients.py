"""Helpers shared by derivatives: shapes of inputs, undoing reductions."""

from __future__ import annotations

import collections

import numpy as np

from ...backend import xp_of
from ...graph.grad_mode import MODE
from ...tensor import Tensor
from .checks import dims_of


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
    for t in tensors:   # (a loop, not all() of a generator: every derivative asks this)
        data = t._data
        if type(data) is not np.ndarray or (data.dtype is not dtype and data.dtype != dtype):
            return False
    return True


def attr_array(value):
    """A tensor passed as a keyword attribute (a target, a weight, a condition: not an input,
    so not an edge) as its array; anything else (None, a number) as it is. The forward gets
    keywords as given, and CuPy, unlike NumPy, takes no Tensor in place of an array."""
    return value._data if isinstance(value, Tensor) else value


def needs(ctx, i: int) -> bool:
    """Whether forward input ``i`` gets a gradient (torch's ``needs_input_grad[i]``)."""
    return ctx._next[i] is not None


def input_shape(ctx, i: int) -> tuple:
    """The shape of forward input ``i``, read from the node it came from (no copy kept)."""
    return ctx._next[i]._out_meta[ctx._next_nr[i]][0]


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
    if xp is np and x.dtype.kind == "f":
        # The same Python floats in and out as frompyfunc gives (a double rounded once to
        # x's dtype), without its array of objects: a quarter less time (GELU's erf).
        values = np.fromiter(map(scalar, x.ravel().tolist()), np.float64, x.size)
        return values.astype(x.dtype, copy=False).reshape(x.shape)
    if xp is np:   # np.array: on a 0-d input frompyfunc returns a bare Python float
        return np.array(np.frompyfunc(scalar, 1, 1)(x), dtype=x.dtype)
    import importlib
    return getattr(importlib.import_module("cupyx.scipy.special"), cupy_name)(x)


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
