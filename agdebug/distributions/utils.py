"""Helpers the distributions share: broadcasting parameters, probs and logits."""

from __future__ import annotations

from numbers import Number

from .. import creation, functions
from ..dtype_info import finfo
from ..graph.grad_mode import enable_grad
from ..nn import functional as F
from ..tensor import Tensor

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Numbers and tensors as tensors of one shape (numbers take the first tensor's dtype)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    options = {"dtype": first.dtype, "device": first.device} if first is not None else \
        {"dtype": functions.get_default_dtype()}
    tensors = [v if isinstance(v, Tensor) else creation.tensor(v, **options) for v in values]
    return tuple(functions.broadcast_tensors(*tensors))


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    return functions.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    if is_binary:
        return functions.log(clamped) - functions.log1p(-clamped)
    return functions.log(clamped)


class lazy_property:   # noqa: N801 - torch's name
    """Computed on first use (with grad enabled, as torch does), then kept on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__, self.__name__ = wrapped.__doc__, wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
