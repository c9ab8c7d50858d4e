"""linalg.matrix_exp compared with torch: values for each Taylor degree and scaling, batches,
float32 / float64, empty and 1x1 matrices, non-finite input, gradients and second
derivatives, the backward graph, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads, evaluate

torch = pytest.importorskip("torch")

SETUP = {
    "a": "lib.tensor([[0.5, -1.0, 0.25], [2.0, 0.1, -0.7], [0.3, 0.8, -0.4]], requires_grad=True)",
    "d": "lib.tensor([[0.5, -1.0, 0.25], [2.0, 0.1, -0.7], [0.3, 0.8, -0.4]], "
         "dtype=lib.float64, requires_grad=True)",
    "b": "lib.stack([lib.tensor([[0.0, 1.0], [-1.0, 0.0]]), lib.tensor([[3.0, 1.0], "
         "[0.5, -2.0]]), lib.tensor([[1e-3, 0.0], [2e-3, 0.0]])]).requires_grad_()",
    "e": "lib.zeros(2, 0, 0, requires_grad=True)",
    "one": "lib.tensor([[[0.5]], [[-2.0]]], requires_grad=True)",
}

# float32: torch's matrix products sum in another order than NumPy's, so values may differ
# in the last bits (an ulp of the largest entry): compared with a tolerance below.
FLOAT32 = [
    "lib.linalg.matrix_exp(a)", "lib.matrix_exp(a)", "a.matrix_exp()", "lib.linalg.matrix_exp(b)",
    "lib.linalg.matrix_exp(a.detach())",
    *[f"lib.linalg.matrix_exp(a * {s})"
      for s in ("1e-8", "1e-5", "1e-3", "0.03", "0.2", "0.5", "1.2", "4.0")],
]

EXPRESSIONS = [
    "lib.linalg.matrix_exp(d)", "lib.linalg.matrix_exp(e)",
    "lib.linalg.matrix_exp(one)", "lib.linalg.matrix_exp(lib.zeros(0, 0))",
    "lib.linalg.matrix_exp(lib.eye(4) * 20)",
    "lib.linalg.matrix_exp(d.unsqueeze(0))", "lib.linalg.matrix_exp(d.mT)",
    "lib.linalg.matrix_exp(b.double())",
    # each degree of a lone float64 matrix, and the scaling of a large one
    *[f"lib.linalg.matrix_exp(d * {s})"
      for s in ("1e-17", "1e-8", "1e-5", "1e-3", "0.03", "0.2", "0.5", "1.2", "4.0", "30.0")],
    # non-finite input: NaN everywhere (a lone matrix or one of a batch)
    "lib.linalg.matrix_exp(lib.tensor([[float('nan'), 0.0], [0.0, 1.0]]))",
    "lib.linalg.matrix_exp(lib.tensor([[float('inf'), 0.0], [0.0, 1.0]]))",
    "lib.linalg.matrix_exp(lib.stack([lib.tensor([[float('inf'), 0.0], [0.0, 1.0]]), "
    "lib.eye(2)]))",
    # errors, in torch's order: dimensions, square, dtype
    "lib.linalg.matrix_exp(lib.ones(3))", "lib.matrix_exp(lib.ones(3))",
    "lib.linalg.matrix_exp(lib.ones(2, 3))", "lib.linalg.matrix_exp(lib.ones(2, 3, 4))",
    "lib.linalg.matrix_exp(lib.ones(3, 3, dtype=lib.int64))",
    "lib.linalg.matrix_exp(lib.ones(3, 3, dtype=lib.bool))",
    "lib.linalg.matrix_exp(lib.ones(2, 3, dtype=lib.int64))",
    "lib.linalg.matrix_exp(lib.ones(3, dtype=lib.int32))",
    "lib.linalg.matrix_exp(lib.ones(1, 1, dtype=lib.int64))",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", FLOAT32)
def test_float32_same_as_torch(expr):
    (_, got), (_, want) = evaluate(ag, expr, SETUP), evaluate(torch, expr, SETUP)
    assert str(got.dtype) == str(want.dtype) == "torch.float32"
    assert tuple(got.shape) == tuple(want.shape)
    assert (got.grad_fn is None) == (want.grad_fn is None)
    if want.grad_fn is not None:
        assert got.grad_fn.name() == want.grad_fn.name()
    want = want.detach().numpy()
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-5,
                               atol=4e-7 * np.abs(want).max())


@pytest.mark.parametrize("expr", ["lib.linalg.matrix_exp(d)", "lib.linalg.matrix_exp(b.double())",
                                  "lib.linalg.matrix_exp(d * 3.0) @ d",
                                  "lib.linalg.matrix_exp(d * 1e-3)",
                                  "lib.linalg.matrix_exp(one.double())",
                                  "lib.linalg.matrix_exp(e)"])
def test_gradients_same_as_torch(expr):
    assert_same_with_grads(torch, expr, SETUP)


def test_float32_gradients_close_to_torch():
    grads = []
    for lib in (ag, torch):
        A = lib.tensor(_random((2, 3, 3), 0.8, seed=6), dtype=lib.float32, requires_grad=True)
        lib.linalg.matrix_exp(A).backward(lib.tensor(_random((2, 3, 3), seed=7),
                                                     dtype=lib.float32))
        grads.append(A.grad.numpy())
    assert grads[0].dtype == np.float32
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def _random(shape, scale=1.0, seed=0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


@pytest.mark.parametrize("shape, scale", [((3, 3), 0.1), ((3, 3), 2.0), ((2, 3, 3), 1.0)])
def test_gradcheck_and_gradgradcheck(shape, scale):
    A = ag.tensor(_random(shape, scale), requires_grad=True)
    assert ag.autograd.gradcheck(ag.linalg.matrix_exp, (A,))
    assert ag.autograd.gradgradcheck(ag.linalg.matrix_exp, (A,))


def test_second_derivative_same_as_torch():
    values, grads = _random((2, 3, 3), 0.7, seed=3), _random((2, 3, 3), seed=4)
    results = []
    for lib in (ag, torch):
        A = lib.tensor(values, requires_grad=True)
        y = lib.linalg.matrix_exp(A)
        (g,) = lib.autograd.grad(y, A, lib.tensor(grads), create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), A)
        results.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


def test_backward_graph_is_an_exp_of_the_block_matrix():
    A = ag.tensor(_random((3, 3)), requires_grad=True)
    (g,) = ag.autograd.grad(ag.linalg.matrix_exp(A).sum(), A, create_graph=True)
    fn = g.grad_fn
    assert fn.name() == "SliceBackward0"
    assert fn.next_functions[0][0].name() == "SliceBackward0"
    assert fn.next_functions[0][0].next_functions[0][0].name() == "LinalgMatrixExpBackward0"


def test_saved_self():
    A = ag.tensor(_random((3, 3)), requires_grad=True)
    assert ag.linalg.matrix_exp(A).grad_fn._saved_self is A


def test_commuting_identities():
    # exp(A) exp(-A) = I, and exp of a rotation generator is the rotation
    A = ag.tensor(_random((4, 4, 4), 1.5), dtype=ag.float64)
    product = ag.linalg.matrix_exp(A) @ ag.linalg.matrix_exp(-A)
    np.testing.assert_allclose(product.numpy(), np.broadcast_to(np.eye(4), (4, 4, 4)),
                               atol=1e-10)
    t = 0.7
    rot = ag.linalg.matrix_exp(ag.tensor([[0.0, -t], [t, 0.0]], dtype=ag.float64)).numpy()
    np.testing.assert_allclose(rot, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]],
                               atol=1e-15)


def test_half_is_computed_in_float32():
    # torch's CPU kernel reads its float64 coefficients as halves (NaN results); agdebug
    # computes in float32 and rounds, so the result is exp(A) in float16.
    A = ag.tensor(_random((3, 3), 0.5, seed=5), dtype=ag.float32)
    half = ag.linalg.matrix_exp(A.half())
    assert half.dtype == ag.float16
    np.testing.assert_allclose(half.float().numpy(), ag.linalg.matrix_exp(A).numpy(), rtol=2e-3,
                               atol=2e-3)
