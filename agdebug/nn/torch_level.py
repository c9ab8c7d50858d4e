"""The nn ops torch also exposes at its top level: ``torch.conv2d``, ``torch.layer_norm``,
``torch.dropout``, ``torch.embedding``, ``torch.kl_div``...

These are the native functions ``torch.nn.functional`` calls, with their own positional
signatures, which differ from the functional ones: ``torch.dropout(input, p, train)`` has
no defaults, ``torch.batch_norm`` takes the weight before the running statistics,
``torch.embedding`` takes the weight first, the losses take ``reduction`` as torch's enum
(1 mean, 2 sum, any other int none; omitted, it is 0, as torch 2.13's binding reads it), and
``adaptive_max_pool1d`` always returns ``(values, indices)``. Each one calls the functional
op, so the graph recorded is the one ``F.<name>`` records, as in torch.
"""

from __future__ import annotations

from . import functional as F
from .functional.dropout import _dropout_impl

__all__ = ["FUNCTIONS"]

def _reduction(value: int) -> str:
    """torch's enum: 1 mean, 2 sum, and any other int none (torch 2.13 refuses none)."""
    return {1: "mean", 2: "sum"}.get(value, "none")


def _stride(stride):
    """Native pooling reads an empty stride (its default) as the kernel size."""
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


# ----------------------------------------------------------------------------- dropout

def _native_dropout(input, p, train, inplace=False, feature=False, alpha=False):
    """aten's dropout entry points: a bad ``p`` is a RuntimeError there (a ValueError in F)."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    return _dropout_impl(input, p, train, inplace, feature=feature, alpha=alpha)


def dropout(input, p, train):
    return _native_dropout(input, p, train)


def dropout_(input, p, train):
    return _native_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    return _native_dropout(input, p, train, feature=True)


def feature_dropout_(input, p, train):
    return _native_dropout(input, p, train, inplace=True, feature=True)


def alpha_dropout_(input, p, train):
    return _native_dropout(input, p, train, inplace=True, alpha=True)


def feature_alpha_dropout_(input, p, train):
    return _native_dropout(input, p, train, inplace=True, feature=True, alpha=True)


def alpha_dropout(input, p, train):
    return _native_dropout(input, p, train, alpha=True)


def feature_alpha_dropout(input, p, train):
    return _native_dropout(input, p, train, feature=True, alpha=True)


# ----------------------------------------------------------------------------- normalization

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return F.rms_norm(input, normalized_shape, weight, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    padding = None if padding_idx == -1 else padding_idx
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)


# ----------------------------------------------------------------------------- pooling

def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode,
                        return_indices=True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)


def adaptive_max_pool1d(input, output_size):
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# ----------------------------------------------------------------------------- activations

def celu(input, alpha=1.0):
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):
    return F.celu_(input, alpha)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return F.rrelu_(input, lower, upper, training)


# ----------------------------------------------------------------------------- losses

def kl_div(input, target, reduction=0, *, log_target=False):
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)


# The functional ops whose top-level signature is the functional one.
_SAME = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
         "conv_transpose3d", "adaptive_avg_pool1d", "selu", "selu_", "prelu", "threshold",
         "threshold_", "hardshrink", "pairwise_distance", "cosine_similarity")

FUNCTIONS = {name: getattr(F, name) for name in _SAME}
FUNCTIONS.update({name: globals()[name] for name in (
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "layer_norm", "batch_norm", "instance_norm", "group_norm", "rms_norm", "embedding",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_max_pool1d", "celu", "celu_", "rrelu", "rrelu_", "kl_div",
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "poisson_nll_loss", "binary_cross_entropy_with_logits",
    "ctc_loss")})
