"""RAdam (Liu et al.): Adam with a rectified adaptive learning rate, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
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
        super().__init__(params, defaults)

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
        lr = scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        exp_avg, exp_avg_sq = update_moments(state, g, beta1, beta2)
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / (1 - beta1 ** step)
        rect = _rectification(beta2, step)
        if rect is not None:
            adaptive = (bias_correction2 ** 0.5) / (xp_of(g).sqrt(exp_avg_sq) + group["eps"])
            param_add_(p, -1.0 * (corrected * lr * adaptive * rect))
        else:
            param_add_(p, -1.0 * (corrected * lr))

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_radam`` with grad enabled (``eps`` added out of place)."""
        lr, (beta1, beta2) = group["lr"], group["betas"]
        step = next_step(state)
        grad = decayed_grad(p, grad, group)
        exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
        exp_avg_sq = state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / (1 - beta1 ** step)
        rect = _rectification(beta2, step)
        if rect is not None:
            adaptive = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)


def _rectification(beta2: float, step: float):
    """The variance rectification term, or None while the approximated SMA's length is at
    most 5 (the step is then plain momentum)."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)
    if not rho_t > 5.0:
        return None
    return ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
