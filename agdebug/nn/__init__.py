"""``torch.nn`` for agdebug: Module, Parameter, layers, losses, ``functional`` and ``init``.

>>> import agdebug as ag
>>> net = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.Tanh(), ag.nn.Linear(3, 1))
>>> sum(p.numel() for p in net.parameters())
13
"""

from __future__ import annotations

from . import functional, init, utils
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
from .container import ModuleDict, ParameterDict, ParameterList
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter

__all__ = [
    "ELU", "GELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss",
    "Dropout", "Embedding", "Flatten", "Identity", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "MaxPool2d",
    "Module", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList",
    "NLLLoss", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid",
    "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
