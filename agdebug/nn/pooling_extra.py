"""Adaptive max pooling and max unpooling: ``F.adaptive_max_pool1d/2d``,
``F.max_unpool1d/2d`` and their modules, with torch's checks in torch's order and words (the
ops are in :mod:`agdebug.ops.nn.pooling_adaptive_max`).

>>> import agdebug as ag
>>> x = ag.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
>>> out, indices = ag.nn.functional.adaptive_max_pool2d(x, 2, return_indices=True)
>>> out.grad_fn.name(), indices.tolist()
('AdaptiveMaxPool2DBackward0', [[[[5, 7], [13, 15]]]])
"""

from __future__ import annotations

import numpy as np

from ..ops.nn import pooling_adaptive_max as ops
from ..ops.core.checks import kernel_missing
from .module import Module

__all__ = ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxUnpool1d", "MaxUnpool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool1d", "max_unpool2d"]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum of each of ``output_size`` adaptive windows of (N, C, H, W) or (C, H, W)
    images (None in ``output_size`` keeps that input size); optionally with the flat index of
    each maximum in its H * W plane.

    >>> import agdebug as ag
    >>> ag.nn.functional.adaptive_max_pool2d(ag.arange(6.0).reshape(1, 2, 3), (1, 2))
    tensor([[[4., 5.]]])
    """
    if not isinstance(output_size, (int, np.integer)):
        if len(input.shape) <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        output_size = [d if v is None else v
                       for v, d in zip(output_size, input.shape[-len(output_size):])]
    values, indices = _adaptive_max_pool2d(input, output_size)
    return (values, indices) if return_indices else values


def _adaptive_max_pool2d(input, output_size):
    shape = tuple(input.shape)
    if len(shape) not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(shape)}")
    for i in range(1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(shape)} with "
                               f"dimension {i} being empty")
    size = (output_size,) * 2 if isinstance(output_size, (int, np.integer)) else output_size
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    size = tuple(int(s) for s in size)
    if min(size) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(shape[:-2] + size)}")
    if input._data.dtype.kind not in "f":
        raise kernel_missing("adaptive_max_pool2d", input.dtype)
    return ops.adaptive_max_pool2d(input, output_size=size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The maximum of each of ``output_size`` adaptive windows of (N, C, L) or (C, L)
    signals: adaptive_max_pool2d on a height of 1 (SqueezeBackward1 over
    AdaptiveMaxPool2DBackward0, as torch records it)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           "for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        output_size = (output_size,)
    elif not isinstance(output_size, (tuple, list)):
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be "
                        f"tuple of ints, not {type(output_size).__name__}")
    if len(output_size) != 1:
        raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(output_size)})")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {i} being empty")
    values, indices = _adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size[0]))
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


# ----------------------------------------------------------------------------- max unpooling

def _tuple(value, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _unpool_output_size(input, kernel, stride, padding, output_size) -> list:
    """torch's Python-level default and checks of the unpooled size."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        size = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        size = list(output_size)
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{low} and {high})')
    for d in range(n):
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    return size


def _max_unpool2d(input, indices, size):
    """torch's native max_unpool2d: its checks, then the op."""
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype._legacy}")
    if input.ndim not in (3, 4):
        raise RuntimeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a "
                           f"tensor with {input.ndim} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError("max_unpooling2d_forward_out_cpu(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {i} being empty.")
    if input._data.dtype.kind not in "f":
        raise kernel_missing("max_unpool2d", input.dtype)
    plane = size[0] * size[1]
    flat = indices._data.reshape(-1)
    bad = flat[(flat < 0) | (flat >= plane)] if plane else flat[:0]
    if bad.size:   # (torch's kernel reports the last one it met)
        raise RuntimeError(f"Found an invalid max index: {int(bad[-1])} (output volumes are of "
                           f"size {size[0]}x{size[1]})")
    return ops.max_unpool2d(input, indices=indices._data, output_size=tuple(size))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of ``max_pool2d``: each value placed at its index in zero planes.

    >>> import agdebug as ag
    >>> x = ag.tensor([[[[1.0, 4.0], [3.0, 2.0]]]])
    >>> out, indices = ag.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> ag.nn.functional.max_unpool2d(out, indices, 2)
    tensor([[[[0., 4.],
              [0., 0.]]]])
    """
    kernel = _tuple(kernel_size, 2)
    stride = kernel if stride is None else _tuple(stride, 2)
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 2), output_size)
    return _max_unpool2d(input, indices, size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """A partial inverse of ``max_pool1d``: max_unpool2d on a width of 1 (SqueezeBackward1
    over MaxUnpool2DBackward0, as torch records it)."""
    kernel = _tuple(kernel_size, 1)
    stride = kernel if stride is None else _tuple(stride, 1)
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 1), output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


# ----------------------------------------------------------------------------- modules

class _AdaptiveMaxPoolNd(Module):
    _pool = None

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) signals to a fixed ``output_size``."""

    _pool = staticmethod(adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of images to a fixed ``output_size`` (None keeps an input size).

    >>> import agdebug as ag
    >>> tuple(ag.nn.AdaptiveMaxPool2d((2, None))(ag.ones(1, 3, 5, 4)).shape)
    (1, 3, 2, 4)
    """

    _pool = staticmethod(adaptive_max_pool2d)


class _MaxUnpoolNd(Module):
    _unpool, _n = None, 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._n)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _tuple(padding, self._n)

    def forward(self, input, indices, output_size=None):
        return type(self)._unpool(input, indices, self.kernel_size, self.stride, self.padding,
                                  output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``."""

    _unpool, _n = staticmethod(max_unpool1d), 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``."""

    _unpool, _n = staticmethod(max_unpool2d), 2
