"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``.

Steps update the parameters' arrays in place under ``no_grad`` and bump each
parameter's version counter, as torch's in-place updates do.
"""

from __future__ import annotations

from ..graph.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["Optimizer"]


class Optimizer:
    """Base class: holds ``param_groups`` (dicts of params and options) and ``state``."""

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__module__}.{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset each parameter's ``.grad``: to None (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad = p._grad.detach()
                    p._grad.zero_()

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            from ..graph.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._update(p, p._grad._data, group, self.state.setdefault(p, {}))
        return loss

    def _update(self, p: Tensor, grad, group: dict, state: dict) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


def subtract_from_param(p: Tensor, delta) -> None:
    """``p -= delta`` in ``p``'s own array (views see it) and bump its version: an in-place op."""
    p._data -= delta
    p._bump_version()
