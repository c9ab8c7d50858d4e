"""Indexing: ``x[key]`` and ``x[key] = value`` (and ``index_put``).

A key is read as torch reads it: ints, slices and None become views
(SelectBackward0, SliceBackward0, UnsqueezeBackward0), then any index tensors
(int lists and arrays, integer tensors, bool masks) apply to that view in one
IndexBackward0. Internally a parsed key is a pair ``(basic, adv)``: a numpy
basic-index tuple, and, when there are index tensors, the advanced-index tuple
applied to the view ``x[basic]``. Gradients of advanced indexing accumulate
repeated indices (``add.at``).
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import backend
from ...tensor import Tensor
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..core.gradients import input_shape, needs, zeros_grad

VIEW_LEAF_MESSAGE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                     "operation.")
LEGACY_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result")
UINT8_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                 "torch.bool instead.")


def _legacy(np_dtype) -> str:
    return backend.get_dtype(np_dtype)._legacy


# ----------------------------------------------------------------------------- array helpers


def _add_at(xp, target, key, values) -> None:
    at = getattr(xp.add, "at", None)
    if at is not None:
        at(target, key, values)
    else:   # older CuPy
        import cupyx
        cupyx.scatter_add(target, key, values)


def _take(x, key):
    basic, adv = key
    view = x[basic + (Ellipsis,)]
    return view if adv is None else view[adv]


def _put(xp, out, key, values, accumulate: bool) -> None:
    basic, adv = key
    view = out[basic + (Ellipsis,)]
    if adv is None:
        if accumulate:
            view += values
        else:
            view[...] = values
    elif accumulate:
        _add_at(xp, view, adv, values)
    else:
        view[adv] = values


def _fit(grad: Tensor, shape: tuple) -> Tensor:
    """A gradient for an input with extra leading 1s (``x[0] = v[None]``)."""
    extra = len(shape) - grad.ndim
    return grad.reshape((1,) * extra + tuple(grad.shape)) if extra > 0 else grad


# ----------------------------------------------------------------------------- basic views

@defop("select", node="SelectBackward0", view=True, sizes=SELF_SIZES)
def select(xp, x, dim=0, index=0):
    return x[(slice(None),) * dim + (index, Ellipsis)]


@select.vjp
def select_vjp(ctx, grad):
    key = ((slice(None),) * ctx.dim + (ctx.index,), None)
    return (copy_slices(zeros_grad(grad, input_shape(ctx, 0)), grad, key=key),)


@defop("slice", node="SliceBackward0", view=True, sizes=SELF_SIZES)
def slice_(xp, x, dim=0, start=0, end=0, step=1):
    return x[(slice(None),) * dim + (slice(start, end, step),)]


@slice_.vjp
def slice_vjp(ctx, grad):
    key = ((slice(None),) * ctx.dim + (slice(ctx.start, ctx.end, ctx.step),), None)
    return (copy_slices(zeros_grad(grad, input_shape(ctx, 0)), grad, key=key),)


@defop("alias", node="AliasBackward0", view=True)
def alias(xp, x):
    return x.view()


@alias.vjp
def alias_vjp(ctx, grad):
    return (grad,)


# ----------------------------------------------------------------------------- advanced

@defop("index", node="IndexBackward0", sizes=SELF_SIZES, saves=("indices=key",),
       saved_as={"key": None})
def index(xp, x, key=((), None)):
    out = _take(x, key)
    return out.copy() if key[1] is None else out


@index.vjp
def index_vjp(ctx, grad):
    zeros = zeros_grad(grad, input_shape(ctx, 0))
    return (index_put_op(zeros, grad, key=ctx.key, accumulate=ctx.key[1] is not None),)


def _put_forward(xp, x, values, key, accumulate=False):
    out = x.copy()
    _put(xp, out, key, values, accumulate)
    return out


def _put_vjp(ctx, grad):
    grad_x = None
    if needs(ctx, 0):
        grad_x = grad if ctx.accumulate else copy_slices(grad, 0.0, key=ctx.key)
    grad_values = None
    if needs(ctx, 1):
        grad_values = _fit(index(grad, key=ctx.key), input_shape(ctx, 1))
    return grad_x, grad_values


@defop("index_put", node="IndexPutBackward0", saves=("indices=key",), saved_as={"key": None})
def index_put_op(xp, x, values, key=((), None), accumulate=False):
    return _put_forward(xp, x, values, key, accumulate)


@defop("copy_slices", node="CopySlices")
def copy_slices(xp, x, values, key=((), None), accumulate=False):
    return _put_forward(xp, x, values, key, accumulate)


index_put_op.vjp(_put_vjp)
copy_slices.vjp(_put_vjp)


# ----------------------------------------------------------------------------- parsing keys

class _Plan:
    """A parsed key: the views to take in order, the index arrays, the numpy key."""

    __slots__ = ("adv", "basic", "steps")

    def __init__(self):
        self.steps = []      # ("select", dim, i) / ("slice", dim, start, end, step) / ("none", dim)
        self.basic = []      # the numpy basic key for the original tensor
        self.adv = {}        # view dim -> index array

    def key(self) -> tuple:
        if not self.adv:
            return (tuple(self.basic), None)
        adv = [slice(None)] * (max(self.adv) + 1)
        for d, a in self.adv.items():
            adv[d] = a
        return (tuple(self.basic), tuple(adv))


def _items(key) -> tuple:
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and any(
            k is None or k is Ellipsis or isinstance(k, (list, tuple, slice, Tensor, np.ndarray))
            for k in key):
        warnings.warn(LEGACY_KEY_WARNING, UserWarning, stacklevel=4)
        return tuple(key)
    return (key,)


def _as_xp(array, xp):
    if xp is np and not backend.is_cpu_array(array):
        return array.get()
    return xp.asarray(array)


def _classify(item, xp) -> tuple:
    """(kind, value): kind is none, ellipsis, bool, int, slice, array or mask."""
    if item is None:
        return ("none", None)
    if item is Ellipsis:
        return ("ellipsis", None)
    if isinstance(item, (bool, np.bool_)):
        return ("bool", bool(item))
    if isinstance(item, (int, np.integer)):
        return ("int", _int64(int(item)))
    if isinstance(item, slice):
        return ("slice", item)
    if isinstance(item, Tensor):
        array = _as_xp(item._data, xp)
    elif isinstance(item, (list, tuple, range)) or hasattr(item, "__array__"):
        # torch reads a range as the sequence of its ints
        sequence = isinstance(item, (list, tuple, range))
        if sequence and isinstance(item, (list, tuple)):
            _ints64(item)
        array = _as_xp(np.asarray(item) if sequence else item, xp)
        if array.size == 0 and array.dtype.kind == "f":
            array = array.astype(np.int64)   # x[[]]: an empty long index
    elif isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    else:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(item).__name__})")
    return _classify_array(array)


def _int64(value: int) -> int:
    """``value``, which torch reads as a C ``long long`` (its error beyond that)."""
    if not -(1 << 63) <= value < 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _ints64(items) -> None:
    for v in items:   # (nested lists: torch reads each int the same way)
        if isinstance(v, (list, tuple)):
            _ints64(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            _int64(v)


def _classify_array(array) -> tuple:
    if array.dtype == np.uint8:
        warnings.warn(UINT8_WARNING, UserWarning, stacklevel=5)
        array = array.astype(bool)
    if array.dtype.kind == "b":
        return ("bool", bool(array)) if array.ndim == 0 else ("mask", array)
    if array.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return ("int", int(array)) if array.ndim == 0 else ("array", array.astype(np.int64))


def _slice_bounds(s: slice, size: int) -> tuple:
    if s.step is not None and s.step <= 0:
        if s.step == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")
    return s.indices(size)


def _refuse_zero_dim(key, ndim: int) -> None:
    """torch's own words for a bare int or slice on a 0-d tensor (a tuple of them, or a
    tensor, is "too many indices" there too)."""
    if ndim == 0 and type(key) is int:
        if key == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
    if ndim == 0 and isinstance(key, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")


def plan_key(t: Tensor, key) -> _Plan:
    """Parse ``key`` for ``t`` with torch's checks and error texts."""
    xp = backend.xp_of(t._data)
    bare_slice = isinstance(key, slice)
    items = [_classify(k, xp) for k in _items(key)]
    shape, ndim = t._data.shape, t._data.ndim
    consumed = sum(1 if k in ("int", "slice", "array") else v.ndim if k == "mask" else 0
                   for k, v in items)
    if consumed > ndim:
        _refuse_zero_dim(key, ndim)
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    plan, dim, real, ellipsis_seen = _Plan(), 0, 0, False
    for kind, v in items:
        if kind == "ellipsis":
            n = 0 if ellipsis_seen else ndim - consumed
            ellipsis_seen = True
            plan.basic += [slice(None)] * n
            dim, real = dim + n, real + n
        elif kind == "int":
            size = shape[real]
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {real} with size "
                                 f"{size}")
            plan.steps.append(("select", dim, v % size))
            plan.basic.append(v % size)
            real += 1
        elif kind == "slice":
            start, stop, step = _slice_bounds(v, shape[real])
            if bare_slice or (start, stop, step) != (0, shape[real], 1):
                plan.steps.append(("slice", dim, start, stop, step))
            plan.basic.append(slice(start, stop, step))
            dim, real = dim + 1, real + 1
        elif kind in ("none", "bool"):
            plan.steps.append(("none", dim))
            plan.basic.append(None)
            if kind == "bool":
                plan.adv[dim] = xp.zeros(int(v), dtype=np.int64)
            dim += 1
        elif kind == "array":
            plan.adv[dim] = v
            plan.basic.append(slice(None))
            dim, real = dim + 1, real + 1
        else:
            _add_mask(plan, v, shape, dim, real, xp)
            dim, real = dim + v.ndim, real + v.ndim
    _check_index_arrays(plan, t, xp)
    return plan


