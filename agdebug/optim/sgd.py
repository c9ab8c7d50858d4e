"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from ..tensor import Tensor
from .modes import check_fused_options
from .optimizer import Optimizer, check_hyper, decayed_grad, followed_gradient, param_add_, scalar

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
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None):
        check_hyper("learning rate", lr)
        check_hyper("momentum value", momentum)
        check_hyper("weight_decay value", weight_decay)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused_options(defaults)

    # SGD's multi-tensor kernel records the graph, so foreach is taken as the for-loop
    _foreach_refuses_autograd = False
    _need_device_dtype_check_for_fused = True

    def _update(self, p, grad, group, state) -> None:
        d = followed_gradient(p, grad, group, tensor_weight_decay=True)
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._wrap(d.copy())
            else:
                b = buf._data
                b *= momentum
                b += (1 - group["dampening"]) * d
            d = d + momentum * buf._data if group["nesterov"] else buf._data
        param_add_(p, -scalar(group["lr"]) * d)

    def _update_differentiable(self, p, grad, group, state) -> None:
        """torch's ``_single_tensor_sgd`` with grad enabled: the update is recorded."""
        momentum, lr = group["momentum"], group["lr"]
        grad = decayed_grad(p, grad, group, tensor_weight_decay=True)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            p.addcmul_(grad, lr, value=-1)
        else:
            p.add_(grad, alpha=-scalar(lr))
