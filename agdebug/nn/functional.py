"""``torch.nn.functional``: activations, softmax, losses, linear, conv2d, pooling, dropout.

Argument handling (defaults, checks, torch's error texts) lives here; the maths
is in :mod:`agdebug.ops.nn.pooling` and :mod:`agdebug.ops.pointwise.arithmetic`.

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
from ..backend import cpp_name
from ..graph.grad_mode import MODE, no_grad
from ..ops.nn import activations as act
from ..ops.core.arguments import check_namespace, warning_level
from ..ops.pointwise import binary as binary_math
from ..ops.linalg.bilinear import bilinear
from ..ops.pointwise import activations as activations_ops, unary, arithmetic as ew, comparison
from ..ops.linalg import products as linalg
from ..ops.nn import loss_pieces as loss_ops
from ..ops.nn import (softmax as softmax_ops, embedding as embedding_ops, loss as nn_loss,
                      convolution as convolution_ops, pooling as ops)
from ..ops.nn import normalization as norm_ops
from ..ops.indexing.gather_scatter import _on
from ..ops.core.inplace import apply_inplace, write_into
from ..ops.core.checks import broadcast_error, c_div, check_divisor_override, kernel_missing
from ..tensor import Tensor
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .conv_transpose import conv_transpose1d, conv_transpose2d, expand_param
from .embedding_bag import embedding_bag
from .functional_conv3d import conv3d, conv_transpose3d, sizes_by
from .functional_ctc import ctc_loss
from .functional_dropout import (alpha_dropout, dropout1d, dropout2d, dropout3d,
                                 feature_alpha_dropout)
from .functional_pool3d import (adaptive_avg_pool3d, avg_pool3d, max_pool3d,
                                max_pool_with_indices)
from .fold import fold, unfold
from .local_response_norm import local_response_norm
from .loss2 import multi_margin_loss, multilabel_margin_loss
from .pixelshuffle import pixel_shuffle, pixel_unshuffle
from .rmsnorm import rms_norm
from .pooling_extra import (adaptive_max_pool1d, adaptive_max_pool2d, max_unpool1d,
                            max_unpool2d)
from .sampling import affine_grid, grid_sample, gumbel_softmax
from .upsampling import interpolate

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "affine_grid",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "elu_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "grid_sample",
    "group_norm",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "unfold",
]

# ----------------------------------------------------------------------------- activations


def _activation(op, input, inplace: bool, **attrs):
    if inplace:
        return apply_inplace(op, input, (), attrs)
    return op(input, **attrs)


def _float_kernel(input, cpu: str, cuda: str) -> None:
    """torch's kernel is floating only: its error names the kernel. (Activations check in
    their ops, in ops/pointwise/arithmetic.py, so that Tensor methods refuse integers too.)"""
    dt = input._data.dtype
    if dt.kind in "biu":
        raise kernel_missing(cpu if type(input._data) is np.ndarray else cuda, dt)


def relu(input, inplace=False):
    """max(x, 0); the gradient at exactly 0 is 0, as in torch (integers pass, bools do not)."""
    return _activation(activations_ops.relu, input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:   # torch's in-place node reads the result (LeakyReluBackward1)
        return leaky_relu_(input, negative_slope)
    return activations_ops.leaky_relu(input, negative_slope=negative_slope)


def gelu(input, approximate="none"):
    return activations_ops.gelu(input, approximate=approximate)


def elu(input, alpha=1.0, inplace=False):
    if inplace:   # torch's in-place node reads the result (EluBackward1)
        return elu_(input, alpha)
    return activations_ops.elu(input, alpha=alpha)


def silu(input, inplace=False):
    return _activation(activations_ops.silu, input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return activations_ops.softplus(input, beta=beta, threshold=threshold)


def sigmoid(input):
    return unary.sigmoid(input)


def tanh(input):
    return unary.tanh(input)


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
    return softmax_ops.softmax(input, dim=dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along ``dim``, without forming softmax (stable for large logits)."""
    if dim is None:
        dim = _softmax_dim(input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return softmax_ops.log_softmax(input, dim=dim)


# ----------------------------------------------------------------------------- linear

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; a 2D input with a bias is one ``AddmmBackward0`` node.

    >>> import agdebug as ag
    >>> x, w, b = ag.ones(2, 3), ag.ones(4, 3, requires_grad=True), ag.zeros(4)
    >>> ag.nn.functional.linear(x, w, b).grad_fn.name()
    'AddmmBackward0'
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if input.ndim == 2 and bias is not None:
        return linalg.addmm(bias, input, weight.t())
    if input.ndim == 2 and weight.ndim == 2:   # torch's matmul: mm here, mv for a 1D weight
        return linalg.mm(input, weight.t())
    if bias is not None:
        flat = input.reshape(-1, input.shape[-1])
        out = linalg.addmm(bias, flat, weight.t())
        return out.view(tuple(input.shape[:-1]) + (weight.shape[0],))
    return linalg.matmul(input, weight.t())


# ----------------------------------------------------------------------------- embedding

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by the integer ``input`` (EmbeddingBackward0); the
    ``padding_idx`` row gets no gradient.

    >>> import agdebug as ag
    >>> w = ag.arange(6.0).reshape(3, 2)
    >>> ag.nn.functional.embedding(ag.tensor([2, 0]), w)
    tensor([[4., 5.],
            [0., 1.]])
    """
    padding_idx = _padding_index(padding_idx, weight.shape[0] if weight.ndim else 0)
    if sparse:
        raise NotImplementedError("agdebug has no sparse tensors: embedding(sparse=True)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    indices = _on(input, weight)
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, indices, max_norm, norm_type)
    return embedding_ops.embedding(weight, indices=indices, padding_idx=padding_idx,
                         scale_grad_by_freq=bool(scale_grad_by_freq))


def _padding_index(padding_idx, num: int):
    """torch's Python-level check; a negative index counts from the end."""
    if padding_idx is None:
        return None
    if not -num <= padding_idx < num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num


def _renorm_rows(weight, indices, max_norm: float, norm_type: float) -> None:
    """torch's ``embedding_renorm_``: the looked-up rows whose norm exceeds ``max_norm`` are
    scaled down in place, outside the graph (the weight's version goes up)."""
    xp = backend.xp_of(weight._data)
    data = weight._data.copy()
    rows = xp.unique(indices.reshape(-1))
    norms = xp.linalg.norm(data[rows], ord=norm_type, axis=1)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    data[rows] *= scale[:, None].astype(data.dtype)
    write_into(weight, data)


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
        return nn_loss.nll_loss(input, target=target, weight=w, reduction=reduction,
                            ignore_index=ignore_index)
    return _nll_loss_nd(input, target, w, reduction, ignore_index)


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """(N, C, d1, ...) inputs go through nll_loss2d on a 4D view, as in torch."""
    n, c = input.shape[:2]
    if input.ndim == 4:
        return nn_loss.nll_loss2d(input, target=target, weight=weight, reduction=reduction,
                              ignore_index=ignore_index)
    image = input.reshape((n, c, input.shape[2], -1))
    labels = target.reshape((n, input.shape[2], -1))
    _check_nll_arguments(image, labels, weight)
    out = nn_loss.nll_loss2d(image, target=labels, weight=weight, reduction=reduction,
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
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return nll
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
    return nn_loss.div_scalar(-terms.sum(), other=logp.numel() // classes)


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
    return nn_loss.mse_loss(input, target, reduction=_reduction(None, None, reduction))


def _broadcast_pair(a, b) -> tuple:
    """torch's ``broadcast_tensors`` (an ExpandBackward0 node for each one that grows), with
    torch's error where the shapes do not broadcast (before ``reduction`` is looked at)."""
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
    return nn_loss.binary_cross_entropy(input, target, weight=w, reduction=reduction)


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
    return nn_loss.binary_cross_entropy_with_logits(
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
    if 0.0 < p < 1.0 and not input.is_floating_point():   # torch scales by 1 / (1 - p) in place
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype._legacy}")
    keep = creation.generator().random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = backend.move_array((keep * scale).astype(input._data.dtype), input.device)
    if inplace:
        return input.mul_(Tensor._wrap(mask))
    return ew.mul(input, Tensor._wrap(mask))


# ----------------------------------------------------------------------------- conv & pool


def _c_type(t) -> str:
    """A dtype as C++ names it (``dtype().name()``) in torch's conv2d bias error."""
    return cpp_name(t._data.dtype)


def _conv_param(value, name: str, dim: int) -> tuple:
    """torch's ``expand_param_if_needed`` for conv2d, whose own ints come as pairs."""
    return expand_param(value, name, dim, 2)


def _mode_padding(mode, input, weight, stride, dilation, groups) -> tuple:
    """torch's ``_convolution_mode`` for padding='same' or 'valid': (top, bottom, left, right);
    ``stride`` and ``dilation`` are lists (one value serves both dimensions)."""
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if len(value) not in (1, 2):
            raise RuntimeError(f"{name} cannot broadcast to 2 dimensions")
    return mode_padding(mode, input, weight, stride, _both(dilation))


def mode_padding(mode, input, weight, stride, dilation) -> tuple:
    """padding='same' or 'valid' as (low, high) per spatial dim, after torch's checks
    (``dilation``: one value per spatial dim), for 2-D and 3-D convolutions."""
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight{list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    if mode == "valid":
        return (0,) * (2 * len(dilation))
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pads = []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        pads += [c_div(total, 2), total - c_div(total, 2)]   # an odd total's extra goes after
    return tuple(pads)


def _both(values: list) -> tuple:
    return tuple(values * 2 if len(values) == 1 else values)


def check_conv_shape(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's ``check_shape_forward`` for a convolution of any number of spatial dims, in its
    order. ``padding`` is (low, high) per spatial dim: torch passes on the low sides, so it
    checks those; the padded input must hold the dilated kernel."""
    if any(p < 0 for p in padding[0::2]):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):   # 0 passes here: the kernel's own check words it
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    _check_conv_weight(input, weight, bias, groups)
    padded = [n + lo + hi for n, lo, hi in zip(input.shape[2:], padding[0::2], padding[1::2])]
    kernel = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: ({sizes_by(padded)}). "
                           f"Kernel size: ({sizes_by(kernel)}). Kernel size can't be greater "
                           "than actual input size")


def _check_conv(input, weight, bias, groups, padding, stride, dilation) -> None:
    check_conv_shape(input, weight, bias, groups, padding, stride, dilation)
    _check_conv_kernel(input, weight, dilation)


def _check_conv_kernel(input, weight, dilation) -> None:
    """The checks of the CPU kernel torch picks: slow_conv_dilated2d unless every dilation
    is 1, else slow_conv2d; each reads the weight as the input's dtype (no promotion)."""
    kh, kw = weight.shape[2:]
    if any(d != 1 for d in dilation):
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got {[kh, kw]}")
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
        kernel = "slow_conv_dilated<>"
    else:
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                               f"{kh} kernel_width: {kw}")
        kernel = "slow_conv2d_cpu"
    if input._data.dtype.kind == "b":
        raise kernel_missing(kernel, input.dtype)
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")


def _check_conv_weight(input, weight, bias, groups: int) -> None:
    """torch's checks of a convolution's weight and bias against its input and groups."""
    out_channels, channels = weight.shape[0], weight.shape[1] * groups
    if out_channels < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{list(weight.shape)}] "
                           "instead")
    if input.shape[1] != channels:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {channels} channels, but "
                           f"got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2D cross-correlation of (N, C, H, W) images with (O, C / groups, kh, kw) kernels.

    >>> import agdebug as ag
    >>> img, k = ag.ones(1, 1, 4, 4), ag.ones(2, 1, 3, 3, requires_grad=True)
    >>> out = ag.nn.functional.conv2d(img, k, padding=1)
    >>> tuple(out.shape), out.grad_fn.name()
    ((1, 2, 4, 4), 'ConvolutionBackward0')
    """
    if bias is not None and not isinstance(padding, str):
        _check_bias_dtype(input, bias)   # before anything else, in torch's conv2d
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 3:   # torch's batchify: unsqueeze, convolve, squeeze
        out = _conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups)
        return out.squeeze(0)
    return _conv2d(input, weight, bias, stride, padding, dilation, groups)


def _check_bias_dtype(input, bias) -> None:
    if bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_c_type(input)}) and bias type ({_c_type(bias)}) "
                           "should be the same")


def _conv2d(input, weight, bias, stride, padding, dilation, groups):
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        stride, dilation = _as_list(stride), _as_list(dilation)
        pads = _mode_padding(padding, input, weight, stride, dilation, groups)
        stride, dilation = _both(stride), _both(dilation)   # (this overload of torch's
        # conv2d does not compare the bias's dtype with the input's: the output has the input's)
    else:
        if weight.ndim < 3:
            raise RuntimeError("weight should have at least three dimensions")
        if groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        dim = weight.ndim - 2
        stride = _conv_param(stride, "stride", dim)
        ph, pw = _conv_param(padding, "padding", dim)
        dilation = _conv_param(dilation, "dilation", dim)
        pads = (ph, ph, pw, pw)
    _check_conv(input, weight, bias, groups, pads, stride, dilation)
    return convolution_ops.conv2d(input, weight, bias, stride=stride, padding=pads,
                                  dilation=dilation, groups=groups)


def _as_list(value) -> list:
    return [int(value)] * 2 if isinstance(value, (int, np.integer)) else [int(v) for v in value]


# ----------------------------------------------------------------------------- pooling

def _pool_args(kernel_size, stride, padding, dilation=1) -> tuple:
    kernel = convolution_ops.pair(kernel_size)
    stride = kernel if stride is None or stride == [] or stride == () else \
        convolution_ops.pair(stride)
    return kernel, stride, convolution_ops.pair(padding), convolution_ops.pair(dilation)


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode) -> None:
    """torch's ``pooling_output_shape`` (height, then width) and ``pool2d_shape_check``."""
    ops.check_pool_pads(kernel, stride, padding, dilation)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    shape = tuple(input.shape)
    # a batch may be empty; the channels and the image may not
    if not ((len(shape) == 3 and 0 not in shape) or (len(shape) == 4 and 0 not in shape[1:])):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    oh, ow = ops.pool_out_size(shape[-2:], kernel, stride, padding, dilation, ceil_mode)
    if oh < 1 or ow < 1:
        planes, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({planes}x{h}x{w}). Calculated output size: "
                           f"({planes}x{oh}x{ow}). Output size is too small")


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
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_pool(input, kernel, stride, padding, dilation, ceil_mode)
    if input._data.dtype.kind == "b":
        raise kernel_missing("max_pool2d", input.dtype)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding,
             "dilation": dilation, "ceil_mode": ceil_mode}
    return max_pool_with_indices(ops.max_pool2d, input, attrs, return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window (padding counts as zeros unless ``count_include_pad=False``)."""
    kernel, stride, padding, _ = _pool_args(kernel_size, stride, padding)
    check_divisor_override("avg_pool2d", divisor_override)
    if input.ndim < 3:   # torch reads the planes as ``input.size(-3)``
        raise IndexError("Dimension specified as -3 but tensor has no dimensions" if not input.ndim
                         else f"Dimension out of range (expected to be in range of "
                              f"[{-input.ndim}, {input.ndim - 1}], but got -3)")
    _check_pool(input, kernel, stride, padding, (1, 1), ceil_mode)
    if input._data.dtype.kind in "biu" and input._data.dtype != np.int64:   # floats and Long
        raise kernel_missing("avg_pool2d", input.dtype)
    return ops.avg_pool2d(input, kernel_size=kernel, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)


# ----------------------------------------------------------------------------- normalization
# (and conv1d, the 1D pools and the adaptive average pools: one block, kept together)

def _shape_text(t) -> str:
    return f"torch.Size({list(t.shape)})"


def _check_norm_dtypes(input, kernel: str, *params, float_message=False) -> None:
    """torch's CPU kernels: floating inputs only; parameters of the input's dtype, except
    that a half input may have float32 parameters (batch_norm words a float32 input's
    mismatch otherwise)."""
    if not input.is_floating_point():
        raise kernel_missing(kernel, input.dtype)
    dt = input._data.dtype
    for p in params:
        if p is not None and p._data.dtype != dt and dt.itemsize >= 4:
            if float_message and dt == np.float32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                                   "Float")
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Standardize over the last ``len(normalized_shape)`` dims, then scale and shift.

    >>> import agdebug as ag
    >>> x = ag.tensor([[1.0, 3.0]], requires_grad=True)
    >>> y = ag.nn.functional.layer_norm(x, (2,))
    >>> y.grad_fn.name(), [round(v, 3) for v in y[0].tolist()]
    ('NativeLayerNormBackward0', [-1.0, 1.0])
    """
    if isinstance(normalized_shape, (int, np.integer)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = [int(s) for s in normalized_shape]
    _check_norm_dtypes(input, "LayerNormKernelImpl", weight, bias)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and list(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(p.shape)} and normalized_shape = "
                               f"{shape}")
    if list(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    return norm_ops.native_layer_norm(input, weight, bias, normalized_shape=tuple(shape),
                                      eps=eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Standardize each sample over its channels in ``num_groups`` groups, then scale/shift.

    >>> import agdebug as ag
    >>> x = ag.randn(2, 4, 3, requires_grad=True)
    >>> ag.nn.functional.group_norm(x, 2).grad_fn.name()
    'NativeGroupNormBackward0'
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    _verify_batch_size(size, str(size))
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups="
                           f"{num_groups}")
    # (torch's bias message shows the weight's shape, [0] when there is none: copied as is)
    shown = list(weight.shape) if weight is not None else [0]
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(p.shape) if name == 'weight' else shown} and input of "
                               f"shape {list(input.shape)}")
    _check_norm_dtypes(input, "GroupNormKernelImpl", weight, bias)
    return norm_ops.native_group_norm(input, weight, bias, group=num_groups, eps=eps)


