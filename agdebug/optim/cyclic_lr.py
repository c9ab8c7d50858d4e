"""``torch.optim.lr_scheduler.CyclicLR``: the learning rate (and, the other way round, the
momentum or Adam's beta1) cycles between two bounds every batch; triangular, halving
(``triangular2``) and ``exp_range`` amplitudes, or the user's ``scale_fn``."""

from __future__ import annotations

import math
import types

from .lr_scheduler import LRScheduler, _format_param, _set_group_value
from .optimizer import Optimizer

__all__ = ["CyclicLR"]


class CyclicLR(LRScheduler):
    """Cycles between ``base_lr`` and ``max_lr``, ``step_size_up`` batches up and
    ``step_size_down`` (default: the same) down; call ``step()`` after every batch."""

    def __init__(self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum=0.8, max_momentum=0.9,
                 last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._init_momentum(optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch) -> None:
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                             "option enabled")
        self.use_beta1 = "betas" in optimizer.defaults
        self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
        self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
        if last_epoch == -1:
            for top, base, group in zip(self.max_momentums, self.base_momentums,
                                        optimizer.param_groups):
                self._set_momentum(group, top)
                group["max_momentum"], group["base_momentum"] = top, base

    def _set_momentum(self, group: dict, value) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self) -> list:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        factor = x / self.step_ratio if x <= self.step_ratio else \
            (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        # (torch's order of operations: base + ((top - base) * factor) * scale, bit for bit)
        lrs = [base + (top - base) * factor * scale
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                self._set_momentum(group, top - (top - base) * factor * scale)
        return lrs

    def state_dict(self) -> dict:
        """torch's: a custom ``scale_fn`` is kept only as a callable object's attributes."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()
