"""``agdebug.autograd``: torch's reverse-mode autograd API.

>>> import agdebug as ag
>>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> y = (x.exp() * x).sum()
>>> y.backward(retain_graph=True)
>>> gx, = ag.autograd.grad(y, x, create_graph=True)
>>> gx.grad_fn is not None
True
"""

from __future__ import annotations

from ..graph.grad_mode import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                               set_grad_enabled)
from . import function, functional, graph
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "grad", "graph", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "Function", "FunctionCtx", "once_differentiable", "function",
           "functional", "gradcheck", "gradgradcheck"]
