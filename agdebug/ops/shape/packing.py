"""Packing of variable-length batches: ``_pack_padded_sequence`` and ``_pad_packed_sequence``.

A packed batch keeps, for each time step, only the sequences still running: the rows of
step 0 for every sequence, then those of step 1 for the sequences longer than 1, and so on
(``batch_sizes[t]`` rows at step ``t``). Packing is one node in torch
(``PackPaddedSequenceBackward0``); padding back is built from ``full`` and slice copies
(a chain of ``CopySlices``), here as in torch.
"""

from __future__ import annotations

import numpy as np

from ... import backend, creation
from ...tensor import Tensor
from ..core.registry import defop
from .joining import cat

__all__ = ["pack_padded_sequence_op", "batch_sizes_of", "_pack_padded_sequence",
           "_pad_packed_sequence"]


def batch_sizes_of(lengths: tuple) -> np.ndarray:
    """How many sequences are still running at each step (lengths sorted, decreasing)."""
    steps = np.arange(lengths[0] if lengths else 0)
    return (np.asarray(lengths)[None, :] > steps[:, None]).sum(1).astype(np.int64)


def _rows(lengths: tuple, batch: int) -> np.ndarray:
    """The packed rows' positions in the (time * batch) flattened padded input."""
    sizes = batch_sizes_of(lengths)
    return np.concatenate([t * batch + np.arange(s) for t, s in enumerate(sizes)]) \
        if len(sizes) else np.zeros(0, dtype=np.int64)


@defop("_pack_padded_sequence", node="PackPaddedSequenceBackward0")
def pack_padded_sequence_op(xp, input, lengths=(), batch_first=False):
    x = xp.swapaxes(input, 0, 1) if batch_first else input
    flat = x.reshape((x.shape[0] * x.shape[1],) + x.shape[2:])
    return xp.take(flat, xp.asarray(_rows(lengths, x.shape[1])), axis=0)


@pack_padded_sequence_op.vjp
def pack_padded_sequence_vjp(ctx, grad):
    # torch's _pack_padded_sequence_backward: the rows go back to their places, zeros
    # elsewhere. Here a gather from the rows plus one zero row, so it is differentiable.
    shape = tuple(ctx._next[0]._out_meta[ctx._next_nr[0]][0])
    steps, batch = (shape[1], shape[0]) if ctx.batch_first else (shape[0], shape[1])
    rest = tuple(grad.shape[1:])
    where = np.full(steps * batch, grad.shape[0], dtype=np.int64)
    where[_rows(ctx.lengths, batch)] = np.arange(grad.shape[0])
    zero = creation.zeros((1,) + rest, dtype=grad.dtype, device=grad.device)
    index = creation.tensor(where, device=grad.device)
    grad_input = cat([grad, zero], 0).index_select(0, index).reshape((steps, batch) + rest)
    return (grad_input.transpose(0, 1) if ctx.batch_first else grad_input,)


def _check_lengths(input: Tensor, lengths: Tensor, batch_first: bool) -> tuple:
    """torch's checks of ``_pack_padded_sequence``'s arguments; the lengths as ints."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.dim() != 1 or lengths.dtype != backend.int64 or lengths.device.type != "cpu":
        kind = lengths.dtype._legacy
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D {lengths.device.type} {kind} tensor")
    batch = input.shape[0 if batch_first else 1]
    values = tuple(int(v) for v in lengths.tolist())
    if len(values) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(values)} (batch_size={batch})")
    if values[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    if values[0] > input.shape[1 if batch_first else 0]:   # torch reads past the end here
        raise RuntimeError(f"a length ({values[0]}) is longer than the padded input "
                           f"({input.shape[1 if batch_first else 0]} steps)")
    return values


def _pack_padded_sequence(input: Tensor, lengths: Tensor, batch_first: bool) -> tuple:
    """``torch._pack_padded_sequence``: ``(data, batch_sizes)`` of a padded batch whose
    ``lengths`` are sorted, decreasing (PackPaddedSequenceBackward0).

    >>> import agdebug as ag
    >>> ag._pack_padded_sequence(ag.ones(3, 2), ag.tensor([3, 1]), False)[1]
    tensor([2, 1, 1])
    """
    values = _check_lengths(input, lengths, batch_first)
    data = pack_padded_sequence_op(input, lengths=values, batch_first=bool(batch_first))
    return data, creation.tensor(batch_sizes_of(values))


def _pad_packed_sequence(data: Tensor, batch_sizes: Tensor, batch_first: bool,
                         padding_value: float, total_length: int) -> tuple:
    """``torch._pad_packed_sequence``: ``(padded, lengths)``, the padded batch built as
    torch builds it (``full``, then one slice copy per run of equal batch sizes)."""
    sizes = [int(s) for s in batch_sizes.tolist()]
    steps = max(int(total_length), len(sizes))
    rest = tuple(data.shape[1:])
    output = creation.full((steps, sizes[0]) + rest, padding_value, dtype=data.dtype,
                           device=data.device)
    lengths = np.zeros(sizes[0], dtype=np.int64)
    offset, prev_i, prev_size = 0, 0, sizes[0]
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if size != prev_size:
            count = prev_size * (i - prev_i)
            piece = data[offset:offset + count].view((i - prev_i, prev_size) + rest)
            output[prev_i:i, :prev_size].copy_(piece)
            offset, prev_i = offset + count, i
        lengths[size:prev_size] = i
        prev_size = size
    if batch_first:
        output = output.transpose(0, 1)
    return output, creation.tensor(lengths)


FUNCTIONS = {"_pack_padded_sequence": _pack_padded_sequence,
             "_pad_packed_sequence": _pad_packed_sequence}
