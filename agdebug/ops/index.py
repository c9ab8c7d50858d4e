"""Indexing: ``x[key]``, ``x[key] = value``, gather/scatter, index_select, masked_fill, nonzero.

A key is read as torch reads it: ints, slices and None become views
(SelectBackward0, SliceBackward0, UnsqueezeBackward0), then any index tensors
(int lists and arrays, integer tensors, bool masks) apply to that view in one
IndexBackward0. Internally a parsed key is a pair ``(basic, adv)``: a numpy
basic-index tuple, and, when there are index tensors, the advanced-index tuple
applied to the view ``x[basic]``. Gradients of advanced indexing accumulate
repeated indices (``add.at``).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import backend
from ..graph.grad_mode import MODE
from ..tensor import Tensor
from .elementwise import needs
from .registry import LEAF_INPLACE_MESSAGE, _unwrap, apply_inplace, defop
from .util import dims_of, input_shape

VIEW_LEAF_MESSAGE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                     "operation.")
LEGACY_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result")
UINT8_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                 "torch.bool instead.")

# c10's TypeMeta names, as some of torch's messages print dtypes.
_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool"}


def type_meta_name(np_dtype) -> str:
    return _META_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def _legacy(np_dtype) -> str:
    return backend.get_dtype(np_dtype)._legacy


# ----------------------------------------------------------------------------- array helpers

def _zeros(like: Tensor, shape: tuple) -> Tensor:
    return Tensor._wrap(backend.xp_of(like._data).zeros(shape, dtype=like._data.dtype))


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

@defop("select", node="SelectBackward0", view=True)
def select(xp, x, dim=0, index=0):
    return x[(slice(None),) * dim + (index, Ellipsis)]


@select.vjp
def select_vjp(ctx, grad):
    key = ((slice(None),) * ctx.dim + (ctx.index,), None)
    return (copy_slices(_zeros(grad, input_shape(ctx, 0)), grad, key=key),)


@defop("slice", node="SliceBackward0", view=True)
def slice_(xp, x, dim=0, start=0, end=0, step=1):
    return x[(slice(None),) * dim + (slice(start, end, step),)]


@slice_.vjp
def slice_vjp(ctx, grad):
    key = ((slice(None),) * ctx.dim + (slice(ctx.start, ctx.end, ctx.step),), None)
    return (copy_slices(_zeros(grad, input_shape(ctx, 0)), grad, key=key),)


@defop("alias", node="AliasBackward0", view=True)
def alias(xp, x):
    return x.view()


@alias.vjp
def alias_vjp(ctx, grad):
    return (grad,)


# ----------------------------------------------------------------------------- advanced

@defop("index", node="IndexBackward0")
def index(xp, x, key=((), None)):
    out = _take(x, key)
    return out.copy() if key[1] is None else out


@index.vjp
def index_vjp(ctx, grad):
    zeros = _zeros(grad, input_shape(ctx, 0))
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


@defop("index_put", node="IndexPutBackward0")
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
        return ("int", int(item))
    if isinstance(item, slice):
        return ("slice", item)
    if isinstance(item, Tensor):
        array = _as_xp(item._data, xp)
    elif isinstance(item, (list, tuple)) or hasattr(item, "__array__"):
        array = _as_xp(np.asarray(item) if isinstance(item, (list, tuple)) else item, xp)
        if array.size == 0 and array.dtype.kind == "f":
            array = array.astype(np.int64)   # x[[]]: an empty long index
    elif isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    else:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(item).__name__})")
    return _classify_array(array)


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


def plan_key(t: Tensor, key) -> _Plan:
    """Parse ``key`` for ``t`` with torch's checks and error texts."""
    xp = backend.xp_of(t._data)
    bare_slice = isinstance(key, slice)
    items = [_classify(k, xp) for k in _items(key)]
    shape, ndim = t._data.shape, t._data.ndim
    consumed = sum(1 if k in ("int", "slice", "array") else v.ndim if k == "mask" else 0
                   for k, v in items)
    if consumed > ndim:
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
    plan = plan_key(self, key)
    out = self
    for step in plan.steps:
        out = _apply_step(out, step)
    if plan.adv:
        out = index(out, key=((), plan.key()[1]))
    elif not plan.steps:
        out = alias(out)
    return out


