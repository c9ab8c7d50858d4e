"""Cases for agdebug/ops/special.py and the ops of agdebug/ops/utility.py (see harness.py)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((2, 3))
ROW = rng.standard_normal(3)
ZEROS = np.zeros((2, 3))
INTS = np.array([1, 0, 3, 1])

UTILITY_CASES = [
    # The samplers' derivative is zero in torch (no reparameterisation), which central
    # differences cannot see: std = 0 (or p in {0, 1}, rate 0) makes them deterministic so
    # values and gradients are compared with torch; numeric=False as d/dmean is 1 there.
    Case("normal_tensor_float", lambda t, m: t.normal(m, 0.0), [A], numeric=False),
    Case("normal_float_tensor", lambda t, s: t.normal(1.5, s * 0), [A], numeric=False),
    Case("normal_tensor_tensor", lambda t, m, s: t.normal(m, s * 0), [A, ROW], numeric=False),
    Case("bernoulli", lambda t, p: t.bernoulli((p > 0) * p / p), [np.abs(A) * np.sign(A)],
         numeric=False),
    Case("poisson", lambda t, r: t.poisson(r * 0), [A], numeric=False),
    # torch has no derivative for these (NotImplemented nodes whose backward raises).
    # The forward only: detached, times an input so there is a gradient to check.
    Case("bernoulli_p", lambda t, p: t.bernoulli(p, p=1.0).detach() * p, [A]),
    Case("bincount_weighted", lambda t, n, w: t.bincount(n, weights=w).detach() * w,
         [INTS, np.array([0.5, 1.5, -2.0, 3.0])], numeric=False),
    Case("rsub_tensor", lambda t, x, y: t.rsub(x, y), [A, B]),
    Case("rsub_tensor", lambda t, x, y: t.rsub(x, y, alpha=2.5), [A, ROW], id="rsub_alpha_bc"),
    Case("rsub_alpha", lambda t, x: t.rsub(x, 2.0, alpha=3), [A]),
    Case("gcd", lambda t, x, y: t.gcd(x, y), [INTS, np.array([4, 6, 9, 0])]),
    Case("lcm", lambda t, x, y: t.lcm(x, y), [INTS, np.array([4, 6, 9, 0])]),
]

CASES = UTILITY_CASES
