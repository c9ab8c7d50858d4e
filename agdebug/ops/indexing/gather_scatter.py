"""Index-tensor ops: gather/scatter, index_select/index_add, masked_fill, nonzero.

The index and mask tensors are keyword attributes, not inputs: torch gives them no
edge in the graph (they are not differentiable).
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import backend
from ...backend import cpp_name
from ...tensor import Tensor
from ..pointwise.promotion import converted
from .subscript import _add_at, _check_bounds, copy_slices
from ..core.running import _unwrap
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES
from ..core.checks import dims_of
from ..core.gradients import input_shape, needs, zeros_grad

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


@defop("gather", node="GatherBackward0", saves=("x", "index=array"))
def gather_op(xp, x, index=None, dim=0):
    return x[_along(xp, index, dim)]


@gather_op.vjp
def gather_vjp(ctx, grad):
    zeros = zeros_grad(grad, input_shape(ctx, 0))
    return (scatter_add_op(zeros, grad, index=ctx.index, dim=ctx.dim),)


@defop("scatter_add", node="ScatterAddBackward0", saves=("index=array@1",))
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


@defop("scatter", node="ScatterBackward0", saves=("index=array",))
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


@defop("scatter_value", node="ScatterBackward1", saves=("index=array",))
def scatter_value_op(xp, x, index=None, dim=0, value=0.0):
    out = x.copy()
    out[_along(xp, index, dim)] = value
    return out


@scatter_value_op.vjp
def scatter_value_vjp(ctx, grad):
    return (scatter_value_op(grad, index=ctx.index, dim=ctx.dim, value=0.0),)


def _ufunc_at(xp, name: str, out, key, values) -> None:
    """``out[key] <name>= values``, unbuffered: repeated keys all count."""
    if xp is np:
        getattr(np, name).at(out, key, values)
    elif name == "add":
        _add_at(xp, out, key, values)
    else:   # CuPy has no multiply.at (nor a complete maximum.at): done on the host
        host = out.get()
        getattr(np, name).at(host, tuple(k.get() if hasattr(k, "get") else k for k in key),
                             values.get())
        out[...] = xp.asarray(host)


# scatter's legacy ``reduce=`` ('add' or 'multiply'): torch records a node without a
# derivative (backward through it fails), reported under its C++ name.
@defop("scatter_legacy_reduce", node="NotImplemented")
def scatter_legacy_reduce_op(xp, x, src, index=None, dim=0, reduce="add"):
    out = x.copy()
    _ufunc_at(xp, reduce, out, _along(xp, index, dim), src[_region(index.shape)])
    return out


@defop("scatter_value_legacy_reduce", node="NotImplemented")
def scatter_value_legacy_reduce_op(xp, x, index=None, dim=0, value=0.0, reduce="add"):
    out = x.copy()
    _ufunc_at(xp, reduce, out, _along(xp, index, dim), xp.full(index.shape, value, x.dtype))
    return out


def _no_scatter_derivative(ctx, grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


for _op in (scatter_legacy_reduce_op, scatter_value_legacy_reduce_op):
    _op.vjp(_no_scatter_derivative)


_WARNED: list = []   # the deprecation below, once given


def _legacy_reduce(reduce: str, src) -> str:
    """torch's check of scatter's ``reduce``, and its deprecation warning for a tensor src."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor) and not _WARNED:   # torch warns once per process
        _WARNED.append(True)
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=4)
    return reduce


def _scatter_call(input, dim, index, src, reduce) -> tuple:
    """``(op, inputs, attributes)`` of ``scatter(input, dim, index, src, reduce=reduce)``."""
    if reduce is not None:
        reduce = _legacy_reduce(reduce, src)
    if not isinstance(src, Tensor):
        dim = _check_gather_args("scatter", input, dim, index)
        attrs = {"index": index._data, "dim": dim, "value": converted(src, input._data.dtype)}
        if reduce is None:
            return scatter_value_op, (), attrs
        return scatter_value_legacy_reduce_op, (), {**attrs, "reduce": reduce}
    dim = _check_gather_args("scatter", input, dim, index, src)
    attrs = {"index": index._data, "dim": dim}
    if reduce is None:
        return scatter_op, (src,), attrs
    return scatter_legacy_reduce_op, (src,), {**attrs, "reduce": reduce}


