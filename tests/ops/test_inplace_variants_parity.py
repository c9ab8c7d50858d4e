"""torch comparisons for agdebug/ops/tensor_methods/inplace_variants.py: in-place comparisons
and logic with their aliases, in-place scans and products, fill_diagonal_, random fills, conversions.

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


# ----------------------------------------------------------------------------- random fills
# Values cannot match torch's generator: parameters that make a fill deterministic
# (std=0, from == to, p in {0, 1}, a one-point range) are compared with torch in full;
# the others by dtype, requires_grad, node and error, and by their statistics.

@pytest.mark.parametrize("expr", [
    "x.normal_()", "y.normal_(2, 0)", "y.normal_(0, -1)", "i.clone().normal_()",
    "f.clone().normal_(mean=1, std=0)", "y.uniform_(1, 1)", "y.uniform_(2, 1)",
    "i.clone().uniform_()", "b.clone().uniform_()", "f.clone().uniform_(to=0)",
    "y.bernoulli_(1)", "y.bernoulli_(0.)", "y.bernoulli_(1.5)", "y.bernoulli_(-0.1)",
    "y.bernoulli_(lib.tensor([1., 0., 1.]))", "y.bernoulli_(lib.tensor([0.5, 0.2]))",
    "y.bernoulli_(y)", "f.clone().bernoulli_(i)", "y.detach().bernoulli_(y * 0)",
    "i.clone().bernoulli_(1.)", "b.clone().bernoulli_(0.)", "y.random_(2, 3)",
    "y.random_(5, 2)", "y.random_(1)", "i.clone().random_(4, 5)", "f.clone().random_(0.5)",
    "y.exponential_(-1)", "y.exponential_(0)", "i.clone().exponential_()",
    "b.clone().exponential_()", "y.geometric_(1.5)", "y.geometric_(0)", "y.geometric_(1)",
    "y.log_normal_(1, -2)", "i.clone().log_normal_()", "y.cauchy_(0, -1)",
    "i.clone().cauchy_()", "x.cauchy_()",
    "lib.tensor([0., 1., 1.]).bernoulli()", "lib.tensor([0., 1., 1.], requires_grad=True)"
    ".bernoulli()", "lib.bernoulli(lib.tensor([0., 1., 1.], requires_grad=True))",
    "y.bernoulli()", "i.bernoulli()", "f.bernoulli(2.)",
    "lib.tensor([0., 1., 0.]).multinomial(1)",
    "lib.tensor([[0., 1., 0.], [0., 0., 3.]]).multinomial(1)",
    "lib.tensor([0., 1., 0.]).multinomial(3, True)", "f.multinomial(4)", "f.multinomial(0)",
    "i.multinomial(1)", "lib.tensor([0., 0.]).multinomial(1)",
    "lib.tensor([-1., 1.]).multinomial(1)", "lib.ones(2, 3, 4).multinomial(2)",
    "lib.tensor(1.).multinomial(1)", "lib.tensor([1., float('nan')]).multinomial(1)",
    "lib.multinomial(lib.tensor([0., 1.]), 1)", "lib.zeros(2, 3).multinomial(1)",
])
def test_random_fills_deterministic_cases_and_errors(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", [
    "y.normal_()", "y.uniform_()", "y.bernoulli_()", "y.bernoulli_(lib.tensor([0.5, 0.2, 0.1]))",
    "y.random_()", "y.random_(5)", "y.random_(2, 5)", "y.exponential_()", "y.geometric_(0.5)",
    "y.log_normal_()", "y.cauchy_()", "i.clone().random_(0, 10)", "b.clone().random_()",
    "i.clone().geometric_(0.5)", "i.clone().bernoulli_(0.5)", "f.clone().normal_()",
    "lib.tensor([0.2, 0.5], dtype=lib.float64).multinomial(2)",
])
def test_random_fills_dtype_and_node(expr):
    got, want = (eval(expr, _scope(lib)) for lib in (ag, torch))
    assert (str(got.dtype), got.requires_grad) == (str(want.dtype), want.requires_grad)
    assert (got.grad_fn and got.grad_fn.name()) == (want.grad_fn and want.grad_fn.name())


def test_bernoulli_with_a_number_p_records_not_implemented():
    # torch's name() is torch::autograd::NotImplemented (see test_floor_divide_...)
    for lib in (ag, torch):
        assert type(lib.ones(3, requires_grad=True).bernoulli(0.5).grad_fn).__name__ == \
            "NotImplemented"


def _scope(lib):
    scope = {"lib": lib}
    for name, text in SETUP.items():
        scope[name] = eval(text, scope)
    return scope


N = 20000


@pytest.mark.parametrize("fill, mean, var", [
    ("normal_(1.5, 2.0)", 1.5, 4.0), ("uniform_(-1, 3)", 1.0, 16 / 12),
    ("bernoulli_(0.3)", 0.3, 0.21), ("exponential_(2.0)", 0.5, 0.25),
    ("geometric_(0.25)", 4.0, 12.0), ("log_normal_(0.0, 0.5)", np.exp(0.125),
                                      (np.exp(0.25) - 1) * np.exp(0.25)),
    ("random_(3, 7)", 4.5, 1.25),
])
def test_random_fill_statistics(fill, mean, var):
    ag.manual_seed(0)
    t = eval(f"ag.zeros(N, dtype=ag.float64).{fill}")
    values = t.numpy()
    assert abs(values.mean() - mean) < 4 * np.sqrt(var / N)
    assert abs(values.var() - var) < 0.1 * var


def test_random_fill_ranges_and_determinism():
    ag.manual_seed(3)
    first = ag.zeros(1000).uniform_(2, 3).numpy().copy()
    ag.manual_seed(3)
    again = ag.zeros(1000).uniform_(2, 3).numpy()
    np.testing.assert_array_equal(first, again)
    assert first.min() >= 2 and first.max() < 3
    assert set(ag.zeros(500, dtype=ag.int64).random_(-2, 1).tolist()) == {-2, -1, 0}
    assert set(ag.zeros(200, dtype=ag.bool).random_().tolist()) == {False, True}
    assert ag.zeros(500, dtype=ag.uint8).random_().max().item() > 200
    assert ag.zeros(500).geometric_(0.9).min().item() >= 1
    median = ag.zeros(N, dtype=ag.float64).cauchy_(1.0, 0.5).median().item()
    assert abs(median - 1.0) < 0.05


def test_random_fills_in_no_grad_on_a_leaf_and_zero_gradients():
    w = ag.zeros(3, requires_grad=True)
    with ag.no_grad():
        w.normal_()
    assert w.requires_grad and w.grad_fn is None and w._version == 1
    y = w * 1
    y.uniform_()
    p = ag.tensor([0.5, 0.5, 0.5], requires_grad=True)
    z = w * 1
    z.bernoulli_(p)
    (y.sum() + z.sum()).backward()
    assert w.grad.tolist() == [0.0, 0.0, 0.0] and p.grad.tolist() == [0.0, 0.0, 0.0]


def test_multinomial_without_replacement_is_a_permutation():
    ag.manual_seed(1)
    rows = ag.ones(4, 5).multinomial(5)
    assert rows.dtype == ag.int64
    for row in rows.tolist():
        assert sorted(row) == [0, 1, 2, 3, 4]
    counts = np.bincount(ag.tensor([0.1, 0.0, 0.9]).multinomial(N, True).numpy(), minlength=3)
    assert counts[1] == 0 and abs(counts[0] / N - 0.1) < 0.01


# ----------------------------------------------------------------------------- conversions, queries

@pytest.mark.parametrize("expr", [
    "y.byte()", "y.char()", "y.short()", "(y * -1).byte()", "b.short()",
    "lib.tensor([1.5, -2.5]).char()", "lib.tensor([]).is_nonzero()",
    "lib.ones(2).is_nonzero()",
])
def test_conversions(expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_queries():
    def answers(lib):
        x = lib.arange(12.0).reshape(3, 4)
        v = x[1:, 2:]
        signed = [lib.ones(1, dtype=d).is_signed()
                  for d in (lib.uint8, lib.int8, lib.bool, lib.float16, lib.int64)]
        return (v.storage_offset(), x.storage_offset(), (v.data_ptr() - x.data_ptr()) // 4,
                x.is_cpu, x.is_meta, x.is_sparse, signed, lib.tensor([0.0]).is_nonzero(),
                lib.tensor(2).is_nonzero(), x.is_same_size(v), x.is_same_size(x * 2))
    assert answers(ag) == answers(torch)
