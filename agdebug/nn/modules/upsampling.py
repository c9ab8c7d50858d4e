"""``Upsample``, ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d`` (around ``F.interpolate``).

>>> import agdebug as ag
>>> ag.nn.Upsample(scale_factor=2)(ag.tensor([[[1.0, 2.0]]]))
tensor([[[1., 1., 2., 2.]]])
"""

from __future__ import annotations

from ..functional.vision import interpolate
from .module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    """Resize (N, C, ...) inputs to ``size`` or by ``scale_factor`` with ``mode``.

    >>> import agdebug as ag
    >>> up = ag.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> tuple(up(ag.ones(1, 3, 4, 5)).shape)
    (1, 3, 8, 10)
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) images."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) images, with ``align_corners=True``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
