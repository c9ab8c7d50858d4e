"""The DataLoader: samples from a dataset, in batches, in the order a sampler gives.

agdebug loads in the process that iterates (``num_workers`` is accepted and checked as torch
checks it, and the batches and their order are the same as with workers; there are simply
none, so ``worker_init_fn`` is not called and ``get_worker_info()`` is None).
"""

from __future__ import annotations

from ... import creation
from ...backend import int64
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


def get_worker_info():
    """None: agdebug's DataLoader loads in the main process (as torch's does there)."""
    return None


class DataLoader:
    """Iterate ``dataset`` in batches of ``batch_size`` (``None``: one sample at a time)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        self.iterable = isinstance(dataset, IterableDataset)
        if self.iterable:
            _check_iterable(shuffle, sampler, batch_sampler)
        sampler, batch_sampler, batch_size, drop_last = _samplers(
            dataset, batch_size, bool(shuffle), sampler, batch_sampler, drop_last, generator)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.persistent_workers, self.multiprocessing_context = persistent_workers, \
            multiprocessing_context
        batching = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if batching else default_convert)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.iterable:
            batches = self._iterate_stream()
        elif self._auto_collation:
            batches = (self.collate_fn([self.dataset[i] for i in batch])
                       for batch in self.batch_sampler)
        else:
            batches = (self.collate_fn(self.dataset[i]) for i in self.sampler)
        # torch's iterator draws its workers' base seed as it starts, workers or not: the
        # draw moves the default generator, and so every random number after it
        creation.empty((), dtype=int64).random_(generator=self.generator)
        return batches

    def _iterate_stream(self):
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in self.dataset)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if not self.iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        whole, rest = divmod(length, self.batch_size)
        return whole if self.drop_last or not rest else whole + 1


def _check_workers(num_workers, timeout, prefetch_factor, persistent_workers) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _check_iterable(shuffle, sampler, batch_sampler) -> None:
    if shuffle not in (None, False):
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified "
                         f"batch_sampler option, but got batch_sampler={batch_sampler}")


def _samplers(dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator):
    """torch's choice of (sampler, batch_sampler, batch_size, drop_last) from the options."""
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        batch_size, drop_last = None, False
    elif batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")
    if isinstance(dataset, IterableDataset):
        return None, None, batch_size, drop_last
    if sampler is None:
        sampler = RandomSampler(dataset, generator=generator) if shuffle else \
            SequentialSampler(dataset)
    if batch_size is not None and batch_sampler is None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return sampler, batch_sampler, batch_size, drop_last