def _pad(grad: Tensor, shape: tuple) -> Tensor:
    """A gradient for ``src`` larger than ``index``: zero outside the used region."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    return copy_slices(zeros_grad(grad, shape), grad, key=(_region(grad.shape), None))


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
    data = index._data
    if data.size and not (0 <= data.min() and data.max() < size):   # (two passes, not six)
        _check_bounds(data, size, dim, RuntimeError)
        value = int(data[data < 0].reshape(-1)[0])
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
    """``input`` with ``src`` (or ``value``) written at ``index`` along ``dim``; with
    ``reduce='add'`` or ``'multiply'``, combined with what is there (no derivative).

    >>> import agdebug as ag
    >>> ag.ones(3).scatter(0, ag.tensor([0, 0, 2]), 2.0, reduce="multiply")
    tensor([4., 1., 2.])
    """
    op, inputs, attrs = _scatter_call(input, dim, index, value if src is None else src, reduce)
    return op(input, *inputs, **attrs)


def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim``; repeated indices accumulate.

    >>> import agdebug as ag
    >>> ag.zeros(3).scatter_add(0, ag.tensor([0, 0, 2]), ag.ones(3))
    tensor([2., 0., 1.])
    """
    dim = _check_gather_args("scatter_add", input, dim, index, src)
    return scatter_add_op(input, src, index=index._data, dim=dim)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    op, inputs, attrs = _scatter_call(self, dim, index, value if src is None else src, reduce)
    return apply_inplace(op, self, inputs, attrs)


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

@defop("index_select", node="IndexSelectBackward0", saves=("index=array",), sizes=SELF_SIZES)
def index_select_op(xp, x, index=None, dim=0):
    if x.ndim == 0:   # torch: a scalar's one value, as a scalar (NumPy: shape (1,))
        return xp.take(x, index.reshape(-1), axis=dim).reshape(())
    return xp.take(x, index.reshape(-1), axis=dim)


@index_select_op.vjp
def index_select_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    if not shape:   # a scalar's one value: the gradient passes as it is
        return (grad,)
    zeros = zeros_grad(grad, shape)
    return (index_add_op(zeros, grad, index=ctx.index, dim=ctx.dim),)


@defop("index_add", node="IndexAddBackward0", saves=("index=array@1", "source@1"))
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
        # torch's CPU kernels word this three ways: index_add_; index_select along dim 1 of
        # a matrix or more (its dim-1 fast path); index_select otherwise
        if name == "index_add_":
            raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size "
                               f"{size}")
        if dim == 1 and x.ndim > 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={value} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    return dim


def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` at the positions in ``index`` (a vector).

    >>> import agdebug as ag
    >>> ag.tensor([10.0, 20.0, 30.0]).index_select(0, ag.tensor([2, 0, 2]))
    tensor([30., 10., 30.])
    """
    if input.ndim == 0:
        _check_scalar_index(dim, index)
    dim = _check_vector_index("index_select", input, dim, index)
    return index_select_op(input, index=index._data, dim=dim)


def _check_scalar_index(dim: int, index: Tensor) -> None:
    """torch's checks for ``index_select`` of a 0-d tensor, in its order."""
    dims_of(dim, 0)   # 0 or -1 only
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.numel() != 1:
        raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                           f"{index.numel()} value(s)")


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



# ----------------------------------------------------------------------------- masks

@defop("masked_fill", node="MaskedFillBackward0", saves=("mask=array",))
def masked_fill_op(xp, x, mask=None, value=0.0):
    return xp.where(mask, xp.asarray(value).astype(x.dtype), x)


@masked_fill_op.vjp
def masked_fill_vjp(ctx, grad):
    return (masked_fill_op(grad, mask=ctx.mask, value=0.0),)


@defop("masked_fill_tensor", node="MaskedFillBackward1", saves=("mask=array",))
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
        name = cpp_name(mask._data.dtype)
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
    "gather": lambda self, dim, index, *, sparse_grad=False: gather(self, dim, index),
    "scatter": scatter, "scatter_add": scatter_add, "scatter_": scatter_,
    "scatter_add_": scatter_add_, "take_along_dim": take_along_dim,
    "index_select": index_select, "index_add": index_add, "index_add_": index_add_,
    "masked_fill": masked_fill, "masked_fill_": masked_fill_, "nonzero": nonzero,
}

FUNCTIONS = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add,
    "take_along_dim": take_along_dim, "index_select": index_select, "index_add": index_add,
    "masked_fill": masked_fill, "nonzero": nonzero,
}
