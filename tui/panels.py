"""The inspector, order and output panels at a step (the graph and events list draw
themselves: ``graphview``, ``timeline``)."""

from __future__ import annotations

import bisect

from rich.style import Style
from textual.widgets import Log

from .inspector import Inspector
from .layout import short_name
from .legend import legend_text
from .lines import LineList
from .text import printable
from .versions import stale_saved

__all__ = ["OutputLog", "order_start", "show_inspector", "show_order"]


def show_inspector(app, state, node: int) -> None:
    """``node``'s details, or the legend while it is toggled on (l)."""
    inspector = app.query_one(Inspector)
    inspector.border_title = "legend" if app.legend else "inspector"
    if app.legend:
        inspector.update(legend_text())
    else:
        view = state.nodes.get(node)
        inspector.show(state, node, app.index.sources.get(node, ""),
                       stale_saved(view) if view is not None else ())


def show_order(app, state) -> None:
    """The nodes the current backward ran, in order, then those waiting (dimmed)."""
    index = app.index
    at = bisect.bisect_right(index.backwards, app.step - 1) - 1
    begin = index.backwards[at] if at >= 0 else len(app.events)
    lo = bisect.bisect_left(index.starts, begin)
    hi = bisect.bisect_left(index.starts, app.step)
    order = [app.events[i].node for i in index.starts[lo:hi]]
    waiting = [n.id for n in state.nodes.values() if n.status in ("waiting", "ready")]
    rows = order + waiting

    def line(i):
        node = state.nodes.get(rows[i])
        name = short_name(node.name) if node else "?"
        status = node.status if node else "?"
        label = f"{i + 1:>4}." if i < len(order) else "   -"
        return f"{label} {name} n{rows[i]}  {status}", Style(dim=i >= len(order))

    mark = len(order) - 1 if order and state.current == order[-1] else -1
    app.query_one("#order", LineList).set_rows(len(rows), line, mark)


def order_start(app, row: int) -> int | None:
    """The index of the event where the order's ``row`` started running (None: none)."""
    starts, backwards = app.index.starts, app.index.backwards
    lo = bisect.bisect_left(starts, backwards[bisect.bisect_right(
        backwards, app.step - 1) - 1]) if backwards else 0
    return starts[lo + row] if lo + row < len(starts) else None


class OutputLog(Log):
    """What the program printed before the step (back in time, the log starts over)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._printed = 0                # how many printed events the log shows

    def show(self, events: list, prints: list[int], step: int) -> None:
        count = bisect.bisect_left(prints, step)
        if count == self._printed:
            return
        if count < self._printed:
            self.clear()
            self._printed = 0
        text = "".join(events[i].text for i in prints[self._printed:count])
        self.write(printable(text, lines=True))
        self._printed = count
