"""torch's thread settings: ``set_num_threads``, ``get_num_threads`` and the inter-op pair.

agdebug's own loops are single-threaded Python; the threads that matter are NumPy's BLAS
pool, so ``set_num_threads(n)`` limits that pool (through ``threadpoolctl`` where it is
installed; without it the number is kept and reported, and BLAS keeps its own). agdebug has
no inter-op pool: its number is kept, and refused a second time as torch refuses it.
"""

from __future__ import annotations

import os

__all__ = ["get_num_interop_threads", "get_num_threads", "set_num_interop_threads",
           "set_num_threads"]

_state = {"threads": None, "interop": None}


def _checked(name: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def set_num_threads(int) -> None:   # (torch's parameter name)
    """The number of threads NumPy's BLAS uses for agdebug's matrix products."""
    _state["threads"] = _checked("set_num_threads", int)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=_state["threads"], user_api="blas")


def get_num_threads() -> int:
    """The number set, else the machine's CPU count (torch's default on one socket)."""
    return _state["threads"] or os.cpu_count() or 1


def set_num_interop_threads(int) -> None:
    """Kept for ``get_num_interop_threads`` (agdebug runs no inter-op pool); a second call
    fails as torch's does once the number is set."""
    value = _checked("set_num_interop_threads", int)
    if _state["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _state["interop"] = value


def get_num_interop_threads() -> int:
    return _state["interop"] or os.cpu_count() or 1
