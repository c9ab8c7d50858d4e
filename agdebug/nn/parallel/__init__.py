"""``torch.nn.parallel``: DataParallel on agdebug's one device, and DistributedDataParallel
refused (agdebug has no torch.distributed)."""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
