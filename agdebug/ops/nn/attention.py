"""The two ops torch's math attention records that no other function does.

``scaled_dot_product_attention`` (math path) scales query and key with aten's
``mul.Scalar`` (MulBackward1, where Python's ``x * 0.5`` is MulBackward0) and
normalises with ``_safe_softmax`` (SafeSoftmaxBackward0): a softmax whose rows
that are all ``-inf`` (every key masked out) give zeros instead of NaN.
"""

from __future__ import annotations

from .softmax import softmax_backward_data
from ..core.registry import defop
from ..core.checks import dims_of


@defop("mul_scalar", node="MulBackward1")
def mul_scalar(xp, x, other=1.0):
    """aten's ``mul.Scalar``: what C++ code records when it multiplies by a number."""
    return (x * other).astype(x.dtype, copy=False)


@mul_scalar.vjp
def mul_scalar_vjp(ctx, grad):
    return (mul_scalar(grad, other=ctx.other),)


@defop("_safe_softmax", node="SafeSoftmaxBackward0", saves=("result",))
def safe_softmax(xp, x, dim=-1):
    """Softmax along ``dim``; a row that is all ``-inf`` gives zeros (torch's _safe_softmax)."""
    axis = dims_of(dim, x.ndim)[0]
    if x.size == 0:
        return xp.empty_like(x)
    masked = xp.all(x == -xp.inf, axis=axis, keepdims=True)
    top = xp.max(x, axis=axis, keepdims=True)
    top = xp.where(xp.isfinite(top), top, 0)   # an all -inf row: exp(-inf) = 0, no NaN
    e = xp.exp(x - top)
    total = xp.sum(e, axis=axis, keepdims=True)
    out = e / xp.where(masked, 1, total)
    return xp.where(masked, 0, out).astype(x.dtype, copy=False)


@safe_softmax.vjp
def safe_softmax_vjp(ctx, grad):
    # torch's derivative is softmax's: zero rows of the result give zero gradient.
    return (softmax_backward_data(grad, ctx.result, dim=ctx.dim),)
