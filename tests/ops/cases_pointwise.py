"""Cases for agdebug/ops/pointwise/rounding_trig.py and binary_math.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((2, 3))
ROW = rng.standard_normal(3)
POS = rng.uniform(0.5, 2.0, (2, 3))
UNIT = rng.uniform(-0.8, 0.8, (2, 3))       # inside (-1, 1): asin, atanh, erfinv
PROB = rng.uniform(0.15, 0.85, (2, 3))      # inside (0, 1): logit
WEIGHT = rng.uniform(0.0, 1.0, (2, 3))
FRACTIONAL = A + 0.25                       # away from integers (ceil, trunc, frac)
APART = A + np.where(A > B, 0.3, -0.3)      # never within 0.3 of B: fmax/fmin/clamp kinks

CASES = [
    Case("ceil", lambda t, x: x.ceil() * x, [FRACTIONAL]),
    Case("trunc", lambda t, x: t.trunc(x) * x, [FRACTIONAL]),
    Case("trunc", lambda t, x: t.fix(x) + x, [FRACTIONAL], id="fix"),
    Case("frac", lambda t, x: x.frac() * x, [FRACTIONAL]),
    Case("sgn", lambda t, x: x.sgn() * x, [FRACTIONAL]),
    Case("sinh", lambda t, x: x.sinh(), [A]),
    Case("cosh", lambda t, x: t.cosh(x), [A]),
    Case("asinh", lambda t, x: x.asinh(), [A]),
    Case("acosh", lambda t, x: t.arccosh(x + 1.5), [POS]),
    Case("atanh", lambda t, x: x.atanh(), [UNIT]),
    Case("asin", lambda t, x: t.asin(x), [UNIT]),
    Case("acos", lambda t, x: x.arccos(), [UNIT]),
    Case("atan", lambda t, x: t.arctan(x), [A]),
    Case("log10", lambda t, x: x.log10(), [POS]),
    Case("exp2", lambda t, x: t.exp2(x), [A]),
    Case("erfc", lambda t, x: x.erfc(), [A]),
    Case("erfinv", lambda t, x: t.erfinv(x), [UNIT]),
    Case("logit", lambda t, x: x.logit(), [PROB]),
    Case("logit", lambda t, x: t.logit(x, eps=0.3), [PROB], id="logit_eps"),
    Case("sinc", lambda t, x: t.sinc(x), [A]),
    Case("deg2rad", lambda t, x: x.deg2rad(), [A]),
    Case("rad2deg", lambda t, x: t.rad2deg(x), [A]),
    Case("nan_to_num", lambda t, x: x.nan_to_num(posinf=1.0) * x, [A]),
    Case("hypot", lambda t, x, y: t.hypot(x, y), [A, B]),
    Case("hypot", lambda t, x, y: x.hypot(y), [A, ROW], id="hypot_broadcast"),
    Case("logaddexp", lambda t, x, y: t.logaddexp(x, y), [A, B]),
    Case("logaddexp2", lambda t, x, y: x.logaddexp2(y), [A, ROW]),
    Case("fmod", lambda t, x, y: t.fmod(x, y), [A * 3 + 0.05, POS]),
    Case("fmod_scalar", lambda t, x: x.fmod(0.7), [A * 3 + 0.05]),
    Case("copysign", lambda t, x, y: t.copysign(x, y), [A, B]),
    Case("copysign_scalar", lambda t, x: x.copysign(-1.5), [A]),
    Case("xlogy", lambda t, x, y: t.xlogy(x, y), [A, POS]),
    Case("xlogy_self_scalar", lambda t, y: t.xlogy(2.5, y), [POS]),
    Case("xlogy_other_scalar", lambda t, x: x.xlogy(3.0), [A]),
    # heaviside is piecewise constant and torch defines no derivative: forward only.
    Case("heaviside", lambda t, x, v: t.heaviside(x, v).detach() * x, [A, B]),
    Case("fmax", lambda t, x, y: t.fmax(x, y), [APART, B]),
    Case("fmin", lambda t, x, y: x.fmin(y), [APART, B]),
    Case("clamp_min", lambda t, x: x.clamp_min(0.1), [APART]),
    Case("clamp_max", lambda t, x: t.clamp_max(x, 0.1), [APART]),
    Case("clamp_min_tensor", lambda t, x, y: t.clamp_min(x, y), [APART, B]),
    Case("clamp_max_tensor", lambda t, x, y: x.clamp_max(y), [APART, B]),
    Case("lerp", lambda t, x, y: t.lerp(x, y, 0.3), [A, B]),
    Case("lerp", lambda t, x, y: x.lerp(y, 0.8), [A, ROW], id="lerp_high_weight"),
    Case("lerp_tensor", lambda t, x, y, w: t.lerp(x, y, w), [A, B, WEIGHT]),
    Case("addcmul", lambda t, x, a, b: t.addcmul(x, a, b, value=0.5), [A, B, ROW]),
    Case("addcdiv", lambda t, x, a, b: x.addcdiv(a, b, value=-2), [A, B, POS]),
]
