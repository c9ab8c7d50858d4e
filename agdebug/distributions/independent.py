"""Independent: some of a distribution's batch dimensions read as one event."""

from __future__ import annotations

from ..tensor import Size
from . import constraints
from .distribution import Distribution


def sum_rightmost(value, dims: int):
    """``value`` summed over its last ``dims`` dimensions."""
    return value if dims == 0 else value.reshape(tuple(value.shape[:-dims]) + (-1,)).sum(-1)


class Independent(Distribution):
    """Independent(base, n): the last ``n`` batch dimensions of ``base`` become its event."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims: int, validate_args=None):
        batch = tuple(base_distribution.batch_shape)
        n = reinterpreted_batch_ndims
        if n > len(batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {n} vs {len(batch)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        event = batch[len(batch) - n:] + tuple(base_distribution.event_shape)
        super().__init__(Size(batch[:len(batch) - n]), Size(event), validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        base = self.base_dist.support
        return base if self.reinterpreted_batch_ndims == 0 else \
            constraints._IndependentConstraint(base, self.reinterpreted_batch_ndims)

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
