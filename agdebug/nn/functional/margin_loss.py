"""Margin and embedding losses of ``torch.nn.functional``: ``margin_ranking_loss``,
``hinge_embedding_loss``, ``cosine_embedding_loss``, ``triplet_margin_loss``,
``multi_margin_loss``, ``multilabel_margin_loss``, ... with torch's checks in torch's order and
words (the class-margin maths is in :mod:`agdebug.ops.nn`).

>>> import agdebug as ag
>>> x = ag.tensor([[0.1, 0.2, 0.4, 0.8]], requires_grad=True)
>>> loss = ag.nn.functional.multi_margin_loss(x, ag.tensor([3]))
>>> loss.grad_fn.name()
'MultiMarginLossBackward0'
"""

from __future__ import annotations

import numpy as np

from ... import creation
from ...ops.pointwise import binary as binary_math
from ...ops.pointwise import comparison as ew
from ...ops.nn import loss_pieces as loss_ops
from ...ops.nn import margin_losses as loss2_ops
from ...ops.core.checks import kernel_missing
from ._parser import torch_words
from .activation import logsigmoid
from .distance import pairwise_distance
from .loss import _apply_reduction, _constant, _reduction

__all__ = ["cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "triplet_margin_with_distance_loss",
           "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_loss",
           "multi_margin_loss", "multilabel_margin_loss"]


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_size(input1)}, input2: {_size(input2)}, "
                           f"target: {_size(target)} ")
    loss = loss_ops.add_scalar(-target * (input1 - input2), other=margin)
    return _apply_reduction(binary_math.clamp_min(loss, min=0), reduction)


def _size(t) -> str:
    return f"torch.Size({list(t.shape)})"


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """x where target is 1, max(0, margin - x) where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = creation.zeros_like(input)
    margin_clamp = binary_math.clamp_min(creation.full_like(input, margin) - input, min=0)
    output = ew.where(margin_clamp, zeros, condition=(target != 1)._data) + \
        ew.where(input, zeros, condition=(target != -1)._data)
    return _apply_reduction(output, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) (SoftMarginLossBackward0)."""
    reduction = _reduction(size_average, reduce, reduction)
    target = _constant(target, "soft_margin_loss", "target")
    return loss_ops.soft_margin_loss(input, target, reduction=reduction)


_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if dim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{dim}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag1 = loss_ops.add_scalar((input1 * input1).sum(dim), other=_EPSILON)
    mag2 = loss_ops.add_scalar((input2 * input2).sum(dim), other=_EPSILON)
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = creation.zeros_like(cos)
    pos = creation.full_like(cos, 1) - cos
    neg = binary_math.clamp_min(loss_ops.sub_scalar(cos, other=margin), min=0)
    output = ew.where(pos, zeros, condition=(target == 1)._data) + \
        ew.where(neg, zeros, condition=(target == -1)._data)
    return _apply_reduction(output, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """The mean over classes of the binary logistic loss of each label."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _apply_reduction(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d a pairwise distance."""
    reduction = _reduction(size_average, reduce, reduction)
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = ew.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    loss = loss_ops.add_scalar(dist_pos, other=margin) - dist_neg
    return _apply_reduction(binary_math.clamp_min(loss, min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``triplet_margin_loss`` with any distance (default: ``pairwise_distance``); torch's
    Python composite, op for op."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    distance = distance_function or pairwise_distance
    dist_pos, dist_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        dist_neg = ew.minimum(dist_neg, distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    return loss.sum() if reduction == "sum" else loss.mean() if reduction == "mean" else loss


def _check_samples(input) -> None:
    """torch's shape check: a non-empty vector, or a matrix whose batch alone may be empty."""
    if not (input.ndim == 1 and input.shape[0] or input.ndim == 2 and input.shape[1]):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")


def _check_long(target) -> None:
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._legacy}")


def _check_float(input, kernel: str) -> None:
    if input._data.dtype.kind not in "f":
        raise kernel_missing(kernel, input.dtype)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])**p / C
    (MultiMarginLossBackward0).

    >>> import agdebug as ag
    >>> ag.nn.functional.multi_margin_loss(ag.tensor([[0.1, 0.2, 0.4, 0.8]]), ag.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_multi_margin(input, target, weight)
    if weight is not None:
        weight = _constant(weight, "multi_margin_loss", "weight")
    return loss2_ops.multi_margin_loss(input, target=target, p=int(p), margin=float(margin),
                                 weight=weight, reduction=reduction)


def _check_multi_margin(input, target, weight) -> None:
    _check_samples(input)
    samples = input.shape[0] if input.ndim == 2 else 1
    if target.ndim > 1 or target.numel() != samples:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{samples}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    _check_float(input, "multi_margin_loss_cpu_kernel")
    _check_long(target)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    t = target._data
    if t.size and (t.min() < 0 or t.max() >= classes):
        raise RuntimeError("target out of range")


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: each target listed in ``target`` (up to the first -1) against
    each class not listed (MultilabelMarginLossBackward0).

    >>> import agdebug as ag
    >>> x = ag.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> ag.nn.functional.multilabel_margin_loss(x, ag.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    _check_samples(input)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    _check_float(input, "multilabel_margin_loss_forward_out_frame")
    _check_long(target)
    t = target._data
    if t.size and (t.min() < -1 or t.max() >= input.shape[-1]):
        raise RuntimeError("argument #2 'target' is out of range")
    return loss2_ops.multilabel_margin_loss(input, target=target, reduction=reduction)


# (the class-margin losses came from their own module, and are worded in the package only)
torch_words(globals(), ["cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
                        "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_loss"])
