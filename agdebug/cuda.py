"""``agdebug.cuda``: whether CUDA tensors can be made here (through CuPy).

CuPy is looked for only when one of these functions is called, never on
``import agdebug``; install it with ``pip install agdebug[gpu]``.

>>> import agdebug as ag
>>> isinstance(ag.cuda.is_available(), bool)
True
"""

from __future__ import annotations

from .backend import find_cupy

__all__ = ["current_device", "device_count", "get_device_name", "get_rng_state",
           "get_rng_state_all", "initial_seed", "is_available", "is_bf16_supported",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "set_device", "set_rng_state",
           "set_rng_state_all", "synchronize"]

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


def set_device(device) -> None:
    """Make ``device`` (an index or ``"cuda:N"``) CuPy's current device."""
    from .backend import as_device
    index = device if isinstance(device, int) else as_device(device).index
    _runtime().setDevice(0 if index is None else index)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: agdebug has no bfloat16 (NumPy has no such type)."""
    return False


# Seeding. agdebug draws a CUDA tensor's random numbers on the CPU, from the default
# generator, and moves them: there is no CUDA generator to seed, so these do nothing (as
# torch's do on a machine without CUDA, where it keeps them for a CUDA that never starts).

def manual_seed(seed: int) -> None:
    """Nothing to seed: CUDA tensors draw from the CPU generator (``agdebug.manual_seed``)."""


def manual_seed_all(seed: int) -> None:
    """Nothing to seed: CUDA tensors draw from the CPU generator (``agdebug.manual_seed``)."""


def seed() -> None:
    """Nothing to seed: CUDA tensors draw from the CPU generator."""


def seed_all() -> None:
    """Nothing to seed: CUDA tensors draw from the CPU generator."""


def get_rng_state_all() -> list:
    """One state per CUDA generator: none (see ``manual_seed``)."""
    return []


def set_rng_state_all(new_states) -> None:
    """Nothing to restore: there are no CUDA generators (see ``manual_seed``)."""


def set_rng_state(new_state, device="cuda") -> None:
    """Nothing to restore: there is no CUDA generator (see ``manual_seed``)."""


def initial_seed() -> int:
    """torch's CUDA generator's seed: agdebug has none, so this asks for a GPU as torch does
    and then refuses."""
    _runtime()
    raise RuntimeError("agdebug has no CUDA generator: CUDA tensors draw from the CPU "
                       "generator (agdebug.initial_seed())")


def get_rng_state(device="cuda"):
    """As ``initial_seed``: there is no CUDA generator state to return."""
    return initial_seed()
