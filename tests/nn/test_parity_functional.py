"""torch.nn.functional mismatches with torch found by a differential sweep (errors, dtypes,
grad_fn names).

Each expression runs with ``lib`` = agdebug and ``F`` = agdebug.nn.functional, then with
torch's: both raise the same error type and text, or both return the same values, dtype,
shape and grad_fn name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch
import agdebug.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

EXPRESSIONS = [
    # conv2d: torch's argument checks, in its order
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), stride=0)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), stride=(1, -1))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), padding=-1)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), stride=0, padding=(0, -1))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), dilation=0)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), dilation=-1)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), groups=0)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), groups=2)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), stride=(1, 1, 1))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), padding=[1])",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), padding='foo')",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), padding='same', stride=[])",
    "F.conv2d(lib.ones(1, 1, 6, 6), lib.ones(1, 1, 3, 3), padding='same', dilation=-1)",
    "F.conv2d(lib.ones(4, 4), lib.ones(1, 1, 2, 2))",
    "F.conv2d(lib.ones(1, 1, 1, 4, 4), lib.ones(1, 1, 2, 2))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(2))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 0, 2))",
    "F.conv2d(lib.ones(0, 1, 4, 4), lib.ones(1, 1, 2, 2))",
    # conv1d and conv3d share conv2d's checks (conv1d runs the 2D kernel on a height of 1)
    "F.conv1d(lib.ones(1, 1, 4), lib.ones(1, 1, 2), dilation=0)",
    "F.conv1d(lib.ones(1, 1, 4), lib.ones(1, 1, 2), dilation=-1)",
    "F.conv1d(lib.ones(1, 1, 4), lib.ones(1, 1, 5))",
    "F.conv1d(lib.ones(1, 1, 4), lib.ones(1, 1, 2), padding=-1, stride=0)",
    "F.conv3d(lib.ones(1, 1, 4, 4, 4), lib.ones(1, 1, 2, 2, 2), dilation=0)",
    "F.conv3d(lib.ones(1, 1, 4, 4, 4), lib.ones(1, 1, 5, 2, 2))",
    # conv2d: no dtype promotion (the bias is checked first, the weight by the kernel)
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2, dtype=lib.float64))",
    "F.conv2d(lib.ones(1, 1, 6, 6, dtype=lib.float64), lib.ones(1, 1, 2, 2), dilation=2)",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(1, dtype=lib.float64))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(1, dtype=lib.int64))",
    "F.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(1, dtype=lib.float64), "
    "padding='same')",
    "F.conv2d(lib.ones(1, 1, 4, 4, dtype=lib.bool), lib.ones(1, 1, 2, 2, dtype=lib.bool))",
    # pooling: torch's pooling_output_shape and pool2d_shape_check
    "F.avg_pool2d(lib.ones(1, 1, 2, 2), 3)",
    "F.max_pool2d(lib.ones(1, 1, 2, 2), 3)",
    "F.max_pool2d(lib.ones(1, 2, 2), 3)",
    "F.avg_pool2d(lib.ones(1, 1, 2, 2), 4, padding=1)",
    "F.max_pool2d(lib.ones(1, 1, 4, 4), 2, stride=0)",
    "F.avg_pool2d(lib.ones(1, 1, 4, 4), 2, padding=-1)",
    "F.max_pool2d(lib.ones(1, 1, 4, 4), 2, stride=(1, 0), padding=(-1, 0))",
    "F.max_pool2d(lib.ones(1, 1, 5, 5), -1)",
    "F.avg_pool2d(lib.ones(1, 1, 5, 5), 2, stride=-1)",
    "F.max_pool2d(lib.ones(1, 1, 5, 5), 2, dilation=0)",
    "F.max_pool2d(lib.ones(1, 1, 5, 5), 3, padding=2, dilation=2)",
    "F.max_pool2d(lib.ones(4, 4), 2)",
    "F.avg_pool2d(lib.ones(4, 4), 2)",
    "F.avg_pool2d(lib.ones(()), 2)",
    "F.avg_pool2d(lib.ones(1, 1, 1, 4, 4), 2)",
    "F.max_pool2d(lib.ones(1, 0, 4, 4), 2)",
    "F.max_pool2d(lib.ones(0, 1, 4, 4), 2)",
    "F.max_pool2d(lib.ones(1, 1, 4, 4, dtype=lib.bool), 2)",
    "F.avg_pool2d(lib.ones(1, 1, 4, 4, dtype=lib.int32), 2)",
    "F.avg_pool2d(lib.ones(1, 1, 4, 4, dtype=lib.int64), 2)",
    "F.avg_pool2d(lib.ones(1, 1, 4, 4), 2, divisor_override=0)",
    # nll_loss / cross_entropy: target dtypes, weights, torch's order of checks
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([0, 1], dtype=lib.int32))",
    "F.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1], dtype=lib.int32))",
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([True, False]))",
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([0, 1], dtype=lib.uint8))",
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([0.5, 1, 1]))",
    "F.nll_loss(lib.zeros(2, 3), lib.ones(2, 4))",
    "F.nll_loss(lib.zeros(3), lib.ones(2, dtype=lib.int64))",
    "F.nll_loss(lib.zeros(()), lib.tensor(0))",
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([0, 5]), weight=lib.ones(2))",
    "F.nll_loss(lib.zeros(2, 3), lib.tensor([0, 5]), weight=lib.ones(3, dtype=lib.float64))",
    "F.nll_loss(lib.zeros(2, 3, dtype=lib.int64), lib.tensor([0, 1]))",
    "F.nll_loss(lib.zeros(2, 3, 2, 2), lib.zeros(2, 2, dtype=lib.int64))",
    "F.nll_loss(lib.zeros(2, 3, 2, 2), lib.zeros(2, 2, 3, dtype=lib.int64))",
    "F.nll_loss(lib.zeros(2, 3, 2, 2), lib.zeros(2, 2, 2, dtype=lib.uint8))",
    "F.nll_loss(lib.zeros(2, 3, 2), lib.zeros(2, 2, dtype=lib.int64), weight=lib.ones(2))",
    "F.cross_entropy(lib.zeros(2, 3), lib.ones(2, 3, dtype=lib.int64))",
    "F.cross_entropy(lib.zeros(2, 3), lib.ones(2, 3) / 3, ignore_index=1)",
    "F.cross_entropy(lib.zeros(2, 3), lib.ones(2, 3) / 3, weight=lib.ones(2))",
    "F.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]), label_smoothing=-0.1)",
    "F.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]), weight=lib.ones(2), "
    "label_smoothing=0.1)",
    # probability targets: the mean is C++'s division by a count (DivBackward1)
    "F.cross_entropy(lib.zeros(2, 3, requires_grad=True), lib.ones(2, 3) / 3)",
    "F.cross_entropy(lib.zeros(3, requires_grad=True), lib.ones(3) / 3, label_smoothing=0.1)",
    # binary cross entropy: no promotion; with logits the loss has the target's dtype
    "F.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3, dtype=lib.float64) / 2)",
    "F.binary_cross_entropy(lib.ones(3, dtype=lib.float64) * 2, lib.ones(3) / 2)",
    "F.binary_cross_entropy(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64))",
    "F.binary_cross_entropy_with_logits(lib.ones(3) / 2, lib.ones(3, dtype=lib.float64) / 2)",
    "F.binary_cross_entropy_with_logits(lib.ones(3, dtype=lib.float64) / 2, lib.ones(3) / 2)",
    "F.binary_cross_entropy_with_logits(lib.ones(3) / 2, lib.ones(3, dtype=lib.int64))",
    "F.binary_cross_entropy_with_logits(lib.ones(3) / 2, lib.ones(3, dtype=lib.bool))",
    "F.binary_cross_entropy_with_logits(lib.ones(3, dtype=lib.int64), lib.ones(3) / 2)",
    # mse_loss: torch's broadcast error and result type; no integer kernel; weights
    "F.mse_loss(lib.ones(2, 3), lib.ones(4, 3))",
    "F.mse_loss(lib.ones(3), lib.ones(4), reduction='foo')",
    "F.mse_loss(lib.ones(2, 3), lib.ones(2, 3, dtype=lib.int64))",
    "F.mse_loss(lib.ones(3, dtype=lib.int32), lib.ones(3, dtype=lib.float16))",
    "F.mse_loss(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64))",
    "F.mse_loss(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool))",
    "F.mse_loss(lib.ones(3, requires_grad=True), lib.ones(2, 3))",
    "F.mse_loss(lib.ones(3, requires_grad=True), lib.ones(3) * 2, weight=lib.ones(3) * 3)",
    # activations torch has no integer (or bool) kernel for; relu takes ints, not bools
    "F.leaky_relu(lib.tensor([1, -2]))",
    "F.leaky_relu(lib.tensor([1, -2]), inplace=True)",
    "F.elu(lib.tensor([1, -2], dtype=lib.int8))",
    "F.gelu(lib.tensor([1, -2], dtype=lib.int32))",
    "F.gelu(lib.tensor([1, -2]), approximate='foo')",
    "F.silu(lib.tensor([True, False]))",
    "F.softplus(lib.tensor([1, -2], dtype=lib.uint8))",
    "F.relu(lib.tensor([True, False]))",
    "F.relu(lib.tensor([True, False]), inplace=True)",
    "F.relu(lib.tensor([1, -2]))",
    "F.sigmoid(lib.tensor([1, -2]))",
    # dropout of an integer tensor; linear's shape errors
    "F.dropout(lib.ones(3, dtype=lib.int64), p=0.5)",
    "F.dropout(lib.ones(3, dtype=lib.int64), p=1.0)",
    "F.linear(lib.ones(()), lib.ones(4, 3))",
    "F.linear(lib.ones(2, 3, requires_grad=True), lib.ones(3))",
    # a 1-D input with a one-element target: the target is its one class
    "F.nll_loss(lib.ones(4, requires_grad=True), lib.tensor([1]))",
    "F.nll_loss(lib.ones(4), lib.tensor([1]), reduction='none')",
    "F.cross_entropy(lib.ones(4, requires_grad=True), lib.tensor([1]))",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_matches_torch(expr):
    assert_same_as_torch(torch, expr)


def _grads(lib, build):
    F = AF if lib is ag else TF
    xs = [lib.tensor(a, requires_grad=True) for a in build.inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = build(F, lib, *xs)
    out.sum().backward()
    return out, [x.grad for x in xs]


class _Build:
    def __init__(self, fn, *inputs):
        self.fn, self.inputs = fn, inputs

    def __call__(self, F, lib, *xs):
        return self.fn(F, lib, *xs)


rng = np.random.default_rng(3)
GRAPHS = {
    "conv2d_unbatched": _Build(lambda F, lib, x, w: F.conv2d(x, w, padding=1),
                               rng.standard_normal((2, 4, 4)), rng.standard_normal((3, 2, 3, 3))),
    "soft_cross_entropy_mean": _Build(
        lambda F, lib, x, p: F.cross_entropy(x, p.softmax(1), label_smoothing=0.2),
        rng.standard_normal((4, 3)), rng.standard_normal((4, 3))),
    "bce_with_logits_float64_target": _Build(
        lambda F, lib, x, t: F.binary_cross_entropy_with_logits(x.float(), t.sigmoid()),
        rng.standard_normal(5), rng.standard_normal(5)),
    "mse_loss_broadcast": _Build(lambda F, lib, x, y: F.mse_loss(x, y), rng.standard_normal(3),
                                 rng.standard_normal((2, 3))),
    "conv2d_empty_batch": _Build(lambda F, lib, x, w: F.conv2d(x, w) + x.sum(),
                                 np.zeros((0, 2, 4, 4)), rng.standard_normal((3, 2, 3, 3))),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_graphs_and_gradients_match_torch(name):
    out, grads = _grads(ag, GRAPHS[name])
    ref, ref_grads = _grads(torch, GRAPHS[name])
    assert out.grad_fn.name() == ref.grad_fn.name()
    assert str(out.dtype) == str(ref.dtype)
    for g, r in zip(grads, ref_grads):
        assert str(g.dtype) == str(r.dtype)
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
