"""Cases for agdebug/ops/sorting.py (see harness.py for the format).

Inputs have no ties: the order of tied values (and so which one a gradient reaches) is
torch's implementation detail, and central differences cannot pick one either.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.permutation(np.arange(12.0)).reshape(3, 4) / 4 - 1   # distinct values
C = rng.permutation(np.arange(24.0)).reshape(2, 3, 4) / 8
SCALAR = np.array(0.6)

CASES = [
    Case("sort", lambda t, x: t.sort(x).values ** 2, [A], grad_fn="PowBackward0"),
    Case("sort", lambda t, x: x.sort(0, True), [A], id="sort_descending_dim0"),
    Case("sort", lambda t, x: t.sort(x, dim=1)[0] * x.sort(-1)[0], [C], id="sort_dim_mid"),
    Case("sort", lambda t, x: x.sort(), [SCALAR], id="sort_0d"),
    Case("sort_stable", lambda t, x: t.sort(x, stable=True, descending=True), [A],
         grad_fn="SortBackward1"),
    Case("sort_stable", lambda t, x: x.sort(dim=1, stable=False).values ** 2, [C],
         id="sort_stable_false"),
    Case("topk", lambda t, x: t.topk(x, 2), [A], grad_fn="TopkBackward0"),
    Case("topk", lambda t, x: x.topk(2, dim=0, largest=False).values ** 2, [C],
         id="topk_smallest_dim0"),
    Case("topk", lambda t, x: x.topk(0).values, [A], id="topk_zero"),
    Case("topk", lambda t, x: x.topk(1), [SCALAR], id="topk_0d"),
    Case("sort", lambda t, x: t.argsort(x, 1, True) * 1.0 + x, [A], id="argsort"),
]
