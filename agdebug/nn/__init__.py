"""``torch.nn`` for agdebug: Module, Parameter, layers, losses, ``functional`` and ``init``.

>>> import agdebug as ag
>>> net = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.Tanh(), ag.nn.Linear(3, 1))
>>> sum(p.numel() for p in net.parameters())
13
"""

from __future__ import annotations

from . import functional, init
from .layers import (
    ELU,
    GELU,
    AvgPool2d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ModuleList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .layers import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, Conv1d, MaxPool1d
from .layers import (
    CELU,
    GLU,
    SELU,
    CosineSimilarity,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PairwiseDistance,
    PReLU,
    ReLU6,
    RReLU,
    Softmin,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
    Unflatten,
)
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelSoftMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
)
from .module import Module
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    LayerNorm,
)
from .parameter import Parameter

__all__ = [
    "ELU", "GELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss",
    "Dropout", "Embedding", "Flatten", "Identity", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "MaxPool2d",
    "Module", "ModuleList", "NLLLoss", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid",
    "Softmax", "Softplus", "Tanh", "functional", "init",
    # more activations, losses and helpers
    "CELU", "GLU", "SELU", "CosineSimilarity", "Hardshrink", "Hardsigmoid", "Hardswish",
    "Hardtanh", "LogSigmoid", "Mish", "PReLU", "PairwiseDistance", "RReLU", "ReLU6", "Softmin",
    "Softshrink", "Softsign", "Tanhshrink", "Threshold", "Unflatten",
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss",
    "L1Loss", "MarginRankingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "SmoothL1Loss",
    "SoftMarginLoss", "TripletMarginLoss",
]
__all__ += [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "BatchNorm1d", "BatchNorm2d",
    "Conv1d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "LayerNorm", "MaxPool1d",
]