def _verify_batch_size(size, text: str) -> None:
    """torch's Python check: training statistics need more than one value per channel."""
    count = size[0] * int(np.prod(size[2:]))
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {text}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Standardize each channel over the batch (and the spatial dims), then scale and shift.

    Training uses the batch's statistics and moves ``running_mean``/``running_var`` toward
    them in place (with the unbiased variance); eval uses the running statistics.

    >>> import agdebug as ag
    >>> mean, var = ag.zeros(2), ag.ones(2)
    >>> y = ag.nn.functional.batch_norm(ag.tensor([[1.0, 2.0], [3.0, 6.0]]), mean, var,
    ...                                 training=True)
    >>> mean
    tensor([0.2000, 0.4000])
    """
    if training:
        _verify_batch_size(list(input.shape), _shape_text(input))
    if momentum is None or isinstance(momentum, bool):
        raise TypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, p in (("running_mean", running_mean), ("running_var", running_var)):
        if p is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and p.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {p.numel()}")
    if input.numel():   # torch returns an empty input's result before looking at dtypes
        _check_norm_dtypes(input, "batch_norm", weight, bias, running_mean, running_var,
                           float_message=True)
    return norm_ops.native_batch_norm(
        input, weight, bias, running_mean=_stat_array(running_mean),
        running_var=_stat_array(running_var), training=bool(training),
        momentum=float(momentum), eps=eps)


def _stat_array(t):
    """A running statistic as its array (updated in place by the op, as torch's kernel)."""
    return None if t is None else t._data


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Standardize each sample's channels over their spatial dims: torch runs batch_norm on
    the input viewed as (1, N * C, ...), with the parameters repeated N times.

    >>> import agdebug as ag
    >>> x = ag.randn(2, 3, 4, requires_grad=True)
    >>> ag.nn.functional.instance_norm(x).grad_fn.name()
    'ViewBackward0'
    """
    if use_input_stats:
        size = list(input.shape)
        if int(np.prod(size[2:])) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {_shape_text(input)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    b, c = input.shape[:2]
    stats = [None if s is None else s.repeat(b) for s in (running_mean, running_var)]
    params = [None if p is None else p.repeat(b) for p in (weight, bias)]
    flat = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    out = batch_norm(flat, stats[0], stats[1], params[0], params[1], use_input_stats,
                     momentum, eps)
    with no_grad():   # torch copies the repeated statistics' mean back (a version bump)
        for own, repeated in zip((running_mean, running_var), stats):
            if own is not None and use_input_stats:
                own.copy_(repeated.view(b, c).mean(0))
    return out.view(tuple(input.shape))


# ----------------------------------------------------------------------------- conv1d

def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1D cross-correlation of (N, C, L) signals with (O, C / groups, k) kernels: one
    ConvolutionBackward0 node, as torch records.

    >>> import agdebug as ag
    >>> x, k = ag.ones(1, 1, 5), ag.ones(1, 1, 3, requires_grad=True)
    >>> ag.nn.functional.conv1d(x, k, padding=1)
    tensor([[[2., 3., 3., 3., 2.]]], grad_fn=<ConvolutionBackward0>)
    """
    if bias is not None and not isinstance(padding, str):
        _check_bias_dtype(input, bias)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 2:   # torch's batchify: unsqueeze, convolve, squeeze
        return _conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                       groups).squeeze(0)
    return _conv1d(input, weight, bias, stride, padding, dilation, groups)


