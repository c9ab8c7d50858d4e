"""``F.embedding_bag`` and ``nn.EmbeddingBag``: sums, means or maxima of bags of embeddings
without building the (bags, indices, dim) lookup, as one node (EmbeddingBagBackward0); torch's
checks in torch's order and words (the maths is in :mod:`agdebug.ops.nn.embedding_bag`).

>>> import agdebug as ag
>>> w = ag.arange(8.0).reshape(4, 2).requires_grad_()
>>> out = ag.nn.functional.embedding_bag(ag.tensor([0, 1, 3]), w, ag.tensor([0, 2]))
>>> out.grad_fn.name()
'EmbeddingBagBackward0'
"""

from __future__ import annotations

import numpy as np

from .. import creation
from ..graph.grad_mode import no_grad
from ..ops.nn import embedding_bag as ops
from ..ops.indexing.gather_scatter import _on
from . import functional as F   # (partly loaded while it imports this file: used late)
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["EmbeddingBag", "embedding_bag"]

_MODES = ("sum", "mean", "max")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """The sum, mean or max of each bag of ``weight``'s rows: the rows of a 2-D ``input``, or
    the 1-D ``input`` cut at ``offsets`` (``include_last_offset``: the last offset ends the
    last bag). ``per_sample_weights`` scale each row (mode 'sum'); ``padding_idx`` rows are
    left out.

    >>> import agdebug as ag
    >>> w = ag.arange(8.0).reshape(4, 2)
    >>> ag.nn.functional.embedding_bag(ag.tensor([[0, 1], [3, 3]]), w, mode="sum")
    tensor([[ 2.,  4.],
            [12., 14.]])
    """
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({_size(per_sample_weights)}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({_size(input)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    input, offsets, include_last_offset, per_sample_weights = _as_bags(
        input, offsets, include_last_offset, per_sample_weights)
    _check_mode(mode, scale_grad_by_freq, sparse)
    if max_norm is not None:
        F._renorm_rows(weight, _on(input, weight), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if sparse:
        raise NotImplementedError("agdebug has no sparse tensors: embedding_bag(sparse=True)")
    indices, offsets = _check_kernel(input, weight, offsets, padding_idx, mode)
    padding_idx = None if padding_idx is None else padding_idx % weight.shape[0]
    return ops.embedding_bag(weight, per_sample_weights, indices=indices, offsets=offsets,
                             mode=mode, include_last_offset=bool(include_last_offset),
                             padding_idx=padding_idx,
                             scale_grad_by_freq=bool(scale_grad_by_freq))


def _size(t) -> str:
    return f"torch.Size({list(t.shape)})"


def _as_bags(input, offsets, include_last_offset, per_sample_weights) -> tuple:
    """A 2-D input as the 1-D one with a bag every row; torch's checks of the arguments."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {_torch_type(offsets)}")
        if input.shape[1] == 0:   # torch's arange(0, numel, 0) refuses
            raise RuntimeError("step must be nonzero")
        offsets = creation.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                                  device=input.device)
        weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), offsets, False, weights
    if input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, include_last_offset, per_sample_weights
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                     f"{input.ndim}")


def _torch_type(value) -> str:
    name = type(value).__name__
    return "<class 'torch.Tensor'>" if name == "Tensor" else str(type(value))


def _check_mode(mode, scale_grad_by_freq, sparse) -> None:
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")


def _check_kernel(input, weight, offsets, padding_idx, mode) -> tuple:
    """The C++ kernel's checks, in its order: index dtypes, weight dtype, padding_idx, the
    offsets, the indices' range. The indices and offsets as int64 arrays."""
    for t in (input, offsets):
        if t._data.dtype not in (np.int64, np.int32):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                               "following scalar types: Long, Int; but got "
                               f"{t.type()} instead (while checking arguments for embedding_bag)")
    if weight._data.dtype.kind != "f":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{weight.type()} instead (while checking arguments for "
                           "embedding_bag)")
    num = weight.shape[0]
    if padding_idx is not None and not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                           f"through {num - 1}, but got {padding_idx}")
    indices = _on(input, weight).astype(np.int64, copy=False)
    starts = _on(offsets, weight).astype(np.int64, copy=False)
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(starts[0])}")
    if starts.size and starts[-1] > indices.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                           f"{indices.shape[0]} but got offsets[-1] of {int(starts[-1])}")
    bad = (indices < 0) | (indices >= num)
    if bool(bad.any()):
        k = int(bad.nonzero()[0][0])
        if mode == "max" or weight._data.dtype == np.float64:   # torch's generic kernel
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                               f"found idx to be {int(indices[k])}")
        raise RuntimeError(f"Index {k} of input takes value {int(indices[k])} which is not in "
                           f"the valid range [0, {num})")   # its fast float32/16 kernel
    return indices, starts


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (see :func:`embedding_bag`).

    >>> import agdebug as ag
    >>> bag = ag.nn.EmbeddingBag(10, 3, mode="sum")
    >>> tuple(bag(ag.tensor([1, 2, 4, 5]), ag.tensor([0, 2])).shape)
    (2, 3)
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, device=device,
                                                   dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx=None):
        """An EmbeddingBag whose weight is ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  _weight=embeddings, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
