"""Adadelta (Zeiler): a learning rate per coordinate from running averages, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import refuse_capturable
from .optimizer import (
    Optimizer,
    check_hyper,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    scalar_state,
    unsupported,
    zeros_state,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """torch.optim.Adadelta: scale the gradient by RMS(past updates) / RMS(past gradients).

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.Adadelta([w])
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9968
    """

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False):
        check_hyper("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_hyper("epsilon value", eps)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        unsupported(defaults, "differentiable")
        super().__init__(params, defaults)

    def _refuse_capturable(self, p) -> None:
        refuse_capturable(p, "params and state_steps", xla=False)

    def _update(self, p, grad, group, state) -> None:
        if not state:
            state["step"] = scalar_state(0.0)
            state["square_avg"] = zeros_state(p)
            state["acc_delta"] = zeros_state(p)
        xp, rho, eps = xp_of(p._data), group["rho"], group["eps"]
        next_step(state)
        g = followed_gradient(p, grad, group)
        square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
        square_avg *= rho
        square_avg += (1 - rho) * g * g
        std = xp.sqrt(square_avg + eps)
        delta = xp.sqrt(acc_delta + eps) / std * g
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        param_add_(p, -scalar(group["lr"]) * delta)