def _conv1d(input, weight, bias, stride, padding, dilation, groups):
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    (s,), (d,) = _conv1_param(stride, "stride"), _conv1_param(dilation, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        low, high = mode_padding(padding, input, weight, (s,), (d,))
    else:
        (low,) = _conv1_param(padding, "padding")
        high = low
    _check_conv1d(input, weight, bias, groups, (low, high), s, d)
    return convolution_ops.conv1d(input, weight, bias, stride=(1, s), padding=(0, 0, low, high),
                      dilation=(1, d), groups=groups)


def _conv1_param(value, name: str) -> tuple:
    return _conv_param([value] if isinstance(value, (int, np.integer)) else value, name, 1)


def _check_conv1d(input, weight, bias, groups, padding, stride, dilation) -> None:
    """torch's convolution checks for one spatial dim, in its order (its kernel is the 2D
    one, on a height of 1: a zero dilation is reported as ``[1, 0]``)."""
    check_conv_shape(input, weight, bias, groups, padding, (stride,), (dilation,))
    if dilation == 0:
        raise RuntimeError("dilation should be greater than zero, but got [1, 0]")
    if weight._data.dtype != input._data.dtype and input.numel():
        if input._data.dtype == np.float32:   # (torch's oneDNN path words it)
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) "
                               "should be the same or input should be a MKLDNN tensor and "
                               "weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input.dtype._legacy} but found "
                           f"{weight.dtype._legacy}")
    if input._data.dtype.kind == "b":
        raise kernel_missing("slow_conv2d_cpu", input.dtype)


