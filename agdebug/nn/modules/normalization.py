"""Normalization modules: ``LayerNorm``, ``GroupNorm``, ``RMSNorm`` and ``LocalResponseNorm``
(the batch and instance norms are in ``batchnorm`` and ``instancenorm``, as in torch).

>>> import agdebug as ag
>>> ag.nn.LayerNorm(2)(ag.tensor([[1.0, 3.0]]))
tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
"""

from __future__ import annotations

import numbers

from ... import creation
from .. import functional as F
from .. import init
from ..functional.normalization import local_response_norm, rms_norm
from ..parameter import Parameter
from .module import Module

__all__ = ["GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]


def _parameter(fill, shape: tuple, device, dtype):
    t = creation.empty(shape, device=device, dtype=dtype)
    return Parameter(init.ones_(t) if fill == 1 else init.zeros_(t))


def _affine_parameters(module, affine: bool, size: int, device, dtype, bias: bool) -> None:
    """weight = 1 and bias = 0 of ``size``, or registered as None (as torch)."""
    module.register_parameter("weight", _parameter(1, (size,), device, dtype) if affine
                              else None)
    module.register_parameter("bias", _parameter(0, (size,), device, dtype)
                              if affine and bias else None)


class LayerNorm(Module):
    """Standardize over the last dims (``normalized_shape``), then an elementwise affine.

    >>> import agdebug as ag
    >>> ln = ag.nn.LayerNorm(4)
    >>> ln(ag.randn(2, 4)).grad_fn.name()
    'NativeLayerNormBackward0'
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        shape = self.normalized_shape
        self.register_parameter("weight", _parameter(1, shape, device, dtype)
                                if elementwise_affine else None)
        self.register_parameter("bias", _parameter(0, shape, device, dtype)
                                if elementwise_affine and bias else None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Standardize each sample over groups of channels, then a per-channel affine.

    >>> import agdebug as ag
    >>> ag.nn.GroupNorm(2, 4)(ag.randn(3, 4, 5)).shape
    torch.Size([3, 4, 5])
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        _affine_parameters(self, affine, num_channels, device, dtype, bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Normalize each channel by its neighbours' activity (AlexNet's LRN).

    >>> import agdebug as ag
    >>> ag.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """Root-mean-square normalization over the last dims, with an optional weight.

    >>> import agdebug as ag
    >>> ag.nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        weight = creation.ones(self.normalized_shape, device=device, dtype=dtype) \
            if elementwise_affine else None
        self.register_parameter("weight", None if weight is None else Parameter(weight))

    def reset_parameters(self) -> None:
        if self.weight is not None:
            from .. import init
            init.ones_(self.weight)

    def forward(self, input):
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
