"""Samplers: the order in which a DataLoader visits a map-style dataset's indices."""

from __future__ import annotations

from ... import creation, functions
from ...backend import float64, int64
from ...generator import Generator

_DRAWS = 32   # indices drawn per call when sampling with replacement (as torch does)


class Sampler:
    """Yields dataset indices (or, for a batch sampler, lists of them)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, 2, ... in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (or ``num_samples`` draws with ``replacement``)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None,
                 generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, wanted = len(self.data_source), self.num_samples
        generator = self.generator or _seeded_generator()
        if self.replacement:
            for _ in range(wanted // _DRAWS):   # (wanted may be 10**10: never a list of them)
                yield from creation.randint(high=n, size=(_DRAWS,), generator=generator).tolist()
            yield from creation.randint(high=n, size=(wanted % _DRAWS,),
                                        generator=generator).tolist()
            return
        for _ in range(wanted // n):
            yield from functions.randperm(n, generator=generator).tolist()
        yield from functions.randperm(n, generator=generator).tolist()[:wanted % n]

    def __len__(self):
        return self.num_samples


def _seeded_generator() -> Generator:
    """torch's sampler without a generator: a fresh one seeded from one 64-bit draw of the
    default generator (so the order is torch's for the same ``manual_seed``)."""
    seed = creation.empty((), dtype=int64).random_().item()
    return Generator().manual_seed(seed)


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in functions.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights = creation.as_tensor(weights, dtype=float64)
        if len(weights.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights.shape)}")
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        drawn = functions.multinomial(self.weights, self.num_samples, self.replacement,
                                      generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        whole, rest = divmod(len(self.sampler), self.batch_size)
        return whole if self.drop_last or not rest else whole + 1