def _add_mask(plan: _Plan, mask, shape, dim: int, real: int, xp) -> None:
    for j, n in enumerate(mask.shape):
        if n != shape[real + j]:
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not "
                             f"match the shape of the indexed tensor {list(shape)} at index "
                             f"{real + j}")
    for j, positions in enumerate(xp.nonzero(mask)):
        plan.adv[dim + j] = positions
        plan.basic.append(slice(None))


def _check_index_arrays(plan: _Plan, t: Tensor, xp) -> None:
    if not plan.adv:
        return
    view_shape = _view_shape(t._data.shape, plan.basic)
    shapes = [a.shape for a in plan.adv.values()]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(str(list(s)) for s in shapes)
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {listed}") from None
    for j, (d, a) in enumerate(sorted(plan.adv.items())):
        _check_bounds(a, view_shape[d], j, IndexError)


def _check_bounds(array, size: int, dim: int, error) -> None:
    if array.size == 0:
        return
    bad = (array < -size) | (array >= size)
    if bool(bad.any()):
        value = int(array.reshape(-1)[int(bad.reshape(-1).argmax())])
        raise error(f"index {value} is out of bounds for dimension {dim} with size {size}")


def _view_shape(shape: tuple, basic: list) -> tuple:
    """The shape of ``x[basic]`` without touching data."""
    return np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype=bool), shape, (0,) * len(shape))[tuple(basic) + (Ellipsis,)].shape


