"""Losses of ``torch.nn.functional``: ``cross_entropy``, ``nll_loss``, ``mse_loss``,
``binary_cross_entropy``, ``l1_loss``, ``kl_div``, ... (the margin losses are in
``margin_loss``, ``ctc_loss`` in ``ctc``).

Argument handling (defaults, checks, torch's error texts) lives here; the maths
is in :mod:`agdebug.ops.nn.loss_pieces`, :mod:`agdebug.ops.nn` and :mod:`agdebug.ops.pointwise`.

>>> import agdebug as ag
>>> import agdebug.nn.functional as F
>>> logits = ag.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ag.tensor([0]))
>>> loss.grad_fn.name()
'NllLossBackward0'
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import backend, creation
from ...graph.grad_mode import MODE
from ...ops.nn import loss_pieces as loss_ops
from ...ops.nn import loss as ops
from ...ops.core.arguments import warning_level
from ...ops.core.checks import broadcast_error, kernel_missing
from ...tensor import Tensor
from ._parser import torch_words
from .activation import log_softmax

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
           "gaussian_nll_loss", "huber_loss", "kl_div", "l1_loss", "mse_loss", "nll_loss",
           "poisson_nll_loss", "smooth_l1_loss"]


# ----------------------------------------------------------------------------- losses

def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", UserWarning,
                      stacklevel=warning_level(3))
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _constant(t, function: str, argument: str):
    """A tensor argument torch does not differentiate (weight, pos_weight): checked, detached."""
    if t is None:
        return None
    if t.requires_grad and MODE.grad_enabled:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{argument}'. This input cannot have requires_grad True.")
    return t.detach()


_INDEX_TARGETS = (np.dtype(np.int64), np.dtype(np.uint8))


def _check_index_target(target) -> None:
    if target._data.dtype not in _INDEX_TARGETS:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype._legacy}")


def _check_nll_arguments(input, target, weight) -> None:
    """torch's checks of nll_loss (1D/2D input) and nll_loss2d (more dims), in its order."""
    classes = input.shape[1 if input.ndim >= 2 else 0]
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _check_index_target(target)
        if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
        if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
        kernel = "nll_loss_out_frame"
    else:
        if target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.ndim}")
        _check_index_target(target)
        if weight is not None and weight.numel() != classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if tuple(target.shape) != input.shape[:1] + input.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
        kernel = "nll_loss2d_forward_out_frame"
    if not input.is_floating_point():
        raise kernel_missing(kernel, input.dtype)
    if input.ndim > 2 and target._data.dtype != np.int64:   # nll_loss2d reads Long targets only
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._legacy}")
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100,
             reduce=None, reduction="mean"):
    """The negative log likelihood of ``target`` classes under log-probabilities ``input``.

    >>> import agdebug as ag
    >>> logp = ag.tensor([[-0.5, -1.0]], requires_grad=True)
    >>> ag.nn.functional.nll_loss(logp, ag.tensor([1]))
    tensor(1., grad_fn=<NllLossBackward0>)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim >= 2 and target.shape[:1] != input.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.ndim else 1}).")
    if input.ndim >= 3 and input.ndim != 4 and target.shape[1:] != input.shape[2:]:
        n = input.shape[0]
        raise RuntimeError(f"Expected target size {[n] + list(input.shape[2:])}, got "
                           f"{list(target.shape)}")
    w = _constant(weight, "nll_loss_forward", "weight")
    if input.ndim <= 2 or input.ndim == 4:   # other ndims: checked on the 4D view below
        _check_nll_arguments(input, target, weight)
    if input.ndim == 1 and target.ndim == 1:   # its one class (size 1, checked), as torch
        target = target.reshape(())
    if input.ndim <= 2:
        return ops.nll_loss(input, target=target, weight=w, reduction=reduction,
                            ignore_index=ignore_index)
    return _nll_loss_nd(input, target, w, reduction, ignore_index)


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """(N, C, d1, ...) inputs go through nll_loss2d on a 4D view, as in torch."""
    n, c = input.shape[:2]
    if input.ndim == 4:
        return ops.nll_loss2d(input, target=target, weight=weight, reduction=reduction,
                              ignore_index=ignore_index)
    image = input.reshape((n, c, input.shape[2], -1))
    labels = target.reshape((n, input.shape[2], -1))
    _check_nll_arguments(image, labels, weight)
    out = ops.nll_loss2d(image, target=labels, weight=weight, reduction=reduction,
                         ignore_index=ignore_index)
    return out.reshape(tuple(target.shape)) if reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dimension followed by nll_loss (or soft-label targets).

    >>> import agdebug as ag
    >>> x = ag.tensor([[0.0, 0.0]], requires_grad=True)
    >>> round(ag.nn.functional.cross_entropy(x, ag.tensor([1])).item(), 4)
    0.6931
    """
    reduction = _reduction(size_average, reduce, reduction)
    class_dim = 1 if input.ndim >= 2 else 0
    if target.shape == input.shape:   # torch reads same-shaped targets as class probabilities
        _check_soft_target(input, target, weight, ignore_index, label_smoothing, class_dim)
        logp = log_softmax(input, class_dim)
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    # torch ignores a negative label_smoothing on class-index targets (it tests > 0 first)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    logp = log_softmax(input, class_dim)
    if label_smoothing <= 0.0:   # (returned at once, so the debugger names it the caller's)
        return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    smooth = _smooth_term(logp, target, weight, ignore_index, reduction, class_dim)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / input.shape[class_dim])


