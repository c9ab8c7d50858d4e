"""``torch.nn.utils.parametrizations``: weight norm and spectral norm as parametrizations.

>>> import agdebug as ag
>>> from agdebug.nn.utils.parametrizations import weight_norm
>>> m = weight_norm(ag.nn.Linear(3, 2))
>>> [name for name, _ in m.named_parameters()]
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""

from __future__ import annotations

from ...graph.grad_mode import no_grad
from ...ops.linalg import mv
from ...ops.vdot import vdot
from ...ops.weight_norm import norm_except_dim
from ...ops.weight_norm import weight_norm as _weight_norm
from ...tensor import Tensor
from ..module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


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

