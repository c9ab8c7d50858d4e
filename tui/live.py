"""A user's script running under the debugger, in its own (daemon) thread.

The thread runs the script through a ``Stepper`` (which subscribes and sets
grad mode inside it), captures what the script prints (only that thread's
writes; the UI's own go where they went before) as ``printed`` events in the
stream, and reports through ``post(message)``, which must be thread-safe
(``App.post_message`` is). It never touches a widget. The script has no stdin
(the terminal is the debugger's): reading it raises ``EOFError`` saying so.
While the script runs freely, it waits for the UI to take each batch before
it posts the next, so however fast events come, keys are not queued behind
them and unread batches do not pile up.
"""

from __future__ import annotations

import io
import os
import runpy
import sys
import threading
from dataclasses import dataclass

from agdebug.debug.script_exit import exit_status, user_traceback
from agdebug.debug.stepping import Outcome, Stepper, StopDebugging
from agdebug.events import probe
from agdebug.engines import engine_context

__all__ = ["NO_STDIN", "EventsArrived", "LiveSession", "ProgramFinished"]

NO_STDIN = ("agdebug run gives the script no stdin (the terminal is the debugger's): "
            "pass input as arguments or in a file")
# Events published by finalizers and GC callbacks, which swallow what they raise.
_UNRAISABLE = ("node_freed", "gc_pass")


@dataclass(frozen=True)
class EventsArrived:
    events: tuple
    paused: bool
    reason: str


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


class _NoStdin(io.TextIOBase):
    """``sys.stdin`` for one thread: reading it raises ``EOFError(NO_STDIN)``; every other
    thread reads ``original``."""

    def __init__(self, thread: threading.Thread, original):
        self.thread = thread
        self.original = original

    def readable(self) -> bool:
        return True

    def read(self, size=-1) -> str:
        return self._source().read(size)

    def readline(self, size=-1) -> str:
        return self._source().readline(size)

    def _source(self):
        if threading.current_thread() is self.thread or self.original is None:
            raise EOFError(NO_STDIN)
        return self.original


class LiveSession:
    """Runs ``script`` with ``args`` under a ``Stepper``; ``post`` gets the messages above."""

    def __init__(self, script: str, args=(), post=None, start_paused: bool = True,
                 engine: str = "agdebug"):
        self.script = os.path.abspath(script)
        self.engine = engine
        self.args = list(args)
        self.post = post or (lambda message: None)
        self.output: list[tuple[str, str]] = []     # (stream, text) as the script wrote it
        self.exit_code = 0                           # as ``python script.py`` would exit
        self.stepper = Stepper(self._on_events, values=True, start_paused=start_paused)
        self.thread = threading.Thread(target=self._main, name="agdebug-live", daemon=True)
        self._lines = {name: probe.PrintedLines(name) for name in ("stdout", "stderr")}
        self._taken = threading.Event()
        self._taken.set()
        self._quit = False

    def start(self) -> None:
        self.thread.start()

    def taken(self) -> None:
        """The UI has read the last batch: the script may post the next."""
        self._taken.set()

    def stop(self) -> None:
        """Stop the script, paused or running (at its next batch of events)."""
        self._quit = True
        self.stepper.stop()

    def _on_events(self, batch: list, paused: bool) -> None:
        if not paused and self.stepper.outcome is None:
            self._wait_for_ui()
            if self._quit and batch and batch[-1].kind not in _UNRAISABLE:
                raise StopDebugging
        self._taken.clear()
        self.post(EventsArrived(tuple(batch), paused, self.stepper.reason if paused else ""))

    def _wait_for_ui(self) -> None:
        while not self._taken.wait(0.05) and not self._quit:
            pass

    def _write(self, stream: str, text: str) -> None:
        self.output.append((stream, text))
        for name, lines in self._lines.items():
            if name != stream:
                lines.flush()      # the other stream's unfinished line came first
        self._lines[stream].write(text)

    def _program(self) -> None:
        """The script, as ``python script.py`` runs it: its exit status kept, its traceback
        printed (as an event, while the stepper still listens)."""
        try:
            with engine_context(self.engine):   # (torch watched on this worker thread)
                runpy.run_path(self.script, run_name="__main__")
        except SystemExit as exc:
            self.exit_code = exit_status(exc.code, self._last_words)
        except StopDebugging:
            raise
        except BaseException as exc:
            self.exit_code = 1
            self._last_words(user_traceback(exc, self.script, hidden=(__file__,)))
            raise
        finally:
            for lines in self._lines.values():
                lines.flush()

    def _last_words(self, text: str) -> None:
        # What Python prints as a program ends (its traceback, sys.exit's message) is not
        # a step to pause at: the program ends as it did before it was printed.
        self.stepper.resume()
        self._write("stderr", text)

    def _main(self) -> None:
        me = threading.current_thread()
        out = _ThreadWriter(me, sys.stdout, lambda text: self._write("stdout", text))
        err = _ThreadWriter(me, sys.stderr, lambda text: self._write("stderr", text))
        stdin = _NoStdin(me, sys.stdin)
        saved_argv, saved_path = sys.argv[:], sys.path[:]
        sys.stdout, sys.stderr, sys.stdin = out, err, stdin
        sys.argv = [self.script, *self.args]
        sys.path.insert(0, os.path.dirname(self.script))
        try:
            outcome = self.stepper.run(self._program)
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
            for name, mine in (("stdout", out), ("stderr", err), ("stdin", stdin)):
                if getattr(sys, name) is mine:
                    setattr(sys, name, mine.original)
        self.post(ProgramFinished(outcome))