def _check_soft_target(input, target, weight, ignore_index, label_smoothing, class_dim):
    if not target.is_floating_point():
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {target.dtype._legacy}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    if label_smoothing > 1.0:   # torch lets a negative one through here too
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def _class_weight(weight, ndim: int, class_dim: int):
    shape = [1] * ndim
    shape[class_dim] = -1
    return weight.reshape(tuple(shape))


def _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim):
    classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * target
    if weight is not None:
        terms = terms * _class_weight(weight, logp.ndim, class_dim)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    # torch divides by the integer count in C++ (div.Scalar): a DivBackward1 node
    return ops.div_scalar(-terms.sum(), other=logp.numel() // classes)


def _smooth_term(logp, target, weight, ignore_index, reduction, class_dim):
    """torch's label-smoothing term: the mean over classes of -log p, ignored targets zeroed."""
    terms = logp if weight is None else logp * _class_weight(weight, logp.ndim, class_dim)
    keep_array = target._data != ignore_index
    smooth = -terms.sum(class_dim) * Tensor._wrap(keep_array.astype(logp._data.dtype))
    if reduction == "none":
        return smooth
    if reduction == "sum":
        return smooth.sum()
    if weight is None:
        return smooth.sum() / int(keep_array.sum())
    picked = weight._data[np.where(keep_array, target._data, 0)] * keep_array
    return smooth.sum() / float(picked.sum())


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The (mean) squared error; warns, as torch does, when the shapes only broadcast.

    >>> import agdebug as ag
    >>> ag.nn.functional.mse_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0]))
    tensor(5.)
    """
    shape = input.shape
    if target.shape != shape:
        warnings.warn(f"Using a target size ({target.shape!r}) that is different to the input "
                      f"size ({shape!r}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
        input, target = _broadcast_pair(input, target)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        if weight.shape != shape:
            raise ValueError("Weights and input must have the same size.")
        return _weighted_mse_loss(input, target, weight, reduction)
    return ops.mse_loss(input, target, reduction=_reduction(None, None, reduction))


def _broadcast_pair(a, b) -> tuple:
    """torch's ``broadcast_tensors`` (an ExpandBackward0 node for each one that grows), with
    torch's error where the shapes do not broadcast (before ``reduction`` is looked at)."""
    if a._data.shape == b._data.shape:   # (the usual pair: nothing grows, nothing to check)
        return a, b
    broadcast_error(a, b)
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in (a, b))


