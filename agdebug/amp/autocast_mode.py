"""``torch.autocast``: agdebug has no mixed precision, so autocast is off, said once."""

from __future__ import annotations

import functools
import warnings


def is_autocast_available(device_type: str) -> bool:
    """False: agdebug runs every op in the dtype of its inputs."""
    return False


class autocast:
    """A context manager (or decorator) that, as torch's does for a device it cannot
    autocast on, warns and disables itself: the ops inside run at full precision."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if enabled:
            warnings.warn(f"agdebug has no autocast (mixed precision) for device_type "
                          f"'{device_type}': disabling, ops run at full precision",
                          stacklevel=2)
        self.device, self.fast_dtype, self._enabled = device_type, dtype, False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __call__(self, function):
        @functools.wraps(function)
        def autocast_off(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return autocast_off
