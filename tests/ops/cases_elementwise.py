"""Cases for agdebug/ops/pointwise/arithmetic.py (see harness.py for the format)."""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((2, 3))
ROW = rng.standard_normal(3)
POS = rng.uniform(0.5, 2.0, (2, 3))
AWAY = A + np.sign(A) * 0.3          # kept away from kinks (abs, relu, clamp at 0)
MASK = np.array([[True, False, True], [False, True, False]])
INTS = np.array([[1, 2, 3], [4, 5, -6]])

def _fused(lib, name: str):
    """A fused derivative op: agdebug's own, or torch's aten op of the same name."""
    if lib.__name__ == "torch":
        return getattr(lib.ops.aten, name)
    from agdebug.ops import OPS
    return OPS[name]


CASES = [
    Case("add", lambda t, x, y: x + y, [A, B]),
    Case("add", lambda t, x, y: t.add(x, y, alpha=2.5), [A, ROW], id="add_alpha_broadcast"),
    Case("add", lambda t, x: x + 2, [A], id="add_scalar"),
    Case("sub", lambda t, x, y: x - y, [A, ROW]),
    Case("rsub", lambda t, x: 2 - x, [A]),
    Case("mul", lambda t, x, y: x * y, [A, B]),
    Case("mul", lambda t, x: 3 * x, [A], id="mul_scalar"),
    Case("div", lambda t, x, y: x / y, [A, POS]),
    Case("neg", lambda t, x: -x, [A]),
    Case("reciprocal", lambda t, x: x.reciprocal(), [POS]),
    Case("pow", lambda t, x: x ** 3, [A]),
    Case("pow", lambda t, x: x ** 0.5, [POS], id="pow_sqrt"),
    Case("pow_tensor", lambda t, x, y: x ** y, [POS, B]),
    Case("rpow", lambda t, x: 2 ** x, [A]),
    Case("exp", lambda t, x: x.exp(), [A]),
    Case("expm1", lambda t, x: x.expm1(), [A]),
    Case("log", lambda t, x: x.log(), [POS]),
    Case("log2", lambda t, x: x.log2(), [POS]),
    Case("log1p", lambda t, x: x.log1p(), [POS]),
    Case("sqrt", lambda t, x: x.sqrt(), [POS]),
    Case("rsqrt", lambda t, x: x.rsqrt(), [POS]),
    Case("abs", lambda t, x: x.abs(), [AWAY]),
    Case("sign", lambda t, x: x.sign() * x, [AWAY]),
    Case("floor", lambda t, x: x.floor() + x, [A + 0.25]),
    Case("round", lambda t, x: x.round() + x, [A + 0.25]),
    Case("round_decimals", lambda t, x: t.round(x, decimals=1) + x, [A + 0.025]),
    Case("atan2", lambda t, x, y: t.atan2(x, y), [A, B]),
    Case("atan2", lambda t, x, y: x.atan2(y), [A, ROW], id="atan2_broadcast"),
    Case("sin", lambda t, x: x.sin(), [A]),
    Case("cos", lambda t, x: x.cos(), [A]),
    Case("tan", lambda t, x: x.tan(), [A * 0.5]),
    Case("tanh", lambda t, x: x.tanh(), [A]),
    Case("sigmoid", lambda t, x: x.sigmoid(), [A]),
    Case("tanh_backward", lambda t, g, r: _fused(t, "tanh_backward")(g, r), [B, A * 0.5]),
    Case("sigmoid_backward", lambda t, g, r: _fused(t, "sigmoid_backward")(g, r),
         [B, POS * 0.4]),
    Case("relu", lambda t, x: x.relu(), [AWAY]),
    Case("threshold_backward",
         lambda t, g, s: _fused(t, "threshold_backward")(g, s, threshold=0.5), [B, AWAY]),
    Case("erf", lambda t, x: t.erf(x), [A]),
    Case("clamp", lambda t, x: x.clamp(-0.5, 0.5), [AWAY * 0.9 + 0.05]),
    Case("clamp", lambda t, x: x.clamp(min=0.1), [AWAY], id="clamp_min"),
    Case("clamp_tensor", lambda t, x, lo: x.clamp(min=lo), [A, B + 0.05]),
    Case("maximum", lambda t, x, y: t.maximum(x, y), [A, B]),
    Case("minimum", lambda t, x, y: t.minimum(x, y), [A, B]),
    Case("where", lambda t, m, x, y: t.where(m, x, y), [MASK, A, B]),
    Case("clone", lambda t, x: x.clone() * 2, [A]),
    # A float32 round trip is below what float64 central differences resolve: torch only.
    Case("to_dtype", lambda t, x: x.to(t.float32).to(t.float64) * x, [A], numeric=False),
    Case("zero", lambda t, x: (x * 1).zero_() + x, [A]),
    Case("fill", lambda t, x: (x * 1).fill_(2.0) * x, [A]),
    Case("copy", lambda t, x, y: (x * 1).copy_(y) * x, [A, B]),
    Case("floor_divide", lambda t, x, y: (x // y).detach() + x, [A * 5, POS]),
    Case("div_rounded", lambda t, x, y: x.div(y, rounding_mode="floor") * x, [A * 5, POS]),
    Case("div_rounded", lambda t, x, y: x.div(y, rounding_mode="trunc") * y, [A * 5, POS],
         id="div_rounded_trunc"),
    Case("remainder_scalar", lambda t, x: x % 0.7, [A * 3 + 0.05]),
    Case("remainder", lambda t, x, y: x % y, [A * 3 + 0.05, POS]),
    Case("eq", lambda t, x, y: x == y, [A, A * (A > 0)]),
    Case("ne", lambda t, x, y: x != y, [A, B]),
    Case("lt", lambda t, x, y: x < y, [A, B]),
    Case("le", lambda t, x, y: x <= y, [A, B]),
    Case("gt", lambda t, x, y: x > y, [A, B]),
    Case("ge", lambda t, x, y: x >= y, [A, B]),
    Case("logical_and", lambda t, m, n: m.logical_and(n), [MASK, ~MASK]),
    Case("logical_or", lambda t, m, n: m.logical_or(n), [MASK, ~MASK]),
    Case("logical_xor", lambda t, m, n: m.logical_xor(n), [MASK, MASK]),
    Case("logical_not", lambda t, m: m.logical_not(), [MASK]),
    Case("bitwise_and", lambda t, m, n: m & n, [MASK, ~MASK]),
    Case("bitwise_and", lambda t, x, y: x & y, [INTS, INTS * 3], id="bitwise_and_int"),
    Case("bitwise_or", lambda t, x, y: x | y, [INTS, INTS + 1]),
    Case("bitwise_xor", lambda t, x, y: x ^ y, [INTS, INTS * 5]),
    Case("bitwise_not", lambda t, x: ~x, [INTS]),
    Case("isnan", lambda t, x: t.isnan(x.log()), [A]),
    Case("isinf", lambda t, x: t.isinf(1 / (x * (x > 0))), [A]),
    Case("isfinite", lambda t, x: t.isfinite(1 / (x * (x > 0))), [A]),
]
