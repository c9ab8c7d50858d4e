"""``torch.nn.functional``: activations, softmax, losses, linear, conv2d, pooling, dropout.

Argument handling (defaults, checks, torch's error texts) lives here; the maths
is in :mod:`agdebug.ops.nn` and :mod:`agdebug.ops.elementwise`.

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

from .. import backend, creation
from ..graph.grad_mode import MODE
from ..ops import elementwise as ew
from ..ops import nn as ops
from ..ops.registry import apply_inplace
from ..tensor import Tensor

__all__ = [
    "avg_pool2d",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "cross_entropy",
    "dropout",
    "elu",
    "gelu",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
]

# ----------------------------------------------------------------------------- activations


def _activation(op, input, inplace: bool, **attrs):
    if inplace:
        return apply_inplace(op, input, (), attrs)
    return op(input, **attrs)


def relu(input, inplace=False):
    """max(x, 0); the gradient at exactly 0 is 0, as in torch."""
    return _activation(ew.relu, input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _activation(ew.leaky_relu, input, inplace, negative_slope=negative_slope)


def gelu(input, approximate="none"):
    return ew.gelu(input, approximate=approximate)


def elu(input, alpha=1.0, inplace=False):
    return _activation(ew.elu, input, inplace, alpha=alpha)


def silu(input, inplace=False):
    return _activation(ew.silu, input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return ew.softplus(input, beta=beta, threshold=threshold)


def sigmoid(input):
    return ew.sigmoid(input)


def tanh(input):
    return ew.tanh(input)


# ----------------------------------------------------------------------------- softmax

def _softmax_dim(ndim: int) -> int:
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, computed stably.

    >>> import agdebug as ag
    >>> ag.nn.functional.softmax(ag.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return ops.softmax(input, dim=dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along ``dim``, without forming softmax (stable for large logits)."""
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return ops.log_softmax(input, dim=dim)


# ----------------------------------------------------------------------------- linear

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; a 2D input with a bias is one ``AddmmBackward0`` node.

    >>> import agdebug as ag
    >>> x, w, b = ag.ones(2, 3), ag.ones(4, 3, requires_grad=True), ag.zeros(4)
    >>> ag.nn.functional.linear(x, w, b).grad_fn.name()
    'AddmmBackward0'
    """
    from .. import functions as fn
    if input.ndim == 2 and bias is not None:
        return fn.addmm(bias, input, weight.t())
    if input.ndim == 2:
        return fn.mm(input, weight.t())
    if bias is not None:
        flat = input.reshape(-1, input.shape[-1])
        out = fn.addmm(bias, flat, weight.t())
        return out.view(tuple(input.shape[:-1]) + (weight.shape[0],))
    return fn.matmul(input, weight.t())


# ----------------------------------------------------------------------------- losses

def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", UserWarning, stacklevel=3)
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


def _check_index_target(target) -> None:
    if target.is_floating_point():
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype._legacy}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100,
             reduce=None, reduction="mean"):
    """The negative log likelihood of ``target`` classes under log-probabilities ``input``.

    >>> import agdebug as ag
    >>> logp = ag.tensor([[-0.5, -1.0]], requires_grad=True)
    >>> ag.nn.functional.nll_loss(logp, ag.tensor([1]))
    tensor(1., grad_fn=<NllLossBackward0>)
    """
    reduction = _reduction(size_average, reduce, reduction)
    _check_index_target(target)
    if input.ndim >= 2 and target.shape[:1] != input.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.ndim else 1}).")
    w = _constant(weight, "nll_loss_forward", "weight")
    if input.ndim <= 2:
        return ops.nll_loss(input, target=target, weight=w, reduction=reduction,
                            ignore_index=ignore_index)
    return _nll_loss_nd(input, target, w, reduction, ignore_index)


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """(N, C, d1, ...) inputs go through nll_loss2d on a 4D view, as in torch."""
    n, c = input.shape[:2]
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[n] + list(input.shape[2:])}, got "
                           f"{list(target.shape)}")
    if input.ndim == 4:
        return ops.nll_loss2d(input, target=target, weight=weight, reduction=reduction,
                              ignore_index=ignore_index)
    image = input.reshape((n, c, input.shape[2], -1))
    labels = target.reshape((n, input.shape[2], -1))
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
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    class_dim = 1 if input.ndim >= 2 else 0
    logp = log_softmax(input, class_dim)
    if target.is_floating_point() and target.shape == input.shape:
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    smooth = _smooth_term(logp, target, weight, ignore_index, reduction, class_dim)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / input.shape[class_dim])


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
    return -terms.sum() / (logp.numel() // classes)


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


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The (mean) squared error; warns, as torch does, when the shapes only broadcast.

    >>> import agdebug as ag
    >>> ag.nn.functional.mse_loss(ag.tensor([1.0, 3.0]), ag.tensor([0.0, 0.0]))
    tensor(5.)
    """
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape!r}) that is different to the input "
                      f"size ({input.shape!r}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
    reduction = _reduction(size_average, reduce, reduction)
    return ops.mse_loss(input, target, reduction=reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None,
                         reduce=None, reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)), each log clamped at -100 like torch."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape!r}) that is different to the input "
                         f"size ({input.shape!r}) is deprecated. Please ensure they have the "
                         "same size.")
    w = _constant(weight, "binary_cross_entropy", "weight")
    return ops.binary_cross_entropy(input, target, weight=w, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Sigmoid + binary cross entropy in one stable step (``pos_weight`` weighs positives)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size "
                         f"({input.shape!r})")
    name = "binary_cross_entropy_with_logits"
    return ops.binary_cross_entropy_with_logits(
        input, target, weight=_constant(weight, name, "weight"),
        pos_weight=_constant(pos_weight, name, "pos_weight"), reduction=reduction)