def _apply_step(t: Tensor, step: tuple) -> Tensor:
    kind, dim = step[0], step[1]
    if kind == "select":
        return select(t, dim=dim, index=step[2])
    if kind == "slice":
        return slice_(t, dim=dim, start=step[2], end=step[3], step=step[4])
    return t.unsqueeze(dim)


# ----------------------------------------------------------------------------- x[key] = value

def setitem(self: Tensor, key, value) -> None:
    """``x[key] = value`` in place: CopySlices (basic) or IndexPutBackward0 (advanced)."""
    value = _value_operand(self, value)
    plan = plan_key(self, key)
    key = plan.key()
    _check_value_shape(self, key, value)
    recording = MODE.grad_enabled and (
        self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
    if not recording:
        _write(self, key, value)
        return
    if self._grad_fn is None and self._requires_grad:
        raise RuntimeError(VIEW_LEAF_MESSAGE if key[1] is None else LEAF_INPLACE_MESSAGE)
    op = copy_slices if key[1] is None else index_put_op
    apply_inplace(op, self, (value,), {"key": key})


def _value_operand(self: Tensor, value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, numbers.Number)):
        return value.item() if hasattr(value, "item") else value
    raise TypeError(f"can't assign a {type(value).__name__} to a "
                    f"torch.{_legacy(self._data.dtype)}Tensor")


def _write(self: Tensor, key: tuple, value) -> None:
    arrays, _, xp = _unwrap((self, value))
    if not self._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    _put(xp, self._data, key, arrays[1], False)
    self._vc.value += 1


def _check_value_shape(self: Tensor, key: tuple, value) -> None:
    if not isinstance(value, Tensor):
        return
    basic, adv = key
    target = _view_shape(self._data.shape, list(basic))
    have = tuple(value.shape)
    if adv is not None:
        target = _adv_shape(target, adv)
        try:
            np.broadcast_shapes(have, target)
            ok = np.broadcast_shapes(have, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(have)} cannot be "
                               f"broadcast to indexing result of shape {list(target)}")
        return
    _check_expand(have, target, value._data.dtype)


def _check_expand(have: tuple, target: tuple, dtype) -> None:
    while have and have[0] == 1 and len(have) > len(target):
        have = have[1:]    # torch strips leading 1s of the value first
    if len(have) > len(target):
        raise RuntimeError(
            f"expand(torch.{_legacy(dtype)}Tensor{{{list(have)}}}, size={list(target)}): the "
            f"number of sizes provided ({len(target)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({len(have)})")
    lead = len(target) - len(have)
    for i, s in enumerate(have):
        if s != 1 and s != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({s}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(have)}")


def _adv_shape(view_shape: tuple, adv: tuple) -> tuple:
    """The shape of ``view[adv]`` (numpy's placement rules), without indexing."""
    dims = [d for d, a in enumerate(adv) if not isinstance(a, slice)]
    broadcast = np.broadcast_shapes(*(adv[d].shape for d in dims))
    rest = [s for d, s in enumerate(view_shape) if d not in dims]
    first = dims[0]
    if dims == list(range(first, dims[-1] + 1)):
        return tuple(rest[:first]) + broadcast + tuple(rest[first:])
    return broadcast + tuple(rest)


# ----------------------------------------------------------------------------- gather / scatter

def _along(xp, index, dim: int) -> tuple:
    """The advanced key that picks ``x[..., index[i, j, ...], ...]`` along ``dim``."""
    key = []
    for d, n in enumerate(index.shape):
        if d == dim:
            key.append(index)
        else:
            shape = [1] * index.ndim
            shape[d] = n
            key.append(xp.arange(n).reshape(shape))
    return tuple(key)


def _region(shape: tuple) -> tuple:
    return tuple(slice(0, n) for n in shape)


@defop("gather", node="GatherBackward0")
def gather_op(xp, x, index=None, dim=0):
    return x[_along(xp, index, dim)]


@gather_op.vjp
def gather_vjp(ctx, grad):
    zeros = _zeros(grad, input_shape(ctx, 0))
    return (scatter_add_op(zeros, grad, index=ctx.index, dim=ctx.dim),)


