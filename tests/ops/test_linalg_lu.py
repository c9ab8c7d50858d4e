"""The LU family compared with torch: lu_factor(_ex), lu, lu_solve, lu_unpack and the legacy
torch.lu / lu_solve: factors and pivots (the pivoting is decided by clear margins here),
P @ L @ U, info, gradients, graphs, batched / wide / tall / empty shapes, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch, assert_same_with_grads

torch = pytest.importorskip("torch")

SETUP = {
    "a": "lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], requires_grad=True)",
    "d": "lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], dtype=lib.float64, "
         "requires_grad=True)",
    "b": "lib.stack([lib.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [4.0, 0.0, 1.0]]), "
         "lib.eye(3) * 2]).requires_grad_()",
    "w": "lib.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, -1.0, 0.5, 2.0]], requires_grad=True)",
    "t": "lib.tensor([[1.0, 2.0], [5.0, -1.0], [0.5, 3.0], [2.0, 0.0]], requires_grad=True)",
    "r": "lib.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], requires_grad=True)",
    "z": "lib.zeros(3, 3)",
    "zb": "lib.stack([lib.eye(3), lib.zeros(3, 3)])",
    "s": "lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]])",
    "i": "lib.eye(3, dtype=lib.int64)",
    "h": "lib.eye(3, dtype=lib.float16)",
    "v": "lib.ones(3)",
    "e": "lib.zeros(2, 0, 0, requires_grad=True)",
    "F": "lib.linalg.lu_factor(a)",
    "Fb": "lib.linalg.lu_factor(b)",
    "piv": "lib.tensor([3, 3, 3], dtype=lib.int32)",
    # subnormal pivots: LAPACK divides by them (their reciprocal overflows to inf)
    "sub": "lib.tensor([[1e-310, 1.0], [5e-311, 2.0]], dtype=lib.float64)",
    "sub32": "lib.tensor([[1e-40, 1.0], [5e-41, 2.0]])",
}

EXPRESSIONS = [
    # lu_factor_ex / lu_factor: factors, pivots, info, nodes
    "lib.linalg.lu_factor_ex(a)", "lib.linalg.lu_factor_ex(d)", "lib.linalg.lu_factor_ex(b)",
    "lib.linalg.lu_factor_ex(w)", "lib.linalg.lu_factor_ex(t)", "lib.linalg.lu_factor(a)",
    "lib.linalg.lu_factor(b)", "lib.linalg.lu_factor(w)", "lib.linalg.lu_factor(t)",
    "lib.linalg.lu_factor_ex(z)", "lib.linalg.lu_factor_ex(zb)", "lib.linalg.lu_factor_ex(s)",
    "lib.linalg.lu_factor_ex(e)", "lib.linalg.lu_factor(e)",
    "lib.linalg.lu_factor_ex(lib.zeros(2, 3, 0))", "lib.linalg.lu_factor(lib.zeros(0, 3))",
    "lib.linalg.lu_factor_ex(a, check_errors=True)",
    "lib.linalg.lu_factor_ex(lib.tensor([[float('nan'), 1.0], [2.0, 3.0]]))",
    "lib.linalg.lu_factor_ex(lib.tensor([[1.0, 1.0], [float('nan'), 3.0]]))",
    "lib.linalg.lu_factor(sub)", "lib.linalg.lu_factor(sub32)", "lib.linalg.lu(sub)",
    "lib.linalg.lu(sub32)", "lib.linalg.lu_solve(*lib.linalg.lu_factor(sub), lib.ones_like(sub))",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(sub32), lib.ones_like(sub32))",
    # errors: singular with checks, pivot=False, dtypes, dims
    "lib.linalg.lu_factor(z)", "lib.linalg.lu_factor(zb)", "lib.linalg.lu_factor(s)",
    "lib.linalg.lu_factor_ex(zb, check_errors=True)", "lib.linalg.lu_factor(a, pivot=False)",
    "lib.linalg.lu_factor_ex(a, pivot=False)", "lib.linalg.lu(a, pivot=False)",
    "lib.linalg.lu_factor(i)", "lib.linalg.lu_factor(i, pivot=False)", "lib.linalg.lu(i)",
    "lib.linalg.lu_factor_ex(i)", "lib.linalg.lu_factor(h)", "lib.linalg.lu(h)",
    "lib.linalg.lu(lib.ones(2, 2, dtype=lib.bool))", "lib.linalg.lu_factor(v)",
    "lib.linalg.lu_factor_ex(v)", "lib.linalg.lu(v)", "lib.linalg.lu(v, pivot=False)",
    "lib.linalg.lu_factor(lib.ones(3, dtype=lib.int64))",
    # lu
    "lib.linalg.lu(a)", "lib.linalg.lu(d)", "lib.linalg.lu(b)", "lib.linalg.lu(w)",
    "lib.linalg.lu(t)", "lib.linalg.lu(z)", "lib.linalg.lu(s)", "lib.linalg.lu(e)",
    "lib.linalg.lu(lib.zeros(0, 3))", "lib.linalg.lu(lib.zeros(2, 0, 3))",
    "lib.linalg.lu(lib.zeros(0, 0), pivot=False)",
    # lu_unpack
    "lib.lu_unpack(*F)", "lib.lu_unpack(*Fb)", "lib.lu_unpack(*lib.linalg.lu_factor(w))",
    "lib.lu_unpack(*lib.linalg.lu_factor(t))", "lib.lu_unpack(*F, unpack_data=False)",
    "lib.lu_unpack(*F, unpack_pivots=False)", "lib.lu_unpack(F.LU, F.pivots.long())",
    "lib.lu_unpack(F.LU, F.pivots.long(), unpack_pivots=False)",
    "lib.lu_unpack(F.LU, lib.tensor([5, 1, 1], dtype=lib.int32))",
    "lib.lu_unpack(F.LU, lib.tensor([0, 1, 1], dtype=lib.int32))",
    "lib.lu_unpack(F.LU, lib.tensor(1, dtype=lib.int32))",
    "lib.lu_unpack(v, piv)", "lib.lu_unpack(i, piv)", "lib.lu_unpack(F.LU.detach(), piv)",
    # (an LU batch over one set of pivots: torch reads past the pivots, so no case here)
    "lib.lu_unpack(lib.tensor([[2.0, 1, 1], [0.5, 3, 1]]), lib.tensor([2, 2], dtype=lib.int32))",
    # lu_solve
    "lib.linalg.lu_solve(*F, r)", "lib.linalg.lu_solve(*F, r, adjoint=True)",
    "lib.linalg.lu_solve(*F, r.mT, left=False)",
    "lib.linalg.lu_solve(*F, r.mT, left=False, adjoint=True)", "lib.linalg.lu_solve(*Fb, r)",
    "lib.linalg.lu_solve(*F, lib.ones(4, 3, 2))", "lib.linalg.lu_solve(*Fb, lib.ones(3, 3, 2))",
    "lib.linalg.lu_solve(z, lib.tensor([1, 2, 3], dtype=lib.int32), lib.ones(3, 2))",
    "lib.linalg.lu_solve(lib.zeros(0, 0), lib.zeros(0, dtype=lib.int32), lib.zeros(0, 2))",
    "lib.linalg.lu_solve(*F, v)", "lib.linalg.lu_solve(*F, lib.ones(2, 2))",
    "lib.linalg.lu_solve(*F, lib.ones(2, 2), left=False)",
    "lib.linalg.lu_solve(*F, lib.ones(3, 2, dtype=lib.int64))",
    "lib.linalg.lu_solve(*F, r.double())", "lib.linalg.lu_solve(F.LU, F.pivots.long(), r)",
    "lib.linalg.lu_solve(F.LU, F.pivots[:2], r)",
    "lib.linalg.lu_solve(lib.ones(2, 3), piv, r)", "lib.linalg.lu_solve(v, piv, r)",
    "lib.linalg.lu_solve(i, piv, lib.ones(3, 2, dtype=lib.int64))",
    "lib.linalg.lu_solve(i, piv.long(), i)", "lib.linalg.lu_solve(v, piv.long(), r)",
    "lib.linalg.lu_solve(lib.ones(2, 3), piv, r.double())",
    "lib.linalg.lu_solve(F.LU, F.pivots.long(), r.double())",
    "lib.linalg.lu_solve(lib.ones(2, 3), piv, v)",
    "lib.linalg.lu_solve(F.LU, F.pivots.expand(2, 3), r)",
    "lib.linalg.lu_solve(*Fb, lib.ones(4, 3, 2))",
    "lib.linalg.lu_solve(F.LU.half(), piv, r.half())",
    "lib.linalg.lu_solve(F.LU.half(), piv, v.half())",
    # legacy torch.lu / Tensor.lu / torch.lu_solve / Tensor.lu_solve
    "lib.lu(a)", "a.lu()", "lib.lu(b, get_infos=True)", "lib.lu(z)", "lib.lu(v)",
    "lib.lu(i)", "lib.lu(a, pivot=False)", "lib.lu_solve(r, *F)", "r.lu_solve(*F)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_lu_matches_torch(expr):
    # (a float32 solve's exact zeros come out as -2.4e-7 in torch and -3.6e-7 in LAPACK)
    assert_same_as_torch(torch, expr, SETUP, ulps=4)


GRADIENTS = [
    "lib.linalg.lu_factor(a).LU", "lib.linalg.lu_factor(b).LU",
    "lib.linalg.lu_factor(w).LU", "lib.linalg.lu_factor(t).LU",
    "lib.linalg.lu(a).L", "lib.linalg.lu(a).U", "lib.linalg.lu(b).L", "lib.linalg.lu(w).U",
    "lib.linalg.lu(w).L", "lib.linalg.lu(t).L", "lib.linalg.lu(t).U",
    "lib.lu_unpack(*F).L", "lib.lu_unpack(*F).U", "lib.lu_unpack(*lib.linalg.lu_factor(t)).L",
    "lib.lu_unpack(*lib.linalg.lu_factor(w)).U",
    "lib.linalg.lu_solve(*F, r)", "lib.linalg.lu_solve(*F, r, adjoint=True)",
    "lib.linalg.lu_solve(*F, r.mT, left=False)",
    "lib.linalg.lu_solve(*F, r.mT, left=False, adjoint=True)",
    "lib.linalg.lu_solve(*Fb, r)", "lib.linalg.lu_solve(*F, r.expand(2, 3, 2))",
    "lib.linalg.lu_solve(F.LU, F.pivots, lib.ones(3, 2))",
    "lib.linalg.lu_solve(*lib.linalg.lu_factor(a.detach()), r)",
]


# float64 leaves: float32 factors round differently from LAPACK's in the last bits
GRAD_SETUP = {
    "a": "lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], dtype=lib.float64, "
         "requires_grad=True)",
    "b": "lib.stack([lib.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [4.0, 0.0, 1.0]]), "
         "lib.eye(3) * 2]).double().requires_grad_()",
    "w": "lib.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, -1.0, 0.5, 2.0]], dtype=lib.float64, "
         "requires_grad=True)",
    "t": "lib.tensor([[1.0, 2.0], [5.0, -1.0], [0.5, 3.0], [2.0, 0.0]], dtype=lib.float64, "
         "requires_grad=True)",
    "r": "lib.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], dtype=lib.float64, "
         "requires_grad=True)",
    "F": SETUP["F"],
    "Fb": SETUP["Fb"],
}


@pytest.mark.parametrize("expr", GRADIENTS)
def test_lu_gradients_match_torch(expr):
    assert_same_with_grads(torch, expr, GRAD_SETUP)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (2, 3, 5, 5), (2, 5, 3)])
def test_p_l_u_reconstructs_a(shape):
    data = np.random.default_rng(3).standard_normal(shape)
    P, L, U = ag.linalg.lu(ag.tensor(data))
    np.testing.assert_allclose((P @ L @ U).numpy(), data, atol=1e-12)
    want = torch.linalg.lu(torch.tensor(data))
    for got, ref in zip((P, L, U), want):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=1e-12)
    LU, pivots = ag.linalg.lu_factor(ag.tensor(data))
    np.testing.assert_array_equal(pivots.numpy(), torch.linalg.lu_factor(
        torch.tensor(data)).pivots.numpy())


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_a_rank_one_matrix_factors_into_itself(dtype):
    """After the first step every candidate pivot is rounding noise (1/3 * 6 - 2), so torch's
    MKL and NumPy's LAPACK may pick different rows: only what partial pivoting defines is
    compared (P @ L @ U = A, L unit lower triangular with |L| <= 1, the first pivot)."""
    data = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])
    P, L, U = ag.linalg.lu(ag.tensor(data, dtype=dtype))
    np.testing.assert_allclose((P @ L @ U).numpy(), data, atol=1e-5)
    np.testing.assert_array_equal(np.diag(L.numpy()), 1.0)
    assert np.all(np.abs(L.numpy()) <= 1.0) and np.all(np.triu(L.numpy(), 1) == 0)
    LU, pivots, info = ag.linalg.lu_factor_ex(ag.tensor(data, dtype=dtype))
    want = torch.linalg.lu_factor_ex(torch.tensor(data)).pivots
    assert pivots[0].item() == want[0].item() == 3


def test_lu_solve_solves():
    A = np.random.default_rng(4).standard_normal((2, 4, 4)) + 4 * np.eye(4)
    B = np.random.default_rng(5).standard_normal((2, 4, 3))
    LU, pivots = ag.linalg.lu_factor(ag.tensor(A))
    X = ag.linalg.lu_solve(LU, pivots, ag.tensor(B))
    np.testing.assert_allclose(A @ X.numpy(), B, atol=1e-12)
    Xt = ag.linalg.lu_solve(LU, pivots, ag.tensor(B), adjoint=True)
    np.testing.assert_allclose(A.swapaxes(-1, -2) @ Xt.numpy(), B, atol=1e-12)


def test_lu_gradients_of_gradients_are_torchs():
    """create_graph through LinalgLuSolveBackward0 and LinalgLuFactorExBackward0."""
    grads = []
    for lib in (ag, torch):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]], dtype=lib.float64,
                       requires_grad=True)
        b = lib.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], dtype=lib.float64,
                       requires_grad=True)
        x = lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b)
        ga, gb = lib.autograd.grad((x * x).sum(), (a, b), create_graph=True)
        grads.append([g.detach().numpy() for g in
                      lib.autograd.grad((ga.sin().sum() + (gb * gb).sum()), (a, b))])
    for got, want in zip(*grads):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_lu_graph_names():
    from tests.torch_parity import graph_names
    for lib_graphs in ("lib.linalg.lu_solve(*lib.linalg.lu_factor(a), r)",
                       "lib.lu_unpack(*lib.linalg.lu_factor(a)).L"):
        names = [graph_names(eval(lib_graphs, {"lib": lib, "a": lib.ones(3, 3).tril()
                                                .requires_grad_(), "r": lib.ones(3, 1)}))
                 for lib in (ag, torch)]
        assert names[0] == names[1]


def test_a_subnormal_pivot_of_a_3x3_is_divided_by():
    # A README difference: reference LAPACK divides (finite multipliers); torch's CPU build
    # multiplies 3x3 and larger square matrices by the reciprocal and gets inf.
    a = [[1e-310, 1.0, 2.0], [5e-311, 2.0, 1.0], [7e-311, 1.0, 5.0]]
    lu, pivots = ag.linalg.lu_factor(ag.tensor(a, dtype=ag.float64))
    assert pivots.tolist() == [1, 2, 3]
    np.testing.assert_allclose(lu.numpy()[1:, 0], [0.5, 0.7])
    assert np.isfinite(lu.numpy()).all()
    theirs = torch.linalg.lu_factor(torch.tensor(a, dtype=torch.float64))[0].numpy()
    assert not np.isfinite(theirs[1:, 0]).any()   # the difference the README states
