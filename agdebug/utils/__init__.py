"""``torch.utils`` for agdebug: ``data`` (datasets, samplers, the DataLoader)."""

from . import data

__all__ = ["data"]
