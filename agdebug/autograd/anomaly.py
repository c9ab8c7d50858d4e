"""Anomaly mode: NaN checks in backward, and the forward traceback of a failing node."""

from __future__ import annotations

import warnings

from ..graph.anomaly_flag import ANOMALY

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

_ENABLE_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")


def is_anomaly_enabled() -> bool:
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return ANOMALY.check_nan


class detect_anomaly:
    """Within the block, nodes remember their forward traceback and NaN gradients raise.

    >>> import agdebug as ag, warnings
    >>> warnings.simplefilter("ignore")
    >>> x = ag.tensor([0.0], requires_grad=True)
    >>> with ag.autograd.detect_anomaly():
    ...     y = x.sqrt() * 0
    ...     try:
    ...         y.sum().backward()
    ...     except RuntimeError as e:
    ...         print(e)
    Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn(_ENABLE_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled, ANOMALY.check_nan = True, self.check_nan   # returns None, as torch

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly mode on or off now; as a context manager, restore it afterwards."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled, ANOMALY.check_nan = bool(mode), check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev
        return False