@defop("scatter_add", node="ScatterAddBackward0")
def scatter_add_op(xp, x, src, index=None, dim=0):
    out = x.copy()
    _add_at(xp, out, _along(xp, index, dim), src[_region(index.shape)])
    return out


@scatter_add_op.vjp
def scatter_add_vjp(ctx, grad):
    grad_src = None
    if needs(ctx, 1):
        grad_src = _pad(gather_op(grad, index=ctx.index, dim=ctx.dim), input_shape(ctx, 1))
    return grad, grad_src


@defop("scatter", node="ScatterBackward0")
def scatter_op(xp, x, src, index=None, dim=0):
    out = x.copy()
    out[_along(xp, index, dim)] = src[_region(index.shape)]
    return out


@scatter_op.vjp
def scatter_vjp(ctx, grad):
    grad_x = None
    if needs(ctx, 0):
        grad_x = scatter_value_op(grad, index=ctx.index, dim=ctx.dim, value=0.0)
    grad_src = None
    if needs(ctx, 1):
        grad_src = _pad(gather_op(grad, index=ctx.index, dim=ctx.dim), input_shape(ctx, 1))
    return grad_x, grad_src


@defop("scatter_value", node="ScatterBackward1")
def scatter_value_op(xp, x, index=None, dim=0, value=0.0):
    out = x.copy()
    out[_along(xp, index, dim)] = value
    return out


@scatter_value_op.vjp
def scatter_value_vjp(ctx, grad):
    return (scatter_value_op(grad, index=ctx.index, dim=ctx.dim, value=0.0),)


def _pad(grad: Tensor, shape: tuple) -> Tensor:
    """A gradient for ``src`` larger than ``index``: zero outside the used region."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    return copy_slices(_zeros(grad, shape), grad, key=(_region(grad.shape), None))


def _check_gather_args(name: str, x: Tensor, dim: int, index: Tensor, src=None) -> int:
    dim = dims_of(dim, x.ndim)[0] if x.ndim else 0
    if index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if isinstance(src, Tensor) and src._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    for d, n in enumerate(index.shape):
        too_big = d != dim and n > x.shape[d]
        if src is None and too_big:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be no larger than self {list(x.shape)} "
                               f"apart from dimension {dim}")
        if isinstance(src, Tensor) and (too_big or n > src.shape[d]):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(x.shape)} apart from dimension {dim} and to be no larger "
                               f"size than src {list(src.shape)}")
    size = x.shape[dim] if x.ndim else 1
    _check_bounds(index._data, size, dim, RuntimeError)
    if bool((index._data < 0).any()):
        value = int(index._data[index._data < 0].reshape(-1)[0])
        raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}")
    return dim


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[i][index[i][j]]`` along ``dim`` (GatherBackward0).

    >>> import agdebug as ag
    >>> ag.gather(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, ag.tensor([[1, 1], [0, 1]]))
    tensor([[2., 2.],
            [3., 4.]])
    """
    dim = _check_gather_args("gather", input, dim, index)
    return gather_op(input, index=index._data, dim=dim)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``."""
    if reduce is not None:
        raise NotImplementedError("agdebug does not implement scatter(reduce=...); use "
                                  "scatter_add")
    if src is None:
        src = value
    if not isinstance(src, Tensor):
        dim = _check_gather_args("scatter", input, dim, index)
        return scatter_value_op(input, index=index._data, dim=dim, value=src)
    dim = _check_gather_args("scatter", input, dim, index, src)
    return scatter_op(input, src, index=index._data, dim=dim)


def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim``; repeated indices accumulate.

    >>> import agdebug as ag
    >>> ag.zeros(3).scatter_add(0, ag.tensor([0, 0, 2]), ag.ones(3))
    tensor([2., 0., 1.])
    """
    dim = _check_gather_args("scatter_add", input, dim, index, src)
    return scatter_add_op(input, src, index=index._data, dim=dim)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    if reduce is not None:
        raise NotImplementedError("agdebug does not implement scatter_(reduce=...)")
    src = value if src is None else src
    if not isinstance(src, Tensor):
        dim = _check_gather_args("scatter", self, dim, index)
        attrs = {"index": index._data, "dim": dim, "value": src}
        return apply_inplace(scatter_value_op, self, (), attrs)
    dim = _check_gather_args("scatter", self, dim, index, src)
    return apply_inplace(scatter_op, self, (src,), {"index": index._data, "dim": dim})


