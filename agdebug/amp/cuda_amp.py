"""``torch.cuda.amp``: torch's deprecated spellings of ``torch.amp``'s GradScaler and
autocast for ``"cuda"``, which warn as torch's do."""

from __future__ import annotations

import warnings

from . import autocast_mode, grad_scaler


class GradScaler(grad_scaler.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)``, with torch's deprecation warning."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


class autocast(autocast_mode.autocast):
    """``torch.amp.autocast("cuda", ...)``, with torch's deprecation warning."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype, enabled, cache_enabled)
