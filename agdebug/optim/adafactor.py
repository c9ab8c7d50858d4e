"""Adafactor (Shazeer & Stern): factored second moments and relative step sizes, as torch 2.5+
computes it."""

from __future__ import annotations

import numpy as np

from ..backend import xp_of
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    lerp_,
    next_step,
    param_add_,
    param_mul_,
    scalar,
    scalar_state,
)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """torch.optim.Adafactor: Adam-like steps whose second moment of a matrix is kept as a row
    and a column factor, scaled by the parameter's RMS and clipped to RMS ``d``.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0, 2.0]))
    >>> opt = ag.optim.Adafactor([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> [round(v, 4) for v in w.tolist()]
    [0.8419, 1.8419]
    """

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None,
                 maximize: bool = False):
        _check(lr, beta2_decay, eps, d, weight_decay)
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _init_state(self, p, group, state) -> None:
        """``step``, and a row and a column factor for a matrix (or a full ``variance`` else)."""
        grad = p._grad._data
        xp = xp_of(grad)
        state["step"] = scalar_state(0.0)
        if grad.ndim > 1:
            state["row_var"] = Tensor._wrap(xp.zeros(grad.shape[:-1] + (1,), dtype=grad.dtype))
            col_shape = grad.shape[:-2] + (1,) + grad.shape[-1:]
            state["col_var"] = Tensor._wrap(xp.zeros(col_shape, dtype=grad.dtype))
        else:
            state["variance"] = Tensor._wrap(xp.zeros_like(grad))

    def _update(self, p, grad, group, state) -> None:
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        xp, lr = xp_of(p._data), scalar(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = _group_eps(group)
        g = -grad if group["maximize"] else grad
        step = next_step(state)
        weight = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, _norm(xp, p._data) / (p._data.size ** 0.5)) * rho_t
        if group["weight_decay"] != 0:
            param_mul_(p, 1 - lr * group["weight_decay"])
        if g.ndim > 1:
            var_estimate = _factored_variance(xp, state, g, weight, eps1)
        else:
            lerp_(state["variance"]._data, g * g, weight)
            var_estimate = state["variance"]._data.copy()
        update = 1 / xp.sqrt(xp.maximum(var_estimate, eps1 * eps1)) * g
        denom = max(1.0, _norm(xp, update) / ((update.size ** 0.5) * group["d"]))
        param_add_(p, (-alpha / denom) * update)


def _check(lr, beta2_decay, eps, d, weight_decay) -> None:
    """torch's hyper-parameter checks, in its order and words."""
    if not 0.0 <= lr:
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
    if not 0.0 >= beta2_decay:
        raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
    if eps[0] is not None and not 0.0 <= eps[0]:
        raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
    if not 0.0 <= eps[1]:
        raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
    if not 1.0 <= d:
        raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")



def _group_eps(group: dict) -> float:
    # torch fills eps1 from the first parameter with a gradient and keeps it for the group
    first = next(p for p in group["params"] if p._grad is not None)
    return float(np.finfo(first._data.dtype).eps)


def _factored_variance(xp, state: dict, g, weight: float, eps1: float):
    """The outer product of the row and column factors over the row factors' mean."""
    row_var, col_var = state["row_var"]._data, state["col_var"]._data
    lerp_(row_var, xp.square(xp.linalg.norm(g, axis=-1, keepdims=True)) / g.shape[-1], weight)
    lerp_(col_var, xp.square(xp.linalg.norm(g, axis=-2, keepdims=True)) / g.shape[-2], weight)
    var_estimate = row_var @ col_var
    var_estimate /= xp.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
    return var_estimate


def _norm(xp, array) -> float:
    return float(xp.linalg.norm(array.ravel()))
