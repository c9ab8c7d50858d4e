"""The app's entries in the command palette (ctrl+p), after Textual's own: breakpoints
on an op, NaN/Inf or errors; export formats; the focus view; hiding freed nodes; timeline
filters."""

from __future__ import annotations

from textual.app import SystemCommand

from . import stepping
from .export import FORMATS, export_as
from .timeline import EventsTab

__all__ = ["agdebug_commands"]


def agdebug_commands(app):
    """The ``SystemCommand``s for what ``app`` shows now (its ops, its event kinds)."""
    yield SystemCommand("Break on NaN/Inf", "toggle: stop where a gradient has NaN or Inf",
                        lambda: stepping.toggle_flag(app, "nan"))
    yield SystemCommand("Break on errors", "toggle: stop at an error event",
                        lambda: stepping.toggle_flag(app, "errors"))
    yield SystemCommand("Clear breakpoints", "remove every breakpoint",
                        lambda: stepping.clear_breakpoints(app))
    for op in sorted({o for o in app.index.ops.values() if o}):
        yield SystemCommand(f"Break on op: {op}", f"toggle a breakpoint on every {op} node",
                            lambda op=op: stepping.break_on_op(app, op))
    for fmt in FORMATS:
        yield SystemCommand(f"Export as {fmt}", f"write the current view as {fmt}",
                            lambda fmt=fmt: export_as(app, fmt))
    yield SystemCommand("Focus view", "toggle: only the selected node's neighbourhood",
                        app.action_focus_view)
    yield SystemCommand("Hide freed nodes", "toggle: draw only the nodes still alive (h)",
                        app.action_hide_freed)
    for kind in sorted(app.index.kinds):
        yield SystemCommand(f"Timeline: only {kind}", "filter the event log by kind",
                            lambda kind=kind: _set_filter(app, f"kind:{kind}"))
    yield SystemCommand("Timeline: all events", "clear the timeline filter",
                        lambda: _set_filter(app, ""))


def _set_filter(app, text: str) -> None:
    app.query_one(EventsTab).set_filter(text)
