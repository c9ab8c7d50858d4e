"""``Unfold`` and ``Fold``: sliding blocks of images to columns and back (around ``F.unfold``
and ``F.fold``).

>>> import agdebug as ag
>>> ag.nn.Unfold(kernel_size=2)(ag.ones(1, 2, 3, 3)).shape
agdebug.Size([1, 8, 4])
"""

from __future__ import annotations

from ..functional.fold import fold, unfold
from .module import Module

__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    """Extract sliding local blocks of images as columns (see :func:`unfold`).

    >>> import agdebug as ag
    >>> tuple(ag.nn.Unfold(kernel_size=(2, 3))(ag.ones(2, 5, 3, 4)).shape)
    (2, 30, 4)
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Combine columns of sliding blocks into images (see :func:`fold`).

    >>> import agdebug as ag
    >>> tuple(ag.nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(ag.ones(1, 12, 12)).shape)
    (1, 3, 4, 5)
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
