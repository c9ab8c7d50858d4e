"""Cases for agdebug/ops/reduction/renorm.py (see harness.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(21)
A = rng.standard_normal((3, 4)) * 2   # rows and columns on both sides of the max norms
B = rng.standard_normal((2, 3, 2))

CASES = [
    Case("renorm", lambda t, x: t.renorm(x, 2, 0, 1.5), [A]),
    Case("renorm", lambda t, x: x.renorm(1, -1, 2.0) ** 2, [A], id="renorm_p1_last_dim"),
    Case("renorm", lambda t, x: t.renorm(x, 3, 1, 1.0), [B], id="renorm_p3_3d"),
    Case("renorm", lambda t, x: (x * 1).renorm_(2, 1, 1.0), [A], id="renorm_inplace"),
]
