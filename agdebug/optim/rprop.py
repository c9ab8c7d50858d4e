"""Rprop (resilient backpropagation): per-coordinate step sizes driven by gradient signs."""

from __future__ import annotations

from ..backend import xp_of
from .modes import number
from .optimizer import (
    Optimizer,
    check_hyper,
    next_step,
    param_add_,
    scalar_state,
    zeros_state,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """torch.optim.Rprop: grow a coordinate's step while its gradient keeps its sign, shrink
    it (and skip that update) when the sign flips; only the sign of the gradient is used.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.Rprop([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        check_hyper("learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["prev"] = zeros_state(p)
        # filled from the gradient's dtype, as torch's full_like(grad, lr), which takes a
        # tensor lr only when it needs no grad
        lr = number(group["lr"], "full_like", "fill_value", position=2)
        state["step_size"] = zeros_state(p, lr)

    def _update(self, p, grad, group, state) -> None:
        xp = xp_of(p._data)
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        next_step(state)
        g = -grad if group["maximize"] else grad
        prev, step_size = state["prev"]._data, state["step_size"]._data
        sign = xp.sign(g * prev)
        factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, 1.0))
        factor = factor.astype(g.dtype, copy=False)
        step_size *= factor
        xp.clip(step_size, step_size_min, step_size_max, out=step_size)
        # a coordinate whose gradient changed sign takes no step now and forgets its sign
        g = xp.where(factor == factor.dtype.type(etaminus), 0, g).astype(g.dtype, copy=False)
        param_add_(p, -(xp.sign(g) * step_size))
        prev[...] = g

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_rprop`` with grad enabled: the sign factors are written
        into the recorded ``sign`` by masked assignment (index_put_)."""
        etaminus, etaplus = group["etas"]
        grad = -grad if group["maximize"] else grad   # (Rprop has no weight decay)
        next_step(state)
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev.clone()).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(*group["step_sizes"])
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
