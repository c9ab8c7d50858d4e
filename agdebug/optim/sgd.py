"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from ..tensor import Tensor
from .optimizer import Optimizer, subtract_from_param

__all__ = ["SGD"]


class SGD(Optimizer):
    """torch.optim.SGD: ``p -= lr * d`` with d the (momentum-smoothed) gradient.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([1.0]))
    >>> opt = ag.optim.SGD([w], lr=0.1)
    >>> (w * 2).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})

    def _update(self, p, grad, group, state) -> None:
        d = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            d = d + group["weight_decay"] * p._data
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._wrap(d.copy())
            else:
                buf._data[...] = buf._data * momentum + (1 - group["dampening"]) * d
            d = d + momentum * buf._data if group["nesterov"] else buf._data
        subtract_from_param(p, group["lr"] * d)
