"""``nn.ChannelShuffle``: ``F.channel_shuffle`` as a module (the op is in
:mod:`agdebug.ops.nn.fold`), at torch's path ``torch.nn.modules.channelshuffle``.

>>> import agdebug as ag
>>> x = ag.arange(4.0).reshape(1, 4, 1).requires_grad_()
>>> y = ag.nn.ChannelShuffle(2)(x)
>>> y.flatten().tolist(), y.grad_fn.name()
([0.0, 2.0, 1.0, 3.0], 'ChannelShuffleBackward0')
"""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Divide the channels of (N, C, *) into ``groups`` groups and interleave them."""

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
