"""Adamax: Adam with the infinity norm in place of the second moment, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from ..ops.shape.joining import cat
from .modes import number
from .optimizer import (
    Optimizer,
    check_betas,
    check_hyper,
    decayed_grad,
    followed_gradient,
    lerp_,
    next_step,
    param_add_,
    scalar,
    scalar_state,
    zeros_state,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """torch.optim.Adamax: the step is the first moment over a decaying max of ``|grad|``.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.Adamax([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon value", eps)
        check_betas(betas)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["exp_avg"] = zeros_state(p)
        state["exp_inf"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
        beta1, beta2 = group["betas"]
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
        lerp_(exp_avg, g, 1 - beta1)
        exp_inf *= beta2
        xp_of(g).maximum(exp_inf, xp_of(g).abs(g) + group["eps"], out=exp_inf)
        clr = scalar(group["lr"]) / (1 - beta1 ** step)
        param_add_(p, (-clr * exp_avg) / exp_inf)

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_adamax`` with grad enabled: the infinity norm is the
        ``amax`` of a ``cat`` (``maximum(..., out=)`` is not differentiable)."""
        beta1, beta2 = group["betas"]
        step = next_step(state)
        grad = decayed_grad(p, grad, group)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0),
                        grad.abs().add_(group["eps"]).unsqueeze_(0)], 0)
        exp_inf.copy_(norm_buf.amax(0, keepdim=False))
        clr = group["lr"] / (1 - beta1 ** step)
        p.addcdiv_(exp_avg, exp_inf, value=number(-clr, "addcdiv_", "value"))
