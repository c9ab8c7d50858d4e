"""Local response normalization across channels: ``F.local_response_norm`` and
``nn.LocalResponseNorm``, written as torch's Python composite is, so the recorded graph is
torch's (the squares averaged over a window of channels by an average pool).

>>> import agdebug as ag
>>> y = ag.nn.functional.local_response_norm(ag.ones(1, 3, 2, requires_grad=True), 2)
>>> tuple(y.shape), y.grad_fn.name()
((1, 3, 2), 'DivBackward0')
"""

from __future__ import annotations

from . import functional as F   # partly loaded while functional imports this file: read late
from .modules.module import Module

__all__ = ["LocalResponseNorm", "local_response_norm"]


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0):
    """``input / (k + alpha * mean of the squares of `size` neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        # (torch's text has the run of spaces of a line continuation inside its string)
        raise ValueError("Expected 3D or higher dimensionality" + " " * 26 +
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:   # the channels as the height of a one-channel image
        div = F.pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:          # the channels as the depth of a one-channel volume
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


class LocalResponseNorm(Module):
    """Normalize each channel by its neighbours' activity (AlexNet's LRN).

    >>> import agdebug as ag
    >>> ag.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
