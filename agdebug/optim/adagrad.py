"""Adagrad (Duchi et al.) with learning-rate decay, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import check_fused_options, check_fused_param, number
from .optimizer import (
    Optimizer,
    check_hyper,
    decayed_grad,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    step_state,
    zeros_state,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """torch.optim.Adagrad: scale each coordinate by the root of its summed squared gradients.

    State is made at construction, as torch does (``state[p]["sum"]`` starts at
    ``initial_accumulator_value``), and at the first step of a parameter added later.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.Adagrad([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None):
        check_hyper("learning rate", lr)
        check_hyper("lr_decay value", lr_decay)
        check_hyper("weight_decay value", weight_decay)
        check_hyper("initial_accumulator_value value", initial_accumulator_value)
        check_hyper("epsilon value", eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        check_fused_options(defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p, group, self.state[p])

    _need_device_dtype_check_for_fused = True

    def _new_state(self, p, group, state) -> None:
        # torch reads initial_accumulator_value from the defaults, not from the group
        state["step"] = step_state(p, group)
        state["sum"] = zeros_state(p, self.defaults["initial_accumulator_value"])

    def _init_state(self, p, group, state) -> None:
        """torch's lazy state for a parameter added by ``add_param_group`` (the dtype is checked
        there when fused, not in ``__init__``)."""
        if group["fused"]:
            check_fused_param(p)
        self._new_state(p, group, state)

    def _update(self, p, grad, group, state) -> None:
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        clr = scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]._data
        state_sum += 1 * g * g
        std = xp_of(state_sum).sqrt(state_sum) + group["eps"]
        param_add_(p, (-clr * g) / std)

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_adagrad`` with grad enabled (``eps`` added out of place)."""
        step = next_step(state)
        grad = decayed_grad(p, grad, group)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"].addcmul_(grad, grad, value=1)
        p.addcdiv_(grad, state_sum.sqrt() + group["eps"], value=number(-clr, "addcdiv_", "value"))
