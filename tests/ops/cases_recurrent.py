"""Cases for agdebug/ops/shape/unsafe_split.py and agdebug/ops/nn/rnn_layer.py (see harness.py
for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((2, 5))
C = rng.standard_normal((2, 3, 4))
EMPTY = np.zeros((2, 0))
# an LSTM layer: 3 steps, batch 2, 3 features, hidden size 2 (gates 4 * 2)
LAYER = [rng.standard_normal(shape) for shape in
         ((3, 2, 3), (8, 3), (8, 2), (8,), (8,), (2, 2), (2, 2))]


def _layer(reverse: bool):
    def run(t, x, w_ih, w_hh, b_ih, b_hh, hx, cx):
        # (torch's float64 has no oneDNN layer: test_mkldnn_lstm compares float32 with torch)
        return t.mkldnn_rnn_layer(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, [], 2, 2, 1, True,
                                  False, False, True)[:3]
    return run


def _layer_without_biases(t, x, w_ih, w_hh, hx, cx):
    # torch reads no bias then, but asks for tensors (and gives them a gradient all the same)
    unread = t.zeros(8, dtype=x.dtype)
    return t.mkldnn_rnn_layer(x, w_ih, w_hh, unread, unread, hx, cx, False, [], 2, 2, 1, False,
                              False, False, True)[:3]


CASES = [
    Case("unsafe_split", lambda t, x: t.unsafe_split(x, 2, 1), [A]),
    Case("unsafe_split", lambda t, x: x.unsafe_chunk(4, -1)[1] ** 2, [C], id="unsafe_chunk"),
    Case("unsafe_split", lambda t, x: t.unsafe_chunk(x, 2, 0)[0] * 3, [C],
         id="unsafe_chunk_one_used"),
    Case("unsafe_split_with_sizes", lambda t, x: t.unsafe_split_with_sizes(x, [1, 3], 2), [C]),
    Case("unsafe_split_with_sizes", lambda t, x: x.unsafe_chunk(3, 1), [EMPTY],
         id="unsafe_chunk_empty"),
    Case("mkldnn_rnn_layer", _layer(False), LAYER, torch=False),
    Case("mkldnn_rnn_layer", _layer(True), LAYER, torch=False, id="mkldnn_rnn_layer_reverse"),
    Case("mkldnn_rnn_layer", _layer_without_biases, LAYER[:3] + LAYER[5:], torch=False,
         id="mkldnn_rnn_layer_no_bias"),
]
