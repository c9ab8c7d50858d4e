"""Recording: events into a ``Trace``, streamed to a line-oriented JSON file.

A trace file is one header line naming the format, its version and the
agdebug version, then one event per line (``{"kind": "node_created", ...}``).
Each line is written and flushed as the event happens, so a program that
raises or is killed still leaves a readable trace of everything before.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> trace.events[0].kind, [e.kind for e in trace.events].count("backward_finished")
('node_created', 1)
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run.agtrace")
>>> trace.save(path)
>>> load_trace(path).events == trace.events
True
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import weakref
from contextlib import contextmanager

from ..events import records
from ..events.encoding import ENCODERS as _ENCODERS
from ..events.bus import subscribe
from ..events.probe import CALLBACK_CODES

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "BackwardOnly",
    "Trace",
    "TraceError",
    "TraceWriter",
    "load_trace",
    "record",
]

FORMAT = "agdebug-trace"
FORMAT_VERSION = 2   # 2: every event names its thread (version 1 files read as thread 0)


class TraceError(Exception):
    """A trace file that cannot be read; the message is one line naming file and line."""


def _version() -> str:
    from .. import __version__
    return __version__


def header() -> dict:
    return {"format": FORMAT, "version": FORMAT_VERSION, "agdebug": _version()}


def encode(event) -> str:
    """One event as one line of JSON (no newline)."""
    return records.to_json(event)


class Trace:
    """The events of one recording, in order; the input of ``GraphState``.

    ``trace.timeline()`` seeks to any step; in Jupyter a trace displays as the
    diagram of its last step. A trace recorded to a file keeps no events in memory: it
    counts them, and ``events`` reads them back from the file when first asked for.
    """

    def __init__(self, events=None, source: str | None = None):
        self._events: list | None = list(events or ())   # (or a trace file's EventFile)
        self.source = source
        self._count = 0          # events written to ``source`` while it streams there
        self._timeline = None

    @classmethod
    def streamed(cls, source: str) -> Trace:
        """A trace whose events are in the file ``source`` only (read back on demand)."""
        trace = cls(source=source)
        trace._events = None
        return trace

    @property
    def events(self) -> list:
        if self._events is None:
            self._events = load_trace(self.source).events
        return self._events

    @events.setter
    def events(self, events) -> None:
        self._events = list(events)

    def __len__(self) -> int:
        return self._count if self._events is None else len(self._events)

    def __repr__(self) -> str:
        where = f" from {self.source}" if self.source else ""
        return f"<Trace of {len(self)} events{where}>"

    def append(self, event) -> None:
        self.events.append(event)
        self._timeline = None

    def timeline(self):
        """The ``Timeline`` over these events (built once, snapshots included)."""
        from .state import Timeline
        if self._timeline is None or len(self._timeline) != len(self):
            self._timeline = Timeline(self.events)
        return self._timeline

    def state(self, step: int | None = None):
        """The ``GraphState`` after ``step`` events (default: all of them)."""
        return self.timeline().state(len(self) if step is None else step)

    def save(self, path) -> None:
        """Write the whole trace to ``path``."""
        with TraceWriter(path) as writer:
            for event in self.events:
                writer.write(event)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.state()._repr_mimebundle_(include, exclude)


class TraceWriter:
    """Streams events to a file: header first, one line per event, each handed to the
    operating system as it is written (a script killed mid-run leaves every event it
    published: unbuffered, one ``write`` call per line, with no buffer to flush).

    A child process forked while it is open writes nothing more (``os.register_at_fork``):
    its events would interleave with the parent's, under the same sequence numbers.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._file = open(self.path, "wb", buffering=0)
        self._put(json.dumps(header(), separators=(",", ":")))
        _OPEN_WRITERS.add(self)

    def _put(self, line: str) -> None:
        data = (line + "\n").encode()   # (ASCII: the encoder escapes every other character)
        written = self._file.write(data)
        while written < len(data):   # (a regular file takes it all, barring a full disk)
            written += self._file.write(data[written:])

    def write(self, event) -> None:
        # ``_put(encode(event))`` inlined: the recorder writes every event through here
        encode = _ENCODERS.get(type(event)) or records.to_json
        data = (encode(event) + "\n").encode()
        written = self._file.write(data)
        while written < len(data):
            written += self._file.write(data[written:])

    def close(self) -> None:
        _OPEN_WRITERS.discard(self)
        if not self._file.closed:
            self._file.close()

    def detach(self) -> None:
        """Write no more (in a forked child: the file is the parent's)."""
        self.write = _ignore   # every line was flushed: the child's buffer holds nothing

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _ignore(event) -> None:
    pass


