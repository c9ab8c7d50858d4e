"""The graphs that derivatives record under create_graph, compared with torch's.

A gradient taken with ``create_graph=True`` is a tensor with a graph of its own: torch
records its C++ formulas with aten's overloads (``grad * 2`` there is ``mul.Scalar``,
MulBackward1, where Python's ``x * 2`` is MulBackward0), so a debugger showing a
double-backward graph must record the same nodes with the same edges. Piecewise-constant
ops give torch's constant zeros (no graph), whatever gradient flows in.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import agdebug as ag


def graph_of(t) -> list | None:
    """``t.grad_fn``'s graph as (name, [(child index, output_nr) or None per edge]) in
    breadth-first order, walked iteratively; None where there is no grad_fn."""
    if t.grad_fn is None:
        return None
    index = {t.grad_fn: 0}
    order = [t.grad_fn]
    shape = []
    for node in order:   # the list grows as new nodes are met
        edges = []
        for child, nr in node.next_functions:
            if child is None:
                edges.append(None)
                continue
            if child not in index:
                index[child] = len(order)
                order.append(child)
            edges.append((index[child], nr))
        shape.append((node.name(), edges))
    return shape


# Unary expressions of x; binary ones also use y (both leaves that require grad).
EXPRESSIONS = [
    "x ** 2", "x ** 3", "x ** 0.5", "x ** -1", "x ** 1", "x.pow(2)", "x.square()",
    "x ** y", "x ** x", "2 ** x", "0.5 ** x", "x.float_power(2)", "x.float_power(y)",
    "x.exp()", "x.log()", "x.sin()", "x.cos()", "x.tanh()", "x.sigmoid()", "x.sqrt()",
    "x.rsqrt()", "x.abs()", "x.reciprocal()", "1 / x", "x.tan()", "x.atan()", "x.asin()",
    "x.acos()", "x.sinh()", "x.cosh()", "x.log1p()", "x.expm1()", "x.exp2()", "x.log2()",
    "x.log10()", "x.erf()", "x.neg()", "x.relu()", "0.0 ** x",
    "x * y", "x / y", "x + y", "x - y", "x * x", "x / (x + 1)",
]


def _double_backward_graph(lib, expr: str):
    x = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([1.5, 0.25], dtype=lib.float64, requires_grad=True)
    out = eval(expr, {"x": x, "y": y})
    grads = lib.autograd.grad(out.sum(), (x, y), create_graph=True, allow_unused=True)
    return [(g.requires_grad, graph_of(g), g.detach().tolist()) if g is not None else None
            for g in grads]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_double_backward_graph_is_torchs(torch, expr):
    got = _double_backward_graph(ag, expr)
    want = _double_backward_graph(torch, expr)
    for (g, w) in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g[:2] == w[:2]
            np.testing.assert_allclose(g[2], w[2], rtol=1e-12)


# Piecewise-constant ops (and x ** 0): torch's gradient is a constant, zeros_like, so it
# neither requires grad nor turns an incoming -inf or NaN into NaN (grad * 0 would).
PIECEWISE_CONSTANT = [
    "x.sign()", "x.sgn()", "x ** 0", "x ** 0.0", "x.pow(0)", "x.float_power(0)", "x.floor()",
    "x.ceil()", "x.round()", "x.round(decimals=1)", "x.trunc()", "x.fix()",
    "x.div(2.0, rounding_mode='floor')", "x.div(x, rounding_mode='trunc')",
    "x.clone().zero_()", "x.clone().fill_(2.0)",
]


def _constant_gradient(lib, expr: str):
    x = lib.tensor([-1.5, 0.0, 2.5], dtype=lib.float64, requires_grad=True)
    incoming = lib.tensor([-math.inf, 1.0, math.nan], dtype=lib.float64, requires_grad=True)
    g, = lib.autograd.grad(eval(expr, {"x": x}), x, incoming, create_graph=True)
    # (torch's sgn gives an unallocated zero tensor: its clone has the values)
    return g.requires_grad, g.grad_fn is None, g.detach().clone().tolist()


@pytest.mark.parametrize("expr", PIECEWISE_CONSTANT)
def test_a_piecewise_constant_gradient_is_a_constant_as_in_torch(torch, expr):
    assert _constant_gradient(ag, expr) == _constant_gradient(torch, expr)



def test_a_constant_gradient_keeps_the_graph_free_to_run_once(torch):
    """The incoming gradient is part of a graph freed by the next backward: torch's constant
    gradient is not tied to it (agdebug's grad * 0 was, and its backward then failed)."""
    def run(lib):
        x = lib.tensor([0.5, 2.0], requires_grad=True)
        h = x * 3
        g, = lib.autograd.grad(h.floor(), h, grad_outputs=h, create_graph=True)
        h.sum().backward()
        return g.requires_grad, x.grad.tolist()
    assert run(ag) == run(torch)


THIRD_ORDER = ["x.tanh()", "x.sigmoid()", "x.sin()", "x.exp()", "x ** 3", "x.log()",
               "x.relu() * x"]


def _third_derivative_graph(lib, expr: str):
    x = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
    g = eval(expr, {"x": x})
    for _ in range(3):   # the third derivative: the formulas of the formulas' formulas
        g, = lib.autograd.grad(g.sum(), x, create_graph=True)
    return graph_of(g), g.detach().tolist()


@pytest.mark.parametrize("expr", THIRD_ORDER)
def test_third_derivative_graphs_match_torch(torch, expr):
    # tanh_backward's and sigmoid_backward's own formulas (TanhBackwardBackward0's inputs)
    # record torch's nodes in torch's order: -2 * output is mul.Scalar (MulBackward1)
    ours, our_values = _third_derivative_graph(ag, expr)
    theirs, their_values = _third_derivative_graph(torch, expr)
    assert ours == theirs
    np.testing.assert_allclose(our_values, their_values, rtol=1e-12)
