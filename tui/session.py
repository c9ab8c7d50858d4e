"""Where the app's events come from, and what it does as they arrive.

A recording (given, or a trace file loaded off the UI thread) arrives at once; a
live script's thread posts batches as ``LiveMessage``s (``post_message`` is
thread-safe), and the app hands each batch back with ``live.taken()``. Each
batch is indexed, narrated and counted before the view is refreshed.
"""

from __future__ import annotations

import os
from functools import partial

from textual.message import Message
from textual.widgets import Static, TabbedContent

from agdebug.debug.index import first_events
from agdebug.debug.recorder import TraceError, load_trace

from .live import EventsArrived, LiveSession, ProgramFinished
from .panels import OutputLog
from .sources import EventIndex, LiveHistory, MemorySeries
from .status import show_status
from .text import plain, printable
from .timeline import EventsTab

__all__ = ["LiveMessage", "absorb", "open_events", "take"]


class LiveMessage(Message):
    """Something the live script's thread reported (see ``tui.live``)."""

    def __init__(self, payload):
        super().__init__()
        self.payload = payload


def open_events(app) -> None:
    """Start on what ``app`` was given: a trace, a trace file or a script to run."""
    if app.trace is not None:
        _loaded(app, app.trace.timeline())
    elif app.trace_path is not None:
        _show_loading(app, True)
        app.run_worker(partial(_load, app, str(app.trace_path)), name="load", group="load",
                       description=f"load {app.trace_path}", exclusive=True, thread=True)
    elif app.script is not None:
        app.history = LiveHistory()
        app.live = LiveSession(app.script, app.script_args,
                               post=lambda m: app.post_message(LiveMessage(m)),
                               engine=app.engine)
        app.live.stepper.breakpoints = app.breakpoints
        app.live.start()
        app.refresh_view()


def _show_loading(app, on: bool) -> None:
    app.screen.set_class(on, "loading")
    if on:
        size = os.path.getsize(app.trace_path) if os.path.exists(app.trace_path) else 0
        app.query_one("#loading-text", Static).update(
            plain(f"loading {app.trace_path} ({size / 1e6:.1f} MB)..."))


def _load(app, path: str) -> None:
    # (in a thread worker)
    def progress(done: int, total: int) -> None:   # (the first opening of a long trace)
        app.call_from_thread(_say_progress, app, path, 100 * done // max(total, 1))
    try:
        first = first_events(path)
        # A long trace opened for the first time: its first screen meanwhile (unless the
        # step asked for lies past its first events).
        if first and (app.start is None or app.start <= len(first)):
            app.call_from_thread(_preview, app, first)
        timeline = load_trace(path, progress=progress).timeline()
    except TraceError as exc:
        app.call_from_thread(_fail, app, str(exc))
        return
    app.call_from_thread(_loaded, app, timeline)


def _preview(app, events) -> None:
    """The first events of a long trace's first opening, shown while the pass over the
    rest runs: stepping goes as far as they do until it ends (the status line says so)."""
    _show_loading(app, False)
    app.indexing = 0
    app.history = LiveHistory()
    app.history.extend(events)
    absorb(app, events)
    app.step = _first_step(app) if app.start is None else app.start
    app.refresh_view()


def _say_progress(app, path: str, percent: int) -> None:
    if app.indexing is not None:   # (its first events on screen: the status line counts)
        app.indexing = percent
        show_status(app, app.state)
        return
    app.query_one("#loading-text", Static).update(
        plain(f"reading {path}: {percent}% (indexing it, for the next opening)..."))


def _fail(app, message: str) -> None:
    app.error = message
    app.exit(return_code=2)


def _loaded(app, timeline) -> None:
    _show_loading(app, False)
    previewed, app.indexing = app.indexing is not None, None
    if previewed:   # (what the first events taught is learnt again from the file's)
        app.index, app.series = EventIndex(), MemorySeries()
    app.history = timeline
    if hasattr(timeline.events, "steps_of"):   # a long trace's file: no pass over it
        _follow(app, timeline)
    else:
        absorb(app, timeline.events)
    if app.initial_output and not app.index.prints:   # a trace from before printed events
        app.query_one(OutputLog).write(printable(app.initial_output, lines=True))
    if not previewed:   # (else the step the user went to among the first events stays)
        app.step = _first_step(app) if app.start is None else app.start
    app.refresh_view()


def _first_step(app) -> int:
    """Where a recording opens: the first backward about to run (its graph complete)."""
    backwards = app.index.backwards
    return backwards[0] if backwards else len(app.events)


def _follow(app, timeline) -> None:
    """Take in a long trace from its file's index: what needs every event (the memory
    series, the narrator's names) is counted only as far as a step shown needs it."""
    app.events = timeline.events
    app.index = EventIndex.of_file(timeline, lambda: app.state)
    app.series.follow(app.events)
    app.narrator.follow(app.events, timeline)
    app.query_one(EventsTab).set_events(app.events)


def absorb(app, events) -> None:
    """Take in new events (already in ``app.history``): index, count and narrate them."""
    app.events = app.history.events     # the history holds ``events`` already
    app.index.extend(events, len(app.events) - len(events))
    app.series.extend(events)
    app.narrator.extend(events)
    app.query_one(EventsTab).set_events(app.events)


def take(app, payload) -> None:
    """A ``LiveMessage``'s payload: a batch of events (maybe paused at), or the end."""
    if isinstance(payload, EventsArrived):
        at_head = app.step == len(app.history)
        app.history.extend(payload.events)
        absorb(app, payload.events)
        if payload.paused:
            app.paused_reason = payload.reason
            if payload.reason not in ("step", "step to node"):
                app.notify(f"paused: {payload.reason}", timeout=3)
        if at_head:
            app.step = len(app.history)
        app.refresh_view()
        app.live.taken()
    elif isinstance(payload, ProgramFinished):
        app.outcome = payload.outcome
        if not app.outcome.ok and not app.outcome.stopped:
            app.notify(f"the script raised {app.outcome.error}", severity="error", timeout=8)
            app.query_one("#bottom", TabbedContent).active = "tab-output"
        app.refresh_view()
