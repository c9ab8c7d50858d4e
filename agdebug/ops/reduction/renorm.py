"""``renorm``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is scaled down
to it (RenormBackward0, with torch's derivative ``renorm_backward``).

>>> import agdebug as ag
>>> ag.renorm(ag.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
tensor([[0.6000, 0.8000],
        [0.3000, 0.4000]])
"""

from __future__ import annotations

from ...tensor import Tensor
from . import norms
from ..core.inplace import apply_inplace
from ..core.registry import defop
from ..shape.signatures import _dim

__all__ = ["renorm"]


def _other_dims(ndim: int, dim: int) -> tuple:
    return tuple(d for d in range(ndim) if d != dim)


@defop("renorm", node="RenormBackward0", saves=("x",))
def renorm_op(xp, x, p=2.0, dim=0, maxnorm=1.0):
    norm = norms.norm.forward(xp, x, ord=p, dim=_other_dims(x.ndim, dim), keepdim=True)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (x * factor).astype(x.dtype, copy=False)


@renorm_op.vjp
def renorm_vjp(ctx, grad):
    x, p, maxnorm = ctx.x, ctx.p, ctx.maxnorm
    dims = _other_dims(x.ndim, ctx.dim)
    norm = norms.norm(x, ord=p, dim=dims, keepdim=True)
    slope = norms.norm_backward((x * grad).sum(dims, keepdim=True), x, p, norm, dims, True)
    factor = (norm + 1e-7).reciprocal() * maxnorm
    inverse = (norm + 1e-7).reciprocal()
    return ((factor * grad - factor * inverse * slope).where(norm > maxnorm, grad),)


def _arguments(input: Tensor, p, dim, maxnorm) -> dict:
    """torch's checks, in its order."""
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    return {"p": float(p), "dim": _dim(dim, input.ndim), "maxnorm": float(maxnorm)}


def renorm(input, p, dim, maxnorm):
    """Each slice ``input.select(dim, i)`` scaled so its ``p``-norm is at most ``maxnorm``."""
    return renorm_op(input, **_arguments(input, p, dim, maxnorm))


def renorm_(self, p, dim, maxnorm):
    """``renorm`` in place."""
    return apply_inplace(renorm_op, self, (), _arguments(self, p, dim, maxnorm))


FUNCTIONS = {"renorm": renorm}
METHODS = {"renorm": renorm, "renorm_": renorm_}
