"""Adadelta (Zeiler): a learning rate per coordinate from running averages, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import number, refuse_capturable
from .optimizer import (
    Optimizer,
    check_hyper,
    decayed_grad,
    followed_gradient,
    next_step,
    param_add_,
    scalar,
    scalar_state,
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
        super().__init__(params, defaults)

    def _refuse_capturable(self, p) -> None:
        refuse_capturable(p, "params and state_steps", xla=False)

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["square_avg"] = zeros_state(p)
        state["acc_delta"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
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

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_adadelta`` with grad enabled: ``delta`` is cloned before
        it is updated in place (``sqrt_`` saved its result)."""
        rho, eps = group["rho"], group["eps"]
        next_step(state)
        grad = decayed_grad(p, grad, group)
        square_avg = state["square_avg"].mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = state["acc_delta"].add(eps).sqrt_().clone()
        delta.div_(std).mul_(grad)
        state["acc_delta"].mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=number(-group["lr"], "add_", "alpha"))
