"""Sparse functions: ``F.embedding``, ``F.embedding_bag`` and ``F.one_hot``.

``embedding_bag`` sums, means or maxima bags of embeddings without building the (bags,
indices, dim) lookup, as one node (EmbeddingBagBackward0); torch's checks in torch's order
and words (the maths is in :mod:`agdebug.ops.nn`).

>>> import agdebug as ag
>>> w = ag.arange(8.0).reshape(4, 2).requires_grad_()
>>> out = ag.nn.functional.embedding_bag(ag.tensor([0, 1, 3]), w, ag.tensor([0, 2]))
>>> out.grad_fn.name()
'EmbeddingBagBackward0'
"""

from __future__ import annotations

import numpy as np

from ... import backend, creation
from ...ops.nn import embedding_bag as loss2_ops
from ...ops.nn import embedding as ops
from ...ops.indexing.gather_scatter import _on
from ...ops.core.inplace import write_into
from ...tensor import Tensor
from ._parser import torch_words

__all__ = ["embedding", "embedding_bag", "one_hot"]


# ----------------------------------------------------------------------------- embedding

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by the integer ``input`` (EmbeddingBackward0); the
    ``padding_idx`` row gets no gradient.

    >>> import agdebug as ag
    >>> w = ag.arange(6.0).reshape(3, 2)
    >>> ag.nn.functional.embedding(ag.tensor([2, 0]), w)
    tensor([[4., 5.],
            [0., 1.]])
    """
    padding_idx = _padding_index(padding_idx, weight.shape[0] if weight.ndim else 0)
    if sparse:
        raise NotImplementedError("agdebug has no sparse tensors: embedding(sparse=True)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    indices = _on(input, weight)
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, indices, max_norm, norm_type)
    return ops.embedding(weight, indices=indices, padding_idx=padding_idx,
                         scale_grad_by_freq=bool(scale_grad_by_freq))


def _padding_index(padding_idx, num: int):
    """torch's Python-level check; a negative index counts from the end."""
    if padding_idx is None:
        return None
    if not -num <= padding_idx < num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num


def _renorm_rows(weight, indices, max_norm: float, norm_type: float) -> None:
    """torch's ``embedding_renorm_``: the looked-up rows whose norm exceeds ``max_norm`` are
    scaled down in place, outside the graph (the weight's version goes up)."""
    xp = backend.xp_of(weight._data)
    data = weight._data.copy()
    rows = xp.unique(indices.reshape(-1))
    norms = xp.linalg.norm(data[rows], ord=norm_type, axis=1)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    data[rows] *= scale[:, None].astype(data.dtype)
    write_into(weight, data)


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot rows, ``num_classes`` wide (one more than the largest class if -1).

    >>> import agdebug as ag
    >>> ag.nn.functional.one_hot(ag.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    xp = backend.xp_of(data)
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and int(data.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and int(data.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (data[..., None] == xp.arange(num_classes)).astype(np.int64)
    return Tensor._wrap(out)


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
        _renorm_rows(weight, _on(input, weight), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if sparse:
        raise NotImplementedError("agdebug has no sparse tensors: embedding_bag(sparse=True)")
    indices, offsets = _check_kernel(input, weight, offsets, padding_idx, mode)
    padding_idx = None if padding_idx is None else padding_idx % weight.shape[0]
    return loss2_ops.embedding_bag(weight, per_sample_weights, indices=indices, offsets=offsets,
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


torch_words(globals(), ["embedding", "one_hot"])
