"""torch comparisons for agdebug/ops/methods_extra.py: in-place comparisons and logic with
their aliases, in-place scans and products, fill_diagonal_, random fills, conversions.

Each expression runs with ``lib`` = agdebug and ``lib`` = torch (see torch_parity.py):
values, dtype, requires_grad and grad_fn name, or the error's type and first line.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {"x": "lib.tensor([1., 2., 3.], requires_grad=True)", "y": "x * 1",
         "i": "lib.tensor([1, 2, 3])", "b": "lib.tensor([True, False, True])",
         "f": "lib.tensor([1., 2., 3.])", "col": "lib.tensor([[1.], [2.]])"}

COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal",
           "less_equal", "not_equal"]


@pytest.mark.parametrize("name", COMPARE)
@pytest.mark.parametrize("call", [
    "y.clone().{}_(2)",                       # recorded: <Op>Backward0, x's dtype kept
    "y.clone().{}_(lib.tensor([3., 2., 1.]))",   # a tensor other: <Op>Backward1
    "y.detach().{}_(y)",                      # only other requires grad: still recorded
    "x.{}_(2)",                               # a leaf requiring grad: torch's error
    "i.clone().{}_(2.5)", "i.clone().{}_(lib.tensor(2.5))", "b.clone().{}_(True)",
    "b.clone().{}_(lib.tensor([1., 0., 3.]))", "f.clone().{}_(lib.tensor([[2.], [1.]]))",
    "f.clone().{}_(lib.tensor([[2.]]))", "f.clone().{}_(None)", "f.{}(2)",
])
def test_inplace_comparisons(name, call):
    assert_same_as_torch(torch, call.format(name), SETUP)


@pytest.mark.parametrize("name", ["greater", "less", "greater_equal", "less_equal",
                                  "not_equal"])
def test_comparison_alias_functions(name):
    assert_same_as_torch(torch, f"lib.{name}(f, i)", SETUP)
    assert_same_as_torch(torch, f"lib.{name}(b, 2)", SETUP)


def test_inplace_comparison_gradient_is_zero():
    y = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    other = ag.tensor(2.0, requires_grad=True)
    z = y * 1
    z.eq_(other)
    gy, go = ag.autograd.grad(z.sum(), [y, other])
    assert gy.tolist() == [0.0, 0.0, 0.0] and go.item() == 0.0


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("call", [
    "y.clone().{}_(y)", "x.{}_(x)",            # never recorded, even on a leaf
    "i.clone().{}_(i)", "b.clone().{}_(i)", "i.clone().{}_(y)", "lib.ones(3).{}_(y)",
    "f.clone().{}_(2)", "f.clone().{}_(col)",
])
def test_inplace_logical(name, call):
    assert_same_as_torch(torch, call.format(name), SETUP)


@pytest.mark.parametrize("expr", ["y.clone().logical_not_()", "x.logical_not_()",
                                  "i.clone().logical_not_()", "b.clone().logical_not_()"])
def test_logical_not_(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    "y.clone().multiply_(2)", "y.clone().multiply_(y)", "i.clone().multiply_(2.5)",
    "b.clone().multiply_(True)", "f.clone().multiply_(col)", "i.clone().multiply_(y)",
    "y.clone().divide_(2)", "y.clone().divide_(y, rounding_mode='floor')",
    "i.clone().divide_(2)", "i.clone().divide_(2, rounding_mode='trunc')",
    "i.clone().divide_(2, rounding_mode='x')", "y.clone().true_divide_(y)",
    "i.clone().true_divide_(2)", "x.true_divide_(2)",
    "y.clone().subtract_(2, alpha=2)", "i.clone().subtract_(1, alpha=2)",
    "i.clone().subtract_(1, alpha=2.)", "b.clone().subtract_(True)",
    "i.clone().floor_divide_(2)", "i.clone().floor_divide_(-2)", "i.clone().floor_divide_(0)",
    "i.clone().floor_divide_(lib.tensor([1, 0, 1]))", "i.clone().floor_divide_(2.5)",
    "y.detach().floor_divide_(2)",
    "y.clone().remainder_(2)", "y.clone().remainder_(lib.tensor(2.))",
    "i.clone().remainder_(-2)", "i.clone().remainder_(2.5)", "f.clone().remainder_(col)",
])
def test_inplace_arithmetic_aliases(expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_floor_divide_records_torchs_node():
    # torch names this C++ node torch::autograd::NotImplemented; agdebug's op has the bare
    # name (registry.py's qualified-name table lacks it), so the class name is compared.
    for lib in (ag, torch):
        z = (lib.tensor([1.0, 5.0], requires_grad=True) * 1).floor_divide_(2)
        assert type(z.grad_fn).__name__ == "NotImplemented"
        assert z.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("expr", [
    "lib.ones(2, 3).cumsum_(1)", "i.clone().cumsum_(0)", "b.clone().cumsum_(0)",
    "y.clone().cumsum_(0)", "y.clone().cumsum_(dim=-1)", "y.clone().cumsum_()",
    "y.clone().cumsum_(0, dtype=lib.float64)", "y.clone().cumsum_(0, dtype=lib.float32)",
    "i.clone().cumsum_(0, dtype=lib.float32)", "y.clone().cumsum_('a')",
    "lib.tensor([1, 2], dtype=lib.int32).cumsum_(0, dtype=lib.int64)",
    "lib.tensor([1., 2.], dtype=lib.float16).cumsum_(0, dtype=lib.float32)",
    "lib.tensor([200, 100], dtype=lib.uint8).cumsum_(0)",
    "lib.tensor([200, 100], dtype=lib.uint8).cumsum_(0, dtype=lib.int8)",
    "lib.ones(2, 3).cumsum_(2)", "lib.tensor(2.).cumsum_(0)", "x.cumsum_(0)",
    "y.clone().cumprod_(0)", "i.clone().cumprod_(0)", "b.clone().cumprod_(0)",
    "y.clone().cumprod_()", "(lib.tensor([[1., 0., 2.], [3., 4., 5.]], requires_grad=True)"
    " * 1).cumprod_(-1)",
])
def test_inplace_scans(expr):
    assert_same_as_torch(torch, expr, SETUP)


M23 = "lib.ones(2, 3)"
W23 = "(lib.ones(2, 3, requires_grad=True) * 1)"


@pytest.mark.parametrize("expr", [
    f"{M23}.addmm_(lib.ones(2, 4), lib.ones(4, 3))",
    f"{M23}.addmm_(lib.ones(2, 4), lib.ones(4, 3), beta=2, alpha=0.5)",
    f"{W23}.addmm_(lib.ones(2, 4), lib.ones(4, 3))",
    "lib.ones(2, 3, requires_grad=True).addmm_(lib.ones(2, 4), lib.ones(4, 3))",
    "lib.ones(3).addmm_(lib.ones(2, 4), lib.ones(4, 3))",
    "lib.ones(1, 3).addmm_(lib.ones(2, 4), lib.ones(4, 3))",
    f"{M23}.addmm_(lib.ones(2, 4), lib.ones(4, 3).double())",
    f"{M23}.addmm_(lib.ones(2, 4), lib.ones(2, 4))",
    "lib.ones(2, 3, dtype=lib.int64).addmm_(lib.ones(2, 4, dtype=lib.int64), "
    "lib.ones(4, 3, dtype=lib.int64), alpha=0.5)",
    "lib.ones(2).addmv_(lib.ones(2, 3), lib.ones(3))",
    "y.clone().addmv_(lib.ones(3, 2), lib.ones(2), beta=0.5)",
    "lib.ones(1).addmv_(lib.ones(2, 3), lib.ones(3))",
    "lib.ones(1).addmv_(lib.ones(2, 3), lib.ones(2))",
    "lib.ones(2).addmv_(lib.ones(2, 3), lib.ones(3).double())",
    "lib.ones(2, 2).addmv_(lib.ones(2, 3), lib.ones(3))",
    f"{M23}.addr_(lib.ones(2), lib.ones(3))",
    f"{W23}.addr_(lib.ones(2), lib.ones(3), beta=0.5, alpha=2)",
    "lib.ones(3).addr_(lib.ones(2), lib.ones(3))",
    "lib.ones(2, 1).addr_(lib.ones(2), lib.ones(3))",
    "lib.ones(2, 3, dtype=lib.float64).addr_(lib.ones(2), lib.ones(3))",
    f"{M23}.addbmm_(lib.ones(5, 2, 4), lib.ones(5, 4, 3))",
    f"{W23}.addbmm_(lib.ones(5, 2, 4), lib.ones(5, 4, 3), alpha=2)",
    "lib.ones(5, 2, 3).baddbmm_(lib.ones(5, 2, 4), lib.ones(5, 4, 3))",
    "(lib.ones(5, 2, 3, requires_grad=True) * 1).baddbmm_(lib.ones(5, 2, 4), "
    "lib.ones(5, 4, 3), alpha=2)",
    "lib.ones(2, 3).baddbmm_(lib.ones(5, 2, 4), lib.ones(5, 4, 3))",
    "lib.ones(5, 1, 3).baddbmm_(lib.ones(5, 2, 4), lib.ones(5, 4, 3))",
])
def test_inplace_products(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    f"{M23}.fill_diagonal_(5)", f"{W23}.fill_diagonal_(5)",
    f"{W23}.fill_diagonal_(lib.tensor(2.))",
    "lib.zeros(5, 2).fill_diagonal_(3, wrap=True)", "lib.zeros(7, 2).fill_diagonal_(3, wrap=True)",
    "lib.zeros(7, 2).fill_diagonal_(3)", "lib.zeros(2, 3).fill_diagonal_(1, wrap=True)",
    "lib.zeros(3, 3, 3).fill_diagonal_(1)", "lib.zeros(3).fill_diagonal_(1)",
    "lib.zeros(2, 3, 4).fill_diagonal_(1)", "lib.ones(2, 3, dtype=lib.int64).fill_diagonal_(2.5)",
    "lib.zeros(2, 2, dtype=lib.bool).fill_diagonal_(2)",
    "lib.ones(2, 3, requires_grad=True).fill_diagonal_(1)", "lib.zeros(0, 0).fill_diagonal_(1)",
    "lib.zeros(3, 4).t().fill_diagonal_(1)", "lib.zeros(4, 3).t().fill_diagonal_(1, wrap=True)",
])
def test_fill_diagonal_(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    "(x * 2).fill_diagonal_(5)", "(x * 2).cumsum_(1)", "(x * 2).cumprod_(0)",
    "(x * 2).addmm_(lib.ones(2, 4, dtype=lib.float64), lib.ones(4, 3, dtype=lib.float64), "
    "beta=3)",
    "(x * 2).addr_(lib.ones(2, dtype=lib.float64), lib.ones(3, dtype=lib.float64), beta=0.5)",
    "(x * 2).lt_(x)", "(x * 1).multiply_(x)", "(x * 1).remainder_(0.3)",
    "(x * 1).subtract_(x, alpha=3)",
])
def test_inplace_gradients(expr):
    grads = []
    for lib in (ag, torch):
        x = lib.tensor(np.arange(6.0).reshape(2, 3) / 5 + 0.1, requires_grad=True)
        w = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
        (eval(expr) * w).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-12)
