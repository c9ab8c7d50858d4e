"""Reductions: sum, mean, ... with ``dim``/``keepdim`` as torch spells them."""

from __future__ import annotations

from .registry import defop
from .util import dims_of, expand_reduced, input_shape


@defop("sum", node="SumBackward0")
def sum_all(xp, x, dtype=None):
    return xp.sum(x, dtype=dtype if dtype is not None else _sum_dtype(x))


@sum_all.vjp
def sum_all_vjp(ctx, grad):
    return (grad.expand(input_shape(ctx, 0)),)


@defop("sum_dim", node="SumBackward1")
def sum_dim(xp, x, dim=None, keepdim=False, dtype=None):
    axes = dims_of(dim, x.ndim)
    return xp.sum(x, axis=axes, keepdims=keepdim,
                  dtype=dtype if dtype is not None else _sum_dtype(x))


@sum_dim.vjp
def sum_dim_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim),)


def _sum_dtype(x):
    # torch sums bool and integer tensors as int64.
    return "int64" if x.dtype.kind in "biu" else None


@defop("sum_to_size", node="SumBackward1")
def sum_to_size(xp, x, size=()):
    lead = x.ndim - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and x.shape[lead + i] != 1)
    out = x.sum(axis=axes, keepdims=True) if axes else x
    return out.reshape(size)


@sum_to_size.vjp
def sum_to_size_vjp(ctx, grad):
    return (grad.expand(input_shape(ctx, 0)),)


@defop("mean", node="MeanBackward0")
def mean_all(xp, x, dtype=None):
    _check_floating(x, dtype)
    return xp.mean(x, dtype=dtype)


@mean_all.vjp
def mean_all_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    return (grad.expand(shape) / max(_numel(shape), 1),)


@defop("mean_dim", node="MeanBackward1")
def mean_dim(xp, x, dim=None, keepdim=False, dtype=None):
    _check_floating(x, dtype)
    return xp.mean(x, axis=dims_of(dim, x.ndim), keepdims=keepdim, dtype=dtype)


@mean_dim.vjp
def mean_dim_vjp(ctx, grad):
    shape = input_shape(ctx, 0)
    axes = dims_of(ctx.dim, len(shape))
    count = _numel([shape[a] for a in axes]) if axes is not None else _numel(shape)
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim) / max(count, 1),)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _check_floating(x, dtype) -> None:
    if dtype is None and x.dtype.kind not in "fc":
        from ..backend import get_dtype
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {get_dtype(x.dtype)._legacy}")
