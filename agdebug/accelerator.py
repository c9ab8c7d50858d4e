"""``torch.accelerator``: the one device type beside the CPU that tensors can be made on.

For agdebug that is CUDA where CuPy sees a GPU; on a machine without one there is none, and
the answers are those of torch built without CUDA (``is_available()`` False,
``current_accelerator()`` None, the device calls refused with torch's words).

>>> import agdebug as ag
>>> ag.accelerator.current_accelerator() in (None, ag.device("cuda"))
True
"""

from __future__ import annotations

from . import cuda
from .backend import device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count",
           "is_available", "set_device_idx", "set_device_index", "synchronize"]

NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (for agdebug: a CUDA GPU through CuPy) can be used."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """``device("cuda")`` where a GPU is usable, else None."""
    return _device("cuda") if is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without a GPU)."""
    return cuda.device_count()


def _require() -> None:
    if not is_available():
        raise RuntimeError(NONE_AVAILABLE)


def current_device_index() -> int:
    """The index of the current accelerator device."""
    _require()
    return cuda.current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, ``"cuda:1"``...) the current accelerator device."""
    _require()
    cuda.set_device(device)


def synchronize(device=None, /) -> None:
    """Wait for all work queued on the accelerator."""
    _require()
    cuda.synchronize(device)


current_device_idx = current_device_index   # torch's older names
set_device_idx = set_device_index
