"""Adam (Kingma & Ba) and AdamW (decoupled weight decay), with AMSGrad, as torch computes them."""

from __future__ import annotations

from ..backend import xp_of
from .modes import check_fused_options, check_fused_param
from .optimizer import (
    Optimizer,
    check_betas,
    check_hyper,
    decayed_grad,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    step_state,
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
        super().__init__(params, defaults)
        check_fused_options(defaults)

    def _init_state(self, p, group, state) -> None:
        if group.get("fused"):
            check_fused_param(p)
        state["step"] = step_state(p, group)
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
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

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_adam`` with ``differentiable=True``: bias corrections as
        tensors of the step, and clones where a saved tensor would be overwritten."""
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        step = state["step"].add_(1)
        grad = decayed_grad(p, grad, group, tensor_weight_decay=True)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size_neg = (lr / (1 - beta1 ** step)).neg()
        bias_correction2_sqrt = (1 - beta2 ** step).sqrt()
        if group["amsgrad"]:
            max_exp_avg_sq = state["max_exp_avg_sq"]
            max_exp_avg_sq.copy_(max_exp_avg_sq.clone().maximum(exp_avg_sq))
            exp_avg_sq = max_exp_avg_sq
        denom = ((exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg))
                 .add_(eps / step_size_neg))
        p.addcdiv_(exp_avg.clone(), denom)


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
