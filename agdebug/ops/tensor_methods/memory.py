"""Where a tensor's memory lives, answered as torch answers for agdebug's memory: pageable host
memory or a CuPy array, never pinned, shared between processes or distributed.

``is_pinned()`` and ``is_distributed()`` are False, ``is_shared()`` is True for a CUDA tensor
only (torch: "always True for CUDA tensors"). ``pin_memory()`` raises torch's error on a
machine without an accelerator; with one, agdebug says in one line that it has no pinned
memory. ``share_memory_`` is not built (agdebug tensors are never moved to shared memory).
"""

from __future__ import annotations

from ... import cuda
from ...tensor import Tensor

NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_PINNED = "Tensor.pin_memory: agdebug has no pinned (page-locked) host memory"


def is_pinned(self, device=None) -> bool:
    """Whether the tensor is in pinned memory: never, in agdebug.

    >>> import agdebug as ag
    >>> ag.ones(2).is_pinned()
    False
    """
    return False


def pin_memory(self, device=None):
    """Refused: torch's error without an accelerator, agdebug's line with one."""
    raise RuntimeError(NO_PINNED if cuda.is_available() else NO_ACCELERATOR)


def is_shared(self) -> bool:
    """Whether the tensor is in shared memory: a CUDA tensor always is, as in torch."""
    return self.device.type == "cuda"


def is_distributed(self) -> bool:
    """False: agdebug has no distributed tensors."""
    return False


def _tensor_function(name: str, method):
    def function(input):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        return method(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input)``: ``input.{name}()``."
    return function


METHODS = {"is_pinned": is_pinned, "pin_memory": pin_memory, "is_shared": is_shared,
           "is_distributed": is_distributed}
FUNCTIONS = {"is_distributed": _tensor_function("is_distributed", is_distributed),
             "get_device": _tensor_function("get_device", Tensor.get_device)}
