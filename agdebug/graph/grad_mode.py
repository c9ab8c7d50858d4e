"""Grad modes: thread-local, usable as context managers and as decorators.

Each thread starts with grad enabled, as in torch. A Textual worker thread
therefore sets its own mode; it never inherits the UI thread's.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

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


def _wrap_generator(ctx_factory, func):
    """torch's: the mode holds only while the generator runs, not between its yields."""
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException as error:   # (the one-argument throw: 3.12 deprecates three)
                    with ctx_factory():
                        response = gen.throw(error)
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value
    return generator_context


class _DecoratorContextManager:
    """A context manager that also decorates functions and generator functions."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.", FutureWarning, stacklevel=2)
            func = lambda *args, **kwargs: orig_func(*args, **kwargs)  # noqa: E731
        else:
            func = orig_func
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also a decorator without parentheses: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


def _check_bool(mode) -> None:
    if type(mode) is not bool:
        name = type(mode).__name__
        if type(mode).__module__ == "numpy":
            name = "numpy." + name
        raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {name}")


class no_grad(_NoParamDecoratorContextManager):
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


class enable_grad(_NoParamDecoratorContextManager):
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
        _check_bool(mode)
        self.prev = MODE.grad_enabled
        self.mode = mode
        MODE.grad_enabled = mode

    def __call__(self, orig_func):
        MODE.grad_enabled = self.prev   # as a decorator it changes nothing until called
        return super().__call__(orig_func)

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

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)   # ``@inference_mode`` without parentheses

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __enter__(self):
        # Like torch's InferenceMode guard: inference_mode(False) turns grad mode on.
        self.prev = (MODE.grad_enabled, MODE.inference)
        OPEN_BLOCKS.add(1)
        MODE.grad_enabled, MODE.inference = not self.mode, self.mode

    def __exit__(self, *exc):
        MODE.grad_enabled, MODE.inference = self.prev
        OPEN_BLOCKS.add(-1)
        return False

    def clone(self):
        return self.__class__(self.mode)
