"""RAdam (Liu et al.): Adam with a rectified adaptive learning rate, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from .optimizer import (
    Optimizer,
    check_betas,
    check_hyper,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    scalar_state,
    unsupported,
    update_moments,
    zeros_state,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """torch.optim.RAdam: plain momentum SGD until the variance estimate is trustworthy.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.RAdam([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon value", eps)
        check_betas(betas)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        unsupported(defaults, "differentiable")
        super().__init__(params, defaults)

    def _update(self, p, grad, group, state) -> None:
        if not state:
            state["step"] = scalar_state(0.0)
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
        lr = scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        exp_avg, exp_avg_sq = update_moments(state, g, beta1, beta2)
        bias_correction1, bias_correction2 = 1 - beta1 ** step, 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / (xp_of(g).sqrt(exp_avg_sq) + group["eps"])
            param_add_(p, -1.0 * (corrected * lr * adaptive * rect))
        else:
            param_add_(p, -1.0 * (corrected * lr))
