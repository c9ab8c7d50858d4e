"""Cases for agdebug/ops/nn/activations.py (see harness.py): torch.nn.functional's activations,
out of place and in place (``x * 1`` makes a non-leaf to write into).

The inputs stay away from every kink (0, +-0.5, +-1, +-3, the thresholds), where central
differences would straddle two pieces.
"""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

X = np.array([[-3.7, -2.6, -1.4, -0.7], [-0.3, 0.2, 0.45, 0.8], [1.3, 2.2, 3.4, 4.1]])
X4D = np.random.default_rng(3).standard_normal((2, 3, 2, 2))
X4D = X4D + np.sign(X4D) * 0.2
SLOPES = np.array([0.25, -0.5, 1.5])
SLOPE = np.array([0.3])


def F(t):
    return t.nn.functional


CASES = [
    Case("hardtanh", lambda t, x: F(t).hardtanh(x), [X]),
    Case("hardtanh", lambda t, x: F(t).hardtanh(x, -2.0, 3.0), [X], id="hardtanh_bounds"),
    Case("hardtanh", lambda t, x: F(t).relu6(x * 2), [X], id="relu6"),
    Case("hardtanh", lambda t, x: F(t).hardtanh(x * 1, inplace=True), [X], id="hardtanh_"),
    Case("hardtanh", lambda t, x: F(t).relu6(x * 2, inplace=True), [X], id="relu6_inplace"),
    Case("threshold", lambda t, x: F(t).threshold(x, 0.1, 20.0), [X]),
    # the in-place node keeps a copy of the input: a ``value`` above the threshold passes
    # no gradient (a derivative read off the result would pass it)
    Case("threshold_", lambda t, x: F(t).threshold(x * 1, 0.1, -5.0, inplace=True), [X]),
    Case("threshold_", lambda t, x: F(t).threshold_(x * 1, 0.1, 2.0), [X],
         id="threshold_value_above", numeric=False),
    Case("leaky_relu_", lambda t, x: F(t).leaky_relu(x * 1, 0.2, inplace=True), [X]),
    Case("elu_scaled", lambda t, x: F(t).selu(x), [X]),
    Case("elu_", lambda t, x: F(t).selu(x * 1, inplace=True), [X]),
    Case("elu_", lambda t, x: F(t).elu(x * 1, 0.7, inplace=True), [X], id="elu_inplace"),
    Case("celu", lambda t, x: F(t).celu(x, 0.6), [X]),
    Case("celu_", lambda t, x: F(t).celu(x * 1, 0.6, inplace=True), [X]),
    Case("logsigmoid", lambda t, x: F(t).logsigmoid(x * 10), [X]),
    Case("mish", lambda t, x: F(t).mish(x), [X]),
    Case("mish", lambda t, x: F(t).mish(x * 1, inplace=True), [X], id="mish_inplace"),
    Case("hardsigmoid", lambda t, x: F(t).hardsigmoid(x), [X]),
    Case("hardswish", lambda t, x: F(t).hardswish(x), [X]),
    Case("hardswish", lambda t, x: F(t).hardswish(x * 1, inplace=True), [X],
         id="hardswish_inplace"),
    Case("hardshrink", lambda t, x: F(t).hardshrink(x), [X]),
    Case("hardshrink", lambda t, x: F(t).hardshrink(x, 1.0), [X], id="hardshrink_lambd"),
    Case("softshrink", lambda t, x: F(t).softshrink(x, 1.0), [X]),
    Case("glu", lambda t, x: F(t).glu(x), [X]),
    Case("glu", lambda t, x: F(t).glu(x, 0), [X[:2]], id="glu_dim0"),
    Case("prelu", lambda t, x, w: F(t).prelu(x, w), [X4D, SLOPES]),
    Case("prelu", lambda t, x, w: F(t).prelu(x, w), [X, SLOPE], id="prelu_one_slope"),
    Case("prelu", lambda t, x, w: F(t).prelu(x[0], w), [X, SLOPE], id="prelu_1d"),
    # training mode draws random slopes (not torch's): evaluation mode here, training in
    # tests/nn/test_functional_more_parity.py
    Case("rrelu_with_noise", lambda t, x: F(t).rrelu(x), [X]),
    Case("rrelu_with_noise_", lambda t, x: F(t).rrelu(x * 1, 0.1, 0.3, inplace=True), [X]),
    # composites of existing ops, checked here for their graphs
    Case("div", lambda t, x: F(t).softsign(x), [X], id="softsign", grad_fn="DivBackward0"),
    Case("sub", lambda t, x: F(t).tanhshrink(x), [X], id="tanhshrink", grad_fn="SubBackward0"),
    Case("softmax", lambda t, x: F(t).softmin(x, 1), [X], id="softmin"),
]
