"""``Flatten`` and ``Unflatten``.

>>> import agdebug as ag
>>> ag.nn.Flatten()(ag.ones(2, 3, 4)).shape
agdebug.Size([2, 12])
"""

from __future__ import annotations

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        shape = tuple(input.shape)
        if not shape:
            return input.reshape(1)
        start, end = self.start_dim % len(shape), self.end_dim % len(shape)
        return input.reshape(shape[:start] + (-1,) + shape[end + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim ``dim`` into ``unflattened_size``.

    >>> import agdebug as ag
    >>> tuple(ag.nn.Unflatten(1, (2, 3))(ag.ones(4, 6)).shape)
    (4, 2, 3)
    """

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        shape = tuple(input.shape)
        dim = self.dim % len(shape) if shape else 0
        return input.view(shape[:dim] + self.unflattened_size + shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
