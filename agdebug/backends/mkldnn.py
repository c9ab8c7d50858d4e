"""``torch.backends.mkldnn``: whether a float32 ``nn.LSTM`` on the CPU runs as torch's oneDNN
path runs it, one ``MkldnnRnnLayerBackward0`` node per layer and direction (``enabled``,
torch's default), or as the native cell graph, a dozen ops per time step (False: what
``torch.backends.mkldnn.enabled = False`` gives in torch). Nothing else reads these flags.
"""

from __future__ import annotations

from contextlib import contextmanager

enabled = True
deterministic = False
allow_tf32 = True

VERBOSE_OFF, VERBOSE_ON, VERBOSE_ON_CREATION = 0, 1, 2


def is_available() -> bool:
    """True: agdebug has the oneDNN LSTM layer (computed with NumPy)."""
    return True


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None):
    """Set the flags that are given; returns the ones before, as torch does."""
    global enabled, deterministic, allow_tf32
    previous = (enabled, deterministic, allow_tf32)
    if _enabled is not None:
        enabled = bool(_enabled)
    if _deterministic is not None:
        deterministic = bool(_deterministic)
    if _allow_tf32 is not None:
        allow_tf32 = bool(_allow_tf32)
    return previous


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True):
    """The flags set for a ``with`` block (torch's defaults for it: oneDNN off)."""
    previous = set_flags(enabled, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*previous)
