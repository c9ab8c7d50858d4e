"""Matrix functions: the matrix exponential (``linalg.matrix_exp``), the product of
Householder reflectors (``linalg.householder_product``, LAPACK's orgqr) and the QR
factorization that gives them (``geqrf``).

The forward is torch's CPU algorithm (``mexp`` in ATen's ``LinearAlgebra.cpp``, after Bader,
Blanes and Casas, "Computing the Matrix Exponential with an Optimized Taylor Polynomial
Approximation", 2019): a lone matrix gets the Taylor polynomial of degree 1, 2, 4, 8 or 12
that its 1-norm allows, or degree 18 with scaling and squaring; a batch of several matrices
always takes the degree-18 path, each matrix scaled by its own power of two. The thresholds
are float32's for float32, float64's otherwise, so values agree with torch's to rounding.

The derivative is torch's ``linalg_matrix_exp_differential``: the adjoint of the Fréchet
derivative of exp at A applied to G is the top-right block of exp([[A^T, G], [0, A^T]]), an
exp of a matrix twice as large written with agdebug ops, so it is differentiable again.

householder_product(A, tau) is the first n columns of H_0 H_1 ... H_{k-1}, H_i = I - tau_i
v_i v_i^T, v_i column i of A below the diagonal with a 1 on it. Its derivative is the
reverse-mode derivative of that loop of rank-one updates, written with agdebug ops.

geqrf(A) is LAPACK's QR factorization as householder_product reads it: R on and above the
diagonal, the reflectors below it and their ``tau``. As torch's, it has no derivative.
"""

from __future__ import annotations

import math

import numpy as np

from ...backend import xp_of
from ...tensor import Tensor
from ..core.registry import defop
from ..core.checks import kernel_missing
from ..core.gradients import needs, no_derivative, return_type

_THETAS_FLOAT = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                 5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00)
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                  4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)

# Rows: the coefficients of I, A, A^2, A^3 (and A^6) in the products of T12 and T18.
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
         4.98289622525382669416e-01, -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))


# ----------------------------------------------------------------------------- Taylor kernels

def _powers(xp, A, count: int) -> list:
    """The first ``count`` of I, A, A^2, A^3, A^6 (a batch of matrices each)."""
    eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    powers = [eye, A]
    if count > 2:
        powers.append(A @ A)
    if count > 3:
        powers.append(A @ powers[2])
    if count > 4:
        powers.append(powers[3] @ powers[3])
    return powers[:count]


def _combine(xp, powers: list, coefficients) -> object:
    """sum_j c_j powers[j], in the order of j (torch's ``_compute_linear_combination``)."""
    dtype = powers[0].dtype
    total = xp.zeros_like(powers[0])
    for c, p in zip(coefficients, powers):
        total = total + xp.asarray(c, dtype=dtype) * p
    return total


def _t1(xp, A):
    eye, a = _powers(xp, A, 2)
    return eye + a


def _t2(xp, A):
    eye, a, a2 = _powers(xp, A, 3)
    return eye + a + a2 / 2


def _t4(xp, A):
    powers = _powers(xp, A, 3)
    tail = powers[2] @ _combine(xp, powers, (1 / 2.0, 1 / 6.0, 1 / 24.0))
    return _combine(xp, powers + [tail], (1.0, 1.0, 0.0, 1.0))


def _t8(xp, A):
    r = 0.1330413469565007072504e+2   # sqrt(177)
    x3 = 2. / 3.
    x1, x2 = x3 * ((1. + r) / 88.), x3 * ((1. + r) / 352.)
    x4, x5 = (-271. + 29. * r) / (315. * x3), (-11. + 11. * r) / (1260. * x3)
    x6, x7 = (-99. + 11. * r) / (5040. * x3), (89. - r) / (5040. * x3)
    y2 = (857. - 58. * r) / 630.
    powers = _powers(xp, A, 3)
    a4 = powers[2] @ _combine(xp, powers[1:], (x1, x2))
    a8 = _combine(xp, [powers[2], a4], (x3, 1.0)) @ _combine(xp, powers + [a4],
                                                              (x4, x5, x6, x7))
    return _combine(xp, powers + [a4, a8], (1.0, 1.0, y2, 0.0, 1.0))


