"""Cases for agdebug/ops/shape/packing.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(12)
X = rng.standard_normal((4, 3, 2))       # (T, B, *): three sequences of up to 4 steps
B = rng.standard_normal((3, 5))          # (B, T) batch_first, no trailing dims


def _pack(lengths, batch_first=False, enforce_sorted=True):
    def fn(t, x):
        return t.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first,
                                                   enforce_sorted).data
    return fn


def _pack_pad(t, x):
    """Packing then padding back (torch's CopySlices chain on top of the packing node)."""
    rnn = t.nn.utils.rnn
    packed = rnn.pack_padded_sequence(x, [4, 2, 1])
    return rnn.pad_packed_sequence(packed, padding_value=0.5, total_length=6)[0] ** 2


CASES = [
    Case("_pack_padded_sequence", _pack([4, 2, 1]), [X], grad_fn="PackPaddedSequenceBackward0"),
    Case("_pack_padded_sequence", _pack([3, 3, 3]), [X], id="pack_equal_lengths"),
    Case("_pack_padded_sequence", lambda t, x: _pack([1, 4, 2], enforce_sorted=False)(t, x) ** 2,
         [X], id="pack_unsorted"),
    Case("_pack_padded_sequence", _pack([2, 5, 1], True, False), [B],
         id="pack_batch_first_2d"),
    Case("_pack_padded_sequence", _pack_pad, [X], id="pack_then_pad", grad_fn="PowBackward0"),
]