# ----------------------------------------------------------------------------- dropout

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p).

    The mask comes from agdebug's generator (``agdebug.manual_seed`` makes it repeatable).

    >>> import agdebug as ag
    >>> x = ag.ones(4)
    >>> ag.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    keep = creation.generator().random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = backend.move_array((keep * scale).astype(input._data.dtype), input.device)
    if inplace:
        return input.mul_(Tensor._wrap(mask))
    return ew.mul(input, Tensor._wrap(mask))


# ----------------------------------------------------------------------------- conv & pool

def _conv_padding(padding, kernel, stride, dilation) -> tuple:
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return (totals[0] // 2, totals[0] - totals[0] // 2,
                totals[1] // 2, totals[1] - totals[1] // 2)
    ph, pw = ops.pair(padding)
    return (ph, ph, pw, pw)


def _check_conv(input, weight, groups, padding, stride, dilation) -> None:
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.ndim != 4:
        raise RuntimeError(f"expected stride to be a single integer value or a list of "
                           f"{weight.ndim - 2} values to match the convolution dimensions, but "
                           f"got stride={list(stride)}")
    channels = weight.shape[1] * groups
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if input.shape[1] != channels:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {channels} channels, but "
                           f"got {input.shape[1]} channels instead")
    padded = (input.shape[2] + padding[0] + padding[1], input.shape[3] + padding[2] + padding[3])
    kernel = tuple(d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation))
    if padded[0] < kernel[0] or padded[1] < kernel[1]:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x "
                           f"{padded[1]}). Kernel size: ({kernel[0]} x {kernel[1]}). Kernel size "
                           "can't be greater than actual input size")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2D cross-correlation of (N, C, H, W) images with (O, C / groups, kh, kw) kernels.

    >>> import agdebug as ag
    >>> img, k = ag.ones(1, 1, 4, 4), ag.ones(2, 1, 3, 3, requires_grad=True)
    >>> out = ag.nn.functional.conv2d(img, k, padding=1)
    >>> tuple(out.shape), out.grad_fn.name()
    ((1, 2, 4, 4), 'ConvolutionBackward0')
    """
    stride, dilation = ops.pair(stride), ops.pair(dilation)
    if input.ndim == 3:
        out = conv2d(input.reshape((1,) + tuple(input.shape)), weight, bias, stride, padding,
                     dilation, groups)
        return out.reshape(tuple(out.shape[1:]))
    pads = _conv_padding(padding, tuple(weight.shape[2:]), stride, dilation)
    _check_conv(input, weight, groups, pads, stride, dilation)
    return ops.conv2d(input, weight, bias, stride=stride, padding=pads, dilation=dilation,
                      groups=groups)


def _pool_args(kernel_size, stride, padding, dilation=1) -> tuple:
    kernel = ops.pair(kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else ops.pair(stride)
    padding, dilation = ops.pair(padding), ops.pair(dilation)
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    return kernel, stride, padding, dilation


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False, return_indices=False):
    """The maximum of each window; the gradient flows to the (first) maximum.

    >>> import agdebug as ag
    >>> x = ag.arange(16.0).reshape(1, 1, 4, 4)
    >>> ag.nn.functional.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding,
             "dilation": dilation, "ceil_mode": ceil_mode}
    out = ops.max_pool2d(input, **attrs)
    if not return_indices:
        return out
    _, indices = ops.max_pool2d.forward(backend.xp_of(input._data), input._data, **attrs)
    return out, Tensor._wrap(indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window (padding counts as zeros unless ``count_include_pad=False``)."""
    kernel, stride, padding, _ = _pool_args(kernel_size, stride, padding)
    return ops.avg_pool2d(input, kernel_size=kernel, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)
