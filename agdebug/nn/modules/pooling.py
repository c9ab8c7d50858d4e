"""Pooling modules: ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d`` and ``FractionalMaxPool2d/3d``.

>>> import agdebug as ag
>>> ag.nn.MaxPool2d(2)(ag.arange(16.0).reshape(1, 1, 4, 4)).reshape(-1)
tensor([ 5.,  7., 13., 15.])
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import functional as F
from ..functional.adaptive_pooling import (adaptive_max_pool1d, adaptive_max_pool2d,
                                           adaptive_max_pool3d)
from ..functional.pooling import _tuple, max_unpool1d, max_unpool2d, max_unpool3d
from .conv import _single
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d"]


class _MaxPoolNd(Module):
    """MaxPool1d's and MaxPool2d's arguments (torch's _MaxPoolNd); ``_pool`` is the function."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window of (N, C, L) signals."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """The maximum of each 3D window of (N, C, D, H, W) or (C, D, H, W) volumes."""

    _pool = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    """What AvgPool2d and AvgPool3d share (torch's _AvgPoolNd): they differ in ``_pool``."""

    _pool = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return self._pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(Module):
    """The mean of each window of (N, C, L) signals."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode = _single(padding), ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """The mean of each 3D window of (N, C, D, H, W) or (C, D, H, W) volumes.

    >>> import agdebug as ag
    >>> ag.nn.AvgPool3d(2, stride=1)(ag.ones(1, 3, 3, 3)).shape
    torch.Size([1, 2, 2, 2])
    """

    _pool = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _pool = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, L) signals to a fixed ``output_size``."""

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling of images to a fixed ``output_size`` (None keeps an input size).

    >>> import agdebug as ag
    >>> ag.nn.AdaptiveAvgPool2d((1, 1))(ag.ones(2, 3, 5, 5)).shape
    torch.Size([2, 3, 1, 1])
    """

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of volumes to a fixed ``output_size`` (None keeps an input size)."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


# ---------------------------------------------------------- adaptive max pools and max unpools

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


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of volumes to a fixed ``output_size`` (None keeps an input size).

    >>> import agdebug as ag
    >>> tuple(ag.nn.AdaptiveMaxPool3d((1, None, 2))(ag.ones(1, 3, 5, 4, 4)).shape)
    (1, 3, 1, 4, 2)
    """

    _pool = staticmethod(adaptive_max_pool3d)


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


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``."""

    _unpool, _n = staticmethod(max_unpool3d), 3


class _LPPoolNd(Module):
    """Power-average pooling: the ``norm_type``-norm of each window."""

    _pool = None

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride,
                          self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """>>> import agdebug as ag
    >>> ag.nn.LPPool1d(2, 2)(ag.ones(1, 1, 4))
    tensor([[[1.4142, 1.4142]]])
    """

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    _pool = staticmethod(F.lp_pool3d)


def _repeat(value, n: int) -> tuple:
    """torch's ``_ntuple``: any iterable as a tuple, anything else (a float too) n times."""
    return tuple(value) if isinstance(value, Iterable) else (value,) * n


class _FractionalMaxPoolNd(Module):
    """torch's FractionalMaxPool2d/3d arguments; ``_random_samples`` is a buffer (None unless
    given, then in the state dict), ``_n`` the spatial dims."""

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        self.kernel_size = _repeat(kernel_size, self._n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _repeat(output_size, self._n) if output_size is not None else None
        self.output_ratio = _repeat(output_ratio, self._n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio,
                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling of (N, C, H, W) images in ``kernel_size`` windows at random fractional
    strides (Graham's Fractional MaxPooling), to ``output_size`` or ``output_ratio`` of the
    input.

    >>> import agdebug as ag
    >>> ag.nn.FractionalMaxPool2d(3, output_ratio=0.5)(ag.randn(1, 2, 8, 6)).shape
    torch.Size([1, 2, 4, 3])
    """


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """:class:`FractionalMaxPool2d` on (N, C, T, H, W) volumes (its kernel must be positive).

    >>> import agdebug as ag
    >>> ag.nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))(ag.randn(1, 1, 5, 6, 6)).shape
    torch.Size([1, 1, 2, 3, 3])
    """

    _n = 3

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices, _random_samples)
