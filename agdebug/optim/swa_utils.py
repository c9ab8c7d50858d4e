"""``torch.optim.swa_utils``: weight averaging (SWA, EMA), its learning-rate schedule and
``update_bn``, with torch's formulas, so the averaged weights agree with torch's bitwise.

>>> import agdebug as ag
>>> net = ag.nn.Linear(2, 1)
>>> swa = ag.optim.swa_utils.AveragedModel(net)
>>> swa.update_parameters(net)
>>> with ag.no_grad():
...     _ = net.weight.add_(1.0)
>>> swa.update_parameters(net)
>>> int(swa.n_averaged), bool(((swa.module.weight - net.weight) == -0.5).all())
(2, True)
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import creation
from ..backend import int64
from ..graph.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def _weight(value) -> float:
    """A lerp weight as torch's foreach kernel reads it: a tensor's value, at its precision."""
    return float(value.item()) if isinstance(value, Tensor) else float(value)


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` for an exponential moving average: each average moves ``1 - decay``
    of the way to the model's value (a lerp; integers by the weighted sum)."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with no_grad():
            if ema_param_list[0].is_floating_point():
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` for the running mean of SWA: a lerp by ``1 / (num_averaged + 1)``."""
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with no_grad():
            if averaged_param_list[0].is_floating_point():
                weight = _weight(1 / (num_averaged + 1))
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    p_avg.lerp_(p_model, weight)
                return
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_avg
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` for an exponential moving average: ``decay * ema + (1 - decay) * model``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` for the running mean of SWA."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and with ``use_buffers``, buffers) are the average
    of the models given to ``update_parameters``: SWA's running mean by default, or ``avg_fn``
    (one tensor at a time) or ``multi_avg_fn`` (lists of one device and dtype)."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", creation.tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_pairs(self, model: Module) -> list:
        """(averaged, model's) detached pairs; the first update copies the model's values."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        first = bool(self.n_averaged == 0)
        pairs = []
        for p_averaged, p_model in zip(mine, theirs):
            p_model_ = p_model.detach().to(p_averaged.device)
            pairs.append((p_averaged.detach(), p_model_))
            if first:
                p_averaged.detach().copy_(p_model_)
        return pairs

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s current values in (``n_averaged`` counts the models)."""
        pairs = self._averaged_pairs(model)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                self._average_groups(pairs)
            else:
                for p_averaged, p_model in pairs:
                    n_averaged = self.n_averaged.to(p_averaged.device)
                    p_averaged.copy_(self.avg_fn(p_averaged, p_model, n_averaged))
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _average_groups(self, pairs: list) -> None:
        """torch's path by (device, dtype) group: ``multi_avg_fn``, else SWA's lerp where
        torch has foreach kernels (CUDA), else SWA's ``avg_fn`` tensor by tensor (CPU)."""
        groups: dict = {}
        for p_averaged, p_model in pairs:
            group = groups.setdefault((p_averaged.device, p_averaged.dtype), ([], []))
            group[0].append(p_averaged)
            group[1].append(p_model)
        for (device, _), (averaged, current) in groups.items():
            n_averaged = self.n_averaged.to(device)
            if self.multi_avg_fn:
                self.multi_avg_fn(averaged, current, n_averaged)
            elif device.type == "cuda":
                get_swa_multi_avg_fn()(averaged, current, n_averaged)
            else:
                avg_fn = get_swa_avg_fn()
                for p_averaged, p_model in zip(averaged, current):
                    p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))


def update_bn(loader, model: Module, device=None) -> None:
    """Recompute every batch norm's running statistics with one pass over ``loader`` (a
    cumulative average: momentum None), as after SWA; the model's mode is restored."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate to ``swa_lr`` over ``anneal_epochs`` steps ("cos" or
    "linear"), then holds it.

    >>> import agdebug as ag
    >>> opt = ag.optim.SGD([ag.nn.Parameter(ag.ones(1))], lr=1.0)
    >>> sched = ag.optim.swa_utils.SWALR(opt, swa_lr=0.5, anneal_epochs=2,
    ...                                  anneal_strategy="linear")
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.75, 0.5, 0.5]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        """torch's: the rate before this step's annealing is recovered from the group's
        current one, then moved the step's share of the way to ``swa_lr``."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def state_dict(self) -> dict:
        """Every attribute but the optimizer and the annealing function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
