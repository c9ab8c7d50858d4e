"""The help screen (?), listing every key."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HELP", "HelpScreen"]

HELP = [
    ("space / n", "step one event (live: let the engine take one step)"),
    ("N", "step to the next node the backward starts"),
    ("c", "continue to the next breakpoint or error (or the end)"),
    ("p / backspace", "step back (time travel: replay, and live after the fact)"),
    ("l", "legend: what the colours and marks of the graph mean (in the inspector)"),
    ("s", "source pane: the step's line in the user's file (hide it; short screens: show "
          "it in the graph's place)"),
    ("r", "events list: sentences or the events' raw fields"),
    ("g / G", "first / last step (home / end outside the scrolling panels)"),
    ("b", "toggle a breakpoint on the selected node"),
    ("[ / ]", "select the previous / next node"),
    ("escape", "select the current node again (or close search)"),
    ("f", "focus the graph on the selected node's neighbourhood"),
    ("h", "hide freed nodes (earlier iterations' graphs), or show them again"),
    ("z", "fit: the most detailed level at which the whole graph fits the view, centred"),
    ("+ / -", "zoom in / out: full boxes, compact boxes (name only), dots (overview)"),
    ("F", "follow the step's node (scroll it into view on every step), or stop"),
    ("x", "collapse long linear chains into one box (\"12 nodes: ...\"), and past 60 nodes "
          "each module call's nodes, or open them all; a box holding the step's or the "
          "selected node is always open"),
    ("/", "search the timeline (kind:NAME filters by kind)"),
    ("e", "export the current view (format: command palette)"),
    ("ctrl+p", "command palette: breakpoints on an op, NaN/Inf, errors; export; themes"),
    ("?", "this help"),
    ("q", "quit"),
]

STATUS = ("created waiting ready running done released freed errored; the current node has a "
          "double red border, the selected one a heavy blue border, breakpoints a red dot. "
          "Press l for the legend, in colour.")


class HelpScreen(ModalScreen):
    """Keys and colours; any of escape, ? or q closes it."""

    BINDINGS: ClassVar = [Binding("escape,question_mark,q", "app.pop_screen", "close", show=False)]

    def compose(self):
        text = Text()
        text.append("agdebug: step through autograd\n\n", style="bold")
        for keys, what in HELP:
            text.append(f"{keys:>14}  ", style="bold cyan")
            text.append(f"{what}\n")
        text.append(f"\nNode colours: {STATUS}\n", style="dim")
        text.append("Click a node or an event to select it. escape closes this screen.",
                    style="dim")
        with VerticalScroll():
            yield Static(text, id="help-text")
