"""The two lines above the graph: the status line (mode, step, event, how the script is
doing) and the narration bar (the step's sentence)."""

from __future__ import annotations

from textual.widgets import Static

from .narration import NarrationBar
from .text import plain

__all__ = ["show_narration", "show_status"]


def show_status(app, state) -> None:
    """``live|replay NAME │ step S/N │ KIND`` and, live, paused, running or how it ended."""
    event = app.events[app.step - 1] if app.step else None
    mode = "live" if app.live else "replay"
    parts = [f"{mode} {app.label}", f"step {app.step}/{len(app.history)}",
             event.kind if event else "start"]
    if app.live:
        if app.outcome is not None:
            parts.append(_ending(app))
        elif app.live.stepper.paused:
            parts.append(f"paused ({app.paused_reason})")
        else:
            parts.append("running")
    if app.indexing is not None:
        parts.append(f"reading the rest: {app.indexing}% (steps past {len(app.history)} "
                     "come when it ends)")
    if app.focus_mode:
        parts.append("focus")
    app.query_one("#status", Static).update(plain(" │ ".join(parts)), layout=False)


def _ending(app) -> str:
    code = app.live.exit_code
    if app.outcome.ok:
        return f"finished (exit status {code})" if code else "finished"
    return f"ended: {app.outcome.error}"


def show_narration(app) -> None:
    """The sentence of the event the step ended with (or the script's error, at its end)."""
    bar = app.query_one(NarrationBar)
    outcome = app.outcome
    if app.live and outcome is not None and not outcome.ok \
            and not outcome.stopped and app.step == len(app.history):
        bar.say("error", f"The script stopped with an error: {outcome.error}")
    elif app.step:
        bar.say(app.events[app.step - 1].kind, app.narrator.sentence(app.step - 1))
    else:
        bar.say("", "The start: nothing has happened yet. Press space to take a step.")
