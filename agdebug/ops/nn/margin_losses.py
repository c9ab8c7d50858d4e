"""The margin losses torch records as one node: multi_margin_loss
(MultiMarginLossBackward0) and multilabel_margin_loss (MultilabelMarginLossBackward0).

Each derivative is written with agdebug ops, so ``create_graph=True`` differentiates it
again (torch itself raises "derivative for aten::..._backward is not implemented" there).
"""

from __future__ import annotations

from ...backend import xp_of
from ...tensor import Tensor
from ..indexing.gather_scatter import gather_op
from ..core.registry import defop


def _const(array) -> Tensor:
    """A constant (outside any graph) that derivatives multiply by."""
    return Tensor._wrap(array)


def _batch_grad(grad, reduction: str, n: int):
    """The incoming gradient of a per-sample loss as a column (n, 1), mean's 1/n applied."""
    if reduction == "none":
        return grad.reshape(n, 1)
    if reduction == "mean":
        grad = grad / max(n, 1) if n else grad * 0
    return grad.reshape(1, 1)


def _mean_or_sum(xp, losses, reduction: str, shape: tuple):
    if reduction == "none":
        return losses.reshape(shape)
    return xp.mean(losses) if reduction == "mean" else xp.sum(losses)


# ----------------------------------------------------------------------------- multi margin

def _margins(xp, x2, t, margin):
    """margin - x[y] + x[j] for every class j, and where it counts (> 0, j != y)."""
    n, c = x2.shape
    rows = xp.arange(n)
    z = margin - x2[rows, t][:, None] + x2
    other = xp.arange(c)[None, :] != t[:, None]
    return z, (z > 0) & other


@defop("multi_margin_loss", node="MultiMarginLossBackward0", saves=("x",))
def multi_margin_loss(xp, x, target=None, p=1, margin=1.0, weight=None, reduction="mean"):
    """sum over j != y of w[y] max(0, margin - x[y] + x[j])**p / C, per sample."""
    c = x.shape[-1]
    x2, t = x.reshape(-1, c), target._data.reshape(-1)
    z, active = _margins(xp, x2, t, margin)
    h = xp.where(active, z, 0) ** p
    if weight is not None:
        h = h * weight._data[t][:, None]
    losses = h.sum(axis=1) / c
    return _mean_or_sum(xp, losses, reduction, target.shape).astype(x.dtype, copy=False)


@multi_margin_loss.vjp
def multi_margin_loss_vjp(ctx, grad):
    x = ctx.x
    c = x.shape[-1]
    x2, t = x.reshape(-1, c), ctx.target._data.reshape(-1)
    xp = xp_of(t)
    _, active = _margins(xp, x2._data, t, ctx.margin)
    scale = active / c
    if ctx.weight is not None:
        scale = scale * ctx.weight._data[t][:, None]
    g = _batch_grad(grad, ctx.reduction, t.shape[0]) * _const(scale.astype(x._data.dtype))
    if ctx.p == 2:   # d/dz z**2 = 2 z, with z made of agdebug ops: the Hessian is not lost
        g = g * 2 * (x2 - gather_op(x2, index=t[:, None], dim=1) + ctx.margin)
    onehot = _const((t[:, None] == xp.arange(c)[None, :]).astype(x._data.dtype))
    grad_x = g - onehot * g.sum(1, keepdim=True)
    return (grad_x.reshape(tuple(x.shape)),)


# ----------------------------------------------------------------------------- multilabel

@defop("multilabel_margin_loss", node="MultilabelMarginLossBackward0", saves=("coeff",),
       extras=("coeff",))
def multilabel_margin_loss(xp, x, target=None, reduction="mean"):
    """For each listed target j (up to the first -1) and each non-target k:
    max(0, 1 - (x[j] - x[k])) / C, summed per sample."""
    c = x.shape[-1]
    x2, t = x.reshape(-1, c), target._data.reshape(-1, c)
    listed = xp.cumprod(t != -1, axis=1).astype(bool)
    rows = xp.broadcast_to(xp.arange(t.shape[0])[:, None], t.shape)
    counts = _count(xp, rows[listed], t[listed], x2.shape).astype(x.dtype)   # times listed
    other = (counts == 0).astype(x.dtype)
    z = 1 - x2[:, :, None] + x2[:, None, :]           # z[i, j, k]: target j against k
    pairs = counts[:, :, None] * other[:, None, :] * (z > 0)
    losses = (pairs * z).sum(axis=(1, 2)) / c
    coeff = (pairs.sum(axis=1) - pairs.sum(axis=2)) / c    # d loss_i / d x[i, :]
    out = _mean_or_sum(xp, losses, reduction, target.shape[:-1])
    if reduction == "mean" and t.shape[0]:
        coeff = coeff / t.shape[0]
    return out.astype(x.dtype, copy=False), coeff.reshape(x.shape).astype(x.dtype)


def _count(xp, rows, cols, shape):
    flat = xp.bincount(rows * shape[1] + cols, minlength=shape[0] * shape[1])
    return flat.reshape(shape)


@multilabel_margin_loss.vjp
def multilabel_margin_loss_vjp(ctx, grad):
    coeff = ctx.coeff
    if ctx.reduction == "none" and coeff.ndim == 2:
        grad = grad.reshape(-1, 1)
    return (grad * coeff,)
