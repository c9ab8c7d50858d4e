"""``torch.nn`` for agdebug: Module, Parameter, layers, losses, ``functional``, ``init``
and ``utils``.

>>> import agdebug as ag
>>> net = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.Tanh(), ag.nn.Linear(3, 1))
>>> sum(p.numel() for p in net.parameters())
13
"""

from __future__ import annotations

from . import functional, init, parallel, utils
from .parallel import DataParallel
from .modules import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                      AdaptiveMaxPool2d, AlphaDropout, AvgPool1d, AvgPool2d, AvgPool3d, BCELoss,
                      BCEWithLogitsLoss, BatchNorm1d, BatchNorm2d, BatchNorm3d, Bilinear, CELU,
                      CTCLoss, CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d,
                      ConstantPad2d, ConstantPad3d, Conv1d, Conv2d, Conv3d, ConvTranspose1d,
                      ConvTranspose2d, ConvTranspose3d, CosineEmbeddingLoss, CosineSimilarity,
                      CrossEntropyLoss, Dropout, Dropout1d, Dropout2d, Dropout3d, ELU, Embedding,
                      EmbeddingBag, FeatureAlphaDropout, Flatten, Fold, GELU, GLU, GRU, GRUCell,
                      GaussianNLLLoss, GroupNorm, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,
                      HingeEmbeddingLoss, HuberLoss, Identity, InstanceNorm1d, InstanceNorm2d,
                      InstanceNorm3d, KLDivLoss, L1Loss, LSTM, LSTMCell, LayerNorm, LeakyReLU,
                      Linear, LocalResponseNorm, LogSigmoid, LogSoftmax, MSELoss,
                      MarginRankingLoss, MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d,
                      Mish, Module, ModuleDict, ModuleList, MultiLabelMarginLoss,
                      MultiLabelSoftMarginLoss, MultiMarginLoss, MultiheadAttention, NLLLoss,
                      PReLU, PairwiseDistance, ParameterDict, ParameterList, PixelShuffle,
                      PixelUnshuffle, PoissonNLLLoss, RMSNorm, RNN, RNNBase, RNNCell, RNNCellBase,
                      RReLU, ReLU, ReLU6, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, SELU, Sequential, SiLU,
                      Sigmoid, SmoothL1Loss, SoftMarginLoss, Softmax, Softmin, Softplus,
                      Softshrink, Softsign, Tanh, Tanhshrink, Threshold, Transformer,
                      TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                      TransformerEncoderLayer, TripletMarginLoss, Unflatten, Unfold, Upsample,
                      UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .parameter import Parameter

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AlphaDropout", "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss",
    "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "CELU",
    "CTCLoss",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "CosineEmbeddingLoss", "CosineSimilarity", "CrossEntropyLoss",
    "DataParallel", "Dropout",
    "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Embedding", "EmbeddingBag",
    "FeatureAlphaDropout", "Flatten", "Fold", "GELU", "GLU", "GRU", "GRUCell",
    "GaussianNLLLoss", "GroupNorm", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "HingeEmbeddingLoss", "HuberLoss", "Identity", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "KLDivLoss", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "LeakyReLU",
    "Linear", "LocalResponseNorm", "LogSigmoid", "LogSoftmax", "MSELoss", "MarginRankingLoss",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "Mish", "Module",
    "ModuleDict", "ModuleList", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
    "MultiMarginLoss", "MultiheadAttention", "NLLLoss", "PReLU", "PairwiseDistance",
    "Parameter", "ParameterDict", "ParameterList", "PixelShuffle", "PixelUnshuffle",
    "PoissonNLLLoss", "RMSNorm", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "RReLU", "ReLU",
    "ReLU6", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "SELU", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softmin", "Softplus", "Softshrink",
    "Softsign", "Tanh", "Tanhshrink", "Threshold", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer",
    "TripletMarginLoss", "Unflatten", "Unfold", "Upsample", "UpsamplingBilinear2d",
    "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "functional", "init",
    "parallel", "utils",
]
