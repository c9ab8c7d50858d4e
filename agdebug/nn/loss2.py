"""Margin losses over classes: ``F.multi_margin_loss`` and ``F.multilabel_margin_loss``
(their modules are in nn/loss.py), with torch's checks in torch's order and words (the
maths is in :mod:`agdebug.ops.nn.margin_losses`).

>>> import agdebug as ag
>>> x = ag.tensor([[0.1, 0.2, 0.4, 0.8]], requires_grad=True)
>>> loss = ag.nn.functional.multi_margin_loss(x, ag.tensor([3]))
>>> loss.grad_fn.name()
'MultiMarginLossBackward0'
"""

from __future__ import annotations

import numpy as np

from ..ops.nn import margin_losses as ops
from ..ops.core.checks import kernel_missing
from . import functional as F   # partly loaded while functional imports this file: read late

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]


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
    reduction = F._reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_multi_margin(input, target, weight)
    if weight is not None:
        weight = F._constant(weight, "multi_margin_loss", "weight")
    return ops.multi_margin_loss(input, target=target, p=int(p), margin=float(margin),
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
    reduction = F._reduction(size_average, reduce, reduction)
    _check_samples(input)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    _check_float(input, "multilabel_margin_loss_forward_out_frame")
    _check_long(target)
    t = target._data
    if t.size and (t.min() < -1 or t.max() >= input.shape[-1]):
        raise RuntimeError("argument #2 'target' is out of range")
    return ops.multilabel_margin_loss(input, target=target, reduction=reduction)
