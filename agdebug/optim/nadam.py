"""NAdam (Dozat): Adam with Nesterov momentum and a momentum-decay schedule, as torch has it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import refuse_capturable
from .optimizer import (
    Optimizer,
    check_betas,
    check_hyper,
    decayed_grad,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    scalar_state,
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
        super().__init__(params, defaults)

    def _refuse_capturable(self, p) -> None:
        refuse_capturable(p, "params, mu_products and state_steps")

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["mu_product"] = scalar_state(1.0)
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
        lr = scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = next_step(state)
        bias_correction2 = 1 - beta2 ** step
        g = followed_gradient(p, grad, group)
        mu, mu_next = _momentum_cache(beta1, group["momentum_decay"], step)
        mu_product = state["mu_product"]._data
        mu_product *= mu
        exp_avg, exp_avg_sq = update_moments(state, g, beta1, beta2)
        denom = xp_of(g).sqrt(exp_avg_sq / bias_correction2) + group["eps"]
        mu_prod = float(mu_product)
        param_add_(p, ((-lr * (1.0 - mu) / (1.0 - mu_prod)) * g) / denom)
        param_add_(p, (((-lr * mu_next) / (1.0 - mu_prod * mu_next)) * exp_avg) / denom)

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_nadam`` with grad enabled: the two coefficients are
        tensors (of ``mu_product``'s dtype) multiplied into the gradient and ``exp_avg``
        rather than ``value=`` numbers."""
        lr, (beta1, beta2) = group["lr"], group["betas"]
        step = next_step(state)
        grad = decayed_grad(p, grad, group)
        mu, mu_next = _momentum_cache(beta1, group["momentum_decay"], step)
        mu_product = state["mu_product"].mul_(mu)
        exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
        exp_avg_sq = state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add(group["eps"])
        mu_product_next = mu_product * mu_next
        grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
        exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
        p.addcdiv_(grad, denom)
        p.addcdiv_(exp_avg, denom)


def _momentum_cache(beta1: float, momentum_decay: float, step: float) -> tuple:
    """NAdam's momentum coefficients for this step and the next."""
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    return mu, mu_next
