"""``torch.amp``: gradient scaling, and autocast (which agdebug does not do).

>>> import agdebug as ag
>>> scaler = ag.amp.GradScaler("cpu", enabled=False)
>>> scaler.is_enabled(), scaler.get_scale()
(False, 1.0)
"""

from . import cuda_amp
from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "cuda_amp", "is_autocast_available"]
