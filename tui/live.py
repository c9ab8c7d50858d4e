"""A user's script running under the debugger, in its own (daemon) thread.

The thread runs the script through a ``Stepper`` (which subscribes and sets
grad mode inside it), captures what the script prints (only that thread's
writes; the UI's own go where they went before), and reports through
``post(message)``, which must be thread-safe (``App.post_message`` is). It
never touches a widget.
"""

from __future__ import annotations

import io
import os
import runpy
import sys
import threading
from dataclasses import dataclass

from agdebug.debug.stepping import Outcome, Stepper

__all__ = ["EventsArrived", "LiveSession", "ProgramFinished", "ProgramOutput"]


@dataclass(frozen=True)
class EventsArrived:
    events: tuple
    paused: bool
    reason: str


@dataclass(frozen=True)
class ProgramOutput:
    text: str


@dataclass(frozen=True)
class ProgramFinished:
    outcome: Outcome


class _ThreadWriter(io.TextIOBase):
    """Routes writes from one thread to ``sink``; every other thread's to ``original``."""

    def __init__(self, thread: threading.Thread, original, sink):
        self.thread = thread
        self.original = original
        self.sink = sink

    def write(self, text: str) -> int:
        if threading.current_thread() is self.thread:
            self.sink(text)
        elif self.original is not None:
            self.original.write(text)
        return len(text)

    def flush(self) -> None:
        if threading.current_thread() is not self.thread and self.original is not None:
            self.original.flush()

    def isatty(self) -> bool:
        return False


class LiveSession:
    """Runs ``script`` with ``args`` under a ``Stepper``; ``post`` gets the messages above."""

    def __init__(self, script: str, args=(), post=None, start_paused: bool = True):
        self.script = os.path.abspath(script)
        self.args = list(args)
        self.post = post or (lambda message: None)
        self.output: list[str] = []
        self.stepper = Stepper(self._on_events, values=True, start_paused=start_paused)
        self.thread = threading.Thread(target=self._main, name="agdebug-live", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _on_events(self, batch: list, paused: bool) -> None:
        self.post(EventsArrived(tuple(batch), paused, self.stepper.reason if paused else ""))

    def _write(self, text: str) -> None:
        self.output.append(text)
        self.post(ProgramOutput(text))

    def _main(self) -> None:
        me = threading.current_thread()
        out = _ThreadWriter(me, sys.stdout, self._write)
        err = _ThreadWriter(me, sys.stderr, self._write)
        saved_argv, saved_path = sys.argv[:], sys.path[:]
        sys.stdout, sys.stderr = out, err
        sys.argv = [self.script, *self.args]
        sys.path.insert(0, os.path.dirname(self.script))
        try:
            outcome = self.stepper.run(
                lambda: runpy.run_path(self.script, run_name="__main__"))
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
            if sys.stdout is out:
                sys.stdout = out.original
            if sys.stderr is err:
                sys.stderr = err.original
        if outcome.traceback:
            self._write(_user_traceback(outcome.traceback, self.script))
        self.post(ProgramFinished(outcome))


def _user_traceback(text: str, script: str) -> str:
    """The traceback from the script's first frame on (the runner's frames dropped)."""
    lines = text.splitlines(keepends=True)
    marker = f'File "{script}"'
    for i, line in enumerate(lines):
        if marker in line:
            return "Traceback (most recent call last):\n" + "".join(lines[i:])
    return text
