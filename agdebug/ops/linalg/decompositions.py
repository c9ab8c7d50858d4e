"""Matrix functions and decompositions: inv, det, slogdet, solve, cholesky, qr, eigh, svd.

Forwards call the array module's LAPACK wrappers (``numpy.linalg`` or ``cupy.linalg``) on
real floating matrices. Each derivative is torch's (``FunctionsManual.cpp``) written with
agdebug ops, so it is itself differentiable and ``create_graph=True`` works. A failed
factorization reports LAPACK's ``info`` per matrix (the first zero pivot, the first leading
minor that is not positive-definite), which the public functions turn into torch's errors.
"""

from __future__ import annotations

import numpy as np

from ..core.registry import defop
from ..core.gradients import needs

_LinAlgFailure = np.linalg.LinAlgError


# ----------------------------------------------------------------------------- LAPACK's info

def lu_factor_arrays(xp, A):
    """``(LU, pivots, info)`` of each matrix in ``A`` by partial pivoting (getrf): the packed
    factors, 1-based int32 row swaps and, per matrix, 0 or the 1-based index of the first
    zero pivot (see :mod:`agdebug.ops.linalg.lu`)."""
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    lu = xp.array(A.reshape((int(np.prod(batch)), m, n)), copy=True)
    count = lu.shape[0]
    rows = xp.arange(count)
    pivots = xp.zeros((count, k), dtype=np.int32)
    info = xp.zeros(count, dtype=np.int32)
    for j in range(k):
        p = j + _pivot_row(xp, lu[:, j:, j])
        pivots[:, j] = p + 1
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = top
        pivot = lu[:, j, j]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype(np.int32)
        lu[:, j + 1:, j] = _scaled_column(xp, lu[:, j + 1:, j], xp.where(zero, 1, pivot))
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, None, j, j + 1:]
    return lu.reshape(A.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def _scaled_column(xp, column, pivot):
    """getrf's multipliers ``column / pivot``: times the reciprocal where ``|pivot|`` is at
    least the smallest normal number (LAPACK's ``sfmin``), divided otherwise (the reciprocal
    of a subnormal pivot overflows to inf). This is reference LAPACK's dgetf2, and what
    torch's CPU build does for 2x2 and non-square matrices; for square ones from 3x3 up its
    blocked getrf multiplies by the reciprocal anyway and gives inf (see the README)."""
    small = ~(xp.abs(pivot) >= np.finfo(column.dtype).tiny)[:, None]   # NaN divides too
    return xp.where(small, column / pivot[:, None], column * (1 / pivot)[:, None])


def _pivot_row(xp, column):
    """BLAS's idamax per row: the first largest |x|; a NaN wins only in first place (each
    later one compares false against the running maximum)."""
    size = xp.abs(column)
    best = xp.argmax(xp.where(xp.isnan(size), -1, size), axis=1)
    return xp.where(xp.isnan(size[:, 0]), 0, best) if column.shape[1] else best


def cholesky_info(xp, a):
    """potrf's ``info`` per matrix: 0, or the order of the first leading minor that is not
    positive-definite (its pivot is not > 0, NaN included). Reads the lower triangle."""
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    low = xp.zeros_like(flat)
    info = xp.zeros(flat.shape[0], dtype=np.int32)
    for k in range(n):
        d = flat[:, k, k] - (low[:, k, :k] ** 2).sum(-1)
        bad = ~(d > 0)
        info = xp.where((info == 0) & bad, k + 1, info).astype(np.int32)
        root = xp.sqrt(xp.where(bad, 1, d))
        low[:, k, k] = root
        below = flat[:, k + 1:, k] - xp.einsum("bij,bj->bi", low[:, k + 1:, :k], low[:, k, :k])
        low[:, k + 1:, k] = below / root[:, None]
    return info.reshape(a.shape[:-2])


def _eye_where(xp, a, bad):
    """``a`` with the matrices flagged in ``bad`` replaced by the identity (so a batched
    LAPACK call succeeds for the others)."""
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return xp.where(bad[..., None, None], eye, a)


def _nan_where(xp, out, bad):
    return xp.where(bad[..., None, None], xp.nan, out).astype(out.dtype, copy=False)


# ----------------------------------------------------------------------------- inverse, det

@defop("linalg_inv_ex", node="LinalgInvExBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("inverse=result",))   # torch's _saved_inverse
def linalg_inv_ex_op(xp, A):
    info = xp.zeros(A.shape[:-2], dtype=np.int32)
    try:
        inverse = xp.linalg.inv(A)
        if xp is np or bool(xp.isfinite(inverse).all()):
            return inverse, info
    except _LinAlgFailure:
        pass
    info = lu_factor_arrays(xp, A)[2]   # getrf's, run only once a solve failed
    bad = info > 0
    return _nan_where(xp, xp.linalg.inv(_eye_where(xp, A, bad)), bad), info


@linalg_inv_ex_op.vjp
def linalg_inv_ex_vjp(ctx, grad):
    inverse_t = ctx.inverse.mT
    return (-(inverse_t @ (grad @ inverse_t)),)


def inverse_of(A):
    """``A``'s inverse as a differentiable tensor (derivatives use it for ``A^{-1}``)."""
    return linalg_inv_ex_op(A)[0]


@defop("linalg_det", node="LinalgDetBackward0", saves=("A", "result"))
def linalg_det_op(xp, A):
    return xp.asarray(xp.linalg.det(A))


@linalg_det_op.vjp
def linalg_det_vjp(ctx, grad):
    # d det(A) = det(A) tr(A^{-1} dA): the gradient is det * grad * A^{-T}
    scale = (grad * ctx.result).unsqueeze(-1).unsqueeze(-1)
    return (scale * inverse_of(ctx.A).mT,)


@defop("linalg_slogdet", node="LinalgSlogdetBackward0", outputs=2, saves=("A",))
def linalg_slogdet_op(xp, A):
    sign, logabsdet = xp.linalg.slogdet(A)
    return xp.asarray(sign), xp.asarray(logabsdet)


@linalg_slogdet_op.vjp
def linalg_slogdet_vjp(ctx, grad_sign, grad_logabsdet):
    if grad_logabsdet is None:   # a real sign is piecewise constant: no gradient
        return (None,)
    return (grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * inverse_of(ctx.A).mT,)


# ----------------------------------------------------------------------------- solve

def is_vector_rhs(a_shape: tuple, b_shape: tuple) -> bool:
    """torch's ``linalg_solve_is_vector_rhs``: B is a (batch of) vector(s), not matrices."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and
                                 tuple(b_shape) == tuple(a_shape[:-1]))


def _solve(xp, A, B, left: bool):
    if not left:
        return xp.swapaxes(_solve(xp, xp.swapaxes(A, -1, -2), xp.swapaxes(B, -1, -2), True),
                           -1, -2)
    # CuPy's solve does not broadcast batch dims as NumPy's does: they are made equal here.
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    return xp.linalg.solve(xp.broadcast_to(A, batch + A.shape[-2:]),
                           xp.broadcast_to(B, batch + B.shape[-2:]))


@defop("linalg_solve_ex", node="LinalgSolveExBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("A", "result"))
def linalg_solve_ex_op(xp, A, B, left=True):
    vector = is_vector_rhs(A.shape, B.shape)
    Bm = B[..., None] if vector else B
    batch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    info = xp.zeros(batch, dtype=np.int32)
    try:
        X = _solve(xp, A, Bm, left)
        ok = xp is np or bool(xp.isfinite(X).all())
    except _LinAlgFailure:
        ok = False
    if not ok:
        A = xp.broadcast_to(A, batch + A.shape[-2:])
        info = lu_factor_arrays(xp, A)[2]   # getrf's, run only once a solve failed
        X = _nan_where(xp, _solve(xp, _eye_where(xp, A, info > 0), Bm, left), info > 0)
    return (X[..., 0] if vector else X), info


@linalg_solve_ex_op.vjp
def linalg_solve_ex_vjp(ctx, grad):
    A, X, left = ctx.A, ctx.result, ctx.left
    grad_B = linalg_solve_ex_op(A.mT, grad, left=left)[0]
    grad_A = None
    if needs(ctx, 0):
        gB, Xm = grad_B, X
        if is_vector_rhs(tuple(A.shape), tuple(grad.shape)):
            gB, Xm = gB.unsqueeze(-1), Xm.unsqueeze(-1)
        grad_A = -(gB @ Xm.mT) if left else -(Xm.mT @ gB)
    return grad_A, grad_B if needs(ctx, 1) else None


@defop("linalg_solve_triangular", node="LinalgSolveTriangularBackward0", saves=("self", "result"))
def linalg_solve_triangular_op(xp, self, B, upper=False, left=True, unitriangular=False):
    A = xp.triu(self) if upper else xp.tril(self)
    if unitriangular:
        A = A.copy()
        idx = xp.arange(A.shape[-1])
        A[..., idx, idx] = 1
    try:
        return _solve(xp, A, B, left)
    except _LinAlgFailure:   # LAPACK's trtrs divides by the zero: inf and nan, no error
        shape = np.broadcast_shapes(A.shape[:-2], B.shape[:-2]) + B.shape[-2:]
        return xp.full(shape, xp.nan, dtype=B.dtype)


@linalg_solve_triangular_op.vjp
def linalg_solve_triangular_vjp(ctx, grad):
    A, X, upper, left, unit = ctx.self, ctx.result, ctx.upper, ctx.left, ctx.unitriangular
    grad_B = linalg_solve_triangular_op(A.mT, grad, upper=not upper, left=left,
                                        unitriangular=unit)
    grad_A = None
    if needs(ctx, 0):
        grad_A = -(grad_B @ X.mT) if left else -(X.mT @ grad_B)
        grad_A = grad_A.triu(int(unit)) if upper else grad_A.tril(-int(unit))
    return grad_A, grad_B if needs(ctx, 1) else None


# ----------------------------------------------------------------------------- cholesky

@defop("linalg_cholesky_ex", node="LinalgCholeskyExBackward0", outputs=2, nondiff_outputs=(1,),
       saves=("L=result",))   # torch's _saved_L
def linalg_cholesky_ex_op(xp, A, upper=False):
    info = xp.zeros(A.shape[:-2], dtype=np.int32)
    try:
        L = xp.linalg.cholesky(A)   # reads the lower triangle, as torch does
        failed = xp is not np and not bool(xp.isfinite(L).all())
    except _LinAlgFailure:
        failed = True
    if failed:
        info = cholesky_info(xp, A)
        L = _nan_where(xp, xp.linalg.cholesky(_eye_where(xp, A, info > 0)), info > 0)
    return (xp.ascontiguousarray(xp.swapaxes(L, -1, -2)) if upper else L), info


@linalg_cholesky_ex_op.vjp
def linalg_cholesky_ex_vjp(ctx, grad):
    # Iain Murray (2016), as torch's cholesky_backward: gA = L^{-H} phi(L^H gL) L^{-1}
    L, gL = ctx.L, grad
    if ctx.upper:
        L, gL = L.mT, gL.mT
    gA = (L.mT @ gL).tril()
    gA = 0.5 * (gA + gA.tril(-1).mT)
    gA = linalg_solve_triangular_op(L.mT, gA, upper=True, left=True)
    return (linalg_solve_triangular_op(L, gA, upper=False, left=False),)


def _cholesky_factor(xp, L, upper: bool):
    return xp.triu(L) if upper else xp.tril(L)


@defop("cholesky_solve", node="CholeskySolveBackward0", saves=("input2", "result"))
def cholesky_solve_op(xp, self, input2, upper=False):
    factor = _cholesky_factor(xp, input2, upper)
    lower = xp.swapaxes(factor, -1, -2) if upper else factor
    return xp.linalg.solve(xp.swapaxes(lower, -1, -2), xp.linalg.solve(lower, self))


@cholesky_solve_op.vjp
def cholesky_solve_vjp(ctx, grad):
    L, upper = ctx.input2, ctx.upper
    grad_self = cholesky_solve_op(grad, L, upper=upper)
    grad_L = None
    if needs(ctx, 1):
        common = grad_self @ ctx.result.mT
        common = common + common.mT
        grad_L = -(L @ common) if upper else -(common @ L)
    return grad_self if needs(ctx, 0) else None, grad_L


@defop("cholesky_inverse", node="CholeskyInverseBackward0", saves=("self", "result"))
def cholesky_inverse_op(xp, self, upper=False):
    factor = _cholesky_factor(xp, self, upper)
    lower = xp.swapaxes(factor, -1, -2) if upper else factor
    inverse = xp.linalg.inv(lower)
    return xp.swapaxes(inverse, -1, -2) @ inverse


@cholesky_inverse_op.vjp
def cholesky_inverse_vjp(ctx, grad):
    inverse = ctx.result
    common = inverse @ ((grad + grad.mT) @ inverse)
    return (-(ctx.self @ common) if ctx.upper else -(common @ ctx.self),)


# ----------------------------------------------------------------------------- qr

@defop("linalg_qr", node="LinalgQrBackward0", outputs=2, saves=("Q=result0", "R=result1"))
def linalg_qr_op(xp, A, mode="reduced"):
    if mode == "r":
        R = xp.linalg.qr(A, mode="r")
        return xp.zeros((0,), dtype=A.dtype), R
    return xp.linalg.qr(A, mode=mode)


@linalg_qr_op.vjp
def linalg_qr_vjp(ctx, gQ, gR):
    if ctx.mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    Q, R = ctx.Q, ctx.R
    m, n = Q.shape[-2], R.shape[-1]
    if ctx.mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gA = gR @ R.mT if gR is not None else None
    if gQ is not None:
        gA = -(Q.mT @ gQ) if gA is None else gA - Q.mT @ gQ
    if m >= n:
        sym = gA.triu()
        sym = sym + sym.mT
        sym = sym - (0.5 * sym.diagonal(0, -2, -1)).diag_embed()
        gA = Q @ sym
        if gQ is not None:
            gA = gA + gQ
        return (linalg_solve_triangular_op(R.mT, gA, upper=False, left=False),)
    X = -gA
    gA = Q @ (X - X.mT).tril()
    gA = linalg_solve_triangular_op(R.narrow(-1, 0, m).mT, gA, upper=False, left=False)
    from ..shape.joining import cat  # (shape_args imports the op modules: not at the top)
    gA = cat([gA, gA.new_zeros(tuple(R.shape[:-1]) + (n - m,))], dim=-1)
    return (gA + Q @ gR if gR is not None else gA,)


# ----------------------------------------------------------------------------- eigh

@defop("linalg_eigh", node="LinalgEighBackward0", outputs=2,
       saves=("eigenvalues=result0", "eigenvectors=result1"))
def linalg_eigh_op(xp, A, UPLO="L"):
    return xp.linalg.eigh(A, UPLO=UPLO)


@linalg_eigh_op.vjp
def linalg_eigh_vjp(ctx, gL, gV):
    L, V = ctx.eigenvalues, ctx.eigenvectors
    if gV is None:
        return ((V * gL.unsqueeze(-2)) @ V.mT,)
    VhgV = V.mT @ gV
    VhgV = (VhgV - VhgV.mT) * 0.5
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E + L.new_ones(tuple(L.shape)).diag_embed()   # ones on the diagonal: no 0/0
    gA = VhgV / E
    if gL is not None:
        gA = gA - gA.diagonal(0, -2, -1).diag_embed() + gL.diag_embed()
    return (V @ (gA @ V.mT),)


# ----------------------------------------------------------------------------- svd

@defop("linalg_svd", node="LinalgSvdBackward0", outputs=3,
       saves=("U=result0", "S=result1", "Vh=result2"))
def linalg_svd_op(xp, A, full_matrices=True):
    return tuple(xp.linalg.svd(A, full_matrices=full_matrices))


@linalg_svd_op.vjp
def linalg_svd_vjp(ctx, gU, gS, gVh):
    U, S, Vh = ctx.U, ctx.S, ctx.Vh
    if ctx.full_matrices:   # the extra columns of U and rows of Vh carry nothing about A
        k = S.shape[-1]
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    return (svd_backward(gU, gS, gVh, U, S, Vh),)


def svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's ``svd_backward`` for real matrices (reduced U, S, Vh)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    UhgU = _skew(U.mT @ gU) if gU is not None else None
    VhgV = _skew(Vh @ gVh.mT) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + S.new_ones(tuple(S.shape)).diag_embed()
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mT @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mT) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def _skew(X):
    return X - X.mT


@defop("linalg_pinv", node="LinalgPinvBackward0", saves=("self", "result"))
def linalg_pinv_op(xp, self, atol=None, rtol=None, hermitian=False):
    if self.size == 0:
        return xp.zeros(self.shape[:-2] + self.shape[-1:] + self.shape[-2:-1], dtype=self.dtype)
    U, S, Vh = xp.linalg.svd(self, full_matrices=False)
    top = S.max(axis=-1, keepdims=True) if S.shape[-1] else S
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else \
            np.finfo(self.dtype).eps * max(self.shape[-2:])
    tol = xp.maximum(atol or 0.0, rtol * top)
    keep = S > tol
    inv_s = xp.where(keep, 1 / xp.where(keep, S, 1), 0).astype(self.dtype)
    return xp.swapaxes(Vh, -1, -2) @ (inv_s[..., :, None] * xp.swapaxes(U, -1, -2))


@linalg_pinv_op.vjp
def linalg_pinv_vjp(ctx, grad):
    """torch's ``pinv_backward``, the products ordered for the smaller dimension."""
    A, P = ctx.self, ctx.result
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = P.mT, grad.mT
    if m <= n:
        K = gh @ P
        KPh = K @ Ph
        return (-(P @ K).mT + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A),)
    K = P @ gh
    PhK = Ph @ K
    return (-(K @ P).mT + ((gh - A @ K) @ P) @ Ph + PhK - (PhK @ P) @ A,)
