"""Grad modes: thread-local, usable as context managers and as decorators.

Each thread starts with grad enabled, as in torch. A Textual worker thread
therefore sets its own mode; it never inherits the UI thread's.
"""

from __future__ import annotations

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


class _Mode(threading.local):
    grad_enabled = True
    inference = False


MODE = _Mode()


class _OpenBlocks:
    """How many ``inference_mode`` blocks are open, in all threads together.

    Every op result asks whether it is an inference tensor; while this count is zero
    the answer is no without reading the thread-local mode, which costs more than the
    rest of the test. A thread's own ``MODE.inference`` still decides when it is not.
    """

    __slots__ = ("inference", "_lock")

    def __init__(self):
        self.inference = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.inference += n


OPEN_BLOCKS = _OpenBlocks()


def is_grad_enabled() -> bool:
    """Whether operations record the graph in this thread.

    >>> import agdebug as ag
    >>> with ag.no_grad():
    ...     ag.is_grad_enabled()
    False
    """
    return MODE.grad_enabled


def is_inference_mode_enabled() -> bool:
    return MODE.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generators, by call)."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable graph recording in this thread.

    >>> import agdebug as ag
    >>> x = ag.ones(2, requires_grad=True)
    >>> with ag.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __enter__(self):
        self.prev = MODE.grad_enabled
        MODE.grad_enabled = False

    def __exit__(self, *exc):
        MODE.grad_enabled = self.prev
        return False


class enable_grad(_DecoratorContextManager):
    """Enable graph recording in this thread (inside a ``no_grad`` block, say)."""

    def __enter__(self):
        self.prev = MODE.grad_enabled
        MODE.grad_enabled = True

    def __exit__(self, *exc):
        MODE.grad_enabled = self.prev
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode now; restore the previous mode when used with ``with``.

    >>> import agdebug as ag
    >>> with ag.set_grad_enabled(False):
    ...     ag.is_grad_enabled()
    False
    """

    def __init__(self, mode: bool):
        self.prev = MODE.grad_enabled
        self.mode = bool(mode)
        MODE.grad_enabled = self.mode

    def __enter__(self):
        MODE.grad_enabled = self.mode

    def __exit__(self, *exc):
        MODE.grad_enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors made inside are marked as inference tensors.

    >>> import agdebug as ag
    >>> with ag.inference_mode():
    ...     y = ag.ones(2) * 2
    >>> y.is_inference()
    True
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __call__(self, func=None):
        if isinstance(func, bool):
            return inference_mode(func)
        return super().__call__(func)

    def __enter__(self):
        self.prev = (MODE.grad_enabled, MODE.inference)
        OPEN_BLOCKS.add(1)
        if self.mode:
            MODE.grad_enabled, MODE.inference = False, True

    def __exit__(self, *exc):
        MODE.grad_enabled, MODE.inference = self.prev
        OPEN_BLOCKS.add(-1)
        return False

    def clone(self):
        return self.__class__(self.mode)
