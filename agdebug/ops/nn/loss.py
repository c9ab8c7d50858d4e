"""The losses torch records as one node of their own: nll_loss, mse_loss,
binary_cross_entropy (with and without logits)."""

from __future__ import annotations

import numpy as np

from ..pointwise.promotion import promote
from ..pointwise.activations import softplus
from ..core.registry import defop
from ..core.gradients import attr_array, needs
from ..core.checks import kernel_missing


# ----------------------------------------------------------------------------- losses

def _reduce(xp, losses, reduction: str):
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _scale_grad(ctx, grad, shape):
    """The incoming gradient of a reduced loss, spread over the element ``shape``."""
    if ctx.reduction == "mean":
        return grad / max(int(np.prod(shape)), 1)
    return grad


@defop("div_scalar", node="DivBackward1")
def div_scalar(xp, x, other=1):
    """aten's ``div.Scalar``: what C++ code records when it divides by a number (the mean of
    cross_entropy with class probabilities); Python's ``x / 2`` is DivBackward0 instead."""
    return (x / other).astype(x.dtype, copy=False)


@div_scalar.vjp
def div_scalar_vjp(ctx, grad):
    return (div_scalar(grad, other=ctx.other),)


@defop("nll_loss", node="NllLossBackward0", saves=("coeff",), extras=("coeff",))
def nll_loss(xp, x, target=None, weight=None, reduction="mean", ignore_index=-100):
    # target and weight are keyword attributes, not inputs: torch's node has one edge (self).
    # A call per training step: plain array calls, none of NumPy's Python-level helpers.
    target, weight = attr_array(target), attr_array(weight)
    axis = 1 if x.ndim >= 2 else 0
    classes = x.shape[axis]
    if (xp is np and x.ndim == 2 and weight is None and reduction == "mean" and target.size
            and not 0 <= ignore_index < classes and 0 <= target.min()
            and target.max() < classes):
        return _batch_mean_nll(x, target)
    valid = target != ignore_index
    if xp is np:   # reading values on the host is free: skip the masks when all is well
        every = bool(valid.all())
        if target.size and not (every and 0 <= target.min() and target.max() < classes):
            _check_targets(target, valid, classes)
    else:          # each read waits for the GPU: one, for the bounds alone
        every = False
        _check_targets(target, valid, classes)
    safe = target.astype(np.int64, copy=False) if every else xp.where(valid, target, 0)
    if weight is None:
        w = valid.astype(x.dtype)
    else:
        w = weight[safe].astype(x.dtype) if every else (weight[safe] * valid).astype(x.dtype)
    keep = _with_class_axis(safe, axis)
    if x.ndim == 2:   # (batch, classes), the common case: plain integer indexing
        picked = x[xp.arange(x.shape[0]), safe]
    else:
        picked = xp.take_along_axis(x, keep, axis=axis)
    losses = -w * picked.reshape(w.shape)
    onehot = xp.arange(classes).reshape((classes,) + (1,) * (x.ndim - 1 - axis)) == keep
    coeff = 0 - onehot * _with_class_axis(w, axis)   # +0.0 off the targets, as torch's zeros
    if reduction == "mean":
        total = w.sum()
        return losses.sum() / total, (coeff / total).astype(x.dtype)
    return _reduce(xp, losses, reduction).astype(x.dtype), coeff.astype(x.dtype)


def _batch_mean_nll(x, target) -> tuple:
    """The loss of a training step, in fewer passes: (batch, classes) scores, no weights, the
    mean, and every target a class (so none is ``ignore_index``). The general path's values
    with every weight 1: the same sum of the picked scores over ``total``, the batch size."""
    rows = np.arange(target.shape[0])
    total = x.dtype.type(target.shape[0])
    coeff = np.zeros(x.shape, x.dtype)   # torch's gradient is zero off the targets (+0.0)
    coeff[rows, target] = x.dtype.type(-1) / total
    return -x[rows, target].sum() / total, coeff


def _check_targets(target, valid, classes: int) -> None:
    bad = valid & ((target < 0) | (target >= classes))
    if bool(bad.any()):
        raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")


