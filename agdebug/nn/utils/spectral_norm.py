"""``torch.nn.utils.spectral_norm``: the hook-based spectral normalization.

The weight moves to ``<name>_orig``; buffers ``<name>_u`` and ``<name>_v`` hold the power
iteration's vectors, and a forward pre-hook sets ``module.<name>`` to ``<name>_orig / sigma``
before each call (one more power iteration first in training mode). ``state_dict`` records
``SpectralNorm._version`` in the module's metadata, and ``load_state_dict`` converts a
checkpoint of version 0 (``<name>`` saved, no ``<name>_v``) as torch does.

>>> import agdebug as ag
>>> m = ag.nn.utils.spectral_norm(ag.nn.Linear(4, 3))
>>> list(m.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
"""

from __future__ import annotations

from ...graph.grad_mode import no_grad
from ...linalg import multi_dot
from ...ops.linalg.products import dot, mv
from ..modules.module import Module
from ..parameter import Parameter
from .parametrizations import _default_dim, _normalize
from .weight_norm import remove_norm_hook

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``."""

    _version = 1   # 1: ``<name>`` no longer a buffer, ``<name>_v`` added

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():   # in place (torch's ``out=``): the buffers keep the new vectors
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(mv(weight_mat.t(), u), self.eps))
                    u.copy_(_normalize(mv(weight_mat, v), self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """A ``v`` with ``u = normalize(W @ v)`` and ``u @ W @ v = target_sigma`` (pinverse:
        ``W^T W`` may be singular)."""
        v = multi_dot([weight_mat.t().mm(weight_mat).pinverse(), weight_mat.t(),
                       u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(weight_mat, v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = _normalize(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 checkpoint (``<name>`` and ``<name>_u`` saved, no ``<name>_v``)."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and weight_key not in state_dict
                and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))):
            return   # a current state dict without its metadata (made by hand)
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        # Saved after a training forward: u = normalize(W_orig @ v) and W = W_orig / sigma,
        # so v solves W_orig @ x = u, rescaled to give sigma.
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records ``SpectralNorm._version`` in ``local_metadata["spectral_norm"]``."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its largest singular value (power iteration), recomputed
    by a forward pre-hook; state-dict hooks record and check the format's version."""
    if dim is None:
        dim = _default_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``spectral_norm``: ``module.<name>`` is one parameter again (the last value)."""
    remove_norm_hook(module, SpectralNorm, name, "spectral_norm")
    hooks = module._state_dict_hooks
    for k, hook in hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del hooks[k]
            break
    # The load pre-hook stays: torch 2.13 looks for it among _load_state_dict_pre_hooks too,
    # but it sits in a _WrappedHook there and is never found, so loading a plain state dict
    # into the module afterwards reports "<name>_orig" and "<name>_u" missing, as torch does.
    return module
