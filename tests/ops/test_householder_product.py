"""linalg.householder_product / orgqr and geqrf compared with torch: values (tall, square,
batched, fewer reflectors than columns, none), gradients and second derivatives, the saved
tensors, empty inputs (no gradient at all, as torch) and torch's errors in its order; geqrf's
values, nodes, result type and errors (it has no derivative)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads

torch = pytest.importorskip("torch")

SETUP = {
    "a": "lib.tensor([[0.5, -1.0, 0.25], [2.0, 0.1, -0.7], [0.3, 0.8, -0.4], [1.0, -0.2, 0.6]], "
         "dtype=lib.float64, requires_grad=True)",
    "t2": "lib.tensor([1.2, 0.4], dtype=lib.float64, requires_grad=True)",
    "t3": "lib.tensor([1.2, 0.4, -0.3], dtype=lib.float64, requires_grad=True)",
    "b": "lib.tensor([[[0.5, -1.0], [2.0, 0.1], [0.3, 0.8]], [[1.0, 0.0], [-0.5, 2.0], "
         "[0.7, 0.2]]], dtype=lib.float64, requires_grad=True)",
    "tb": "lib.tensor([[1.5, 0.2], [0.9, -1.1]], dtype=lib.float64, requires_grad=True)",
    "f": "lib.tensor([[1.0, 0.0], [0.5, 1.0], [-0.5, 2.0]], requires_grad=True)",
    "tf": "lib.tensor([1.2, 0.4])",
    "e": "lib.zeros(0, 0, requires_grad=True)",
    "t0": "lib.zeros(0, requires_grad=True)",
}

EXPRESSIONS = [
    "lib.linalg.householder_product(a, t2)", "lib.linalg.householder_product(a, t3)",
    "lib.orgqr(a, t2)", "a.orgqr(t3)", "lib.linalg.householder_product(b, tb)",
    "lib.linalg.householder_product(a, t0)", "lib.linalg.householder_product(e, t0)",
    "lib.linalg.householder_product(a.detach(), t2.detach())",
    "lib.linalg.householder_product(a.detach(), t2)",
    "lib.linalg.householder_product(lib.zeros(2, 0, 4, 3), lib.zeros(2, 0, 2))",
    "lib.linalg.householder_product(lib.zeros(4, 0), lib.zeros(0))",
    "lib.linalg.householder_product(a[:3], t3)",
    # errors, in torch's order
    "lib.linalg.householder_product(lib.ones(4), lib.ones(1))",
    "lib.linalg.householder_product(lib.ones(3, 4), lib.ones(2))", "lib.orgqr(lib.ones(3, 4), tf)",
    "lib.linalg.householder_product(lib.ones(3, 4, dtype=lib.int64), tf)",
    "lib.linalg.householder_product(lib.ones(4, 3), lib.ones(4))",
    "lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(2, 4))",
    "lib.linalg.householder_product(lib.ones(4, 3), lib.ones(()))",
    "lib.linalg.householder_product(lib.ones(4, 3), lib.ones(2, 2))",
    "lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(2))",
    "lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(3, 2))",
    "lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(3, 2, dtype=lib.float64))",
    "lib.linalg.householder_product(lib.ones(4, 3), lib.ones(2, dtype=lib.float64))",
    "lib.linalg.householder_product(lib.ones(4, 3), lib.ones(2, dtype=lib.int64))",
    "lib.linalg.householder_product(lib.ones(4, 3, dtype=lib.int64), lib.ones(2))",
    "lib.linalg.householder_product(lib.ones(4, 3, dtype=lib.int64), "
    "lib.ones(2, dtype=lib.int64))",
    "lib.linalg.householder_product(lib.ones(4, 3, dtype=lib.bool), lib.ones(2, dtype=lib.bool))",
    "lib.linalg.householder_product(lib.ones(4, 3, dtype=lib.float16), "
    "lib.ones(2, dtype=lib.float16))",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", ["lib.linalg.householder_product(a, t2)",
                                  "lib.linalg.householder_product(a, t3)",
                                  "lib.linalg.householder_product(b, tb)",
                                  "lib.linalg.householder_product(a, t0)",
                                  "lib.linalg.householder_product(e, t0)",
                                  "lib.linalg.householder_product(a.detach(), t2)",
                                  "lib.linalg.householder_product(a, t2.detach())"])
def test_gradients_same_as_torch(expr):
    assert_same_with_grads(torch, expr, SETUP)


def test_float32_close_to_torch():
    results = []
    for lib in (ag, torch):
        f, tau = (eval(SETUP[k], {"lib": lib}) for k in ("f", "tf"))
        tau.requires_grad_()
        Q = lib.linalg.householder_product(f, tau)
        Q.backward(lib.ones_like(Q))
        results.append((Q.detach().numpy(), f.grad.numpy(), tau.grad.numpy(), str(Q.dtype)))
    for got, want in zip(*results):
        if isinstance(want, str):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_second_derivatives_same_as_torch():
    rng = np.random.default_rng(0)
    values, taus, u = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 3)), \
        rng.standard_normal((2, 5, 3))
    results = []
    for lib in (ag, torch):
        A = lib.tensor(values, requires_grad=True)
        tau = lib.tensor(taus, requires_grad=True)
        Q = lib.linalg.householder_product(A, tau)
        gA, gt = lib.autograd.grad((Q * lib.tensor(u)).sum(), (A, tau), create_graph=True)
        hA, ht = lib.autograd.grad((gA * gA).sum() + (gt ** 3).sum(), (A, tau))
        results.append([x.detach().numpy() for x in (gA, gt, hA, ht)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(1)
    A = ag.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    tau = ag.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    assert ag.autograd.gradcheck(ag.linalg.householder_product, (A, tau))
    assert ag.autograd.gradgradcheck(ag.linalg.householder_product, (A, tau))


def test_saved_tensors_are_torch_s():
    A = eval(SETUP["a"], {"lib": ag})
    tau = eval(SETUP["t2"], {"lib": ag})
    Q = ag.linalg.householder_product(A, tau)
    fn = Q.grad_fn
    assert fn._saved_input is A and fn._saved_tau is tau
    np.testing.assert_array_equal(fn._saved_result.detach().numpy(), Q.detach().numpy())


def test_q_of_geqrf_is_orthonormal():
    # Q from the reflectors of a QR factorization: orthonormal columns, Q^T Q = I
    rng = np.random.default_rng(2)
    Q = ag.linalg.householder_product(*ag.geqrf(ag.tensor(rng.standard_normal((5, 3)))))
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.eye(3), atol=1e-14)


# ----------------------------------------------------------------------------- geqrf

GEQRF_SETUP = {
    "a": "lib.tensor([[0.5, -1.0, 0.25], [2.0, 0.1, -0.7], [0.3, 0.8, -0.4], "
         "[1.0, -0.2, 0.6]], dtype=lib.float64, requires_grad=True)",
    "b": "lib.arange(24, dtype=lib.float32).reshape(2, 3, 4).cos() + lib.eye(3, 4)",
}

GEQRF_EXPRESSIONS = [
    "lib.geqrf(a)", "a.geqrf()", "lib.geqrf(a.t())", "lib.geqrf(a.reshape(2, 6).double())",
    "lib.geqrf(lib.zeros(0, 3))", "lib.geqrf(lib.zeros(2, 0, 3))", "lib.geqrf(lib.zeros(3, 0))",
    "lib.geqrf(lib.ones(1, 1))",
    "lib.geqrf(lib.ones(3))", "lib.geqrf(lib.tensor(1.0))", "lib.geqrf(lib.arange(6))",
    "lib.geqrf(lib.arange(6).reshape(2, 3))", "lib.geqrf(lib.ones(2, 2, dtype=lib.float16))",
    "lib.geqrf(lib.ones(2, 2, dtype=lib.bool))",
    "lib.autograd.grad(lib.geqrf(a)[0].sum(), a)",
    "lib.autograd.grad(lib.geqrf(a).tau.sum(), a)",
]


@pytest.mark.parametrize("expr", GEQRF_EXPRESSIONS)
def test_geqrf(expr):
    assert_same_as_torch(torch, expr, GEQRF_SETUP)


def test_geqrf_result_type():
    for lib in (ag, torch):
        a = lib.tensor([[3.0, 1.0], [4.0, 2.0]], requires_grad=True)
        result = lib.geqrf(a)
        assert type(result).__name__ == "geqrf" and isinstance(result, tuple)
        assert result.a is result[0] and result.tau is result[1]
        assert result.a.grad_fn is result.tau.grad_fn
        assert type(result).__module__ == "torch.return_types"


def test_geqrf_repr_matches_torch():
    """(its backward error is a GEQRF_EXPRESSIONS case)"""
    reprs = [repr(lib.geqrf(lib.tensor([[3.0, 1.0], [4.0, 2.0]], dtype=lib.float64,
                                       requires_grad=True))) for lib in (ag, torch)]
    assert reprs[0] == reprs[1]


def test_geqrf_float32_batch():
    """float32 values agree to float32 rounding (LAPACK's blocked loop sums in its order)."""
    outs = [lib.geqrf(eval(GEQRF_SETUP["b"], {"lib": lib}).requires_grad_())
            for lib in (ag, torch)]
    for ours, theirs in zip(*outs):
        assert str(ours.dtype) == str(theirs.dtype) and ours.shape == theirs.shape
        assert ours.grad_fn.name() == theirs.grad_fn.name() == "GeqrfBackward0"
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-5)
