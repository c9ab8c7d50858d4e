"""``agdebug.cuda``: whether CUDA tensors can be made here (through CuPy).

CuPy is looked for only when one of these functions is called, never on
``import agdebug``; install it with ``pip install agdebug[gpu]``.

>>> import agdebug as ag
>>> isinstance(ag.cuda.is_available(), bool)
True
"""

from __future__ import annotations

from .backend import find_cupy

__all__ = ["current_device", "device_count", "get_device_name", "is_available", "synchronize"]

NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
             "and installed a driver from http://www.nvidia.com/Download/index.aspx")


def device_count() -> int:
    """How many CUDA devices CuPy sees (0 without CuPy or a driver).

    >>> import agdebug as ag
    >>> ag.cuda.device_count() >= 0
    True
    """
    cupy = find_cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def is_available() -> bool:
    """Whether a CUDA tensor can be made: CuPy imports and sees at least one device."""
    return device_count() > 0


def _runtime():
    if not is_available():
        raise RuntimeError(NO_DRIVER)
    return find_cupy().cuda.runtime


def current_device() -> int:
    """The index of CuPy's current device (agdebug's ``"cuda"`` means ``cuda:0``)."""
    return int(_runtime().getDevice())


def get_device_name(device=None) -> str:
    """The name of a CUDA device, e.g. ``'NVIDIA H100 80GB HBM3'``."""
    from .backend import as_device
    index = 0 if device is None else as_device(device).index
    name = _runtime().getDeviceProperties(index)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device=None) -> None:
    """Wait for all queued GPU work (what a benchmark must do before reading a clock)."""
    if is_available():
        find_cupy().cuda.get_current_stream().synchronize()