def _weighted_mse_loss(input, target, weight, reduction):
    """torch's Python formula for a weighted mse_loss: plain tensor ops, each its own node."""
    weighted = (input - target).pow(2) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def binary_cross_entropy(input, target, weight=None, size_average=None,
                         reduce=None, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)), each log clamped at -100 like torch."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape!r}) that is different to the input "
                         f"size ({input.shape!r}) is deprecated. Please ensure they have the "
                         "same size.")
    if not input.is_floating_point():
        raise kernel_missing("binary_cross_entropy", input.dtype)
    if target._data.dtype != input._data.dtype:   # no promotion in torch's kernel
        raise RuntimeError(f"Found dtype {target.dtype._legacy} but expected "
                           f"{input.dtype._legacy}")
    w = _constant(weight, "binary_cross_entropy", "weight")
    return ops.binary_cross_entropy(input, target, weight=w, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross entropy in one stable step (``pos_weight`` weighs positives).

    torch computes it as ``(1 - target).mul_(input)...``: the loss takes ``target``'s dtype,
    and an integer target cannot hold it.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size "
                         f"({input.shape!r})")
    _float_kernel(input, "log_sigmoid_cpu", "log_sigmoid_forward_cuda")   # its first step
    if target._data.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if not target.is_floating_point():
        raise RuntimeError(f"result type {input.dtype._legacy} can't be cast to the desired "
                           f"output type {target.dtype._legacy}")
    name = "binary_cross_entropy_with_logits"
    return ops.binary_cross_entropy_with_logits(
        input, target, weight=_constant(weight, name, "weight"),
        pos_weight=_constant(pos_weight, name, "pos_weight"), reduction=reduction)


def _float_kernel(input, cpu: str, cuda: str) -> None:
    """torch's kernel is floating only: its error names the kernel. (Activations check in
    their ops, in ops/elementwise.py, so that Tensor methods refuse integers too.)"""
    dt = input._data.dtype
    if dt.kind in "biu":
        raise kernel_missing(cpu if type(input._data) is np.ndarray else cuda, dt)


# ---------------------------------------------------------- l1, huber, kl_div, poisson, gaussian

def _warn_target_size(input, target) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape!r}) that is different to the input "
                      f"size ({input.shape!r}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _apply_reduction(loss, reduction: str):
    """torch's C++ ``apply_loss_reduction``: MeanBackward0 or SumBackward0."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _weighted_reduction(loss, weight, reduction: str, mean):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return mean(loss)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean absolute error: (input - target).abs() then mean, as torch records it.

    >>> import agdebug as ag
    >>> ag.nn.functional.l1_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0]))
    tensor(2.)
    """
    _warn_target_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        loss = (input - target).abs() * weight
        return _weighted_reduction(loss, weight, reduction, lambda t: t.sum() / weight.sum())
    return _apply_reduction((input - target).abs(), _reduction(None, None, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta``, absolute error above (SmoothL1LossBackward0)."""
    _warn_target_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    reduction = _reduction(None, None, reduction)
    if beta == 0.0:   # torch's l1_loss then
        return _apply_reduction((input - target).abs(), reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return loss_ops.smooth_l1_loss(input, target, reduction=reduction, beta=beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above
    (HuberLossBackward0)."""
    _warn_target_size(input, target)
    input, target = _broadcast_pair(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return loss_ops.huber_loss(input, target, reduction=_reduction(None, None, reduction),
                                   delta=delta)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss_ops.huber_loss(input, target, reduction="none", delta=delta) * weight
    return _weighted_reduction(loss, weight, reduction, lambda t: t.mean())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The KL divergence of ``target`` from log-probabilities ``input``; 'batchmean' divides
    the sum by the batch size (torch warns that 'mean' divides by every element)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    inner = "sum" if reduction == "batchmean" else _reduction(None, None, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    reduced = _apply_reduction(loss, inner)
    if reduction == "batchmean" and input.ndim != 0:
        reduced = reduced / input.shape[0]
    return reduced


def _xlogy_self(target):
    """xlogy(target, target): 0 where the target is 0 (a constant where it needs no
    gradient, as torch's XlogyBackward0 then has no edges)."""
    if target.requires_grad and MODE.grad_enabled:
        return target * target.log().masked_fill(target == 0, 0.0)
    data = target._data
    xp = backend.xp_of(data)
    return Tensor._wrap(xp.where(data == 0, 0, data * xp.log(xp.where(data == 0, 1, data)))
                        .astype(data.dtype, copy=False))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """The negative log likelihood of ``target`` under Poisson(rate), where ``input`` is the
    log rate (``log_input``) or the rate; ``full`` adds Stirling's term."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (target * (2 * np.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log likelihood of ``target`` under N(input, var); ``var`` is clamped at
    ``eps`` outside the graph, as in torch."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * creation.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * float(np.log(2 * np.pi))
    return _apply_reduction(loss, reduction)


def _no_grad():
    from ...graph.grad_mode import no_grad
    return no_grad()


torch_words(globals(), __all__)