# ----------------------------------------------------------------------------- 1D pools

def _one(value, function: str, argument: str, allow_empty=False):
    """torch's ``check1d``: an int, or a list/tuple of one int (empty: None, for stride)."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    values = list(value)
    if allow_empty and not values:
        return None
    if len(values) != 1:
        raise RuntimeError(f"{function}() argument '{argument}' should contain one int (got "
                           f"{len(values)})")
    return int(values[0])


def _check_dim_range(input, function: str) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {function})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window of (N, C, L) signals: torch unsqueezes to an image and runs
    max_pool2d (SqueezeBackward1 over MaxPool2DWithIndicesBackward0)."""
    if input.ndim not in (2, 3) or 0 in input.shape[-1:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = _one(stride, "max_pool1d", "stride", True) if stride is not None else None
    s = k if s is None else s
    p, d = _one(padding, "max_pool1d", "padding"), _one(dilation, "max_pool1d", "dilation")
    for name, value in (("kernel_size", k), ("stride", s)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    (length,) = ops.pool_out_size(input.shape[-1:], (k,), (s,), (p,), (d,), ceil_mode)
    if length <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")
    if not input.is_floating_point() and not return_indices and not input.requires_grad:
        raise kernel_missing("max_pool1d_impl", input.dtype)
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                     return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """The mean of each window of (N, C, L) signals (avg_pool2d on the unsqueezed input)."""
    _check_dim_range(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None else _one(stride, "avg_pool1d", "stride", True)
    s = k if s is None else s
    p = _one(padding, "avg_pool1d", "padding")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


# ----------------------------------------------------------------------------- adaptive pools

def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (None keeps that input size); an output of
    1 x 1 is ``input.mean((-1, -2), keepdim=True)``, as torch computes it.

    >>> import agdebug as ag
    >>> x = ag.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    >>> ag.nn.functional.adaptive_avg_pool2d(x, 2).grad_fn.name()
    'AdaptiveAvgPool2DBackward0'
    """
    if isinstance(output_size, (int, np.integer)):
        size = [int(output_size)] * 2
    else:
        size = [input.shape[input.ndim - len(output_size) + i] if v is None else int(v)
                for i, v in enumerate(output_size)]
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == [1, 1]:
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    if not input.is_floating_point():
        raise kernel_missing("adaptive_avg_pool2d", input.dtype)
    return ops.adaptive_avg_pool2d(input, output_size=tuple(size))


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) signals to ``output_size`` (through adaptive_avg_pool2d
    on the unsqueezed input, as torch)."""
    _check_dim_range(input, "adaptive_avg_pool1d")
    size = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


# ============================================================================= more of torch's
# activations, losses and helpers (one block: the maths of single-node ones is in
# ops/nn/activations.py and ops/nn/loss_pieces.py; composites are built from the ops torch records)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val] (HardtanhBackward0, also in place).

    >>> import agdebug as ag
    >>> ag.nn.functional.hardtanh(ag.tensor([-3.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation(act.hardtanh, input, inplace, min_val=min_val, max_val=max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """min(max(0, x), 6): torch records it as hardtanh(0, 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input):
    """x / (1 + |x|), a composite (DivBackward0) as in torch."""
    return input / (input.abs() + 1)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with torch's fixed constants (EluBackward0; EluBackward1 in
    place)."""
    op = act.elu_inplace if inplace else act.elu_scaled
    return _activation(op, input, inplace, **act.selu_constants())


def selu_(input):
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


def elu_(input, alpha=1.0):
    """In-place elu: torch's node reads the result (EluBackward1)."""
    return apply_inplace(act.elu_inplace, input, (), {"alpha": alpha})


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (CeluBackward0; CeluBackward1 in
    place)."""
    op = act.celu_inplace if inplace else act.celu
    return _activation(op, input, inplace, alpha=alpha)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu: torch's node reads the result (LeakyReluBackward1)."""
    return apply_inplace(act.leaky_relu_inplace, input, (), {"negative_slope": negative_slope})


def logsigmoid(input):
    """log(sigmoid(x)), computed without overflow (LogSigmoidBackward0)."""
    return act.logsigmoid(input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``: a NegBackward0 then a SoftmaxBackward0, as in torch."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning, stacklevel=2)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from ..ops.core.checks import dims_of
    axis = dims_of(dim, input.ndim)[0]
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size "
                           f"{input.shape[axis]}")
    return act.glu(input, dim=axis)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6 (HardswishBackward0)."""
    return _activation(act.hardswish, input, inplace)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 (HardsigmoidBackward0)."""
    return _activation(act.hardsigmoid, input, inplace)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (MishBackward0)."""
    return _activation(act.mish, input, inplace)


def threshold(input, threshold, value, inplace=False):
    """``input`` where it is greater than ``threshold``, else ``value``.

    >>> import agdebug as ag
    >>> ag.nn.functional.threshold(ag.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    op = act.threshold_inplace if inplace else act.threshold
    return _activation(op, input, inplace, threshold=threshold, value=value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold` (ThresholdBackward1)."""
    return apply_inplace(act.threshold_inplace, input, (),
                         {"threshold": threshold, "value": value})


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    return act.softshrink(input, lambd=lambd)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 elsewhere."""
    return act.hardshrink(input, lambd=lambd)


def tanhshrink(input):
    """x - tanh(x), a composite (SubBackward0) as in torch."""
    return input - input.tanh()


def prelu(input, weight):
    """x where x > 0, else weight * x; ``weight`` holds one slope or one per channel (dim 1).

    >>> import agdebug as ag
    >>> ag.nn.functional.prelu(ag.tensor([-2.0, 3.0]), ag.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.numel()} and channel size = {channels}.")
    return act.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """leaky_relu with a slope drawn from U(lower, upper) for each negative element in
    training (from agdebug's generator, so not torch's numbers), (lower + upper) / 2 else."""
    noise = _rrelu_noise(input, lower, upper) if training else None
    op = act.rrelu_with_noise_inplace if inplace else act.rrelu_with_noise
    return _activation(op, input, inplace, noise=noise, lower=lower, upper=upper,
                       training=bool(training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu` (RreluWithNoiseBackward1)."""
    return rrelu(input, lower, upper, training, inplace=True)


def _rrelu_noise(input, lower, upper):
    """torch's noise: a random slope where x <= 0, 1 elsewhere."""
    data = input._data
    act._floating(np, data, "leaky_relu")
    draw = lower + (upper - lower) * creation.generator().random(tuple(input.shape))
    draw = backend.move_array(draw.astype(data.dtype), input.device)
    return Tensor._wrap(backend.xp_of(data).where(data <= 0, draw, 1).astype(data.dtype))


# ----------------------------------------------------------------------------- more losses

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
    from ..graph.grad_mode import no_grad
    return no_grad()


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
    output = comparison.where(margin_clamp, zeros, condition=(target != 1)._data) + \
        comparison.where(input, zeros, condition=(target != -1)._data)
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
    output = comparison.where(pos, zeros, condition=(target == 1)._data) + \
        comparison.where(neg, zeros, condition=(target == -1)._data)
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


# ----------------------------------------------------------------------------- helpers

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``).

    >>> import agdebug as ag
    >>> ag.nn.functional.normalize(ag.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    if out is not None:
        raise NotImplementedError("agdebug's normalize takes no out=")
    denom = binary_math.clamp_min(input.norm(p, dim, keepdim=True), min=eps)
    return input / denom.expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``."""
    from ..ops.reduction.signatures import vector_norm
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with _no_grad():   # torch clamps the norms outside the graph (the clone keeps them apart)
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (NormBackward1)."""
    dim = 0 if max(x1.ndim, x2.ndim) == 1 else -1
    diff = loss_ops.add_scalar(x1 - x2, other=eps)
    return loss_ops.norm_p_dim(diff, ord=float(p), dim=(dim % max(diff.ndim, 1),),
                               keepdim=keepdim)


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
        dist_neg = comparison.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    loss = loss_ops.add_scalar(dist_pos, other=margin) - dist_neg
    return _apply_reduction(binary_math.clamp_min(loss, min=0), reduction)


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot rows, ``num_classes`` wide (one more than the largest class if -1).

    >>> import agdebug as ag
    >>> ag.nn.functional.one_hot(ag.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    xp = backend.xp_of(data)
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and int(data.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and int(data.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (data[..., None] == xp.arange(num_classes)).astype(np.int64)
    return Tensor._wrap(out)


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims: ``pad`` is (left, right, top, bottom, ...).

    >>> import agdebug as ag
    >>> ag.nn.functional.pad(ag.tensor([1.0, 2.0]), (1, 2), value=9.0)
    tensor([9., 1., 2., 9., 9.])
    """
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")   # (checked first)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length " + f"{len(pad)} and input of "
                           f"dimension {input.ndim}")
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return loss_ops.constant_pad_nd(input, pad=pad, value=0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    return _edge_pad(input, pad, mode)


def _edge_pad(input, pad, mode):
    """torch's reflection / replication / circular pads: the last 1, 2 or 3 dims of a batched or
    unbatched input (one more or two more dims than padded)."""
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _pad_circular(input, pad)
    name = "reflection" if mode == "reflect" else "replication"
    if mode == "reflect":
        for i in range(n):
            size = input.shape[input.ndim - 1 - i]
            if pad[2 * i] >= size or pad[2 * i + 1] >= size:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than "
                                   f"the corresponding input dimension, but got: padding "
                                   f"({pad[2 * i]}, {pad[2 * i + 1]}) at dimension "
                                   f"{input.ndim - 1 - i} of input {list(input.shape)}")
    return loss_ops.EDGE_PADS[(name, n)](input, pad=pad)




def _pad_circular(input, pad):
    """torch's ``_pad_circular``, op for op: an empty output, the input copied into its middle,
    then each padded dim's wrapped-around ends copied from the output itself (so the graph is
    torch's chain of CopySlices over SliceBackward0)."""
    n, lead = len(pad) // 2, input.ndim - len(pad) // 2
    shape = list(input.shape)
    for i in range(n):
        size, lo, hi = input.shape[lead + i], pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        shape[lead + i] = size + lo + hi
    out = input.new_empty(tuple(shape))
    out_slice, in_slice = out, input
    for i in range(n):
        dim, lo, hi = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        out_slice = _slice(out_slice, dim, max(lo, 0), shape[dim] - max(hi, 0))
        in_slice = _slice(in_slice, dim, max(-lo, 0), input.shape[dim] - max(-hi, 0))
    out_slice.copy_(in_slice)
    for i in range(n):
        dim, lo, hi = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            end = shape[dim] - max(hi, 0)
            _slice(out, dim, 0, lo).copy_(_slice(out, dim, end - lo, end))
        if hi > 0:
            start = max(lo, 0)
            _slice(out, dim, shape[dim] - hi, shape[dim]).copy_(
                _slice(out, dim, start, start + hi))
    return out


def _slice(t, dim: int, start: int, end: int):
    """aten's ``slice``: negative bounds count from the end, then both are clamped."""
    size = t.shape[dim]
    start, end = (v + size if v < 0 else v for v in (start, end))
    start = min(max(start, 0), size)
    return t.narrow(dim, start, min(max(end, start), size) - start)


# torch's parser words for a wrong argument, worked out only when a function fails (see
# ops/core/arguments.py), under aten's names and schemas where they differ from ours.
_ATEN_NAMES = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd",
               "logsigmoid": "log_sigmoid"}
_ATEN_PARAMS = {
    "batch_norm": {"weight": ("weight", 2), "bias": ("bias", 3),
                   "running_mean": ("running_mean", 4), "running_var": ("running_var", 5)},
    "embedding": {"input": ("indices", 2), "weight": ("weight", 1)},
}
# Functions whose torch Python code reads an argument before the parser sees it: a
# non-tensor fails there, with Python's AttributeError (``'list' object has no attribute
# 'size'``), as it does here.
_TOUCHED_FIRST = frozenset({
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "embedding_bag", "gaussian_nll_loss", "glu", "group_norm", "huber_loss", "instance_norm",
    "interpolate", "l1_loss", "margin_ranking_loss", "mse_loss", "normalize", "smooth_l1_loss",
    "softsign", "tanhshrink", "upsample", "upsample_bilinear", "upsample_nearest"})
check_namespace(globals(), __all__, _ATEN_NAMES, _ATEN_PARAMS, _TOUCHED_FIRST)
