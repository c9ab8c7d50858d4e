"""Spatial functions and their modules against torch: padding modules and circular pad,
transposed convolutions, interpolation: values, gradients, grad_fn names and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, evaluate


def _data(*shape) -> str:
    """A deterministic float64 leaf that requires grad, built the same way by both libraries."""
    n = int(np.prod(shape))
    return (f"lib.arange({n}, dtype=lib.float64).reshape{shape}.mul(0.37).sin()"
            ".detach().requires_grad_()")


SETUP = {"x": _data(2, 3, 4, 5), "s": _data(2, 3, 6), "v": _data(1, 2, 2, 3, 4),
         "i": "lib.arange(24).reshape(1, 2, 3, 4)", "e": "lib.ones(0, 2, 3, requires_grad=True)"}


def assert_same_with_grads(torch, expr: str, setup: dict = SETUP) -> None:
    """``assert_same_as_torch``, then the gradients of every leaf in ``setup`` that requires
    grad, for the same fixed upstream gradient, compared too."""
    assert_same_as_torch(torch, expr, setup)
    grads = []
    for lib in (ag, torch):
        kind, out = evaluate(lib, f"(({expr}), {', '.join(setup)})", setup)
        if kind == "error" or not out[0].requires_grad:
            return
        result, leaves = out[0], out[1:]
        upstream = lib.arange(result.numel(), dtype=result.dtype).reshape(result.shape).cos()
        (result * upstream).sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in leaves])
    for got, want in zip(*grads):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)


# ----------------------------------------------------------------------------- padding

PADS = [
    "F.pad(x, (1, 2, 2, 0), mode='circular')", "F.pad(x, (-1, 2, 0, -2), mode='circular')",
    "F.pad(x[0], (4, 4), mode='circular')", "F.pad(s, (6, 6), mode='circular')",
    "F.pad(s[0], (2, 3), mode='circular')", "F.pad(v, (1, 1, 2, 0, 1, 2), mode='circular')",
    "F.pad(v[0], (0, 1, 1, 0, 2, 2), mode='circular')", "F.pad(i, (1, 2), mode='circular')",
    "F.pad(i, (1, 2, 1, 1), mode='circular')", "F.pad(e, (1, 2), mode='circular')",
    "F.pad(x, (-5, 1), mode='circular')", "F.pad(x, (-2, -3), mode='circular')",
    # errors, in torch's order
    "F.pad(x, (6, 0), mode='circular')", "F.pad(x, (0, 6), mode='circular')",
    "F.pad(x, (-3, -3), mode='circular')", "F.pad(x, (1, 1), mode='circular')",
    "F.pad(x[0, 0, 0], (1, 1), mode='circular')", "F.pad(x, (1, 1, 1), mode='circular')",
    "F.pad(x, (1,) * 10, mode='circular')", "F.pad(x, (1, 1), mode='circular', value=1.0)",
    "F.pad(x, (1, 1, 1, 1), mode='circular', value=0.0)", "F.pad(x, (1,), mode='foo')",
    "F.pad(x, (1, 1), mode='reflection')",
]


@pytest.mark.parametrize("expr", PADS)
def test_pad_matches_torch(expr, torch):
    assert_same_with_grads(torch, expr)


def _graph(t) -> list:
    """The names of the nodes behind ``t``, depth first (None for an edge to nothing)."""
    names, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        names.append(None if fn is None else fn.name())
        if fn is not None:
            stack.extend(f for f, _ in reversed(fn.next_functions))
    return names


@pytest.mark.parametrize("expr", ["F.pad(x, (1, 2, 2, 0), mode='circular')",
                                  "F.pad(x, (-1, 0, 0, 2), mode='circular')",
                                  "F.pad(s, (0, 3), mode='circular')"])
def test_circular_pad_graph_is_torchs(expr, torch):
    # torch's _pad_circular copies slices into an empty tensor: a chain of CopySlices
    graphs = [_graph(evaluate(lib, expr, SETUP)[1]) for lib in (ag, torch)]
    assert graphs[0] == graphs[1]


def test_circular_pad_second_derivative_matches_torch(torch):
    grads = []
    for lib in (ag, torch):
        x = evaluate(lib, "x", SETUP)[1]
        y = lib.nn.functional.pad(x, (2, 1, 1, 3), mode="circular")
        (g,) = lib.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sin().sum(), x)
        grads.append(gg.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


MODULES = [
    "lib.nn.ZeroPad1d(2)(s)", "lib.nn.ZeroPad1d((1, 0))(s[0])", "lib.nn.ZeroPad2d(1)(x)",
    "lib.nn.ZeroPad2d((1, 2, 0, 3))(x)", "lib.nn.ZeroPad2d((1, 2))(x)", "lib.nn.ZeroPad3d(1)(v)",
    "lib.nn.ZeroPad2d(-1)(x)", "lib.nn.ConstantPad1d(2, 3.5)(s)",
    "lib.nn.ConstantPad2d((1, 0, 2, 1), -1.0)(x)", "lib.nn.ConstantPad3d((1, 0, 0, 1, 2, 2), 2)(v)",
    "lib.nn.ConstantPad1d(1, 2)(i)", "lib.nn.ReflectionPad1d(2)(s)",
    "lib.nn.ReflectionPad1d((3, 1))(s[0])", "lib.nn.ReflectionPad2d(2)(x)",
    "lib.nn.ReflectionPad2d((1, 0, 3, 2))(x[0])", "lib.nn.ReflectionPad3d(1)(v)",
    "lib.nn.ReflectionPad2d(4)(x)", "lib.nn.ReflectionPad3d((1, 1, 1, 1, 2, 2))(v)",
    "lib.nn.ReflectionPad2d(5)(x)", "lib.nn.ReplicationPad1d(3)(s)",
    "lib.nn.ReplicationPad2d((2, 0, 1, 4))(x)", "lib.nn.ReplicationPad3d((1, 2, 0, 1, 1, 0))(v)",
    "lib.nn.ReplicationPad2d(1)(s[0, 0])", "lib.nn.CircularPad1d(2)(s)",
    "lib.nn.CircularPad1d((1, 3))(s[0])", "lib.nn.CircularPad2d(1)(x)",
    "lib.nn.CircularPad2d((1, 0, 2, 3))(x[0])", "lib.nn.CircularPad3d(1)(v)",
    "lib.nn.CircularPad3d((0, 1, 1, 0, 0, 1))(v[0])",
    "lib.nn.CircularPad1d(1)(x)", "lib.nn.CircularPad2d(1)(s[0])", "lib.nn.CircularPad3d(1)(x)",
    "lib.nn.CircularPad2d((1, 1))(x)",
]


@pytest.mark.parametrize("expr", MODULES)
def test_padding_modules_match_torch(expr, torch):
    assert_same_with_grads(torch, expr)


PAD_REPRS = ["ZeroPad1d(2)", "ZeroPad2d((1, 2, 0, 3))", "ZeroPad3d(1)",
             "ConstantPad1d(2, 3.5)", "ConstantPad2d([1, 0, 2, 1], -1)", "ConstantPad3d(1, 0.0)",
             "ReflectionPad1d(2)", "ReflectionPad2d((1, 2))", "ReflectionPad3d(1)",
             "ReplicationPad1d((3, 1))", "ReplicationPad2d(1)", "ReplicationPad3d(2)",
             "CircularPad1d(2)", "CircularPad2d(1)", "CircularPad3d((1, 0, 0, 1, 2, 2))"]


@pytest.mark.parametrize("expr", PAD_REPRS)
def test_padding_module_reprs_match_torch(expr, torch):
    ours, theirs = eval(f"ag.nn.{expr}"), eval(f"torch.nn.{expr}")
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding


def test_padding_modules_are_not_each_others_subclasses():
    assert not isinstance(ag.nn.ReflectionPad2d(1), ag.nn.ReflectionPad1d)
    assert not isinstance(ag.nn.ZeroPad2d(1), ag.nn.ZeroPad1d)
    assert isinstance(ag.nn.ZeroPad2d(1), ag.nn.ConstantPad2d)   # as in torch
