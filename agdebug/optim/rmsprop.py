"""RMSprop (Hinton), with momentum and the centered variant, as torch computes it."""

from __future__ import annotations

from ..backend import xp_of
from .modes import number
from .optimizer import (
    Optimizer,
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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """torch.optim.RMSprop: divide the gradient by a running RMS of its recent magnitudes.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.RMSprop([w], lr=0.01)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("epsilon value", eps)
        check_hyper("momentum value", momentum)
        check_hyper("weight_decay value", weight_decay)
        check_hyper("alpha value", alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["square_avg"] = zeros_state(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
        xp, alpha, lr = xp_of(p._data), group["alpha"], scalar(group["lr"])
        next_step(state)
        g = followed_gradient(p, grad, group)
        square_avg = state["square_avg"]._data
        square_avg *= alpha
        square_avg += (1 - alpha) * g * g
        if group["centered"]:
            grad_avg = state["grad_avg"]._data
            lerp_(grad_avg, g, 1 - alpha)
            avg = xp.sqrt(square_avg + -1 * grad_avg * grad_avg)
        else:
            avg = xp.sqrt(square_avg)
        avg += group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            buf *= group["momentum"]
            buf += g / avg
            param_add_(p, -lr * buf)
        else:
            param_add_(p, (-lr * g) / avg)

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_rmsprop`` with grad enabled (``eps`` added out of place)."""
        alpha, lr = group["alpha"], group["lr"]
        next_step(state)
        grad = decayed_grad(p, grad, group)
        square_avg = state["square_avg"].mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"].lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"].mul_(group["momentum"]).addcdiv_(grad, avg)
            p.add_(buf, alpha=number(-lr, "add_", "alpha"))
        else:
            p.addcdiv_(grad, avg, value=number(-lr, "addcdiv_", "value"))
