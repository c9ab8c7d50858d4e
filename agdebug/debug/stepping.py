"""Live stepping: pause the engine between events while someone decides what next.

A ``Stepper`` subscribes (inside the thread that runs the program) and is
called for every event. Depending on its mode it lets the event through, or
hands the events so far to ``on_events(batch, paused)`` and blocks that thread
until ``step()``, ``step_node()``, ``resume()`` or ``stop()`` is called from
another thread (the UI). Breakpoints stop a ``resume()``: on an op name or node
name, on a node id, on a NaN/Inf in any gradient or output, on an error.

Events that arrive while the program runs freely are batched (every
``interval`` seconds, or ``batch`` events) so a UI is not flooded. Events
published on other threads never block them; GC passes another thread ran
(the UI's own) are left out.

>>> import threading
>>> import agdebug as ag
>>> from agdebug.debug.stepping import Stepper
>>> seen = []
>>> stepper = Stepper(lambda batch, paused: seen.append((len(batch), paused)))
>>> def program():
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> worker = threading.Thread(target=stepper.run, args=(program,))
>>> worker.start()
>>> stepper.wait_paused(5)          # paused after the first event
True
>>> stepper.resume()                # run to the end: no breakpoints set
>>> worker.join(5)
>>> stepper.outcome.ok, seen[0], seen[-1][1]
(True, (1, True), False)
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..events.bus import subscribe
from ..events.probe import origin_thread
from ..events.records import TensorSummary

__all__ = ["Breakpoints", "Outcome", "Stepper", "StopDebugging", "hit"]


class StopDebugging(BaseException):
    """Raised inside the program's thread when the debugger quits while it is paused."""


@dataclass
class Breakpoints:
    """Where a free run (``resume``) stops. Ops match a node's op (``mul``) or name."""

    ops: set = field(default_factory=set)
    nodes: set = field(default_factory=set)
    nan: bool = False
    errors: bool = False

    def __bool__(self) -> bool:
        return bool(self.ops or self.nodes or self.nan or self.errors)


@dataclass
class Outcome:
    """How the program ended: ``ok``, or the exception's type, message and traceback text."""

    ok: bool
    error: str = ""
    traceback: str = ""
    stopped: bool = False        # ended by ``stop()``


def _summaries(value):
    if isinstance(value, TensorSummary):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _summaries(item)


def has_nonfinite(event) -> bool:
    """Whether any tensor summary in ``event`` counts a NaN or an Inf (needs values)."""
    for f in dataclasses.fields(event):
        for s in _summaries(getattr(event, f.name)):
            if s.stats is not None and (s.stats.nan or s.stats.inf):
                return True
    return False


def hit(points: Breakpoints, event, ops_of: dict) -> str:
    """Why ``event`` stops a free run ("" when it does not); ``ops_of``: node id -> op."""
    kind = event.kind
    if points.errors and kind == "error":
        return f"error: {event.type}"
    if kind in ("node_created", "node_started"):
        name = event.name.rpartition("::")[2]
        wanted = {o.lower() for o in points.ops}
        if wanted & {name.lower(), ops_of.get(event.node, "").lower()}:
            return f"breakpoint on {ops_of.get(event.node) or name}"
        if kind == "node_started" and event.node in points.nodes:
            return f"breakpoint on node n{event.node}"
    if points.nan and has_nonfinite(event):
        return "NaN/Inf"
    return ""


