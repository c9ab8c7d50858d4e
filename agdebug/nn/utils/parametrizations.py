"""``torch.nn.utils.parametrizations``: weight norm, spectral norm and orthogonal matrices as
parametrizations.

>>> import agdebug as ag
>>> from agdebug.nn.utils.parametrizations import weight_norm
>>> m = weight_norm(ag.nn.Linear(3, 2))
>>> [name for name, _ in m.named_parameters()]
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

import enum

import numpy as np

from ... import creation
from ...graph.grad_mode import no_grad
from ...ops.linalg.matrix_functions import geqrf, householder_product, matrix_exp
from ...ops.tensor_methods.operators import add
from ...ops.shape.joining import cat
from ...ops.reduction.statistics import allclose
from ...ops.linalg.products import mv
from ...ops.linalg.vdot import vdot
from ...ops.nn.weight_norm import norm_except_dim
from ...ops.nn.weight_norm import weight_norm as _weight_norm
from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _normalize(input: Tensor, eps: float) -> Tensor:
    from .. import functional as F
    return F.normalize(input, dim=0, eps=eps)


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norms over every dim but
    ``dim``; ``dim=None``: over the whole tensor). The magnitude ``g`` is
    ``parametrizations.<name>.original0``, the direction ``v`` ``original1``; a state dict
    saved with the old ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) still loads.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook(name))
    return module


def _weight_norm_compat_hook(name: str):
    """A load pre-hook renaming ``<name>_g`` / ``<name>_v`` to ``original0`` / ``original1``."""
    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1
    return _weight_norm_compat_hook


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", _normalize(u, self.eps))
            self.register_buffer("_v", _normalize(v, self.eps))
            self._power_method(weight_mat, 15)   # start near the top singular vectors

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, as torch's ``normalize(..., out=self._u)``: the buffers stay the same
        # tensors, and the update is not recorded.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(_normalize(mv(weight_mat, self._v), self.eps))
                self._v.copy_(_normalize(mv(weight_mat.t(), self._u), self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()   # later iterations must not change these
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def _default_dim(module: Module) -> int:
    """1 for the transposed convolutions (their weight is (in, out, ...)), else 0."""
    from .. import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Reparametrize ``module.<name>`` as itself divided by its largest singular value,
    estimated by power iteration (buffers ``_u`` and ``_v``, updated in training mode only).

    >>> import agdebug as ag
    >>> m = ag.nn.utils.parametrizations.spectral_norm(ag.nn.Linear(4, 3))
    >>> sorted(m.parametrizations.weight[0]._buffers)
    ['_u', '_v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module



# ----------------------------------------------------------------------------- orthogonal

def _is_orthogonal(Q: Tensor) -> bool:
    """Q^T Q = I to 10 n eps (torch's test before orthogonalizing an initial value)."""
    n, k = Q.size(-2), Q.size(-1)
    eye = creation.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * float(np.finfo(Q._data.dtype).eps)
    return allclose(Q.mT @ Q, eye, atol=eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A = QR (A tall) with diag(R) >= 0."""
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    # the diagonal of X is that of R: flipping columns by its signs makes it non-negative
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    """An orthogonal matrix (orthonormal columns, or rows if wide) from an unconstrained one."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.householder:
            Q = self._householder(X)
        else:
            Q = self._skew_map(X, n, k)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _skew_map(self, X: Tensor, n: int, k: int) -> Tensor:
        """exp or the Cayley map of the skew-symmetric A made of X's lower triangle."""
        X = X.tril()
        if n != k:   # embed into a square matrix
            X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mT
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = matrix_exp(A)
        else:   # (I + A/2)(I - A/2)^{-1}
            from ...linalg import solve
            eye = creation.eye(n, dtype=A.dtype, device=A.device)
            Q = solve(add(eye, A, alpha=-0.5), add(eye, A, alpha=0.5))
        return Q[..., :k] if n != k else Q

    def _householder(self, X: Tensor) -> Tensor:
        A = X.tril(diagonal=-1)
        tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
        Q = householder_product(A, tau)
        # X's diagonal holds 1's and -1's: neither differentiated nor updated (hence int)
        return Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            return self._householder_inverse(Q, transpose)
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:   # complete Q into a full n x n orthogonal matrix
            N = creation.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -I: householder(zeros) is then eye(m, n), and exp / Cayley of 0 is I
        neg_id = creation.zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id

    def _householder_inverse(self, Q: Tensor, transpose: bool) -> Tensor:
        """Without a base, only the Householder map can be inverted: by a QR of Q."""
        if self.orthogonal_map != _OrthMaps.householder:
            raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                      "or the Cayley parametrizations when "
                                      "use_trivialization=False.")
        A, tau = geqrf(Q)
        # diag(R) > 0 (else Q = (-Q)(-I) would do too); LAPACK's tau is exactly 0 where it
        # skipped a reflection
        A.diagonal(dim1=-2, dim2=-1).sign_()
        A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
        return A.mT if transpose else A


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Reparametrize the matrix (or batch of matrices) ``module.<name>`` as an orthogonal one
    (orthonormal columns if tall, rows if wide) by ``orthogonal_map``: "matrix_exp" or
    "cayley" of a skew-symmetric matrix, or "householder" reflectors. The default is
    "matrix_exp" for square matrices, "householder" otherwise. With ``use_trivialization``
    the result is ``base @ map(original)``, ``base`` a buffer reset on each assignment.

    >>> import agdebug as ag
    >>> m = ag.nn.utils.parametrizations.orthogonal(ag.nn.Linear(3, 3))
    >>> bool(ag.allclose(m.weight.T @ m.weight, ag.eye(3), atol=1e-5))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
