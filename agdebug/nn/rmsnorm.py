"""Root-mean-square normalization: ``F.rms_norm`` and ``nn.RMSNorm``, built as torch's CPU
composite builds it (so the graph is torch's: PowBackward0, MeanBackward1, AddBackward1,
RsqrtBackward0, MulBackward0, and one more MulBackward0 for the weight).

>>> import agdebug as ag
>>> y = ag.nn.functional.rms_norm(ag.tensor([[3.0, 4.0]], requires_grad=True), (2,))
>>> [round(v, 4) for v in y[0].tolist()], y.grad_fn.name()
([0.8485, 1.1314], 'MulBackward0')
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import creation
from ..ops.nn import loss_pieces as loss_ops
from ..ops.core.checks import kernel_missing
from .module import Module
from .parameter import Parameter

__all__ = ["RMSNorm", "rms_norm"]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input ** 2) + eps)`` over the last ``len(normalized_shape)`` dims,
    times ``weight``; ``eps`` defaults to the machine epsilon of ``input``'s dtype."""
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = [int(s) for s in normalized_shape]
    _check(input, shape, weight)
    dtype = input._data.dtype
    if eps is None:
        eps = float(np.finfo(dtype).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    scale = loss_ops.add_scalar(input.pow(2).mean(dims, keepdim=True), other=eps).rsqrt()
    result = input * scale
    if weight is not None:
        result = result * weight
        if result._data.dtype != dtype:   # torch's type_as(input)
            result = result.to(input.dtype)
    return result


def _check(input, shape: list, weight) -> None:
    """torch's checks, in its order and words (the input's shape is written ``[*2, 3]``)."""
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{shape}")
    if input.ndim < len(shape) or list(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if input._data.dtype.kind != "f":
        raise kernel_missing("rms_norm", input._data.dtype)


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
            from . import init
            init.ones_(self.weight)

    def forward(self, input):
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