_OPEN_WRITERS: weakref.WeakSet = weakref.WeakSet()


def _guard_writers_for_fork() -> None:
    # From just before a fork until the child detaches, a write checks the process: other
    # at-fork handlers (threading's) run first in the child and may start a GC pass, whose
    # event would otherwise reach the parent's file under a sequence number it also uses.
    pid = os.getpid()
    for writer in list(_OPEN_WRITERS):
        if writer.__dict__.get("write") is not _ignore:   # (a detached one stays detached)
            writer.write = lambda event, w=writer: \
                TraceWriter.write(w, event) if os.getpid() == pid else None


def _unguard_writers_in_parent() -> None:
    for writer in list(_OPEN_WRITERS):
        if writer.__dict__.get("write") is not _ignore:
            writer.__dict__.pop("write", None)


def _detach_writers_in_child() -> None:
    for writer in list(_OPEN_WRITERS):
        writer.detach()


if hasattr(os, "register_at_fork"):   # (not on Windows, which has no fork)
    os.register_at_fork(before=_guard_writers_for_fork, after_in_parent=_unguard_writers_in_parent,
                        after_in_child=_detach_writers_in_child)


@contextmanager
def record(path=None, values: bool = False, limit: int | None = None,
           only_backward: bool = False, on_limit=None):
    """Record every event inside the block into a ``Trace`` (and stream it to ``path``).

    ``values=True`` adds value previews and statistics to every tensor summary.
    ``limit``: stop recording after that many events (``on_limit(limit)`` is called then,
    once; the block runs on unwatched). ``only_backward``: keep what ``BackwardOnly`` keeps.
    """
    writer = TraceWriter(path) if path is not None else None
    # To a file, the events are streamed and only counted: memory stays flat however long
    # the run (``trace.events`` reads them back from the file).
    trace = Trace() if writer is None else Trace.streamed(writer.path)
    interrupts = _Interrupts()
    select = BackwardOnly() if only_backward else None

    def on_event(event) -> None:
        interrupts.writing = True
        try:
            for kept in (event,) if select is None else select(event):
                _keep(trace, writer, kept)
                if limit is not None and len(trace) >= limit:
                    stop()
                    break
        finally:
            interrupts.writing = False
        if interrupts.pending and not _in_callback(sys._getframe(1)):
            interrupts.pending = False
            raise KeyboardInterrupt

    def stop() -> None:
        sub.close()   # unwatched from here on: the program runs at its own speed
        if on_limit is not None:
            on_limit(limit)

    # In memory only, the list's own append is the subscriber: no Python call per event.
    every = select is None and limit is None
    callback = (on_event if not every else trace._events.append if writer is None
                else _streamer(trace, writer, interrupts))
    sub = subscribe(callback, values=values)
    try:
        if limit is not None and limit <= 0:
            stop()
        with interrupts.deferred(writer is not None):
            yield trace
    finally:
        sub.close()
        trace._timeline = None
        if writer is not None:
            writer.close()


def _streamer(trace: Trace, writer: TraceWriter, interrupts):
    """``record``'s subscriber when every event goes to the file: its ``on_event`` with
    the call chain per event inlined (about five events per op of a watched program)."""
    def streamed(event) -> None:
        interrupts.writing = True
        try:
            writer.write(event)
            trace._count += 1
            if trace._events is not None:   # read back mid-run: keep them in step
                trace._events.append(event)
        finally:
            interrupts.writing = False
        if interrupts.pending and not _in_callback(sys._getframe(1)):
            interrupts.pending = False
            raise KeyboardInterrupt
    return streamed


def _keep(trace: Trace, writer, event) -> None:
    if writer is None:
        trace._events.append(event)
        return
    writer.write(event)
    trace._count += 1
    if trace._events is not None:   # read back mid-run: keep them in step
        trace._events.append(event)