def scatter_add_(self, dim, index, src):
    dim = _check_gather_args("scatter_add", self, dim, index, src)
    return apply_inplace(scatter_add_op, self, (src,), {"index": index._data, "dim": dim})


def take_along_dim(input, indices, dim=None):
    """``gather`` after broadcasting ``input`` and ``indices`` (flattened when dim is None)."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    dim = dims_of(dim, input.ndim)[0]
    batch = np.broadcast_shapes(*(tuple(s for d, s in enumerate(t.shape) if d != dim)
                                  for t in (input, indices)))
    def grown(t):
        shape = list(batch)
        shape.insert(dim, t.shape[dim])
        return t.expand(tuple(shape))
    return gather(grown(input), dim, grown(indices))


# ----------------------------------------------------------------------------- index_select / add

@defop("index_select", node="IndexSelectBackward0")
def index_select_op(xp, x, index=None, dim=0):
    return xp.take(x, index.reshape(-1), axis=dim)


@index_select_op.vjp
def index_select_vjp(ctx, grad):
    zeros = _zeros(grad, input_shape(ctx, 0))
    return (index_add_op(zeros, grad, index=ctx.index, dim=ctx.dim),)


@defop("index_add", node="IndexAddBackward0")
def index_add_op(xp, x, source, index=None, dim=0, alpha=1):
    out = x.copy()
    values = source if alpha == 1 else source * alpha
    _add_at(xp, out, (slice(None),) * dim + (index.reshape(-1),), values)
    return out


@index_add_op.vjp
def index_add_vjp(ctx, grad):
    grad_source = None
    if needs(ctx, 1):
        grad_source = index_select_op(grad, index=ctx.index, dim=ctx.dim)
        if ctx.alpha != 1:
            grad_source = grad_source * ctx.alpha
    return grad, grad_source


def _check_vector_index(name: str, x: Tensor, dim: int, index: Tensor) -> int:
    dim = dims_of(dim, x.ndim)[0] if x.ndim else 0
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    if index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    size = x.shape[dim] if x.ndim else 1
    bad = (index._data < 0) | (index._data >= size)
    if bool(bad.any()):
        value = int(index._data.reshape(-1)[int(bad.reshape(-1).argmax())])
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={value} axis_dim={size}")
    return dim


def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` at the positions in ``index`` (a vector).

    >>> import agdebug as ag
    >>> ag.tensor([10.0, 20.0, 30.0]).index_select(0, ag.tensor([2, 0, 2]))
    tensor([30., 10., 30.])
    """
    dim = _check_vector_index("index_select", input, dim, index)
    return index_select_op(input, index=index._data, dim=dim)


