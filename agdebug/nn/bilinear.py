"""``nn.Bilinear``: ``y = x1^T A x2 + b`` (torch's layer, its init and repr)."""

from __future__ import annotations

import math

from .. import creation
from ..ops.linalg.bilinear import bilinear
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Bilinear"]


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