class BackwardOnly:
    """``record(only_backward=True)``: what it keeps of the events, in order.

    Kept: every event from a ``backward_started`` to its ``backward_finished`` (on any
    thread); the ``node_created`` of every node still alive when a backward starts or when
    a kept event comes (held back until then, so that the graph a backward runs is in the
    trace); outside backwards, every other event (a node freed or its saved tensors released
    after the backward, hooks, ``.grad`` set, cycles, errors). Dropped: a node created and
    freed with no backward in between (its ``node_created`` and ``node_freed``), and, outside
    backwards, GC passes and printed output. What it holds back grows with the live graph.
    """

    _DROPPED = ("gc_pass", "printed")

    def __init__(self):
        self.running = 0
        self.held: dict[int, object] = {}   # node id -> its node_created, not yet kept

    def __call__(self, event) -> list:
        kind = event.kind
        if kind == "backward_started":
            self.running += 1
        elif kind == "backward_finished":
            self.running = max(self.running - 1, 0)
            return self._flush(event)
        if self.running:
            return self._flush(event)
        if kind == "node_created":
            self.held[event.node] = event
            return []
        if kind == "node_freed" and self.held.pop(event.node, None) is not None:
            return []
        return [] if kind in self._DROPPED else self._flush(event)

    def _flush(self, event) -> list:
        """The held creations (all older than ``event``: sequence order holds), then it."""
        kept = list(self.held.values())
        self.held.clear()
        kept.append(event)
        return kept


class _Interrupts:
    """Ctrl-C while an event is being kept: its ``KeyboardInterrupt`` waits until the event
    is both in the trace and written, so the file ends with a whole event and the count of
    events kept is the count written."""

    def __init__(self):
        self.writing = False
        self.pending = False

    def _handler(self, signum, frame) -> None:
        if self.writing or _in_callback(frame):
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def deferred(self, on: bool):
        # Only Python's own handler is replaced, and only from the main thread (signal's rule).
        on = (on and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        if on:
            signal.signal(signal.SIGINT, self._handler)
        try:
            yield
        finally:   # (unless the script installed a handler of its own meanwhile)
            if on and signal.getsignal(signal.SIGINT) == self._handler:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.pending:   # a Ctrl-C that waited for an event that never came
            self.pending = False
            raise KeyboardInterrupt


def _in_callback(frame) -> bool:
    """Whether ``frame`` runs inside one of the probe's weakref or GC callbacks, where the
    interpreter would print and drop a KeyboardInterrupt (and the Ctrl-C would be lost)."""
    while frame is not None:
        if frame.f_code in CALLBACK_CODES:
            return True
        frame = frame.f_back
    return False


# ----------------------------------------------------------------------------- loading

def load_trace(path, progress=None) -> Trace:
    """Read and validate a trace file; any problem raises a one-line ``TraceError``.

    A long file opens lazily, through an index kept for the next time (``debug.index``);
    ``progress(bytes read, size)`` is told how its first reading goes.
    """
    from .index import open_trace
    return open_trace(path, progress)


def _check_header(name: str, line: str) -> None:
    try:
        head = json.loads(line)
    except (ValueError, RecursionError):
        head = None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise TraceError(f"{name}:1: not an agdebug trace (no '{FORMAT}' header line)")
    version = head.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise TraceError(f"{name}:1: header has no valid format version")
    if version > FORMAT_VERSION:
        raise TraceError(f"{name}:1: trace format version {version} is newer than this agdebug "
                         f"({_version()}) reads (up to {FORMAT_VERSION}); upgrade agdebug")


def _parse_event(name: str, number: int, line: str):
    try:
        data = json.loads(line)
    except RecursionError:   # records nest a few levels; JSON's parser recurses per level
        raise TraceError(f"{name}:{number}: corrupted line: JSON nested too deeply") from None
    except ValueError as exc:   # a JSONDecodeError, or an integer of thousands of digits
        detail = getattr(exc, "msg", "an integer too long to read")
        raise TraceError(f"{name}:{number}: corrupted line: invalid JSON ({detail})") from None
    try:
        return records.event_from_json(line, data)
    except records.RecordError as exc:
        raise TraceError(f"{name}:{number}: invalid event: {exc}") from None
