"""``torch.nn.functional``, split by family as the names are (``activation``, ``loss``,
``conv``, ``pooling``, ...); every function is reached from here, as in torch.

>>> import agdebug as ag
>>> import agdebug.nn.functional as F
>>> logits = ag.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ag.tensor([0]))
>>> loss.grad_fn.name()
'NllLossBackward0'
"""

from __future__ import annotations

from .loss import *  # noqa: F403
from .loss import __all__  # noqa: F401
from .loss import _c_type, _constant, _padding_index, _reduction, _renorm_rows  # noqa: F401
