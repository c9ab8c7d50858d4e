"""NAdam (Dozat): Adam with Nesterov momentum and a momentum-decay schedule, as torch has it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import refuse_capturable
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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """torch.optim.NAdam.

    ``mu_product`` is kept, as in torch, in a 0-d tensor of the default dtype (float32), so
    its rounding is torch's too.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.NAdam([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8944
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon value", eps)
        check_betas(betas)
        check_hyper("weight_decay value", weight_decay)
        check_hyper("momentum_decay value", momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        unsupported(defaults, "differentiable")
        super().__init__(params, defaults)

    def _refuse_capturable(self, p) -> None:
        refuse_capturable(p, "params, mu_products and state_steps")

    def _update(self, p, grad, group, state) -> None:
        if not state:
            state["step"] = scalar_state(0.0)
            state["mu_product"] = scalar_state(1.0)
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
        lr = scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = next_step(state)
        bias_correction2 = 1 - beta2 ** step
        g = followed_gradient(p, grad, group)
        decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state["mu_product"]._data
        mu_product *= mu
        exp_avg, exp_avg_sq = update_moments(state, g, beta1, beta2)
        denom = xp_of(g).sqrt(exp_avg_sq / bias_correction2) + group["eps"]
        mu_prod = float(mu_product)
        param_add_(p, ((-lr * (1.0 - mu) / (1.0 - mu_prod)) * g) / denom)
        param_add_(p, (((-lr * mu_next) / (1.0 - mu_prod * mu_next)) * exp_avg) / denom)
