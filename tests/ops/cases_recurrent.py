"""Cases for agdebug/ops/shape/unsafe_split.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((2, 5))
C = rng.standard_normal((2, 3, 4))
EMPTY = np.zeros((2, 0))


CASES = [
    Case("unsafe_split", lambda t, x: t.unsafe_split(x, 2, 1), [A]),
    Case("unsafe_split", lambda t, x: x.unsafe_chunk(4, -1)[1] ** 2, [C], id="unsafe_chunk"),
    Case("unsafe_split", lambda t, x: t.unsafe_chunk(x, 2, 0)[0] * 3, [C],
         id="unsafe_chunk_one_used"),
    Case("unsafe_split_with_sizes", lambda t, x: t.unsafe_split_with_sizes(x, [1, 3], 2), [C]),
    Case("unsafe_split_with_sizes", lambda t, x: x.unsafe_chunk(3, 1), [EMPTY],
         id="unsafe_chunk_empty"),
]
