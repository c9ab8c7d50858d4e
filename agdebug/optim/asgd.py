"""ASGD (Polyak-Juditsky averaged SGD), as torch computes it."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..backend import xp_of
from ..creation import as_tensor
from ..tensor import Tensor
from .modes import refuse_capturable
from .optimizer import (
    Optimizer,
    check_hyper,
    decayed_grad,
    followed_gradient,
    next_step,
    param_add_,
    param_mul_,
    scalar,
    scalar_dtype,
    scalar_state,
    zeros_state,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """torch.optim.ASGD: SGD with a decaying step ``eta`` and a running average ``ax`` of the
    iterates, which starts averaging after ``t0`` steps.

    ``eta`` and ``mu`` are 0-d tensors of the default float dtype, as torch keeps them, so
    their values are rounded to it.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.ASGD([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8
    """

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach=None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        check_hyper("learning rate", lr)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _refuse_capturable(self, p) -> None:
        refuse_capturable(p, "params, mus, etas, and state_steps")

    def _init_state(self, p, group, state) -> None:
        state["step"] = scalar_state(0.0)
        state["eta"] = _device_scalar(p, scalar(group["lr"]))
        state["mu"] = _device_scalar(p, 1.0)
        state["ax"] = zeros_state(p)

    def _update(self, p, grad, group, state) -> None:
        lr, lambd = scalar(group["lr"]), group["lambd"]
        step = next_step(state)
        g = followed_gradient(p, grad, group)
        eta = float(state["eta"]._data)
        param_mul_(p, 1 - lambd * eta)
        param_add_(p, -eta * g)
        ax, mu = state["ax"]._data, float(state["mu"]._data)
        if mu != 1:
            ax += (p._data - ax) * mu
        else:
            ax[...] = p._data
        # torch copies 0-d tensors of the default dtype in: float32-rounded values, even into
        # the float64 eta and mu that load_state_dict makes
        state["eta"]._data[...] = _default_float(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        state["mu"]._data[...] = _default_float(1 / max(1, step - group["t0"]))

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_asgd`` with grad enabled: ``eta`` and ``mu`` enter the
        update as numbers (``item()``), so a tensor ``lr`` gets no gradient through them."""
        lr, lambd = group["lr"], group["lambd"]
        step = next_step(state)
        grad = decayed_grad(p, grad, group)
        eta = state["eta"].item()
        p.mul_(1 - lambd * eta)
        p.add_(grad, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        state["eta"].copy_(as_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        state["mu"].copy_(as_tensor(1 / max(1, step - group["t0"])))


def _default_float(value: float) -> float:
    return float(np.asarray(value, dtype=backend.DEFAULT_FLOAT.np))


def _device_scalar(p, value: float) -> Tensor:
    """A 0-d tensor of torch's scalar dtype on ``p``'s device (torch keeps eta and mu
    there, unlike ``step``)."""
    return Tensor._wrap(xp_of(p._data).asarray(value, dtype=scalar_dtype()))
