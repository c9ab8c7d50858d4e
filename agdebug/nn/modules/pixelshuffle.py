"""``F.pixel_shuffle`` and ``F.pixel_unshuffle`` with the modules ``nn.PixelShuffle`` and
``nn.PixelUnshuffle`` (the ops are in :mod:`agdebug.ops.nn.fold`).

>>> import agdebug as ag
>>> x = ag.ones(1, 8, 2, 3, requires_grad=True)
>>> y = ag.nn.PixelShuffle(2)(x)
>>> tuple(y.shape), y.grad_fn.name()
((1, 2, 4, 6), 'PixelShuffleBackward0')
"""

from __future__ import annotations

from ...ops.nn.fold import pixel_shuffle_function as pixel_shuffle
from ...ops.nn.fold import pixel_unshuffle_function as pixel_unshuffle
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearrange (*, C * r * r, H, W) into (*, C, H * r, W * r) with r = ``upscale_factor``."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange (*, C, H * r, W * r) into (*, C * r * r, H, W) with r = ``downscale_factor``."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
