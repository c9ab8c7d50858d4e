"""Cases for agdebug/ops/linalg/decompositions.py (see harness.py for the format).

Decompositions whose outputs are defined up to a sign (eigh, svd, qr) are checked through
functions of them that are not (products, absolute values), as torch's own gradcheck
tests do; inputs keep eigenvalues and singular values well apart, where the derivatives are
defined. Symmetric-input functions (cholesky, eigh) read one triangle only: their cases
symmetrize the input first, as torch's tests do, so central differences see torch's
(symmetric) gradient.
"""

from __future__ import annotations

import numpy as np

from .harness import Case

rng = np.random.default_rng(11)
SQ = rng.standard_normal((3, 3)) + 3 * np.eye(3)          # well-conditioned
BSQ = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
RHS = rng.standard_normal((3, 2))
VEC = rng.standard_normal(3)
NEGDET = SQ[[1, 0, 2]]                                      # a row swap: det < 0

CASES = [
    Case("linalg_inv_ex", lambda t, a: t.linalg.inv(a), [SQ], grad_fn="LinalgInvExBackward0"),
    Case("linalg_inv_ex", lambda t, a: t.linalg.inv_ex(a).inverse, [BSQ], id="inv_ex_batched"),
    Case("linalg_inv_ex", lambda t, a: a.inverse() @ a.inverse(), [SQ], id="inverse_squared"),
    Case("linalg_det", lambda t, a: t.linalg.det(a), [SQ], grad_fn="LinalgDetBackward0"),
    Case("linalg_det", lambda t, a: a.det(), [BSQ], id="det_batched"),
    Case("linalg_det", lambda t, a: t.det(a), [NEGDET], id="det_negative"),
    Case("linalg_slogdet", lambda t, a: t.linalg.slogdet(a), [NEGDET],
         grad_fn="LinalgSlogdetBackward0"),
    Case("linalg_slogdet", lambda t, a: t.slogdet(a)[1], [BSQ], id="slogdet_batched"),
    Case("linalg_slogdet", lambda t, a: t.logdet(a), [SQ], grad_fn="WhereBackward0",
         id="logdet"),
    Case("linalg_solve_ex", lambda t, a, b: t.linalg.solve(a, b), [SQ, RHS],
         grad_fn="LinalgSolveExBackward0"),
    Case("linalg_solve_ex", lambda t, a, b: t.linalg.solve(a, b), [BSQ, VEC],
         id="solve_batched_vector"),
    Case("linalg_solve_ex", lambda t, a, b: t.linalg.solve(a, b.mT, left=False), [SQ, RHS],
         id="solve_right"),
    Case("linalg_solve_ex", lambda t, a, b: t.linalg.solve_ex(a, b).result, [BSQ, RHS],
         id="solve_ex_broadcast"),
    Case("linalg_solve_triangular",
         lambda t, a, b: t.linalg.solve_triangular(a, b, upper=True), [SQ, RHS],
         grad_fn="LinalgSolveTriangularBackward0"),
    Case("linalg_solve_triangular",
         lambda t, a, b: t.linalg.solve_triangular(a, b.mT, upper=False, left=False), [BSQ, RHS],
         id="solve_triangular_lower_right"),
    Case("linalg_solve_triangular",
         lambda t, a, b: t.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
         [SQ, RHS], id="solve_triangular_unit"),
    Case("mm", lambda t, a: t.linalg.matrix_power(a, 5), [SQ / 3], id="matrix_power_5"),
    Case("mm", lambda t, a: a.matrix_power(-2), [SQ], id="matrix_power_negative"),
]

# ----------------------------------------------------------------------------- cholesky, qr, eigh
TALL = rng.standard_normal((4, 3))
WIDE = rng.standard_normal((2, 4))
SYM = np.diag([1.0, 3.0, 6.0]) + 0.3 * rng.standard_normal((3, 3))   # eigenvalues well apart
SYM = (SYM + SYM.T) / 2
LOW = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3)


def spd(t, a):
    """A symmetric positive-definite matrix from any square ``a`` (both triangles used)."""
    return a @ a.mT + 3 * t.eye(a.shape[-1], dtype=a.dtype)


def sym(a):
    return (a + a.mT) / 2


