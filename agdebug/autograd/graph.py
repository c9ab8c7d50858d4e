"""``agdebug.autograd.graph``: the graph's public names, where torch users look for them."""

from __future__ import annotations

from typing import NamedTuple

from ..graph.node import Node
from ..graph.saved import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class GradientEdge(NamedTuple):
    """An edge of the graph: ``node`` receives the gradient as its input ``output_nr``."""

    node: object
    output_nr: int


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge that ``tensor``'s gradient flows into (its grad_fn, or its accumulator).

    >>> import agdebug as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> ag.autograd.graph.get_gradient_edge(y).node.name()
    'MulBackward0'
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(*tensor._gradient_edge())


def increment_version(tensor) -> None:
    """Record an in-place change autograd did not see (a tensor, or an iterable of them), so
    a saved tensor's version check catches it; an inference tensor has no version to bump.

    >>> import agdebug as ag
    >>> x = ag.zeros(2)
    >>> ag.autograd.graph.increment_version(x)
    >>> x._version
    1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t.is_inference():
            t._bump_version()


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU and move them back for backward."""

    def __init__(self, pin_memory: bool = False):
        def pack(t):
            return (t.device, t.cpu())

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Raise ``error_message`` if saved-tensor hooks are registered inside the block."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        from ..graph import saved
        self.prev = saved.DISABLED_MESSAGE.value
        saved.DISABLED_MESSAGE.value = self.error_message

    def __exit__(self, *exc):
        from ..graph import saved
        saved.DISABLED_MESSAGE.value = self.prev
        return False
