"""LU factorization: lu_factor_ex, lu, lu_unpack and lu_solve, with torch's derivatives.

NumPy has no LU, so the forward (``decompositions.lu_factor_arrays``, which also reports
inv's and solve's ``info``) is getrf's partial pivoting written over the whole batch at
once (a loop over the columns, each step vectorized): the pivot of column j is the first row
of largest absolute value at or below j, rows are swapped across the full width, and the
multipliers are scaled by the pivot's reciprocal, as LAPACK's dgetrf2. A zero pivot (its
column below is all zero then) is skipped and reported in ``info``, 1-based. Pivots are
1-based int32 row swaps, as LAPACK's and torch's.

The pivots are keyword attributes of the nodes, not inputs: torch gives them no edge.
Derivatives follow ``FunctionsManual.cpp`` (``linalg_lu_backward``, ``lu_factor_ex_backward``,
``lu_unpack_backward``, ``linalg_lu_solve_LU``) with agdebug ops, so they differentiate again.
"""

from __future__ import annotations

import numpy as np

from .decompositions import linalg_solve_triangular_op as _solve_triangular
from .decompositions import lu_factor_arrays
from ..core.registry import defop
from ..shape.joining import cat
from ..core.gradients import input_shape, needs


# ----------------------------------------------------------------------------- kernels

def permutation_of(xp, pivots, m: int):
    """The row order the swaps in ``pivots`` make of ``m`` rows: (P^T A)[i] = A[perm[i]]."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape((int(np.prod(batch)), pivots.shape[-1])).astype(np.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    rows = xp.arange(flat.shape[0])
    for j in range(min(flat.shape[1], m)):
        p = flat[:, j]
        top = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = top
    return perm.reshape(batch + (m,))


def permutation_matrix(xp, perm, dtype):
    """P with ``A = P (P^T A)``: ones at (perm[i], i)."""
    m = perm.shape[-1]
    eye = xp.eye(m, dtype=dtype)
    return xp.swapaxes(eye[perm], -1, -2)   # row i of P^T is e_{perm[i]}


def unpack_arrays(xp, LU):
    """L (unit lower, m x k) and U (upper, k x n) from the packed factors."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=LU.dtype)
    return L, xp.triu(LU[..., :k, :])


def _substitute(xp, T, B, lower: bool, unit: bool):
    """T^{-1} B for triangular T (only its ``lower`` or upper triangle read), row by row.

    As LAPACK's trsm, an entry that is exactly zero is not divided: 0 / 0 stays 0.
    """
    X = xp.array(B, copy=True)
    n = T.shape[-1]
    for i in range(n) if lower else range(n - 1, -1, -1):
        done = slice(0, i) if lower else slice(i + 1, n)
        r = X[..., i, :] - (T[..., i:i + 1, done] @ X[..., done, :])[..., 0, :]
        if not unit:
            d = T[..., i, i, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                r = xp.where(r == 0, r, r / d)
        X[..., i, :] = r
    return X


def lu_solve_arrays(xp, LU, pivots, B, left: bool, adjoint: bool):
    """X with op(A) X = B (``left``) or X op(A) = B, A = P L U, op the transpose if
    ``adjoint``: getrs's row swaps and two triangular solves."""
    if not left:   # X op(A) = B  <=>  op(A)^T X^T = B^T
        X = lu_solve_arrays(xp, LU, pivots, xp.swapaxes(B, -1, -2), True, not adjoint)
        return xp.swapaxes(X, -1, -2)
    batch = np.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    n = LU.shape[-1]
    LU = xp.broadcast_to(LU, batch + (n, n))
    B = xp.broadcast_to(B, batch + B.shape[-2:])
    perm = xp.broadcast_to(permutation_of(xp, pivots, n), batch + (n,))
    if not adjoint:   # U^{-1} L^{-1} P^T B
        Y = xp.take_along_axis(B, perm[..., None], axis=-2)
        Y = _substitute(xp, LU, Y, lower=True, unit=True)
        return _substitute(xp, LU, Y, lower=False, unit=False)
    T = xp.swapaxes(LU, -1, -2)   # P L^{-T} U^{-T} B
    Z = _substitute(xp, T, B, lower=True, unit=False)
    Z = _substitute(xp, T, Z, lower=False, unit=True)
    return xp.take_along_axis(Z, xp.argsort(perm, axis=-1)[..., None], axis=-2)


# ----------------------------------------------------------------------------- ops

@defop("linalg_lu_factor_ex", node="LinalgLuFactorExBackward0", outputs=3,
       nondiff_outputs=(1, 2), extras=("pivots",), saves=("LU=result0", "pivots"))
def linalg_lu_factor_ex_op(xp, A, pivot=True):
    LU, pivots, info = lu_factor_arrays(xp, A)
    return (LU, pivots, info), pivots


@linalg_lu_factor_ex_op.vjp
def linalg_lu_factor_ex_vjp(ctx, grad):
    LU = ctx.LU
    P, L, U = lu_unpack_op(LU, LU_pivots=ctx.pivots._data)
    k = min(LU.shape[-2], LU.shape[-1])
    return (lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U),)


@defop("linalg_lu", node="LinalgLuBackward0", outputs=3, nondiff_outputs=(0,),
       extras=("P",), saves=("P", "L=result1", "U=result2"))