def gauge_free_qr(q, r):
    """Q and R up to the signs of their columns/rows: products that do not see them."""
    return q @ r, (q * q) @ r.abs()


CASES += [
    Case("linalg_cholesky_ex", lambda t, a: t.linalg.cholesky(spd(t, a)), [SQ],
         grad_fn="LinalgCholeskyExBackward0"),
    Case("linalg_cholesky_ex", lambda t, a: t.linalg.cholesky_ex(spd(t, a), upper=True).L,
         [BSQ], id="cholesky_upper_batched"),
    Case("cholesky_solve", lambda t, b, low: t.cholesky_solve(b, low.tril()), [RHS, LOW],
         grad_fn="CholeskySolveBackward0"),
    Case("cholesky_solve", lambda t, b, up: t.cholesky_solve(b, up.mT.triu(), upper=True),
         [RHS, LOW], id="cholesky_solve_upper"),
    Case("cholesky_inverse", lambda t, low: t.cholesky_inverse(low.tril()), [LOW],
         grad_fn="CholeskyInverseBackward0"),
    Case("cholesky_inverse", lambda t, up: t.cholesky_inverse(up.mT.triu(), upper=True), [LOW],
         id="cholesky_inverse_upper"),
    Case("linalg_qr", lambda t, a: gauge_free_qr(*t.linalg.qr(a)), [TALL],
         grad_fn="MmBackward0"),
    Case("linalg_qr", lambda t, a: t.linalg.qr(a), [SQ], id="qr_square_outputs"),
    Case("linalg_qr", lambda t, a: gauge_free_qr(*t.linalg.qr(a, mode="complete")), [WIDE],
         id="qr_complete_wide"),
    Case("linalg_qr", lambda t, a: t.linalg.qr(a).R.abs(), [BSQ], id="qr_r_only"),
    Case("linalg_eigh", lambda t, a: t.linalg.eigvalsh(sym(a)), [SYM],
         grad_fn="LinalgEighBackward0"),
    Case("linalg_eigh", lambda t, a: t.linalg.eigh(sym(a)).eigenvectors.abs(), [SYM],
         id="eigh_vectors_abs"),
    Case("linalg_eigh", lambda t, a: (lambda L, V: (L, V @ V.mT * 2 + (V * V)))(
        *t.linalg.eigh(sym(a), UPLO="U")), [SYM], id="eigh_upper_both"),
]

# ----------------------------------------------------------------------------- svd, pinv
# Singular values well apart (3, 1.5, 0.5 times orthogonal factors).
_U, _ = np.linalg.qr(rng.standard_normal((4, 3)))
_V, _ = np.linalg.qr(rng.standard_normal((3, 3)))
SVD_TALL = _U @ np.diag([3.0, 1.5, 0.5]) @ _V.T
SVD_WIDE = SVD_TALL.T.copy()


def gauge_free_svd(u, s, vh):
    """U diag(S) Vh and |U|, |Vh|: what does not depend on the singular vectors' signs."""
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    return (u * s.unsqueeze(-2)) @ vh, u.abs(), vh.abs()


CASES += [
    Case("linalg_svd", lambda t, a: gauge_free_svd(*t.linalg.svd(a, full_matrices=False)),
         [SVD_TALL], grad_fn="MmBackward0"),
    Case("linalg_svd", lambda t, a: gauge_free_svd(*t.linalg.svd(a)), [SVD_WIDE],
         id="svd_full_wide"),
    Case("linalg_svd", lambda t, a: t.linalg.svdvals(a), [SVD_TALL], grad_fn="LinalgSvdBackward0",
         id="svdvals"),
    Case("linalg_svd", lambda t, a: t.linalg.matrix_norm(a, "nuc"), [SVD_WIDE], id="norm_nuc"),
    Case("linalg_svd", lambda t, a: t.linalg.matrix_norm(a, -2, dim=(0, 1), keepdim=True),
         [SVD_TALL], id="norm_minus_2"),
    Case("linalg_svd", lambda t, a: t.svd(a)[2].abs(), [SVD_TALL], id="torch_svd_v"),
    Case("linalg_pinv", lambda t, a: t.linalg.pinv(a), [SVD_TALL], grad_fn="LinalgPinvBackward0"),
    Case("linalg_pinv", lambda t, a: t.linalg.pinv(a), [SVD_WIDE], id="pinv_wide"),
]
