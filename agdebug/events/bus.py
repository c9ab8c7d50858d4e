"""The bus the engine publishes on, and the one flag it tests first.

The engine guards every publication with ``if WATCH.on:``: with nobody
subscribed that attribute test is all a step costs. Subscribing turns the flag
on (and installs the GC observer); the last unsubscribe turns it off.

>>> from agdebug.events import subscribe
>>> import agdebug as ag
>>> seen = []
>>> with subscribe(seen.append):
...     y = (ag.ones(2, requires_grad=True) * 3).sum()
...     y.backward()
>>> [e.kind for e in seen][:2]
['node_created', 'node_created']
>>> 'backward_finished' in [e.kind for e in seen]
True
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

__all__ = ["WATCH", "Subscription", "next_seq", "publish", "subscribe"]


class _Watch:
    """The flag the engine tests; ``values`` when some subscriber wants tensor values."""

    __slots__ = ("on", "values")

    def __init__(self):
        self.on = False
        self.values = False


WATCH = _Watch()

_lock = threading.RLock()
_subscribers: list[Subscription] = []
# What ``publish`` calls: a tuple replaced (never mutated) under the lock, so delivering an
# event reads one reference instead of taking the lock and copying the list.
_callbacks: tuple = ()
_seq = itertools.count(1)
# Observers of on/off transitions (the probe installs gc.callbacks, watches node lifetimes).
_on_change: list[Callable[[bool], None]] = []


def next_seq() -> int:
    """The next sequence number (monotonic across the whole process)."""
    return next(_seq)


class Subscription:
    """A subscriber on the bus; a context manager that unsubscribes on exit."""

    __slots__ = ("active", "callback", "values")

    def __init__(self, callback: Callable, values: bool):
        self.callback = callback
        self.values = values
        self.active = False

    def close(self) -> None:
        """Stop receiving events (idempotent)."""
        with _lock:
            if not self.active:
                return
            self.active = False
            _subscribers.remove(self)
            _refresh()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def subscribe(callback: Callable, values: bool = False) -> Subscription:
    """Call ``callback(event)`` for every event from now on.

    With ``values=True``, tensor summaries carry a small preview and statistics
    (min/max/mean/norm, NaN/Inf counts); otherwise only shapes, dtypes and sizes.
    """
    sub = Subscription(callback, values)
    with _lock:
        sub.active = True
        _subscribers.append(sub)
        _refresh()
    return sub


def _refresh() -> None:
    global _callbacks
    _callbacks = tuple(s.callback for s in _subscribers)
    was_on = WATCH.on
    WATCH.values = any(s.values for s in _subscribers)
    WATCH.on = bool(_subscribers)
    if WATCH.on != was_on:
        for fn in _on_change:
            fn(WATCH.on)


def publish(event) -> None:
    """Hand ``event`` to every subscriber, in subscription order."""
    for callback in _callbacks:
        callback(event)


def on_change(fn: Callable[[bool], None]) -> None:
    """Run ``fn(on)`` whenever watching starts or stops."""
    _on_change.append(fn)
