"""``torch.nn.functional``, split by family as the names are (``activation``, ``loss``,
``conv``, ``pooling``, ...); every function is reached from here, as in torch.

>>> import agdebug as ag
>>> import agdebug.nn.functional as F
>>> logits = ag.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ag.tensor([0]))
>>> loss.grad_fn.name()
'NllLossBackward0'
"""

from __future__ import annotations

from ... import gaps
from .activation import (celu, celu_, elu, elu_, gelu, glu, hardshrink, hardsigmoid, hardswish,
                         hardtanh, hardtanh_, leaky_relu, leaky_relu_, log_softmax, logsigmoid,
                         mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu, selu_, sigmoid, silu,
                         softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink,
                         threshold, threshold_)
from .linear import bilinear, linear
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                   gaussian_nll_loss, huber_loss, kl_div, l1_loss, mse_loss, nll_loss,
                   poisson_nll_loss, smooth_l1_loss)
from .margin_loss import (cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
                          multilabel_soft_margin_loss, soft_margin_loss, triplet_margin_loss,
                          triplet_margin_with_distance_loss, multi_margin_loss,
                          multilabel_margin_loss)
from .ctc import ctc_loss
from .distance import cosine_similarity, pairwise_distance, pdist
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
from .padding import pad
from .conv import conv1d, conv2d, conv3d, conv_transpose3d
from .conv_transpose import conv_transpose1d, conv_transpose2d
from .fold import fold, unfold
from .pooling import (avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool1d_with_indices,
                      max_pool2d, max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices,
                      max_unpool1d, max_unpool2d, max_unpool3d)
from .fractional_pooling import (fractional_max_pool2d, fractional_max_pool2d_with_indices,
                                 fractional_max_pool3d, fractional_max_pool3d_with_indices)
from .lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d
from .adaptive_pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,
                               adaptive_max_pool1d, adaptive_max_pool1d_with_indices,
                               adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
                               adaptive_max_pool3d, adaptive_max_pool3d_with_indices)
from .normalization import (batch_norm, group_norm, instance_norm, layer_norm, local_response_norm,
                            normalize, rms_norm)
from .sparse import embedding, embedding_bag, one_hot
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .vision import (channel_shuffle, interpolate, pixel_shuffle, pixel_unshuffle, upsample,
                     upsample_bilinear, upsample_nearest)
from .sampling import affine_grid, grid_sample, gumbel_softmax
from ._parser import torch_words

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "affine_grid", "alpha_dropout",
    "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "celu", "celu_", "channel_shuffle", "conv1d", "conv2d",
    "conv3d",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_embedding_loss",
    "cosine_similarity", "cross_entropy", "ctc_loss", "dropout", "dropout1d", "dropout2d",
    "dropout3d", "elu", "elu_", "embedding", "embedding_bag", "feature_alpha_dropout", "fold",
    "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "gaussian_nll_loss", "gelu", "glu", "grid_sample",
    "group_norm", "gumbel_softmax",
    "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "hinge_embedding_loss",
    "huber_loss", "instance_norm", "interpolate", "kl_div", "l1_loss", "layer_norm",
    "leaky_relu", "leaky_relu_", "linear", "local_response_norm", "lp_pool1d", "lp_pool2d",
    "lp_pool3d", "log_softmax", "logsigmoid",
    "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
    "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "max_unpool1d",
    "max_unpool2d", "max_unpool3d", "mish", "mse_loss", "multi_head_attention_forward",
    "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss", "normalize", "one_hot",
    "pad", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "poisson_nll_loss",
    "prelu",
    "relu", "relu6", "relu_", "rms_norm", "rrelu", "rrelu_", "scaled_dot_product_attention", "selu",
    "selu_", "sigmoid", "silu", "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin",
    "softplus", "softshrink", "softsign", "tanh", "tanhshrink", "threshold", "threshold_",
    "triplet_margin_loss", "triplet_margin_with_distance_loss", "unfold", "upsample",
    "upsample_bilinear", "upsample_nearest",
]

# Written outside the single functional.py this package was, and called bare by their own
# nn modules: they get torch's parser words here only, as they did there (see _parser.py).
_WORDED_HERE = [
    "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "affine_grid",
    "alpha_dropout", "avg_pool3d", "bilinear", "channel_shuffle", "conv3d", "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d", "ctc_loss", "dropout1d", "dropout2d", "dropout3d", "embedding_bag",
    "feature_alpha_dropout", "fold", "grid_sample", "gumbel_softmax", "interpolate",
    "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices", "max_unpool1d",
    "max_unpool2d", "max_unpool3d",
    "multi_head_attention_forward", "multi_margin_loss", "multilabel_margin_loss",
    "pixel_shuffle", "pixel_unshuffle", "rms_norm", "scaled_dot_product_attention", "unfold",
]
torch_words(globals(), _WORDED_HERE)


def __getattr__(name: str):
    """A name torch has and agdebug lacks says so (``agdebug.gaps``)."""
    raise gaps.missing("nn.functional", "module 'agdebug.nn.functional'", name)
