"""torch.linalg's matrix functions and decompositions compared with torch: values, dtypes,
graphs (grad_fn names), batched and empty inputs, and errors (see tests/torch_parity.py).
Decompositions defined up to signs are compared through sign-free expressions."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {
    "a": "lib.tensor([[4.0, 1.0, 2.0], [0.5, 3.0, -1.0], [1.0, 0.0, 5.0]], requires_grad=True)",
    "d": "lib.tensor([[4.0, 1.0, 2.0], [0.5, 3.0, -1.0], [1.0, 0.0, 5.0]], "
         "dtype=lib.float64, requires_grad=True)",
    "b": "lib.stack([lib.eye(3) * 2, lib.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], "
         "[4.0, 0.0, 1.0]])]).requires_grad_()",
    "spd": "(lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])).requires_grad_()",
    "r": "lib.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], requires_grad=True)",
    "v": "lib.tensor([1.0, -2.0, 0.5], requires_grad=True)",
    "z": "lib.zeros(3, 3)",
    "zb": "lib.stack([lib.eye(3), lib.zeros(3, 3)])",
    "i": "lib.eye(3, dtype=lib.int64)",
    "h": "lib.eye(3, dtype=lib.float16)",
    "e": "lib.zeros(0, 3, 3, requires_grad=True)",
    "w": "lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
}

EXPRESSIONS = [
    # inv / inv_ex / inverse
    "lib.linalg.inv(a)", "lib.linalg.inv(d)", "lib.linalg.inv(b)", "a.inverse()",
    "lib.inverse(b)", "lib.linalg.inv(e)", "lib.linalg.inv_ex(a)", "lib.linalg.inv_ex(z).info",
    "lib.linalg.inv_ex(zb).info", "lib.linalg.inv(z)", "lib.linalg.inv(zb)", "lib.linalg.inv(r)",
    "lib.linalg.inv(i)", "lib.linalg.inv(h)", "lib.linalg.inv(v)",
    "lib.linalg.inv_ex(z, check_errors=True)", "lib.linalg.inv(lib.zeros(1, 3, 3))",
    # det / slogdet / logdet
    "lib.linalg.det(a)", "lib.linalg.det(d)", "b.det()", "lib.det(z)", "lib.linalg.det(e)",
    "lib.linalg.det(r)", "lib.linalg.det(i)", "lib.linalg.det(h)", "lib.linalg.det(v)",
    "lib.linalg.slogdet(a)", "lib.slogdet(b)", "lib.linalg.slogdet(z)", "a.slogdet()",
    "lib.linalg.slogdet(-d)", "lib.linalg.slogdet(r)", "lib.linalg.slogdet(i)",
    "lib.linalg.slogdet(h)", "lib.logdet(a)", "lib.logdet(-a)", "b.logdet()", "lib.logdet(r)",
    "lib.logdet(i)", "lib.linalg.slogdet(e)",
    # solve / solve_ex / solve_triangular
    "lib.linalg.solve(a, v)", "lib.linalg.solve(a, r)", "lib.linalg.solve(b, v)",
    "lib.linalg.solve(b, r)", "lib.linalg.solve(b, lib.ones(2, 3))",
    "lib.linalg.solve(a, r.mT, left=False)", "lib.linalg.solve(d, r.double())",
    "lib.linalg.solve_ex(a, r)", "lib.linalg.solve_ex(z, v).info",
    "lib.linalg.solve(z, v)", "lib.linalg.solve(zb, lib.ones(2, 3))",
    "lib.linalg.solve(a, lib.ones(2))", "lib.linalg.solve(a, v, left=False)",
    "lib.linalg.solve(r, v)", "lib.linalg.solve(i, i)", "lib.linalg.solve(a, d)",
    "lib.linalg.solve(h, h)", "lib.linalg.solve(e, lib.zeros(0, 3))",
    # batches that do not broadcast: torch's error, B's batch named first
    "lib.linalg.solve(lib.eye(3).expand(2, 3, 3) + 0, lib.ones(4, 3, 1))",
    "lib.linalg.solve(lib.eye(3).expand(2, 3, 3) + 0, lib.ones(4, 1, 3, 1), left=False)",
    "lib.linalg.solve(lib.eye(3).expand(2, 3, 3) + 0, lib.ones(5, 4, 1, 3, 1))",
    "lib.linalg.solve(lib.eye(3).expand(2, 3, 3) + 0, lib.ones(4, 3))",
    "lib.linalg.solve_triangular(a, r, upper=True)",
    "lib.linalg.solve_triangular(b, r, upper=False)",
    "lib.linalg.solve_triangular(a, r.mT, upper=True, left=False)",
    "lib.linalg.solve_triangular(a, r, upper=False, unitriangular=True)",
    "lib.linalg.solve_triangular(r, r, upper=True)",
    "lib.linalg.solve_triangular(i, i, upper=True)",
    # matrix_power
    "lib.linalg.matrix_power(a, 0)", "lib.linalg.matrix_power(a, 1)",
    "lib.linalg.matrix_power(a, 2)", "lib.linalg.matrix_power(a, 3)",
    "lib.linalg.matrix_power(b, 6)", "a.matrix_power(-1)", "lib.matrix_power(a, -3)",
    "lib.linalg.matrix_power(i, 3)", "lib.linalg.matrix_power(i, -1)",
    "lib.linalg.matrix_power(r, 2)", "lib.linalg.matrix_power(v, 2)",
    "lib.linalg.matrix_power(z, -1)", "lib.linalg.matrix_power(e, 2)",
    # cholesky / cholesky_ex / cholesky_solve / cholesky_inverse
    "lib.linalg.cholesky(spd)", "lib.linalg.cholesky(spd, upper=True)",
    "lib.linalg.cholesky(spd.double())", "lib.linalg.cholesky_ex(spd)",
    "lib.linalg.cholesky(-spd)", "lib.linalg.cholesky(zb)", "lib.linalg.cholesky_ex(-spd).info",
    "lib.linalg.cholesky_ex(-spd, check_errors=True)", "lib.linalg.cholesky(r)",
    "lib.linalg.cholesky(i)", "lib.linalg.cholesky(h)", "lib.linalg.cholesky(v)",
    "lib.linalg.cholesky(e)", "lib.linalg.cholesky(spd - 3.5 * lib.eye(3))",
    # (float64: float32's rounding differs from LAPACK's potrs in the last digit)
    "lib.cholesky_solve(r.double(), lib.linalg.cholesky(spd.double()))",
    "lib.cholesky_solve(r.double(), lib.linalg.cholesky(spd.double(), upper=True), upper=True)",
    "r.double().cholesky_solve(lib.linalg.cholesky(spd.double()))", "lib.cholesky_solve(v, spd)",
    "lib.cholesky_solve(lib.ones(2, 2), spd)", "lib.cholesky_solve(i, i)",
    "lib.cholesky_inverse(lib.linalg.cholesky(spd))",
    "lib.cholesky_inverse(lib.linalg.cholesky(spd, upper=True), upper=True)",
    "lib.cholesky_inverse(r)", "lib.cholesky_inverse(i)", "lib.cholesky_inverse(v)",
    # qr (reduced / complete / r)
    "lib.linalg.qr(a)", "lib.linalg.qr(r)", "lib.linalg.qr(r, mode='complete')",
    "lib.linalg.qr(r, mode='r')", "lib.linalg.qr(w)", "lib.linalg.qr(b)",
    "lib.linalg.qr(d)", "lib.linalg.qr(r, mode='x')", "lib.linalg.qr(i)", "lib.linalg.qr(v)",
    "lib.linalg.qr(h)", "lib.linalg.qr(e)",
    # eigh / eigvalsh
    "lib.linalg.eigvalsh(spd)", "lib.linalg.eigvalsh(spd, UPLO='U')",
    "lib.linalg.eigh(spd).eigenvalues", "lib.linalg.eigh(spd.double()).eigenvectors.abs()",
    "lib.linalg.eigvalsh(b)", "lib.linalg.eigvalsh(spd.double())", "lib.linalg.eigh(spd, 'X')",
    "lib.linalg.eigh(r)", "lib.linalg.eigh(i)", "lib.linalg.eigh(h)", "lib.linalg.eigh(v)",
    "lib.linalg.eigvalsh(e)",
    # svd / svdvals / torch.svd / pinv / matrix_rank / SVD-based norms (float64: no rounding)
    "lib.linalg.svdvals(d)", "lib.linalg.svdvals(r.double())", "lib.linalg.svdvals(b.double())",
    "lib.linalg.svd(d).S", "lib.linalg.svd(r.double(), full_matrices=False).U.abs()",
    "lib.linalg.svd(r.double()).U.abs()", "lib.linalg.svd(w.double()).Vh.abs()",
    "lib.svd(r.double()).V.abs()", "lib.svd(r.double(), some=False).U.abs()",
    "lib.svd(r.double(), compute_uv=False)", "lib.linalg.svd(i)", "lib.linalg.svd(h)",
    "lib.linalg.svd(v)", "lib.linalg.svdvals(i)",
    "lib.linalg.pinv(d)", "lib.linalg.pinv(r.double())", "lib.linalg.pinv(w.double())",
    "lib.linalg.pinv(b.double())", "lib.linalg.pinv(z.double())", "r.double().pinverse()",
    "lib.linalg.pinv(d, atol=0.5)", "lib.linalg.pinv(i)", "lib.linalg.pinv(v)",
    "lib.linalg.matrix_rank(a)", "lib.linalg.matrix_rank(zb)", "lib.linalg.matrix_rank(w)",
    "lib.linalg.matrix_rank(a, atol=3.0)", "lib.linalg.matrix_rank(i)",
    "lib.linalg.matrix_rank(v)",
    "lib.linalg.matrix_norm(d, 'nuc')", "lib.linalg.matrix_norm(d, 2)",
    "lib.linalg.matrix_norm(d, -2)", "lib.linalg.matrix_norm(b.double(), 2, keepdim=True)",
    "lib.linalg.matrix_norm(b.double(), 'nuc', dim=(0, 2))",
    "lib.linalg.matrix_norm(b.double(), -2, dim=(2, 0), keepdim=True)",
    "lib.linalg.norm(d, 2)", "lib.linalg.norm(d, 'nuc')", "lib.linalg.norm(b.double(), -2, (1, 2))",
    "lib.linalg.matrix_norm(i, 2)", "lib.linalg.matrix_norm(a, 2, dtype=lib.float64)",
]

BACKWARD_ERRORS = [
    "lib.linalg.qr(r, mode='r').R.sum().backward()",
    "lib.linalg.qr(r, mode='complete').Q.sum().backward()",
]


@pytest.mark.parametrize("expr", BACKWARD_ERRORS)
def test_backward_errors(expr):
    assert_same_as_torch(torch, expr, SETUP)


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_singular_error_is_a_linalg_error():
    import agdebug as ag
    with pytest.raises(ag.linalg.LinAlgError) as info:
        ag.linalg.inv(ag.zeros(2, 2))
    assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("expr, saved", [
    ("lib.linalg.qr(A).Q", ("Q", "R")), ("lib.linalg.eigh(A).eigenvalues",
                                         ("eigenvalues", "eigenvectors")),
    ("lib.linalg.svd(A).S", ("U", "S", "Vh"))])
def test_decompositions_save_their_outputs_under_torchs_names(expr, saved):
    """Each output a derivative reads is saved as an output, read as torch names it."""
    got = []
    for lib in (ag, torch):
        A = lib.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=lib.float64, requires_grad=True)
        node = eval(expr, {"lib": lib, "A": A}).grad_fn
        got.append([getattr(node, f"_saved_{name}").detach().numpy() for name in saved])
    for mine, theirs in zip(*got):
        np.testing.assert_allclose(abs(mine), abs(theirs), rtol=1e-10)   # up to sign
