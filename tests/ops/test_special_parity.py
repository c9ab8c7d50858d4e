"""torch comparisons for agdebug/ops/pointwise/special.py: values at special points (poles, zero,
large arguments), dtypes of int/bool/half inputs, the composites' graphs and torch's errors.
"""

from __future__ import annotations

import pytest

from ..torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

P = "lib.tensor([0.0, -0.0, -1.0, -2.5, 0.5, 1.0, 2.0, 7.5, 30.0, float('inf'), 1e-8])"
W = "lib.tensor([0.0, -1.0, 3.0, -20.0, 21.0, 50.0, -80.0, 1e-9], dtype=lib.float64)"
N = "lib.tensor([1, 2, 3])"
B = "lib.tensor([True, False])"
H = "lib.tensor([0.5, 2.5], dtype=lib.float16)"
D = "lib.tensor([0.5, 2.5, 11.0, 0.01, -3.3], dtype=lib.float64)"
E = "lib.tensor([])"
# float64: torch's float32 digamma kernel is itself ~1e-6 off (agdebug's is float64 rounded)
G = {"x": "lib.tensor([1.5, 2.5, 3.25], dtype=lib.float64, requires_grad=True)",
     "y": "lib.tensor([0.5, 1.0, 2.5], dtype=lib.float64, requires_grad=True)",
     "m": "lib.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], requires_grad=True)"}

VALUES = [f"lib.{f}({a})" for f in ("lgamma", "digamma", "i0")
          for a in (P, N, B, H, D, E)] + \
         [f"lib.polygamma({n}, {a})" for n in (0, 1, 2, 4) for a in (D, N, E)] + [
    f"lib.polygamma(-1, {D})", f"lib.mvlgamma({D} + 5, 3)", f"lib.mvlgamma({D} + 5, 0)",
    f"lib.mvlgamma({N}, 2)", f"lib.i0({W})", f"{D}.polygamma(2)", f"{D}.mvlgamma(p=1)",
    f"lib.ldexp({D}, {N}[:1])", f"lib.ldexp({N}, {N})", f"lib.ldexp({H}, {N}[:2])",
    f"lib.ldexp({D}, lib.tensor([1.5]))", f"lib.frexp({D})", f"lib.frexp({H})",
    f"lib.frexp({N})", f"lib.frexp({E})", f"lib.nextafter({D}, {D} * 2)",
    f"lib.nextafter({N}, {N})", "lib.nextafter(lib.ones(2), lib.ones(2, dtype=lib.float64))",
    f"lib.trapezoid({D})", f"lib.trapezoid({D}, dx=0.5)", f"lib.trapezoid({D}, {D} * 3)",
    "lib.trapezoid(lib.ones(2, 3), dim=0)", f"lib.trapezoid({E})", f"lib.trapz({D}, {D})",
    f"lib.cumulative_trapezoid({D})", f"lib.cumulative_trapezoid({D}, dx=2.0)",
    f"lib.cumulative_trapezoid({D}, {D} * 2)", "lib.cumulative_trapezoid(lib.ones(3, 2), dim=0)",
    f"lib.cov({D})", "lib.cov(lib.tensor([[1.0, 2, 4], [0, 1, 7]]))",
    "lib.cov(lib.tensor([[1.0, 2, 4], [0, 1, 7]]), correction=0)",
    "lib.cov(lib.tensor([[1.0, 2, 4], [0, 1, 7]]), fweights=lib.tensor([1, 2, 1]))",
    "lib.cov(lib.tensor([[1.0, 2, 4], [0, 1, 7]]), aweights=lib.tensor([0.5, 2.0, 1.0]))",
    "lib.cov(lib.tensor([[1.0, 2, 4], [0, 1, 7]]), fweights=lib.tensor([1, 2, 1]), "
    "aweights=lib.tensor([0.5, 2.0, 1.0]))", "lib.cov(lib.ones(1, 2, 3))",
    "lib.corrcoef(lib.tensor([[1.0, 2, 4], [0, 1, 7], [3, 3, 1]]))", f"lib.corrcoef({D})",
    f"lib.vander({N})", f"lib.vander({D}, N=4, increasing=True)", f"lib.vander({B})",
    f"lib.vander({N}, N=0)", f"lib.vander({N}, N=1)", f"lib.vander({N}, N=-1)",
    "lib.vander(lib.ones(2, 2))",
]


@pytest.mark.parametrize("expr", VALUES)
def test_values_as_torch(expr):
    assert_same_as_torch(torch, expr)


GRAPHS = [
    "lib.lgamma(x)", "x.digamma()", "lib.polygamma(3, x)", "lib.mvlgamma(x, 2)", "lib.i0(x)",
    "lib.ldexp(x, y)", "lib.ldexp(x, lib.tensor([1, -2, 0]))", "lib.frexp(x)",
    "lib.nextafter(x, y)", "lib.trapezoid(x)", "lib.trapezoid(x, y)", "lib.trapz(x, dx=2.0)",
    "lib.cumulative_trapezoid(x)", "lib.cumulative_trapezoid(x, y)", "lib.cov(m)",
    "lib.corrcoef(m)", "lib.vander(x)",
    "lib.autograd.grad(lib.lgamma(x).sum(), x, create_graph=True)[0]",
    "lib.autograd.grad(lib.i0(x).sum(), x, create_graph=True)[0]",
    "lib.autograd.grad(lib.ldexp(x, lib.tensor([1, -2, 0])).sum(), x)",
    "lib.autograd.grad(lib.nextafter(x, y).sum(), (x, y))",
    "lib.autograd.grad(lib.frexp(x)[0].sum(), x)",
    "lib.autograd.grad(lib.cov(m).sum(), m)", "lib.autograd.grad(lib.corrcoef(m)[0, 1], m)",
    "lib.autograd.grad(lib.trapezoid(x * x, y).sum(), (x, y))",
    "lib.autograd.grad(lib.cumulative_trapezoid(x * x).sum(), x)",
]


@pytest.mark.parametrize("expr", GRAPHS)
def test_graph_as_torch(expr):
    assert_same_as_torch(torch, expr, G)


def test_in_place_methods():
    for name in ("lgamma_", "digamma_", "i0_"):
        assert_same_as_torch(torch, f"{D}.{name}()")
    assert_same_as_torch(torch, f"{D}.nextafter_({D} * 0)")


def test_vander_gradient():
    """torch's own backward through vander fails (its cumprod input is overwritten in
    place); agdebug's graph differs below the flip and differentiates."""
    import agdebug as ag
    x = ag.tensor([1.5, -2.0, 0.5], dtype=ag.float64, requires_grad=True)
    (g,) = ag.autograd.grad(ag.vander(x, N=4).pow(2).sum(), x)
    v = x.detach().numpy()
    expected = 2 * v * 1 + 4 * v ** 3 + 6 * v ** 5   # d/dx of x^2 + x^4 + x^6
    assert abs(g.numpy() - expected).max() < 1e-12
