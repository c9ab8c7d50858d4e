"""``torch.nn.utils.weight_norm``: the deprecated, hook-based weight normalization.

The weight is split into ``<name>_g`` and ``<name>_v`` parameters and recomputed as
``_weight_norm(v, g, dim)`` by a forward pre-hook before each call.

>>> import warnings
>>> import agdebug as ag
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     m = ag.nn.utils.weight_norm(ag.nn.Linear(3, 2))
>>> [name for name, _ in m.named_parameters()]
['bias', 'weight_g', 'weight_v']
"""

from __future__ import annotations

import warnings

from ...ops.nn.weight_norm import norm_except_dim
from ...ops.nn.weight_norm import weight_norm as _weight_norm
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g``, ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Split ``module.<name>`` into a magnitude ``<name>_g`` and a direction ``<name>_v``,
    recombined before every forward (deprecated: see ``parametrizations.weight_norm``)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``module.<name>`` is one parameter again."""
    remove_norm_hook(module, WeightNorm, name, "weight_norm")
    return module


def remove_norm_hook(module: Module, kind: type, name: str, label: str) -> None:
    """Take out the ``kind`` forward pre-hook that recomputes ``module.<name>`` (weight_norm's
    or spectral_norm's), letting it make ``<name>`` a plain parameter again."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return
    raise ValueError(f"{label} of '{name}' not found in {module}")
