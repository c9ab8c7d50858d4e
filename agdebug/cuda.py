"""``agdebug.cuda``: whether CUDA tensors can be made here (through CuPy).

>>> import agdebug as ag
>>> isinstance(ag.cuda.is_available(), bool)
True
"""

from __future__ import annotations

__all__ = ["is_available", "device_count", "current_device", "synchronize"]


def _cupy():
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def device_count() -> int:
    """How many CUDA devices CuPy sees (0 without CuPy or a driver)."""
    cupy = _cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:   # no driver, or a driver without devices: CuPy raises its own types
        return 0


def is_available() -> bool:
    return device_count() > 0


def current_device() -> int:
    cupy = _cupy()
    if cupy is None or not is_available():
        raise RuntimeError("Found no NVIDIA driver on your system.")
    return int(cupy.cuda.runtime.getDevice())


def synchronize() -> None:
    """Wait for all queued GPU work (what a benchmark must do before reading a clock)."""
    cupy = _cupy()
    if cupy is not None and is_available():
        cupy.cuda.get_current_stream().synchronize()