class Stepper:
    """Blocks the engine's thread between events; driven from another thread.

    Modes: ``"event"`` pauses after every event, ``"node"`` at the next
    ``node_started``, ``"run"`` only at a breakpoint (or never).
    """

    def __init__(self, on_events: Callable[[list, bool], None], *, values: bool = True,
                 interval: float = 0.05, batch: int = 2000, start_paused: bool = True):
        self.on_events = on_events
        self.values = values
        self.interval = interval
        self.batch = batch
        self.breakpoints = Breakpoints()
        self.reason = ""
        self.outcome: Outcome | None = None
        self._mode = "event" if start_paused else "run"
        self._pending: list = []
        self._last_flush = time.monotonic()
        self._ops: dict[int, str] = {}
        self._cond = threading.Condition()
        self._paused = False
        self._go = False
        self._stopping = False
        self._stop_at_next = False   # stopped while paused where it could not raise
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- the UI's side

    @property
    def paused(self) -> bool:
        return self._paused

    def step(self) -> None:
        """Let one event through, then pause again."""
        self._release("event")

    def step_node(self) -> None:
        """Run to the next node the backward starts."""
        self._release("node")

    def resume(self) -> None:
        """Run until a breakpoint (or the end)."""
        self._release("run")

    def stop(self) -> None:
        """Stop debugging: a paused program gets ``StopDebugging``; a running one is let be."""
        with self._cond:
            self._stopping = True
            self._mode = "run"
            self.breakpoints = Breakpoints()
            self._go = True
            self._cond.notify_all()

    def wait_paused(self, timeout: float | None = None) -> bool:
        """Block until the program pauses (True) or has ended (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._paused and self.outcome is None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
            return self._paused

    def _release(self, mode: str) -> None:
        with self._cond:
            self._mode = mode
            self._go = True
            self._paused = False      # so ``wait_paused`` waits for the next pause
            self._cond.notify_all()

    # ----------------------------------------------------------------- the program's side

    def run(self, program: Callable[[], object]) -> Outcome:
        """Run ``program()`` watched, in this thread; returns (and keeps) its ``Outcome``.

        Grad mode is thread-local, so it is set here, as is the subscription.
        """
        import traceback

        from ..graph.grad_mode import set_grad_enabled
        self._thread = threading.current_thread()
        set_grad_enabled(True)
        outcome = Outcome(ok=True)
        sub = subscribe(self._on_event, values=self.values)
        try:
            program()
        except StopDebugging:
            outcome = Outcome(ok=False, error="stopped by the debugger", stopped=True)
        except SystemExit as exc:
            if exc.code not in (None, 0):
                outcome = Outcome(ok=False, error=f"SystemExit: {exc.code}")
        except BaseException as exc:  # noqa: BLE001 - the program's own error: reported
            outcome = Outcome(ok=False, error=f"{type(exc).__name__}: {exc}",
                              traceback="".join(traceback.format_exception(exc)))
        finally:
            sub.close()
        self._finish(outcome)
        return outcome

    def _finish(self, outcome: Outcome) -> None:
        batch, self._pending = self._pending, []
        with self._cond:
            self.outcome = outcome
            self._cond.notify_all()
        self.on_events(batch, False)

    def _on_event(self, event) -> None:
        if self._thread is not None and origin_thread() is not self._thread:
            # Delivered on another thread (the UI's GC, say): never block it. Its GC passes
            # are the debugger's own, not the program's; nodes it frees are the program's.
            if event.kind != "gc_pass":
                self._pending.append(event)
            return
        if self._stop_at_next and event.kind not in _UNRAISABLE:
            self._stop_at_next = False
            raise StopDebugging
        if event.kind == "node_created" and event.op:
            self._ops[event.node] = event.op
        self._pending.append(event)
        reason = self._should_pause(event)
        if reason:
            self._pause(reason, event.kind)
        elif (len(self._pending) >= self.batch
              or time.monotonic() - self._last_flush >= self.interval):
            self._flush(False)

    def _should_pause(self, event) -> str:
        if self._stopping:
            return ""
        mode = self._mode
        if mode == "event":
            return "step"
        if mode == "node" and event.kind == "node_started":
            return "step to node"
        return hit(self.breakpoints, event, self._ops) if self.breakpoints else ""

    def _flush(self, paused: bool) -> None:
        batch, self._pending = self._pending, []
        self._last_flush = time.monotonic()
        self.on_events(batch, paused)

    def _pause(self, reason: str, kind: str) -> None:
        with self._cond:
            self.reason = reason
            self._go = False      # a command sent while the batch is delivered still counts
        self._flush(True)
        with self._cond:
            self._paused = True
            self._cond.notify_all()
            while not self._go:
                self._cond.wait()
            self._paused = False
            stopping = self._stopping
        # Finalizers and GC callbacks swallow exceptions: stopped there, the program stops
        # at its next event that can raise.
        if stopping:
            if kind in _UNRAISABLE:
                self._stop_at_next = True
            else:
                raise StopDebugging


# Events published from finalizers and GC callbacks, which swallow exceptions.
_UNRAISABLE = ("node_freed", "gc_pass")
