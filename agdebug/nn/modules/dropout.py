"""The channel and alpha dropout modules: ``Dropout1d``, ``Dropout2d``, ``Dropout3d``,
``AlphaDropout`` and ``FeatureAlphaDropout`` (the identity in eval mode).

>>> import agdebug as ag
>>> drop = ag.nn.Dropout2d(0.5).eval()
>>> x = ag.ones(1, 2, 3, 3)
>>> drop(x) is x
True
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """torch's _DropoutNd: ``p`` and ``inplace``, checked and shown as Dropout's (not a
    Dropout subclass: ``isinstance(m, nn.Dropout)`` is false for these, as in torch)."""

    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input):
        return self._fn(input, self.p, self.training, self.inplace)


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training mode; the identity in eval mode."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs with probability ``p``."""

    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) inputs with probability ``p``."""

    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability
    ``p``."""

    _fn = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a SELU network's mean and variance."""

    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels."""

    _fn = staticmethod(F.feature_alpha_dropout)