def linalg_lu_op(xp, A, pivot=True):
    LU, pivots, _ = lu_factor_arrays(xp, A)
    L, U = unpack_arrays(xp, LU)
    P = permutation_matrix(xp, permutation_of(xp, pivots, A.shape[-2]), A.dtype)
    return (P, L, U), P


@linalg_lu_op.vjp
def linalg_lu_vjp(ctx, grad_L, grad_U):
    return (lu_backward(grad_L, grad_U, ctx.P, ctx.L, ctx.U),)


def lu_backward(gL, gU, P, L, U):
    """torch's ``linalg_lu_backward`` (pivoted): A's gradient from L's and U's."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:   # P L^{-T} [(L^T gL).tril(-1) + (gU U^T).triu()] U^{-T}
        gA = (L.mT @ gL).tril(-1) + (gU @ U.mT).triu()
        gA = _solve_triangular(U.mT, gA, upper=False, left=False)
        return P @ _solve_triangular(L.mT, gA, upper=True, unitriangular=True)
    if m < n:    # wide: U = [U1 U2], U1 square
        gA = L.mT @ gL - gU.triu() @ U.mT
        gA = _solve_triangular(U.narrow(-1, 0, k).mT, gA.tril(-1), upper=False, left=False)
        gA = cat([gA + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], dim=-1)
        return P @ _solve_triangular(L.mT, gA, upper=True, unitriangular=True)
    # tall: L = [L1; L2], L1 square; only L's strictly lower part varies (L2 all of it)
    gA = gU @ U.mT - L.mT @ gL.tril(-1)
    gA = _solve_triangular(L.narrow(-2, 0, k).mT, gA.triu(), upper=True, unitriangular=True)
    gA = cat([gA + gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], dim=-2)
    return P @ _solve_triangular(U.mT, gA, upper=False, left=False)


# (torch's node keeps neither the pivots nor the flags: its gradient reads L and U alone)
@defop("lu_unpack", node="LuUnpackBackward0", outputs=3, nondiff_outputs=(0,),
       saved_as={"LU_pivots": None, "unpack_data": None, "unpack_pivots": None})
def lu_unpack_op(xp, LU_data, LU_pivots=None, unpack_data=True, unpack_pivots=True):
    m = LU_data.shape[-2]
    empty = xp.zeros((0,), dtype=LU_data.dtype)
    L, U = unpack_arrays(xp, LU_data) if unpack_data else (empty, empty)
    if not unpack_pivots:
        return empty, L, U
    batch = LU_data.shape[:-2]
    count = LU_pivots.shape[-1] if LU_pivots.ndim else 1
    if LU_pivots.size == int(np.prod(batch)) * count:
        pivots = LU_pivots.reshape(batch + (count,))
    else:
        pivots = xp.broadcast_to(LU_pivots, batch + (count,))
    return permutation_matrix(xp, permutation_of(xp, pivots, m), LU_data.dtype), L, U


@lu_unpack_op.vjp
def lu_unpack_vjp(ctx, grad_L, grad_U):
    if not ctx.unpack_data:   # L and U are empty: nothing of LU_data reaches them
        return (None,)
    m, n = input_shape(ctx, 0)[-2:]
    return (lu_unpack_backward(grad_L, grad_U, m, n),)


def lu_unpack_backward(gL, gU, m: int, n: int):
    """torch's ``lu_unpack_backward``: L's strict lower part and U's upper part, packed."""
    k = min(m, n)
    if m == n:
        return gL.tril(-1) + gU.triu()
    A1 = gL.narrow(-2, 0, k).tril(-1) + gU.narrow(-1, 0, k).triu()
    if m > n:
        return cat([A1, gL.narrow(-2, k, m - k)], dim=-2)
    return cat([A1, gU.narrow(-1, k, n - k)], dim=-1)


@defop("linalg_lu_solve", node="LinalgLuSolveBackward0",
       saves=("LU", "pivots=array", "result"))
def linalg_lu_solve_op(xp, LU, B, pivots=None, left=True, adjoint=False):
    return lu_solve_arrays(xp, LU, pivots, B, left, adjoint)


@linalg_lu_solve_op.vjp
def linalg_lu_solve_vjp(ctx, grad):
    left, adjoint = ctx.left, ctx.adjoint
    grad_LU = lu_solve_LU(grad, ctx.LU, ctx.pivots, ctx.result, left, adjoint) \
        if needs(ctx, 0) else None
    grad_B = linalg_lu_solve_op(ctx.LU, grad, pivots=ctx.pivots, left=left,
                                adjoint=not adjoint) if needs(ctx, 1) else None
    return grad_LU, grad_B


def lu_solve_LU(gX, LU, pivots, X, left: bool, adjoint: bool):
    """torch's ``linalg_lu_solve_LU``: the gradient of the packed factors."""
    P, L, U = lu_unpack_op(LU, LU_pivots=pivots, unpack_pivots=left == adjoint)
    if left != adjoint:
        gR = _solve_triangular(U.mT, -((gX if left else gX.mT) @ (X.mT if left else X)),
                               upper=False)
        gL = _solve_triangular(L.mT, gR @ U.mT, upper=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    gR = -(P.mT @ (X if left else X.mT) @ (gX.mT if left else gX) @ P)
    gR = _solve_triangular(L.mT, gR, upper=True, left=False, unitriangular=True)
    gU = _solve_triangular(U.mT, L.mT @ gR, upper=False, left=False).triu()
    return gR.tril(-1) + gU