def _t12(xp, A):
    powers = _powers(xp, A, 4)
    b = [_combine(xp, powers, row) for row in _B12]
    b2 = b[2] + b[3] @ b[3]               # A6
    return b[0] + (b[1] + b2) @ b2


def _t18(xp, A):
    powers = _powers(xp, A, 5)
    b = [_combine(xp, powers, row) for row in _B18]
    a9 = b[3] + b[0] @ b[4]
    return b[1] + (b[2] + a9) @ a9


def _t18_scale_square(xp, A, norm, theta: float):
    """exp of each matrix: T18 of A / 2^s, squared s times (s per matrix, from its norm)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = xp.maximum(xp.ceil(xp.log2(norm / xp.asarray(theta, dtype=norm.dtype))), 0)
    finite = xp.isfinite(s)
    s = xp.where(finite, s, 0)
    scaled = A * xp.power(xp.asarray(2, dtype=A.dtype), -s)[:, None, None]
    out = _t18(xp, scaled)
    squarings = s.astype(np.int64)
    for k in range(int(squarings.max()) if squarings.size else 0):
        more = squarings > k
        out = xp.where(more[:, None, None], out @ out, out)
    # torch's squaring count is undefined for an infinite or NaN norm: its result is NaN
    return xp.where(finite[:, None, None], out, xp.nan)


def matrix_exp_arrays(xp, A):
    """exp of each matrix in ``A`` (any batch shape), as torch computes it on the CPU."""
    n = A.shape[-1]
    if n == 0:
        return A.copy()
    if n == 1:
        return xp.exp(A)
    work = A.astype(np.float32) if A.dtype == np.float16 else A   # (torch's half: NaN)
    flat = work.reshape((-1, n, n))
    thetas = _THETAS_FLOAT if flat.dtype == np.float32 else _THETAS_DOUBLE
    norm = xp.abs(flat).sum(-2).max(-1)
    if flat.shape[0] == 1:
        out = _lone_matrix_exp(xp, flat, float(norm[0]), thetas)
    else:
        out = _t18_scale_square(xp, flat, norm, thetas[-1])
    return out.reshape(A.shape).astype(A.dtype, copy=False)


def _lone_matrix_exp(xp, A, norm: float, thetas):
    """One matrix: the lowest Taylor degree its norm allows (NaN for a NaN norm)."""
    if norm >= thetas[4]:
        return _t18_scale_square(xp, A, xp.asarray([norm], dtype=A.dtype), thetas[-1])
    for theta, kernel in zip(thetas, (_t1, _t2, _t4, _t8, _t12)):
        if norm <= theta:
            return kernel(xp, A)
    return xp.full_like(A, math.nan)


# ----------------------------------------------------------------------------- the op

@defop("linalg_matrix_exp", node="LinalgMatrixExpBackward0", saves=("self",))
def linalg_matrix_exp_op(xp, self):
    return matrix_exp_arrays(xp, self)


@linalg_matrix_exp_op.vjp
def linalg_matrix_exp_vjp(ctx, grad):
    return (matrix_exp_differential(ctx.self, grad),)


def matrix_exp_differential(A, grad):
    """The adjoint of d exp(A) applied to ``grad``: the top-right block of
    exp([[A^T, grad], [0, A^T]])."""
    from ..shape.joining import cat  # (shape_args imports the op modules: not at the top)
    n = A.shape[-1]
    At = A.mT
    top = cat([At, grad], dim=-1)
    bottom = cat([At.new_zeros(tuple(At.shape)), At], dim=-1)
    meta = linalg_matrix_exp_op(cat([top, bottom], dim=-2))
    return meta.narrow(-2, 0, n).narrow(-1, n, n)


# ----------------------------------------------------------------------------- householder

def householder_product_arrays(xp, A, tau):
    """Q = H_0 ... H_{k-1} applied to the first n columns of I, right to left (orgqr)."""
    m, n = A.shape[-2:]
    eye = xp.eye(m, n, dtype=A.dtype)
    V = xp.tril(A, -1) + eye
    Q = xp.zeros_like(A) + eye
    for i in reversed(range(tau.shape[-1])):
        v = V[..., :, i]
        w = xp.einsum("...m,...mn->...n", v, Q)
        Q -= tau[..., i, None, None] * v[..., :, None] * w[..., None, :]
    return Q


@defop("linalg_householder_product", node="LinalgHouseholderProductBackward0",
       saves=("input", "tau", "result"))
def linalg_householder_product_op(xp, input, tau):
    return householder_product_arrays(xp, input, tau)


@linalg_householder_product_op.vjp
def linalg_householder_product_vjp(ctx, grad):
    A, tau = ctx.input, ctx.tau
    k = tau.shape[-1]
    if A.numel() == 0 or tau.numel() == 0:   # torch returns no gradient at all then
        return None, None
    V = A.tril(-1) + _eye_like(A)
    states = _reflected_states(V, tau)
    grad_vs, grad_taus = [], []
    for i in range(k):
        v, t, Q = V[..., :, i], tau[..., i], states[i + 1]
        w = _vecmat(v, Q)                          # Q_{i+1}^T v
        vG = _vecmat(v, grad)                      # grad^T v
        grad_taus.append(-(vG * w).sum(-1))
        grad_vs.append(-t.unsqueeze(-1) * (_matvec(grad, w) + _matvec(Q, vG)))
        grad = grad - t[..., None, None] * (v.unsqueeze(-1) * vG.unsqueeze(-2))
    return (_columns_below_diagonal(grad_vs, A) if needs(ctx, 0) else None,
            _stack(grad_taus) if needs(ctx, 1) else None)


def geqrf_arrays(xp, A):
    """``(reflectors, tau)`` of a Householder QR of each matrix, as LAPACK's geqrf stores them:
    R on and above the diagonal, each reflector's v below it (its leading 1 implied). Not
    differentiable (torch's geqrf is not either): the orthogonal parametrization uses it."""
    R = xp.array(A, copy=True)
    m, n = A.shape[-2:]
    k = min(m, n)
    tau = xp.zeros(A.shape[:-2] + (k,), dtype=A.dtype)
    for j in range(k):
        alpha, x = R[..., j, j], R[..., j + 1:, j]
        xnorm = xp.sqrt((x * x).sum(-1))
        still = xnorm == 0   # dlarfg: nothing below the diagonal, H = I (tau = 0)
        beta = -xp.copysign(xp.sqrt(alpha * alpha + xnorm * xnorm), alpha)
        beta = xp.where(still, alpha, beta)
        safe = xp.where(still, 1, beta)
        tau[..., j] = xp.where(still, 0, (beta - alpha) / safe)
        v = x / xp.where(still, 1, alpha - beta)[..., None]
        R[..., j, j], R[..., j + 1:, j] = beta, v
        head = R[..., j, j + 1:]   # apply H = I - tau [1; v] [1; v]^T to the columns right of j
        w = head + xp.einsum("...i,...ij->...j", v, R[..., j + 1:, j + 1:])
        t = tau[..., j, None] * w
        R[..., j, j + 1:] = head - t
        R[..., j + 1:, j + 1:] -= v[..., :, None] * t[..., None, :]
    return R, tau


# ----------------------------------------------------------------------------- geqrf

@defop("geqrf", node="GeqrfBackward0", outputs=2)
def geqrf_op(xp, A):
    return geqrf_arrays(xp, A)


# torch has no derivative for geqrf: its node raises when the backward reaches it.
geqrf_op.vjp(no_derivative("geqrf"))

# torch.return_types.geqrf: the named tuple ``(a, tau)``, named and printed as torch's.
_GeqrfResult = return_type("geqrf", ("a", "tau"))


def geqrf(input):
    """``torch.geqrf``: LAPACK's QR factorization, ``(a, tau)``: R on and above the diagonal
    of ``a``, the Householder vectors below it, their scales in ``tau``. Not differentiable
    (as in torch, the backward raises).

    >>> import agdebug as ag
    >>> ag.geqrf(ag.tensor([[3.0], [4.0]])).tau
    tensor([1.6000])
    """
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if input._data.dtype.kind != "f" or input._data.dtype.itemsize < 4:
        raise kernel_missing("geqrf_cpu", input.dtype)
    return _GeqrfResult(*geqrf_op(input))


def _eye_like(A) -> Tensor:
    """The first n columns of the m x m identity, A's dtype and device (a constant)."""
    m, n = A.shape[-2:]
    return Tensor._wrap(xp_of(A._data).eye(m, n, dtype=A._data.dtype))


def _reflected_states(V, tau) -> list:
    """[Q_0, ..., Q_k]: Q_k the identity's columns, Q_i = H_i Q_{i+1}; Q_0 the result."""
    Q = _eye_like(V).expand(*V.shape)
    states = [Q]
    for i in reversed(range(tau.shape[-1])):
        v = V[..., :, i]
        Q = Q - tau[..., i, None, None] * (v.unsqueeze(-1) * _vecmat(v, Q).unsqueeze(-2))
        states.append(Q)
    return states[::-1]


def _vecmat(v, M):
    return (v.unsqueeze(-2) @ M).squeeze(-2)


def _matvec(M, v):
    return (M @ v.unsqueeze(-1)).squeeze(-1)


def _stack(items: list):
    from ..shape.joining import stack  # (shape_args imports the op modules: not at the top)
    return stack(items, dim=-1)


def _columns_below_diagonal(grad_vs: list, A):
    """The gradient of A from those of v_0..v_{k-1}: their entries below the diagonal, zero
    columns past k."""
    from ..shape.joining import cat
    grad_V = _stack(grad_vs)
    missing = A.shape[-1] - grad_V.shape[-1]
    if missing:
        grad_V = cat([grad_V, grad_V.new_zeros(tuple(A.shape[:-1]) + (missing,))], dim=-1)
    return grad_V.tril(-1)


# ----------------------------------------------------------------------------- functions

def _check_matrix_exp(A) -> None:
    """torch's checks, in its order: at least 2-D, square, then a floating dtype (half
    included: check_input checks the dtype only where it is not floating, as its "check"
    would refuse half precision)."""
    from ...linalg import check_input  # (agdebug.linalg imports the op modules)
    check_input("linalg.matrix_exp", A, floating=None if A._data.dtype.kind == "f" else "check")


def matrix_exp(A):
    """The matrix exponential of each square matrix in ``A`` (batches allowed).

    >>> import agdebug as ag
    >>> ag.linalg.matrix_exp(ag.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    _check_matrix_exp(A)
    return linalg_matrix_exp_op(A)


def _check_householder(input, tau) -> None:
    """torch's checks, in its order: shapes, then dtypes, then the kernel's dtype."""
    fn = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = input.shape[-2:]
    if m < n:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if n < tau.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{input.ndim}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != input.dtype:
        raise RuntimeError(f"{fn}: tau dtype {tau.dtype._legacy} does not match input dtype "
                           f"{input.dtype._legacy}")
    if input._data.dtype.kind != "f" or input.dtype.itemsize < 4:
        raise kernel_missing("orgqr_cpu", input.dtype)


def householder_product(A, tau):
    """The first n columns of the product of the Householder reflectors
    I - tau_i v_i v_i^T stored below the diagonal of ``A`` (m x n, m >= n), as from geqrf.

    >>> import agdebug as ag
    >>> ag.linalg.householder_product(ag.eye(3, 2), ag.tensor([0.0, 2.0]))
    tensor([[ 1.,  0.],
            [ 0., -1.],
            [ 0.,  0.]])
    """
    _check_householder(A, tau)
    return linalg_householder_product_op(A, tau)


def orgqr(input, input2):
    """``torch.orgqr``: an alias of :func:`agdebug.linalg.householder_product`."""
    return householder_product(input, input2)


FUNCTIONS = {"matrix_exp": matrix_exp, "orgqr": orgqr, "geqrf": geqrf}
METHODS = dict(FUNCTIONS)
