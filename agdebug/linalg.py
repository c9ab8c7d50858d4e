"""``agdebug.linalg``: torch.linalg's products, norms, matrix functions and decompositions.

Products (matmul, multi_dot, cross), norms (norm, vector_norm, matrix_norm, the 2, -2
and 'nuc' ones through svdvals as torch), diagonal, and the differentiable matrix
functions: inv, det, slogdet, solve, solve_triangular, matrix_power, cholesky, qr, eigh,
svd, svdvals, pinv (their ops are in ``ops/linalg/decompositions.py``). A failed factorization
raises ``LinAlgError`` (torch's ``_LinAlgError``, a RuntimeError) with torch's message.

>>> import agdebug as ag
>>> ag.linalg.norm(ag.tensor([3.0, 4.0]))
tensor(5.)
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import backend
from .ops.linalg import decompositions as dec
from .ops.linalg import lu as _lu
from .ops.core.arguments import check_namespace
from .ops.linalg.contraction import multi_dot
from .ops.linalg.distance import linalg_cross as cross
from .ops.linalg.products import matmul
from .ops.linalg.matrix_structure import diagonal as _diagonal
from .ops.linalg.matrix_functions import householder_product, matrix_exp
from .ops.reduction.signatures import vector_norm
from .ops.core.checks import broadcast_shape, dims_of, kernel_missing
from .ops.core.gradients import return_type

__all__ = ["matmul", "multi_dot", "cross", "norm", "vector_norm", "matrix_norm", "diagonal",
           "LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex",
           "solve_triangular", "matrix_power", "cholesky", "cholesky_ex", "qr", "eigh",
           "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "lu_factor", "lu_factor_ex", "lu",
           "lu_solve", "matrix_exp", "householder_product"]


class _LinAlgError(RuntimeError):
    """A linear-algebra routine failed (singular or not positive-definite input)."""


LinAlgError = _LinAlgError   # torch.linalg.LinAlgError is torch._C._LinAlgError

_LOW_PRECISION = ("float16", "bfloat16")


def check_input(fn: str, A, *, square=True, floating="check", low=None, float_first=False):
    """torch's checks of a matrix argument, in its order: at least 2-D, square, a floating
    dtype (``floating``: "check" for torch's message, "kernel" for the kernel's), and for
    half precision ``low``: "refuse" (torch's message) or a kernel name (its message)."""
    name = str(np.dtype(A._data.dtype)) if A._data.dtype != object else ""
    dtype = backend.get_dtype(A._data.dtype)
    is_float = A._data.dtype.kind == "f" or name in _LOW_PRECISION
    if float_first and not is_float:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {dtype._legacy}")
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not is_float and floating == "check":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {dtype._legacy}")
    if floating is not None and (not is_float or dtype.itemsize < 4):
        if low == "refuse":
            raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {dtype._legacy}")
        raise kernel_missing(low, dtype)


def raise_info(fn: str, info, message: str, error=None) -> None:
    """Raise torch's LinAlgError (or ``error``) for the first failed matrix of a batch
    (``info`` > 0); ``message`` names the failure, ``{0}`` standing for that matrix's info."""
    info = backend.move_array(info, backend.CPU)
    bad = np.flatnonzero(info.reshape(-1) > 0)
    if not bad.size:
        return
    first = int(bad[0])
    where = f"(Batch element {first}): " if info.ndim else ""
    error = error or _LinAlgError
    raise error(f"{fn}: {where}{message.format(int(info.reshape(-1)[first]))}")


# ----------------------------------------------------------------------------- inverse, det

_SINGULAR = ("The diagonal element {} is zero, the inversion could not be completed because "
             "the input matrix is singular.")


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: the inverse of each square matrix and LAPACK's info (0 where it
    succeeded), without raising for a singular matrix unless ``check_errors``."""
    return _named("linalg_inv_ex", *_inv_ex(A, check_errors, "linalg.inv_ex"))


def _inv_ex(A, check_errors, fn: str) -> tuple:
    """``(inverse, info)``; ``fn`` names the function in the error for a singular matrix."""
    check_input("linalg.inv", A, low="refuse")
    inverse, info = dec.linalg_inv_ex_op(A)
    if check_errors:
        raise_info(fn, info._data, _SINGULAR)
    return inverse, info


def inv(A):
    """The inverse of each square matrix in ``A`` (LinalgInvExBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.inv(ag.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    return _inv_ex(A, True, "linalg.inv")[0]


def det(A):
    """The determinant of each square matrix in ``A`` (LinalgDetBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.det(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    check_input("linalg.det", A, low="lu_cpu")
    return dec.linalg_det_op(A)


def slogdet(A):
    """``(sign, logabsdet)`` of each square matrix's determinant (LinalgSlogdetBackward0)."""
    check_input("linalg.slogdet", A, low="refuse")
    return _named("linalg_slogdet", *dec.linalg_slogdet_op(A))


def torch_slogdet(input):
    """``torch.slogdet``: ``linalg.slogdet`` under torch's older name for its result."""
    return _named("slogdet", *slogdet(input))


def logdet(input):
    """``log(det(input))``: NaN where the determinant is negative (WhereBackward0)."""
    check_input("logdet", input, low="refuse")
    sign, logabsdet = dec.linalg_slogdet_op(input)
    return logabsdet.where(sign != -1, float("nan"))


# ----------------------------------------------------------------------------- solve

def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)``: the solution X of ``AX = B`` (``XA = B`` if not ``left``)."""
    return _named("linalg_solve_ex",
                  *_solve_ex(A, B, left, check_errors, "torch.linalg.solve_ex"))


def _solve_ex(A, B, left, check_errors, fn: str) -> tuple:
    """``(result, info)``; ``fn`` names the function in the error for a singular matrix."""
    check_input("linalg.solve", A, low="lu_cpu", float_first=True)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {A.dtype._legacy} and B of type {B.dtype._legacy} instead")
    vector = dec.is_vector_rhs(tuple(A.shape), tuple(B.shape))
    rows, cols = (B.shape[-1], 1) if vector else tuple(B.shape[-2:])
    n = A.shape[-1]
    if (rows if left else cols) != n:
        shape = f"{n}x{n} and {rows}x{cols}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({shape})")
    # torch's error where the batch dimensions do not broadcast (B's first, as torch)
    broadcast_shape(B.shape[:-1] if vector else B.shape[:-2], A.shape[:-2])
    result, info = dec.linalg_solve_ex_op(A, B, left=bool(left))
    if check_errors:
        raise_info(fn, info._data, "The solver failed because the input matrix is singular.")
    return result, info


def solve(A, B, *, left=True):
    """The solution X of ``AX = B`` (or ``XA = B``), B a vector or matrices
    (LinalgSolveExBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.solve(ag.tensor([[2.0, 0.0], [0.0, 4.0]]), ag.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    return _solve_ex(A, B, left, True, "torch.linalg.solve")[0]


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution X of ``AX = B`` (``XA = B``) for triangular A, read from its ``upper``
    or lower triangle (LinalgSolveTriangularBackward0)."""
    check_input("linalg.solve_triangular", A, floating="kernel", low="triangular_solve_cpu")
    return dec.linalg_solve_triangular_op(A, B, upper=bool(upper), left=bool(left),
                                          unitriangular=bool(unitriangular))


def matrix_power(A, n):
    """``A`` multiplied by itself ``n`` times (the inverse's powers for negative ``n``), with
    torch's graph: matmuls by binary decomposition of ``n``.

    >>> import agdebug as ag
    >>> ag.linalg.matrix_power(ag.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    check_input("linalg.matrix_power", A, floating=None)
    n = int(n)
    if n == 0:
        from .creation import eye
        identity = eye(A.shape[-1], dtype=A.dtype).expand(tuple(A.shape))
        return A.clone().copy_(identity)
    if n < 0:
        A, n = inv(A), -n
        if n == 1:   # the inverse is a new tensor: torch returns it uncloned
            return A
    if n == 1:
        return A.clone()
    if n in (2, 3):
        square = matmul(A, A)
        return square if n == 2 else matmul(square, A)
    z = result = None
    while n > 0:   # least significant bit first, as torch
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ----------------------------------------------------------------------------- cholesky

_NOT_PD = ("The factorization could not be completed because the input is not positive-definite "
           "(the leading minor of order {} is not positive-definite).")


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: the Cholesky factor of each symmetric positive-definite matrix (read
    from its lower triangle) and LAPACK's info, 0 where it succeeded."""
    return _named("linalg_cholesky_ex", *_cholesky_ex(A, upper, check_errors,
                                                      "linalg.cholesky_ex"))


def _cholesky_ex(A, upper, check_errors, fn: str) -> tuple:
    """``(L, info)``; ``fn`` names the function in the error for a matrix that is not
    positive-definite."""
    check_input("linalg.cholesky", A, low="cholesky_cpu")
    L, info = dec.linalg_cholesky_ex_op(A, upper=bool(upper))
    if check_errors:
        raise_info(fn, info._data, _NOT_PD)
    return L, info


def cholesky(A, *, upper=False):
    """The lower (or ``upper``) Cholesky factor of each symmetric positive-definite matrix
    (LinalgCholeskyExBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.cholesky(ag.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    return _cholesky_ex(A, upper, True, "linalg.cholesky")[0]


def cholesky_solve(input, input2, upper=False):
    """``torch.cholesky_solve``: X with ``A X = input`` where ``input2`` is A's Cholesky
    factor (CholeskySolveBackward0)."""
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} "
                           "dimensions instead")
    check_input("", input2, floating="kernel", low="cholesky_solve_cpu")
    if input2.shape[-1] != input.shape[-2]:
        n = input2.shape[-1]
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} "
                           f"by {n} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    return dec.cholesky_solve_op(input, input2, upper=bool(upper))


def cholesky_inverse(input, upper=False):
    """``torch.cholesky_inverse``: the inverse of A from its Cholesky factor ``input``
    (CholeskyInverseBackward0)."""
    check_input("cholesky_inverse", input, floating="kernel", low="cholesky_inverse_out_cpu")
    return dec.cholesky_inverse_op(input, upper=bool(upper))


# ----------------------------------------------------------------------------- lu

_ZERO_PIVOT = ("U[{0},{0}] is zero and using it on lu_solve would result in a division by zero. "
               "If you still want to perform the factorization, consider calling "
               "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _check_lu_input(fn: str, A, pivot) -> None:
    """torch's checks before an LU factorization: 2-D, a float kernel, pivoting (CPU)."""
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if A._data.dtype.kind != "f" or backend.get_dtype(A._data.dtype).itemsize < 4:
        raise kernel_missing("lu_cpu", A._data.dtype)
    if not pivot and A.numel():   # (an empty matrix never reaches the kernel that refuses)
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the packed LU factorization with partial pivoting of each
    matrix, its 1-based row swaps (int32) and LAPACK's info (the first zero pivot, 1-based),
    without raising for a singular matrix unless ``check_errors`` (LinalgLuFactorExBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.lu_factor_ex(ag.tensor([[1.0, 2.0], [4.0, 4.0]])).pivots
    tensor([2, 2], dtype=torch.int32)
    """
    return _named("linalg_lu_factor_ex",
                  *_lu_factor_ex(A, pivot, check_errors, "torch.linalg.lu_factor_ex"))


def _lu_factor_ex(A, pivot, check_errors, fn: str) -> tuple:
    """``(LU, pivots, info)``; ``fn`` names the function in the error for a singular matrix."""
    _check_lu_input("torch.lu_factor", A, pivot)
    LU, pivots, info = _lu.linalg_lu_factor_ex_op(A, pivot=bool(pivot))
    if check_errors:
        raise_info(fn, info._data, _ZERO_PIVOT, error=RuntimeError)
    return LU, pivots, info


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)``: ``lu_factor_ex`` raising for a singular matrix
    (LinalgLuFactorExBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.lu_factor(ag.tensor([[1.0, 2.0], [4.0, 4.0]])).LU
    tensor([[4.0000, 4.0000],
            [0.2500, 1.0000]])
    """
    LU, pivots, _ = _lu_factor_ex(A, pivot, True, "torch.linalg.lu_factor")
    return _named("linalg_lu_factor", LU=LU, pivots=pivots)


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P @ L @ U``: P a permutation, L unit lower triangular
    (m x k), U upper triangular (k x n), k = min(m, n) (LinalgLuBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.lu(ag.tensor([[1.0, 2.0], [4.0, 4.0]])).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    _check_lu_input("linalg.lu", A, pivot)
    if not pivot:   # only an empty matrix gets here: torch returns an empty P
        P, L, U = _lu.linalg_lu_op(A)
        return _named("linalg_lu", P.new_zeros((0,)), L, U)
    return _named("linalg_lu", *_lu.linalg_lu_op(A, pivot=True))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution X of ``A X = B`` (``X A = B`` if not ``left``; A's transpose if
    ``adjoint``) from A's ``lu_factor`` (LinalgLuSolveBackward0).

    >>> import agdebug as ag
    >>> LU, pivots = ag.linalg.lu_factor(ag.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> ag.linalg.lu_solve(LU, pivots, ag.tensor([[2.0], [2.0]]))
    tensor([[1.0000],
            [0.5000]])
    """
    _check_lu_solve(LU, pivots, B, left)
    return _lu.linalg_lu_solve_op(LU, B, pivots=pivots._data, left=bool(left),
                                  adjoint=bool(adjoint))


def _check_lu_solve(LU, pivots, B, left) -> None:
    """torch's checks of ``linalg.lu_solve``'s arguments, in its order."""
    fn = "linalg.lu_solve"
    if LU._data.dtype.kind != "f" and str(np.dtype(LU._data.dtype)) not in _LOW_PRECISION:
        raise RuntimeError(f"torch.{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {LU.dtype._legacy}")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fn}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {LU.dtype._legacy} and B of type {B.dtype._legacy} instead")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    check_input(f"torch.{fn}", LU, floating=None)
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    n, (rows, cols) = LU.shape[-1], B.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError(f"{fn}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"{fn}: Expected LU.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(pivots.shape)} instead")
    broadcast_shape(B.shape[:-2], LU.shape[:-2])   # torch's error where they do not
    if backend.get_dtype(LU._data.dtype).itemsize < 4:
        raise kernel_missing("linalg.lu_solve_cpu", LU._data.dtype)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``torch.lu_unpack``: ``(P, L, U)`` from ``lu_factor``'s packed factors and pivots;
    an empty P (L and U) where ``unpack_pivots`` (``unpack_data``) is False
    (LuUnpackBackward0)."""
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    if unpack_pivots:
        if LU_pivots._data.dtype != np.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous "
                               "tensor of torch.int32 dtype.")
        data = backend.move_array(LU_pivots._data, backend.CPU)
        if LU_pivots.ndim == 0 or ((data < 1) | (data > LU_data.shape[-2])).any():
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                               "inclusive.Did you properly pass the result of lu_factor?")
    outs = _lu.lu_unpack_op(LU_data, LU_pivots=LU_pivots._data, unpack_data=bool(unpack_data),
                            unpack_pivots=bool(unpack_pivots))
    return _named("lu_unpack", *outs)


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated in favor of {new} and will be removed in a "
                  "future PyTorch release.", UserWarning, stacklevel=3)


def torch_lu(A, pivot=True, get_infos=False):
    """``torch.lu`` / ``Tensor.lu`` (deprecated): ``(LU, pivots)``, with ``info`` if
    ``get_infos``; never raises for a singular matrix (LinalgLuFactorExBackward0)."""
    _deprecated("lu", "torch.linalg.lu_factor / torch.linalg.lu_factor_ex")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return _named("_lu_with_info", LU, pivots, info) if get_infos else (LU, pivots)


def torch_lu_solve(b, LU_data, LU_pivots):
    """``torch.lu_solve`` / ``Tensor.lu_solve`` (deprecated): ``linalg.lu_solve(LU_data,
    LU_pivots, b)`` (LinalgLuSolveBackward0)."""
    _deprecated("lu_solve", "torch.linalg.lu_solve")
    return lu_solve(LU_data, LU_pivots, b)


# ----------------------------------------------------------------------------- qr, eigh

def qr(A, mode="reduced"):
    """``(Q, R)`` of each matrix: Q orthonormal columns, R upper triangular; ``mode``
    'reduced', 'complete' or 'r' (Q empty) (LinalgQrBackward0)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    check_input("linalg.qr", A, square=False, low="geqrf_cpu")
    outs = dec.linalg_qr_op(A, mode=mode)
    return _named("linalg_qr", *outs)


def _check_uplo(UPLO) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix, read from its ``UPLO``
    triangle, eigenvalues ascending (LinalgEighBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.eigh(ag.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([1., 2.])
    """
    check_input("linalg.eigh", A, floating="kernel", low="linalg_eigh_cpu")
    _check_uplo(UPLO)
    outs = dec.linalg_eigh_op(A, UPLO=UPLO)
    return _named("linalg_eigh", *outs)


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix, ascending (LinalgEighBackward0)."""
    return eigh(A, UPLO).eigenvalues


# ----------------------------------------------------------------------------- svd

def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, S descending (LinalgSvdBackward0).

    >>> import agdebug as ag
    >>> ag.linalg.svd(ag.tensor([[3.0, 0.0], [0.0, -4.0]])).S
    tensor([4., 3.])
    """
    check_input("linalg.svd", A, square=False, low="linalg_svd_cpu")
    outs = dec.linalg_svd_op(A, full_matrices=bool(full_matrices))
    return _named("linalg_svd", *outs)


def svdvals(A, *, driver=None):
    """The singular values of each matrix, descending (LinalgSvdBackward0)."""
    return svd(A, full_matrices=False).S


def torch_svd(input, some=True, compute_uv=True):
    """``torch.svd``: ``(U, S, V)`` with V = Vh.mT; zero U and V without ``compute_uv``."""
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return _named("svd", U, S, Vh.mT)
    S = svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    batch = tuple(input.shape[:-2])
    return _named("svd", input.new_zeros(batch + (m, m)), S, input.new_zeros(batch + (n, n)))


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse, singular values at or below
    ``max(atol, rtol * largest)`` dropped (LinalgPinvBackward0)."""
    dtype = backend.get_dtype(A._data.dtype)
    if A.ndim < 2 or str(np.dtype(A._data.dtype)) not in ("float32", "float64"):
        raise RuntimeError(f"linalg.pinv({dtype._legacy}{{{list(A.shape)}}}): expected a tensor "
                           "with 2 or more dimensions of float, double, cfloat or cdouble types")
    return dec.linalg_pinv_op(A, atol=atol, rtol=rtol, hermitian=bool(hermitian))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (int64)."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    if str(np.dtype(A._data.dtype)) not in ("float32", "float64"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    from .graph.grad_mode import no_grad
    with no_grad():
        S = svdvals(A)
    if tol is not None:
        atol, rtol = tol, 0.0
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else \
            np.finfo(A._data.dtype).eps * max(A.shape[-2:])
    data = S._data
    xp = backend.xp_of(data)
    top = data.max(axis=-1, keepdims=True) if data.shape[-1] else data
    tolerance = xp.maximum(atol or 0.0, rtol * top)
    return S.__class__._wrap((data > tolerance).sum(axis=-1).astype(np.int64))


def _svd_norm(A, ord, dims: tuple, keepdim: bool, dtype):
    """matrix_norm's 2, -2 and 'nuc' as torch: the two dims moved last, then the largest,
    smallest or sum of the singular values."""
    check_input("linalg.matrix_norm", A, square=False, floating="check",
                low="linalg_svd_cpu")
    rest = [d for d in range(A.ndim) if d not in dims]
    permutation = tuple(rest) + tuple(dims)
    B = A if dtype is None else A.to(dtype)
    S = svdvals(B.permute(permutation))
    result = S.sum(-1) if ord == "nuc" else (S.amax(-1) if ord == 2 else S.amin(-1))
    if keepdim:
        reverse = tuple(np.argsort(permutation))
        result = result.unsqueeze(-1).unsqueeze(-1).permute(reverse)
    return result


_RETURN_TYPES = {name: return_type(name, tuple(fields.split())) for name, fields in {
    "linalg_inv_ex": "inverse info", "linalg_slogdet": "sign logabsdet",
    "slogdet": "sign logabsdet", "linalg_solve_ex": "result info",
    "linalg_cholesky_ex": "L info", "linalg_qr": "Q R", "linalg_eigh": "eigenvalues eigenvectors",
    "linalg_svd": "U S Vh", "svd": "U S V", "linalg_lu_factor_ex": "LU pivots info",
    "linalg_lu_factor": "LU pivots", "linalg_lu": "P L U", "lu_unpack": "P L U",
    "_lu_with_info": "LU pivots info"}.items()}


def _named(kind: str, *values, **named):
    return _RETURN_TYPES[kind](*values, **named)


# ----------------------------------------------------------------------------- norms

def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in ``A`` (a view), as ``torch.linalg.diagonal``."""
    return _diagonal(A, offset, dim1, dim2)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm of each matrix over ``dim``: 'fro', or the max/min absolute column
    (ord 1/-1) or row (inf/-inf) sum.

    >>> import agdebug as ag
    >>> ag.linalg.matrix_norm(ag.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = dims_of(tuple(dim), A.ndim)
    if len(dims) != 2 or dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, dim=dims, keepdim=keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        return _svd_norm(A, ord, dims, keepdim, dtype)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    first, second = dims if abs(ord) == 1 else dims[::-1]   # column sums, or row sums
    if not keepdim and first < second:
        second -= 1
    sums = vector_norm(A, 1, dim=first, keepdim=keepdim, dtype=dtype)
    return sums.amax(second, keepdim) if ord > 0 else sums.amin(second, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm, or a matrix norm where ``dim`` names two dims or ``ord`` is given
    for a matrix, as ``torch.linalg.norm``.

    >>> import agdebug as ag
    >>> ag.linalg.norm(ag.ones(2, 2), "fro")
    tensor(2.)
    """
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, dim=dim, keepdim=keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Expected a number as ord, got {ord!r}")
    return vector_norm(A, ord, dim=dim, keepdim=keepdim, dtype=dtype)


# torch's parser words for a wrong argument, worked out only when a function fails (see
# ops/core/arguments.py): aten's ``linalg_<name>``, whose matrix is ``A`` but in these.
_ATEN_PARAMS = {"solve_triangular": {"A": ("input", 1)}, "matrix_exp": {"A": ("input", 1)}}
check_namespace(globals(), [n for n in __all__ if n != "LinAlgError"],
                {name: f"linalg_{name}" for name in __all__}, _ATEN_PARAMS)