def _with_class_axis(a, axis: int):
    """``a`` (shaped like the target) with a size-1 class axis put back at ``axis``."""
    return a.reshape(a.shape[:axis] + (1,) + a.shape[axis:])


@nll_loss.vjp
def nll_loss_vjp(ctx, grad):
    coeff = ctx.coeff
    if ctx.reduction == "none" and coeff.ndim >= 2:
        shape = list(coeff.shape)
        shape[1] = 1
        grad = grad.reshape(tuple(shape))
    return (grad * coeff,)


# torch runs 4D (image) inputs through nll_loss2d: the same maths under another node name.
nll_loss2d = defop("nll_loss2d", node="NllLoss2DBackward0",
                   saves=("coeff",), extras=("coeff",))(nll_loss.forward)
nll_loss2d.vjp(nll_loss_vjp)


@defop("mse_loss", node="MseLossBackward0", saves=("x", "target"))
def mse_loss(xp, x, target, reduction="mean"):
    # torch's result type: float32 with an int64 target stays float32
    x, target = promote(x, target)
    if x.dtype.kind in "biu":
        raise kernel_missing("mse_cpu" if xp is np else "mse_cuda", x.dtype)
    d = x - target
    return _reduce(xp, d * d, reduction).astype(d.dtype, copy=False)


@mse_loss.vjp
def mse_loss_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    shape = np.broadcast_shapes(tuple(x.shape), tuple(target.shape))
    g = _scale_grad(ctx, grad, shape) * 2 * (x - target)
    return g, -g


_EPSILON = 1e-12


@defop("binary_cross_entropy", node="BinaryCrossEntropyBackward0",
       saves=("x", "target"))
def binary_cross_entropy(xp, x, target, weight=None, reduction="mean"):
    weight = attr_array(weight)
    if bool(((x < 0) | (x > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    # torch clamps each log at -100 so that p = 0 or 1 gives a finite loss.
    log_p = xp.maximum(xp.log(x), -100)
    log_q = xp.maximum(xp.log1p(-x), -100)
    losses = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        losses = losses * weight
    return _reduce(xp, losses, reduction).astype(x.dtype, copy=False)


@binary_cross_entropy.vjp
def binary_cross_entropy_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    g = _scale_grad(ctx, grad, tuple(x.shape))
    if ctx.weight is not None:
        g = g * ctx.weight
    grad_x = g * (x - target) / (x * (1 - x)).clamp(min=_EPSILON)
    grad_t = None
    if needs(ctx, 1):
        grad_t = g * ((-x).log1p().clamp(min=-100) - x.log().clamp(min=-100))
    return grad_x, grad_t


@defop("binary_cross_entropy_with_logits", node="BinaryCrossEntropyWithLogitsBackward0",
       saves=("x", "target"))
def binary_cross_entropy_with_logits(xp, x, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    weight, pos_weight = attr_array(weight), attr_array(pos_weight)
    # softplus(-x) = log(1 + exp(-x)), computed without overflow.
    softplus_neg = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)
    if pos_weight is None:
        losses = (1 - target) * x + softplus_neg
    else:
        losses = (1 - target) * x + (1 + (pos_weight - 1) * target) * softplus_neg
    if weight is not None:
        losses = losses * weight
    # torch computes ``(1 - target).mul_(input)...``: the loss has the target's (float) dtype
    return _reduce(xp, losses, reduction).astype(target.dtype, copy=False)


@binary_cross_entropy_with_logits.vjp
def binary_cross_entropy_with_logits_vjp(ctx, grad):
    x, target = ctx.x, ctx.target
    g = _scale_grad(ctx, grad, tuple(x.shape))
    if ctx.weight is not None:
        g = g * ctx.weight
    sig = x.sigmoid()
    if ctx.pos_weight is None:
        grad_x = g * (sig - target)
        grad_t = g * -x
    else:
        pw = ctx.pos_weight
        grad_x = g * ((1 - target) - (1 + (pw - 1) * target) * (1 - sig))
        grad_t = g * (-x + (pw - 1) * softplus(-x))
    return grad_x, grad_t if needs(ctx, 1) else None
