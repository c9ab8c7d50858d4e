"""Extremes: max, min, amax, amin, argmax, argmin, and the truth reductions all and any."""

from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from ..core.registry import defop
from ..core.saved_names import SELF_SIZES, as_ints
from ..core.gradients import expand_reduced, input_shape
from .sum_prod import _axes, _const, _kept, _xp


# ----------------------------------------------------------------------------- max, min

def _check_nonempty(x, name: str, dim=None) -> None:
    if dim is None and x.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    if dim is not None and x.ndim and x.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _selected(x: Tensor, value: Tensor):
    """Where ``x`` equals the selected ``value`` (NaN selects NaN, as torch's max does)."""
    data, chosen, xp = x._data, value._data, _xp(x)
    return (data == chosen) | (xp.isnan(data) & xp.isnan(chosen))


def _evenly(grad: Tensor, x: Tensor, value: Tensor, dim, keepdim: bool) -> Tensor:
    """The gradient of a selecting reduction, split evenly between ties."""
    shape = tuple(x.shape)
    value = _kept(value, shape, dim, keepdim)
    mask = _selected(x, value)
    count = mask.sum(axis=_axes(dim, len(shape)), keepdims=True)
    return expand_reduced(grad, shape, dim, keepdim) * _const(mask / count, grad)


@defop("max", node="MaxBackward1", saves=("x", "result"))
def max_all(xp, x):
    _check_nonempty(x, "max")
    return x.max()


@max_all.vjp
def max_all_vjp(ctx, grad):
    return (_evenly(grad, ctx.x, ctx.result, None, False),)


@defop("min", node="MinBackward1", saves=("x", "result"))
def min_all(xp, x):
    _check_nonempty(x, "min")
    return x.min()


@min_all.vjp
def min_all_vjp(ctx, grad):
    return (_evenly(grad, ctx.x, ctx.result, None, False),)


def _arg_select(xp, x, dim: int, keepdim: bool, largest: bool, name: str):
    """(values, indices) of max/min along one dim; indices are also saved (keepdim form)."""
    axis = _axes(dim, x.ndim)
    _check_nonempty(x, name, dim % max(x.ndim, 1))
    if axis is None:   # a 0-d tensor: itself, at index 0
        return x.copy(), xp.zeros((), dtype=np.int64)
    pick = xp.argmax if largest else xp.argmin
    index = pick(x, axis=axis[0], keepdims=True).astype(np.int64)
    values = xp.take_along_axis(x, index, axis=axis[0])
    if not keepdim:
        return values.squeeze(axis[0]), index.squeeze(axis[0])
    return values, index


def _to_index(grad: Tensor, ctx) -> Tensor:
    """Send each gradient to the index its value came from (a constant one-hot mask)."""
    shape = input_shape(ctx, 0)
    grad = expand_reduced(grad, shape, ctx.dim, ctx.keepdim)
    if not shape:
        return grad
    index = ctx.indices._data   # as returned: squeezed unless keepdim, as torch saves it
    axis = ctx.dim % len(shape)
    xp = _xp(ctx.indices)
    if not ctx.keepdim:
        index = xp.expand_dims(index, axis)
    positions = xp.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return grad * _const(positions == index, grad)


@defop("max_dim", node="MaxBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("indices=result1",), sizes=SELF_SIZES)
def max_dim(xp, x, dim=0, keepdim=False):
    return _arg_select(xp, x, dim, keepdim, True, "max")


@max_dim.vjp
def max_dim_vjp(ctx, grad):
    return (_to_index(grad, ctx),)


@defop("min_dim", node="MinBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("indices=result1",), sizes=SELF_SIZES)
def min_dim(xp, x, dim=0, keepdim=False):
    return _arg_select(xp, x, dim, keepdim, False, "min")


@min_dim.vjp
def min_dim_vjp(ctx, grad):
    return (_to_index(grad, ctx),)


@defop("amax", node="AmaxBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def amax(xp, x, dim=(), keepdim=False):
    axes = _axes(dim, x.ndim)
    if axes is None:
        _check_nonempty(x, "amax")
    else:   # torch names the first empty reduced dim (NumPy: a ValueError)
        for d in sorted(axes):
            _check_nonempty(x, "amax", d)
    return x.max(axis=axes, keepdims=keepdim)


@amax.vjp
def amax_vjp(ctx, grad):
    """amax's and amin's: the gradient split evenly between the tied extreme values."""
    return (_evenly(grad, ctx.x, ctx.result, ctx.dim, ctx.keepdim),)


@defop("amin", node="AminBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def amin(xp, x, dim=(), keepdim=False):
    axes = _axes(dim, x.ndim)
    if axes is None:
        _check_nonempty(x, "amin")
    else:   # torch names the first empty reduced dim (NumPy: a ValueError)
        for d in sorted(axes):
            _check_nonempty(x, "amin", d)
    return x.min(axis=axes, keepdims=keepdim)


amin.vjp(amax_vjp)


def _arg(xp, x, dim, keepdim, largest: bool, name: str):
    if x.dtype == np.bool_:   # NumPy picks the first True; torch has no bool kernel
        raise RuntimeError(f"{name}(): does not support bool input")
    pick = xp.argmax if largest else xp.argmin
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        index = pick(x.reshape(-1))
        return index.reshape((1,) * x.ndim).astype(np.int64) if keepdim else index
    axis = _axes(dim, x.ndim)
    if axis is None:
        return xp.zeros((), dtype=np.int64)
    _check_nonempty(x, name, axis[0])
    return pick(x, axis=axis[0], keepdims=keepdim).astype(np.int64)


@defop("argmax", node="ArgmaxBackward0", differentiable=False)
def argmax(xp, x, dim=None, keepdim=False):
    return _arg(xp, x, dim, keepdim, True, "argmax")


@defop("argmin", node="ArgminBackward0", differentiable=False)
def argmin(xp, x, dim=None, keepdim=False):
    return _arg(xp, x, dim, keepdim, False, "argmin")


# ----------------------------------------------------------------------------- all, any

@defop("all", node="AllBackward0", differentiable=False)
def all_(xp, x, dim=None, keepdim=False):
    return _truth(xp, xp.all, x, dim, keepdim)


@defop("any", node="AnyBackward0", differentiable=False)
def any_(xp, x, dim=None, keepdim=False):
    return _truth(xp, xp.any, x, dim, keepdim)


def _truth(xp, reduce, x, dim, keepdim: bool):
    """torch's all/any: bool, except uint8 in, uint8 out (its legacy); NaN counts as true."""
    out = xp.asarray(reduce(x, axis=_axes(dim, x.ndim), keepdims=keepdim))
    return out.astype(np.uint8 if x.dtype == np.uint8 else np.bool_, copy=False)
