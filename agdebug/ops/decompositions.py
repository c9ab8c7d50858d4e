"""Matrix functions and decompositions: inv, det, slogdet, solve, cholesky, qr, eigh, svd.

Forwards call the array module's LAPACK wrappers (``numpy.linalg`` or ``cupy.linalg``) on
real floating matrices. Each derivative is torch's (``FunctionsManual.cpp``) written with
agdebug ops, so it is itself differentiable and ``create_graph=True`` works. A failed
factorization reports LAPACK's ``info`` per matrix (the first zero pivot, the first leading
minor that is not positive-definite), which the public functions turn into torch's errors.
"""

from __future__ import annotations

import numpy as np

from ..graph.saved import SavedTensor
from .registry import defop
from .util import needs

_LinAlgFailure = np.linalg.LinAlgError


def save_outputs(outs, names: tuple) -> None:
    """Save further outputs of a multi-output op under torch's names (``_saved_R``...).

    The registry saves output 0 only (``saves=("result",)``); these nodes' derivatives read
    several outputs, saved as outputs (so their own gradients flow in double backward).
    """
    node = outs[0].grad_fn
    if node is None:
        return
    saved = node._saved if node._saved is not None else {}
    for name, out in zip(names, outs):
        if name:
            saved[name] = SavedTensor(out, True)
    node._saved = saved


# ----------------------------------------------------------------------------- LAPACK's info

def lu_info(xp, a):
    """getrf's ``info`` per matrix (int32, batch-shaped): 0, or the 1-based index of the first
    zero pivot of an LU factorization with partial pivoting (run only once a solve failed)."""
    n = a.shape[-1]
    lu = a.reshape(-1, n, n).astype(a.dtype, copy=True)
    info = xp.zeros(lu.shape[0], dtype=np.int32)
    rows = xp.arange(lu.shape[0])
    for k in range(n):
        p = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)
        top = lu[rows, k].copy()
        lu[rows, k] = lu[rows, p]
        lu[rows, p] = top
        pivot = lu[:, k, k]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, k + 1, info).astype(np.int32)
        factor = lu[:, k + 1:, k] / xp.where(zero, 1, pivot)[:, None]
        lu[:, k + 1:, k:] -= factor[:, :, None] * lu[:, None, k, k:]
    return info.reshape(a.shape[:-2])


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
       saves=("result",))
def linalg_inv_ex_op(xp, A):
    info = xp.zeros(A.shape[:-2], dtype=np.int32)
    try:
        inverse = xp.linalg.inv(A)
        if xp is np or bool(xp.isfinite(inverse).all()):
            return inverse, info
    except _LinAlgFailure:
        pass
    info = lu_info(xp, A)
    bad = info > 0
    return _nan_where(xp, xp.linalg.inv(_eye_where(xp, A, bad)), bad), info


@linalg_inv_ex_op.vjp
def linalg_inv_ex_vjp(ctx, grad, grad_info):
    inverse_t = ctx.result.mT
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
    if left:
        return xp.linalg.solve(A, B)
    return xp.swapaxes(xp.linalg.solve(xp.swapaxes(A, -1, -2), xp.swapaxes(B, -1, -2)), -1, -2)


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
        info = lu_info(xp, A)
        X = _nan_where(xp, _solve(xp, _eye_where(xp, A, info > 0), Bm, left), info > 0)
    return (X[..., 0] if vector else X), info


@linalg_solve_ex_op.vjp
def linalg_solve_ex_vjp(ctx, grad, grad_info):
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