def _check_index_add(x: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    dim = _check_vector_index("index_add_", x, dim, index)
    count = index.numel()
    have = source.shape[dim] if source.ndim else 1
    if count != have:
        raise RuntimeError(f"index_add_(): Number of indices ({count}) should be equal to "
                           f"source.size(dim): ({have}), for dim: {dim}")
    return dim


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` slices added at ``index`` along ``dim``."""
    dim = _check_index_add(input, dim, index, source)
    return index_add_op(input, source, index=index._data, dim=dim, alpha=alpha)


def index_add_(self, dim, index, source, *, alpha=1):
    dim = _check_index_add(self, dim, index, source)
    attrs = {"index": index._data, "dim": dim, "alpha": alpha}
    return apply_inplace(index_add_op, self, (source,), attrs)


def _indices_key(self: Tensor, indices) -> tuple:
    return plan_key(self, tuple(indices)).key()


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` put (or added, ``accumulate=True``) at ``indices``."""
    return index_put_op(input, values, key=_indices_key(input, indices), accumulate=accumulate)


def index_put_(self, indices, values, accumulate=False):
    key = _indices_key(self, indices)
    return apply_inplace(index_put_op, self, (values,), {"key": key, "accumulate": accumulate})


# ----------------------------------------------------------------------------- masks

@defop("masked_fill", node="MaskedFillBackward0")
def masked_fill_op(xp, x, mask=None, value=0.0):
    return xp.where(mask, xp.asarray(value).astype(x.dtype), x)


@masked_fill_op.vjp
def masked_fill_vjp(ctx, grad):
    return (masked_fill_op(grad, mask=ctx.mask, value=0.0),)


@defop("masked_fill_tensor", node="MaskedFillBackward1")
def masked_fill_tensor_op(xp, x, value, mask=None):
    return xp.where(mask, value.astype(x.dtype), x)


@masked_fill_tensor_op.vjp
def masked_fill_tensor_vjp(ctx, grad):
    grad_x = masked_fill_op(grad, mask=ctx.mask, value=0.0) if needs(ctx, 0) else None
    grad_value = None
    if needs(ctx, 1):
        grad_value = masked_fill_op(grad, mask=~ctx.mask, value=0.0).sum()
    return grad_x, grad_value


def _check_mask(mask: Tensor, value) -> None:
    if mask._data.dtype != np.bool_:
        name = type_meta_name(mask._data.dtype)
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{name}")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")


def _on(mask: Tensor, t: Tensor):
    """The mask's array, checked to live where ``t`` does."""
    return _unwrap((t, mask))[0][1]


def masked_fill(input, mask, value):
    """``input`` with ``value`` wherever ``mask`` is True.

    >>> import agdebug as ag
    >>> ag.tensor([1.0, 2.0, 3.0]).masked_fill(ag.tensor([True, False, True]), 0.0)
    tensor([0., 2., 0.])
    """
    _check_mask(mask, value)
    if isinstance(value, Tensor):
        return masked_fill_tensor_op(input, value, mask=_on(mask, input))
    return masked_fill_op(input, mask=_on(mask, input), value=value)


def masked_fill_(self, mask, value):
    _check_mask(mask, value)
    if isinstance(value, Tensor):
        return apply_inplace(masked_fill_tensor_op, self, (value,), {"mask": _on(mask, self)})
    return apply_inplace(masked_fill_op, self, (), {"mask": _on(mask, self), "value": value})


# ----------------------------------------------------------------------------- nonzero

@defop("nonzero", node="NotDifferentiable", differentiable=False)
def nonzero_op(xp, x):
    if x.ndim == 0:
        return xp.zeros((int(bool(x)), 0), dtype=np.int64)
    return xp.stack(xp.nonzero(x), axis=1).astype(np.int64)


def nonzero(input, *, as_tuple=False):
    """The indices of the non-zero elements: an (n, ndim) int64 tensor, or one per dim.

    >>> import agdebug as ag
    >>> ag.tensor([0.0, 1.5, 0.0, 2.0]).nonzero()
    tensor([[1],
            [3]])
    """
    result = nonzero_op(input)
    if not as_tuple:
        return result
    if input.ndim == 0:
        xp = backend.xp_of(input._data)
        return (Tensor._wrap(xp.zeros(result.shape[0], dtype=np.int64)),)
    return tuple(Tensor._wrap(result._data[:, d].copy()) for d in range(input.ndim))


METHODS = {
    "__getitem__": getitem, "__setitem__": setitem,
    "gather": lambda self, dim, index, *, sparse_grad=False: gather(self, dim, index),
    "scatter": scatter, "scatter_add": scatter_add, "scatter_": scatter_,
    "scatter_add_": scatter_add_, "take_along_dim": take_along_dim,
    "index_select": index_select, "index_add": index_add, "index_add_": index_add_,
    "index_put": index_put, "index_put_": index_put_,
    "masked_fill": masked_fill, "masked_fill_": masked_fill_, "nonzero": nonzero,
    "select": lambda self, dim, index: getitem(self, (slice(None),) * (dims_of(
        dim, self.ndim)[0]) + (index,)),
}

FUNCTIONS = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add,
    "take_along_dim": take_along_dim, "index_select": index_select, "index_add": index_add,
    "index_put": index_put, "masked_fill": masked_fill, "nonzero": nonzero,
    "select": METHODS["select"],
}
