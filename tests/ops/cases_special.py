"""Cases for agdebug/ops/pointwise/special.py and the ops of agdebug/ops/tensor_methods/torch_functions.py (see harness.py)."""

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

POS = rng.uniform(0.6, 4.0, (2, 3))
NEG = -rng.uniform(0.1, 0.9, (2, 3)) - 2   # between the poles -3 and -2
EXPS = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]])
OBS = rng.standard_normal((3, 5))



def i1(t, x):
    return t.special.i1(x)   # (agdebug.special.i1 is the op special_i1)


SPECIAL_CASES = [
    Case("lgamma", lambda t, x: t.lgamma(x), [POS]),
    Case("lgamma", lambda t, x: x.lgamma(), [NEG], id="lgamma_negative"),
    Case("digamma", lambda t, x: t.digamma(x), [POS]),
    Case("digamma", lambda t, x: x.digamma(), [NEG], id="digamma_negative"),
    Case("polygamma", lambda t, x: t.polygamma(1, x), [POS]),
    Case("polygamma", lambda t, x: x.polygamma(3), [POS], id="polygamma_3"),
    Case("polygamma", lambda t, x: t.polygamma(0, x), [POS], id="polygamma_0"),
    Case("polygamma", lambda t, x: t.polygamma(2, x), [NEG], id="polygamma_negative"),
    Case("mvlgamma", lambda t, x: t.mvlgamma(x + 1, 3), [POS]),
    Case("i0", lambda t, x: t.i0(x), [A * 3]),
    Case("special_i1", i1, [A * 3]),
    Case("special_i1", i1, [np.array([-3.0, 0.0, 1e-20, 2.5])],
         id="special_i1_large_and_zero"),
    Case("ldexp", lambda t, x, e: t.ldexp(x, e), [A, EXPS]),
    # torch's d/dx is pow(2, other) computed in integers: 0 for a negative integer exponent
    # (2 ** -2 truncated), not 0.25; copied, so central differences disagree there.
    Case("ldexp", lambda t, x: x.ldexp(t.tensor([1, -2, 3])), [A], id="ldexp_int_exponent",
         numeric=False),
    Case("ldexp", lambda t, x: x.ldexp(t.tensor([1, 0, 3])), [A], id="ldexp_int_nonnegative"),
    Case("frexp", lambda t, x: t.frexp(x), [A * 10]),
    Case("nextafter", lambda t, x, y: t.nextafter(x, y), [A, B]),
]

CASES = UTILITY_CASES + SPECIAL_CASES
