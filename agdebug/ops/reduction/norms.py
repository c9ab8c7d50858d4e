"""logsumexp and the vector norm (LinalgVectorNormBackward0)."""

from __future__ import annotations

import math

import numpy as np

from ..core.registry import defop
from ..pointwise.promotion import to_float
from ..core.saved_names import as_ints
from ..core.gradients import expand_reduced
from .sum_prod import _axes, _const, _kept
from .extremes import _evenly


# ----------------------------------------------------------------------------- logsumexp, norm

@defop("logsumexp", node="LogsumexpBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def logsumexp(xp, x, dim=(), keepdim=False):
    x = to_float(x)
    axes = _axes(dim, x.ndim)
    if x.size == 0:
        return xp.log(xp.sum(xp.exp(x), axis=axes, keepdims=keepdim))
    top = xp.max(x, axis=axes, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)     # all -inf (or inf) slices: no shift
    with np.errstate(divide="ignore"):     # log(0) = -inf is the answer for all -inf
        out = xp.log(xp.sum(xp.exp(x - top), axis=axes, keepdims=True)) + top
    return out if keepdim else out.reshape(xp.sum(x, axis=axes).shape)


@logsumexp.vjp
def logsumexp_vjp(ctx, grad):
    x = ctx.x
    shape = tuple(x.shape)
    weights = (x - _kept(ctx.result, shape, ctx.dim, ctx.keepdim)).exp()
    return (expand_reduced(grad, shape, ctx.dim, ctx.keepdim) * weights,)


@defop("norm", node="LinalgVectorNormBackward0", saves=("x", "result"),
       saved_as={"dim": ("dim", as_ints)})
def norm(xp, x, ord=2.0, dim=None, keepdim=False):
    if x.dtype.kind not in "fc":
        from ...backend import get_dtype
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {get_dtype(x.dtype)._legacy}")
    axes = _axes(dim, x.ndim)
    if abs(ord) == math.inf:
        check_inf_norm(ord, x.shape, dim if axes is not None else None)
    size = abs(x)
    if ord == math.inf:
        return xp.max(size, axis=axes, keepdims=keepdim)
    if ord == -math.inf:
        return xp.min(size, axis=axes, keepdims=keepdim)
    if ord == 0:
        return xp.sum(size != 0, axis=axes, keepdims=keepdim).astype(x.dtype)
    total = xp.sum(size ** ord, axis=axes, keepdims=keepdim)
    return xp.sqrt(total) if ord == 2 else total ** (1.0 / ord)


def check_inf_norm(ord: float, shape: tuple, dim) -> None:
    """torch refuses the inf and -inf norms (a max, a min) over an empty dimension, or of an
    empty tensor (``dim`` None): they have no identity."""
    if dim is None:
        if math.prod(shape) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                               "tensor because the operation does not have an identity")
        return
    for d in dim if isinstance(dim, (tuple, list)) else (dim,):
        if shape[d] == 0:   # (torch's words, without the space after the dimension)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the "
                               f"dimension {d}because this dimension is empty and the operation "
                               "does not have an identity")


@norm.vjp
def norm_vjp(ctx, grad):
    return (norm_backward(grad, ctx.x, ctx.ord, ctx.result, ctx.dim, ctx.keepdim),)


def norm_backward(grad, x, p, result, dim, keepdim: bool):
    """The gradient for ``x`` of ``result``, its ``p``-norm over ``dim`` (torch's
    ``norm_backward``; renorm's derivative uses it too)."""
    shape = tuple(x.shape)
    if p == 0:
        return expand_reduced(grad, shape, dim, keepdim) * 0
    if math.isinf(p):
        return _evenly(grad, x.abs(), result, dim, keepdim) * x.sign()
    grad = expand_reduced(grad, shape, dim, keepdim)
    if p == 1:
        return grad * x.sign()
    result = _kept(result, shape, dim, keepdim)
    safe = result + _const(result._data == 0, result)   # x is 0 wherever the norm is
    if p == 2:
        return grad * x / safe
    if p < 1:   # |x| ** (p - 1) is infinite at 0, where torch takes 0
        scaled = x.sign() * (x.abs() ** (p - 1)).masked_fill(x.detach() == 0, 0)
        return scaled * grad * result ** (1 - p)
    return grad * x.sign() * x.abs() ** (p - 1) / safe ** (p - 1)
