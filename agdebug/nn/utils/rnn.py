"""``torch.nn.utils.rnn``: variable-length batches as PackedSequence, padding and unpadding.

>>> import agdebug as ag
>>> from agdebug.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
>>> packed = pack_padded_sequence(ag.ones(3, 2, 4), [3, 1])
>>> packed.batch_sizes
tensor([2, 1, 1])
>>> pad_packed_sequence(packed)[1]
tensor([3, 1])
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

from ... import backend, creation
from ...ops.shape.packing import _pack_padded_sequence, _pad_packed_sequence
from ...ops.core.checks import broadcast_error
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

PackedSequence_ = collections.namedtuple(
    "PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(PackedSequence_):
    """A packed batch of variable-length sequences: ``data`` holds, step after step, the
    rows of the sequences still running; ``batch_sizes`` (CPU int64) how many at each step;
    ``sorted_indices``/``unsorted_indices`` the permutation to longest-first and back."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_init_args(data, batch_sizes, sorted_indices,
                                                unsorted_indices))

    def to(self, *args, **kwargs):
        """The same sequence with ``data`` moved or cast as ``Tensor.to``; the indices
        follow ``data``'s device, ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices, unsorted_indices = (
            None if t is None else t.to(data.device, **kwargs)
            for t in (self.sorted_indices, self.unsorted_indices))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        if not args and "device" not in kwargs:
            kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=backend.float64)

    def float(self):
        return self.to(dtype=backend.float32)

    def half(self):
        return self.to(dtype=backend.float16)

    def long(self):
        return self.to(dtype=backend.int64)

    def int(self):
        return self.to(dtype=backend.int32)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a GPU."""
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def _init_args(data, batch_sizes, sorted_indices, unsorted_indices) -> tuple:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should "
                "never be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not isinstance(data, (list, tuple)) or len(data) != 2:
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    output = creation.empty_like(permutation)
    output.scatter_(0, permutation, creation.arange(permutation.numel(),
                                                    device=permutation.device))
    return output


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T x B x *, or B x T x * with ``batch_first``) of sequences of
    the given ``lengths``; unless ``enforce_sorted``, they are sorted longest-first here.

    >>> import agdebug as ag
    >>> x = ag.ones(3, 2, 1, requires_grad=True)
    >>> pack_padded_sequence(x, [1, 3], enforce_sorted=False).data.grad_fn.name()
    'PackPaddedSequenceBackward0'
    """
    if not isinstance(lengths, Tensor):
        lengths = creation.as_tensor(lengths, dtype=backend.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=backend.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length=None) -> tuple:
    """``(padded, lengths)``: the inverse of :func:`pack_padded_sequence`, padded with
    ``padding_value`` to the longest length (or ``total_length``), in the original order.
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                           padding_value, max_seq_length)
    unsorted = sequence.unsorted_indices
    if unsorted is None:
        return padded, lengths
    return padded.index_select(0 if batch_first else 1, unsorted), lengths[unsorted.cpu()]


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (L_i x *) into one padded tensor
    (T x B x *, or B x T x * with ``batch_first``), built as torch's (``CopySlices``).

    >>> import agdebug as ag
    >>> pad_sequence([ag.ones(2), ag.ones(1)], batch_first=True)
    tensor([[1., 1.],
            [1., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if any(s.dim() == 0 for s in sequences):
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    first = sequences[0]
    max_len = max(s.size(0) for s in sequences)
    lead = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = creation.full(lead + tuple(first.shape[1:]), padding_value, dtype=first.dtype,
                        device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        target = out.select(0, i).narrow(0, start, length) if batch_first else \
            out.narrow(0, start, length).select(1, i)
        broadcast_error(target, seq)   # torch's words where the trailing dims differ
        target.copy_(seq)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False):
    """The list of sequences :func:`pad_sequence` padded, cut to their ``lengths`` (when
    not ``batch_first``, ``padded_sequences`` is transposed in place, as torch does)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = creation.arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[idx < length]
            for seq, length in zip(padded_sequences.unbind(0), lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i x *) of decreasing lengths (any order if not
    ``enforce_sorted``).

    >>> import agdebug as ag
    >>> pack_sequence([ag.ones(3), ag.ones(2)]).batch_sizes
    tensor([2, 2, 1])
    """
    lengths = creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a :class:`PackedSequence` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
