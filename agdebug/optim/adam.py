"""Adam (Kingma & Ba) with L2 weight decay and optional AMSGrad, as torch computes it."""

from __future__ import annotations

import math

import numpy as np

from ..backend import xp_of
from ..tensor import Tensor
from .optimizer import Optimizer, subtract_from_param

__all__ = ["Adam"]


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
                 weight_decay: float = 0, amsgrad: bool = False, *, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})

    def _update(self, p, grad, group, state) -> None:
        if not state:
            state["step"] = Tensor._wrap(np.array(0.0, dtype=np.float32))
            state["exp_avg"] = Tensor._wrap(xp_of(p._data).zeros_like(p._data))
            state["exp_avg_sq"] = Tensor._wrap(xp_of(p._data).zeros_like(p._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = Tensor._wrap(xp_of(p._data).zeros_like(p._data))
        beta1, beta2 = group["betas"]
        g = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p._data
        step = float(state["step"].item()) + 1
        state["step"]._data[...] = step
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m[...] = m + (g - m) * (1 - beta1)
        v[...] = v * beta2 + (1 - beta2) * g * g
        if group["amsgrad"]:
            v_max = state["max_exp_avg_sq"]._data
            v_max[...] = xp_of(v_max).maximum(v_max, v)
            v = v_max
        bias_sqrt = math.sqrt(1 - beta2 ** step)
        denom = (v ** 0.5) / bias_sqrt + group["eps"]
        subtract_from_param(p, (group["lr"] / (1 - beta1 ** step)) * m / denom)
