"""``nn.Conv3d`` and ``nn.ConvTranspose3d``: the convolution modules for (N, C, D, H, W)
volumes (the functions are in :mod:`agdebug.nn.functional_conv3d`).

>>> import agdebug as ag
>>> conv = ag.nn.Conv3d(1, 4, 3, padding=1)
>>> tuple(conv(ag.ones(2, 1, 4, 4, 4)).shape)
(2, 4, 4, 4, 4)
"""

from __future__ import annotations

from .. import functional as F
from .activation import _ConvNd, _ConvTransposeNd

__all__ = ["Conv3d", "ConvTranspose3d"]


def _triple(v) -> tuple:
    return (v, v, v) if isinstance(v, int) else tuple(v)


class Conv3d(_ConvNd):
    """3D convolution over (N, C, D, H, W) volumes (or unbatched (C, D, H, W)).

    >>> import agdebug as ag
    >>> ag.nn.Conv3d(2, 3, (1, 2, 2)).weight.shape
    torch.Size([3, 2, 1, 2, 2])
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv3d)


class ConvTranspose3d(_ConvTransposeNd):
    """3D transposed convolution over (N, C, D, H, W) volumes: the adjoint of Conv3d.

    >>> import agdebug as ag
    >>> up = ag.nn.ConvTranspose3d(2, 1, 2, stride=2)
    >>> tuple(up(ag.ones(1, 2, 3, 3, 3)).shape)
    (1, 1, 6, 6, 6)
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv_transpose3d)
    _dims = 3
