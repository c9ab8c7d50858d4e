"""Linear modules: ``Identity``, ``Linear``, ``LazyLinear`` and ``Bilinear``.

>>> import agdebug as ag
>>> sum(p.numel() for p in ag.nn.Linear(2, 3).parameters())
9
"""

from __future__ import annotations

import math

from ... import creation
from ...graph.grad_mode import no_grad
from ...ops.linalg.bilinear import bilinear
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]


def _reset_affine(weight, bias, fan_in: int) -> None:
    """torch's default for Linear and Conv2d: kaiming_uniform_(a=sqrt(5)), bias U(+-bound)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features).

    >>> import agdebug as ag
    >>> layer = ag.nn.Linear(3, 2)
    >>> tuple(layer(ag.ones(4, 3)).shape)
    (4, 2)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(creation.empty(out_features, in_features, device=device,
                                               dtype=dtype))
        bias_t = creation.empty(out_features, device=device, dtype=dtype) if bias else None
        self.bias = Parameter(bias_t) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self.weight, self.bias, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")



class NonDynamicallyQuantizableLinear(Linear):
    """torch's name for MultiheadAttention's output projection: a plain Linear."""


class Bilinear(Module):
    """``y[..., o] = sum_ij x1[..., i] A[o, i, j] x2[..., j] + b[o]``, A of shape
    (out_features, in1_features, in2_features).

    >>> import agdebug as ag
    >>> layer = ag.nn.Bilinear(3, 5, 2)
    >>> tuple(layer(ag.ones(4, 3), ag.ones(4, 5)).shape)
    (4, 2)
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in1_features, in2_features,
                                               device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight and bias uniform in +-1/sqrt(in1_features), as torch's."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is the first input's last dim; it then becomes a Linear,
    initialised with the same draws as ``Linear(in_features, out_features)``.

    >>> import agdebug as ag
    >>> layer = ag.nn.LazyLinear(2)
    >>> _ = layer(ag.ones(4, 3))
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__(0, 0, False)   # (no tensors to be replaced; nothing drawn)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
