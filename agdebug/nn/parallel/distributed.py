"""``DistributedDataParallel``: refused, agdebug has no torch.distributed."""

from __future__ import annotations

from ..modules.module import Module


class DistributedDataParallel(Module):
    """Refused when made: it needs torch.distributed's process group, which agdebug lacks."""

    def __init__(self, module, *args, **kwargs):
        raise RuntimeError("torch.nn.parallel.DistributedDataParallel: agdebug has no "
                           "distributed training (torch.distributed.is_available() is False)")