# ----------------------------------------------------------------------------- x[key]

def getitem(self: Tensor, key) -> Tensor:
    """``x[key]`` with torch's semantics: basic indices give views, index tensors a copy.

    >>> import agdebug as ag
    >>> x = ag.arange(6.0).reshape(2, 3)
    >>> x[1, ::2], x[[0, 0], [2, 2]]
    (tensor([3., 5.]), tensor([2., 2.]))
    """
    if self._data.ndim and (type(key) is int or type(key) is slice):
        out = _first_dim(self, key)
        if out is not None:
            return out
    plan = plan_key(self, key)
    out = self
    for step in plan.steps:
        out = _apply_step(out, step)
    if plan.adv:
        out = index(out, key=((), plan.key()[1]))
    elif not plan.steps:
        out = alias(out)
    return out


def _first_dim(t: Tensor, key) -> Tensor:
    """``x[i]`` or ``x[a:b]``, the commonest keys (a dataset's item, a batch's rows): the step
    ``plan_key`` would plan, taken directly; None for an index out of range (its error is
    ``plan_key``'s)."""
    size = t._data.shape[0]
    if type(key) is slice:   # (a bare slice is always a step, even x[:])
        start, stop, step = _slice_bounds(key, size)
        return slice_(t, dim=0, start=start, end=stop, step=step)
    if -size <= key < size:
        return select(t, dim=0, index=key % size)
    return None


def _apply_step(t: Tensor, step: tuple) -> Tensor:
    kind, dim = step[0], step[1]
    if kind == "select":
        return select(t, dim=dim, index=step[2])
    if kind == "slice":
        return slice_(t, dim=dim, start=step[2], end=step[3], step=step[4])
    return t.unsqueeze(dim)
