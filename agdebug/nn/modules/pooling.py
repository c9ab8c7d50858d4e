"""The 3D pooling and normalization modules: ``MaxPool3d``, ``AvgPool3d``,
``AdaptiveAvgPool3d``, ``BatchNorm3d`` and ``InstanceNorm3d`` (the functions are in
:mod:`agdebug.nn.functional_pool3d` and :mod:`agdebug.nn.functional`).

>>> import agdebug as ag
>>> ag.nn.MaxPool3d(2)(ag.ones(1, 2, 4, 4, 4)).shape
torch.Size([1, 2, 2, 2, 2])
"""

from __future__ import annotations

from .. import functional as F
from .activation import _AdaptiveAvgPoolNd, _AvgPoolNd, _MaxPoolNd
from .normalization import _BatchNorm, _InstanceNorm

__all__ = ["AdaptiveAvgPool3d", "AvgPool3d", "BatchNorm3d", "InstanceNorm3d", "MaxPool3d"]


class MaxPool3d(_MaxPoolNd):
    """The maximum of each 3D window of (N, C, D, H, W) or (C, D, H, W) volumes."""

    _pool = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPoolNd):
    """The mean of each 3D window of (N, C, D, H, W) or (C, D, H, W) volumes.

    >>> import agdebug as ag
    >>> ag.nn.AvgPool3d(2, stride=1)(ag.ones(1, 3, 3, 3)).shape
    torch.Size([1, 2, 2, 2])
    """

    _pool = staticmethod(F.avg_pool3d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of volumes to a fixed ``output_size`` (None keeps an input size)."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) volumes."""

    def _check_input_dim(self, input) -> None:
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or unbatched (C, D, H, W) volumes."""

    _no_batch_dim = 4

    def _check_input_dim(self, input) -> None:
        if input.ndim not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.ndim}D input)")
