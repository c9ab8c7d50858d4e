"""Mismatches with torch found by a differential sweep of the ops (values, dtypes, errors).

Each expression runs with ``lib`` = agdebug and ``lib`` = torch: both raise the same
error type and text, or both return the same values, dtype, shape and grad_fn name.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

EXPRESSIONS = [
    # shapes that do not broadcast: torch's RuntimeError (NumPy's is a ValueError)
    "lib.ones(2, 3) + lib.ones(2, 3, 4)",
    "lib.ones(2, 3) * lib.ones(4, 3)",
    "lib.ones(2, 3) / lib.ones(3, 4)",
    "lib.ones(2, 3) < lib.ones(3, 4)",
    "lib.maximum(lib.ones(2, 3), lib.ones(3, 4))",
    "lib.where(lib.ones(2, 3) > 0, lib.ones(2, 3), lib.ones(3, 4))",
    "lib.ones(2, 3).clamp(min=lib.ones(3, 4))",
    # true division promotes first: float16 stays float16, a 0-d float64 divisor wins
    "lib.ones(2, 3, dtype=lib.float16) / lib.ones(2, 3, dtype=lib.int64)",
    "lib.ones(2, 3, dtype=lib.int64) / lib.tensor(2.0, dtype=lib.float64)",
    # clamp promotes: an int tensor clamped to float bounds is float
    "lib.tensor([1, 2, -3]).clamp(-0.5, 0.5)",
    "lib.tensor([True, False]).clamp(0, 3)",
    "lib.tensor([1, 2, -3]).clamp(lib.tensor([0.5, 0.5, 0.5], dtype=lib.float64))",
    # where of two Python numbers: the default float dtype; a bool condition only
    "lib.where(lib.tensor([True, False]), 1.0, 2)",
    "lib.where(lib.tensor([1, 0]), lib.ones(2), lib.ones(2))",
    "lib.where(lib.tensor([1, 0], dtype=lib.uint8), lib.tensor([1.0, 2.0]), 2.0)",
    "lib.tensor([1.0, 2.0]).where(lib.tensor([1, 0], dtype=lib.uint8), 0.0)",
    # bool operands
    "-lib.tensor([True, False])",
    "lib.tensor([True]) - lib.tensor([True])",
    "lib.ones(2) - lib.tensor([True, False])",
    "1 - lib.tensor([True, False])",
    "lib.tensor([True, False]).sign()",
    "lib.tensor([1, 2]) ** -1",
    # 0-d inputs
    "lib.tensor(0.5).erf()",
    "lib.tensor(1.5).flip(0)",
    "lib.tensor(1.5).transpose(0, -1)",
    "lib.tensor(1.5).split(1)",
    "lib.tensor(1.5).chunk(2)",
    "lib.tensor(1.5).unbind(-1)",
    "lib.tensor(1.5).unbind(1)",
    "lib.tensor(1.5).select(0, 0)",
    "lib.ones(2, 3).select(1, 3)",
    # empty inputs
    "lib.ones(0, 3).softmax(0)",
    "lib.ones(0, 3).log_softmax(0)",
    "lib.ones(0, 3).amax(0)",
    "lib.ones(2, 0, 3).amin((0, 1))",
    # no integer softmax in torch
    "lib.tensor([[1, 2], [3, 4]]).softmax(0)",
    "lib.tensor([1, 2]).log_softmax(-1)",
    # out of range indices
    "lib.ones(2, 3).index_select(0, lib.tensor([2]))",
    "lib.ones(3).index_select(0, lib.tensor([-1]))",
    "lib.ones(2, 3).index_add(0, lib.tensor([2, 0]), lib.ones(2, 3))",
    # in-place results are cast to the tensor's dtype by torch's canCast: any integer width
    # (wrapping), never float into int nor int into bool
    "lib.tensor([250, 3], dtype=lib.uint8).add_(lib.tensor([10, -5]))",
    "lib.tensor([1, 2], dtype=lib.int8).mul_(lib.tensor([300, 2]))",
    "lib.tensor([1, 2]).add_(lib.tensor([1.5, 1.0]))",
    "lib.tensor([True, False]).add_(lib.tensor([1, 1]))",
    "lib.tensor([1.0, 2.0]).add_(lib.tensor([1, 2], dtype=lib.float64))",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_matches_torch(expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("base", [-3.0, 0.0, 2.0])
def test_scalar_base_pow_gradient(base):
    # d/dx base**x = base**x * log(base): NaN for a negative base, masked for base 0
    values = [-1.0, 0.0, 2.0]
    x = ag.tensor(values, dtype=ag.float64, requires_grad=True)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (base ** x).sum().backward()
    (base ** tx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), equal_nan=True)


@pytest.mark.parametrize("base", [-3.0, 0.0, 2.0])
def test_scalar_base_pow_second_derivative(base):
    # the first derivative goes through the result (torch's formula), so it has a graph
    values = [-1.0, 0.0, 2.0]
    grads = []
    for lib in (ag, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad((base ** x).sum(), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "MulBackward0"
        gg, = lib.autograd.grad(g.sum(), x)
        grads.append(gg.detach().numpy())
    np.testing.assert_allclose(*grads, equal_nan=True)


@pytest.mark.parametrize("expr", ["lib.tensor(1.5, dtype=lib.float64, requires_grad=True)"])
def test_zero_dim_views_keep_torch_nodes_and_gradients(expr):
    for op in ("transpose(0, 0)", "flip(0)", "erf()"):
        x, tx = eval(expr, {"lib": ag}), eval(expr, {"lib": torch})
        y, ty = eval(f"x.{op}", {"x": x}), eval(f"x.{op}", {"x": tx})
        assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
        (y * 2).backward()
        (ty * 2).backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_empty_softmax_backward():
    x = ag.ones(0, 3, dtype=ag.float64, requires_grad=True)
    tx = torch.ones(0, 3, dtype=torch.float64, requires_grad=True)
    x.softmax(0).sum().backward()
    tx.softmax(0).sum().backward()
    assert tuple(x.grad.shape) == tuple(tx.grad.shape)


@pytest.mark.parametrize("make", ["x.unbind(0)[1]", "x.view(3, 1).unbind(1)[0][1]",
                                  "x.select(0, 1)", "x[1]"])
def test_zero_dim_views_share_storage(make):
    # NumPy gives a copy for ``a[i]`` of a 1-d array; a view must still write through
    results = []
    for lib in (ag, torch):
        x = lib.zeros(3)
        v = eval(make, {"x": x})
        v.fill_(5.0)
        results.append((x.tolist(), v._base is x, v._version))
    assert results[0] == results[1]
