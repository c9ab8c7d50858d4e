"""Cases for agdebug/ops/nn/weight_norm.py and agdebug/ops/linalg/vdot.py (see harness.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(31)
V = rng.standard_normal((3, 4))
V3 = rng.standard_normal((2, 3, 4))
G_ROWS = rng.standard_normal((3, 1))
G_LAST = rng.standard_normal((1, 1, 4))
A, B = rng.standard_normal(5), rng.standard_normal(5)

CASES = [
    Case("weight_norm_interface", lambda t, v, g: t._weight_norm(v, g, 0), [V, G_ROWS]),
    Case("weight_norm_interface", lambda t, v, g: t._weight_norm(v, g, 2) ** 2, [V3, G_LAST],
         id="weight_norm_last_dim"),
    Case("weight_norm_interface", lambda t, v, g: t._weight_norm_interface(v, g, 0)[0],
         [V, G_ROWS], id="weight_norm_interface_direct"),
    Case("norm_p", lambda t, v: t.norm_except_dim(v, 2, -1), [V3]),
    Case("norm_p", lambda t, v: t.norm_except_dim(v, 3, -1), [V], id="norm_p_3"),
    Case("vdot", lambda t, a, b: t.vdot(a, b), [A, B]),
    Case("vdot", lambda t, a, b: a.vdot(b * b), [A, B], id="vdot_method"),
]
