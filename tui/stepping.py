"""Stepping and breakpoints: what the keys and the palette do to the step shown.

Inside the history (a recording, or a live session's past) a step moves
``app.step``; at a live session's head it asks the script's
``agdebug.debug.stepping.Stepper`` for the engine's next move. Breakpoints are
the app's ``Breakpoints``, shared with that stepper (``c`` stops at them either way).
"""

from __future__ import annotations

import bisect

from agdebug.debug.stepping import hit

__all__ = ["back", "break_on_op", "clear_breakpoints", "continue_", "jump", "next_node",
           "step", "toggle_flag", "toggle_node_breakpoint"]


def _can_drive(app) -> bool:
    """Whether the step shown is a running live script's head (the stepper takes the key)."""
    return app.live is not None and app.outcome is None and app.step == len(app.history)


def step(app) -> None:
    """One event on (live, at the head: the engine takes one step)."""
    if app.history is None:
        return
    if app.step < len(app.history):
        app.goto(app.step + 1)
    elif _can_drive(app):
        app.live.stepper.step()
    else:
        app.notify("end of the recording", timeout=2)


def next_node(app) -> None:
    """On to the next node the backward starts."""
    i = bisect.bisect_left(app.index.starts, app.step)
    if i < len(app.index.starts):
        app.goto(app.index.starts[i] + 1)
    elif _can_drive(app) or (app.live and app.outcome is None):
        app.goto(len(app.history))
        app.live.stepper.step_node()
    else:
        app.goto(len(app.history))


def continue_(app) -> None:
    """On to the next breakpoint (or error) in the history, else its end; live, run on."""
    if app.history is None:
        return
    ops = app.index.ops
    note = getattr(ops, "note", None)   # a long trace's: it learns the ops passed by
    for i in range(app.step, len(app.events) if app.breakpoints else 0):
        event = app.events[i]
        if note is not None:
            note(event)
        reason = hit(app.breakpoints, event, ops)
        if reason and i + 1 > app.step:
            app.goto(i + 1)
            app.notify(reason, timeout=3)
            return
    app.goto(len(app.history))
    if app.live is not None and app.outcome is None:
        app.live.stepper.resume()


def back(app) -> None:
    app.goto(app.step - 1)


def jump(app, to: int) -> None:
    """To step ``to``; a negative one is the last."""
    app.goto(len(app.history or ()) if to < 0 else to)


def toggle_node_breakpoint(app) -> None:
    """A breakpoint on the selected node (else the current one), or off again."""
    node = app.selected or (app.state.current if app.history else 0)
    if not node:
        app.notify("select a node first (click it, or [ and ])", timeout=3)
        return
    nodes = app.breakpoints.nodes
    app.breakpoints.nodes = nodes - {node} if node in nodes else nodes | {node}
    app.notify(f"breakpoint {'off' if node in nodes else 'on'} n{node}", timeout=2)
    app.refresh_view()


def break_on_op(app, op: str) -> None:
    ops = app.breakpoints.ops
    app.breakpoints.ops = ops - {op} if op in ops else ops | {op}
    app.notify(f"break on {op}: {'off' if op in ops else 'on'}", timeout=2)


def toggle_flag(app, flag: str) -> None:
    """Break on NaN/Inf (``"nan"``) or on errors (``"errors"``), or not."""
    setattr(app.breakpoints, flag, not getattr(app.breakpoints, flag))
    state = "on" if getattr(app.breakpoints, flag) else "off"
    app.notify(f"break on {'NaN/Inf' if flag == 'nan' else 'errors'}: {state}", timeout=2)


def clear_breakpoints(app) -> None:
    app.breakpoints.ops, app.breakpoints.nodes = set(), set()
    app.breakpoints.nan = app.breakpoints.errors = False
    app.notify("breakpoints cleared", timeout=2)
    app.refresh_view()
