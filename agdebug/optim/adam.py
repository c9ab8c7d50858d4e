"""Adam (Kingma & Ba) and AdamW (decoupled weight decay), with AMSGrad, as torch computes them."""

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

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """torch.optim.Adam: bias-corrected first and second moment estimates.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.Adam([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused=None, decoupled_weight_decay: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon value", eps)
        check_betas(betas)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "betas": tuple(scalar(b) for b in betas), "eps": eps,
                    "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        unsupported(defaults, "capturable", "differentiable", "fused")
        super().__init__(params, defaults)

    def _update(self, p, grad, group, state) -> None:
        if not state:
            state["step"] = scalar_state(0.0)
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_state(p)
        lr = scalar(group["lr"])
        beta1, beta2 = group["betas"]
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        m, v = update_moments(state, g, beta1, beta2)
        if group["amsgrad"]:
            v_max = state["max_exp_avg_sq"]._data
            v_max[...] = xp_of(v_max).maximum(v_max, v)
            v = v_max
        step_size = lr / (1 - beta1 ** step)
        denom = xp_of(v).sqrt(v) / (1 - beta2 ** step) ** 0.5 + group["eps"]
        param_add_(p, (-step_size * m) / denom)


class AdamW(Adam):
    """torch.optim.AdamW: Adam whose weight decay shrinks the parameters directly.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8500], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach=None, capturable: bool = False, differentiable: bool = False,
                 fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
