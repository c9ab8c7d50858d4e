"""Padding layers: ``nn.ZeroPad2d``, ``nn.ConstantPad1d``, ``nn.ReflectionPad2d``,
``nn.ReplicationPad1d``, ``nn.CircularPad2d``... each a call of ``F.pad`` with its mode.

>>> import agdebug as ag
>>> ag.nn.ZeroPad1d((1, 2))(ag.tensor([[1.0, 2.0]]))
tensor([[0., 1., 2., 0., 0.]])
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]


def _ntuple(padding, n: int) -> tuple:
    """torch's ``_ntuple``: an int repeated ``n`` times; any iterable kept as it is (so
    ``ReflectionPad2d((1, 2))`` pads the last dim only, as in torch)."""
    if isinstance(padding, int):
        return (padding,) * n
    return tuple(padding)


class _PadNd(Module):
    """A fixed ``F.pad(input, padding, mode)``; subclasses set ``_mode`` and ``_size``."""

    _mode = "constant"
    _size = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._size)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        low = self._size // 2 + 1   # torch's module checks the rank before F.pad does
        if input.dim() not in (low, low + 1):
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    """Pad the last dim of (C, L) or (N, C, L) with its own values, wrapped around."""


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims of (C, H, W) or (N, C, H, W), wrapped around."""

    _size = 4


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims of (C, D, H, W) or (N, C, D, H, W), wrapped around."""

    _size = 6


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``."""

    _size = 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with ``value``."""

    _size = 6


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros.

    >>> import agdebug as ag
    >>> tuple(ag.nn.ZeroPad2d(1)(ag.ones(1, 2, 3)).shape)
    (1, 4, 5)
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dim with its reflection (the edge value not repeated)."""


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two dims with their reflection."""

    _size = 4


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last three dims with their reflection."""

    _size = 6


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dim with copies of its edge values."""


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two dims with copies of their edge values."""

    _size = 4


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last three dims with copies of their edge values."""

    _size = 6
