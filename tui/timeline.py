"""The Events tab's list: every event as a sentence (or its raw fields), filtered by a search.

A search matches words of the sentence and of the raw fields, whichever is shown;
``kind:NAME`` keeps events of that kind. Events after the current step are dimmed.
"""

from __future__ import annotations

import bisect

from rich.style import Style
from textual import on
from textual.message import Message
from textual.widgets import Input, TabPane

from agdebug.events.records import describe

from .lines import LineList
from .text import printable

__all__ = ["EventList", "EventsTab"]

_KIND_STYLES = {"error": Style(color="#ff5555", bold=True), "node_started": Style(bold=True),
                "cycle_detected": Style(color="#ff5555"), "saved_released": Style(color="cyan"),
                "node_freed": Style(color="#8a8a8a"), "gc_pass": Style(color="#8a8a8a")}
_FUTURE = Style(dim=True)


class EventList(LineList):
    """The events the search lets through (``shown``), one line each, from ``narrator``."""

    def __init__(self, narrator, **kwargs):
        super().__init__(**kwargs)
        self.narrator = narrator
        self.events: list = []
        self.raw = False                 # lines show the events' raw fields, not sentences
        self.query_text = ""
        self.shown: list[int] = []       # indices of the events listed
        self._texts: dict[int, str] = {}
        self._searched: dict[int, str] = {}

    def set_events(self, events: list) -> None:
        """The events so far (the list grows in a live session): filter them again."""
        self.events = events
        self._refilter()

    def set_filter(self, text: str) -> None:
        self.query_text = text
        self._refilter()

    def toggle_raw(self) -> None:
        self.raw = not self.raw
        self._texts.clear()

    def match_from(self, step: int) -> int | None:
        """The first listed event at or after ``step`` (else the first listed), or None."""
        later = [i for i in self.shown if i >= step]
        return later[0] if later else (self.shown[0] if self.shown else None)

    def show(self, step: int) -> None:
        """List the events, the one ``step`` ended with marked, later ones dimmed."""
        mark = bisect.bisect_left(self.shown, step - 1)
        mark = mark if mark < len(self.shown) and self.shown[mark] == step - 1 else -1
        shown = self.shown

        def line(i):
            j = shown[i]
            style = _KIND_STYLES.get(self.events[j].kind, Style())
            return f"{j + 1:>6} {self._text(j)}", style + _FUTURE if j >= step else style

        self.set_rows(len(shown), line, mark)

    def _text(self, index: int) -> str:
        text = self._texts.get(index)
        if text is None:
            said = describe(self.events[index]) if self.raw else self.narrator.sentence(index)
            text = self._texts[index] = printable(said)
        return text

    def _refilter(self) -> None:
        words = self.query_text.lower().split()
        kinds = {w[5:] for w in words if w.startswith("kind:")}
        terms = [w for w in words if not w.startswith("kind:")]
        if not words:   # (a range: a long trace's million events cost no list)
            self.shown = range(len(self.events))
            return
        self.shown = [i for i, e in enumerate(self.events)
                      if (not kinds or e.kind in kinds)
                      and all(t in self._haystack(i) for t in terms)]

    def _haystack(self, index: int) -> str:
        """What a search looks in: the sentence and the raw fields, either way shown."""
        text = self._searched.get(index)
        if text is None:
            text = self._searched[index] = (describe(self.events[index]) + "\n"
                                            + self.narrator.sentence(index)).lower()
        return text


class EventsTab(TabPane):
    """The Events tab: a search box (shown by /) over the ``EventList``; a search's match
    or a clicked event is posted up as ``EventsTab.Chosen``."""

    class Chosen(Message):
        """Show the step after event ``index``."""

        def __init__(self, index: int):
            super().__init__()
            self.index = index

    def __init__(self, narrator, **kwargs):
        super().__init__("Events", **kwargs)
        self.narrator = narrator
        self._step = 0                   # the step the list was last shown at

    def compose(self):
        yield Input(placeholder="search events (kind:NAME to filter)", id="search")
        yield EventList(self.narrator, id="events")

    def set_events(self, events: list) -> None:
        self.query_one(EventList).set_events(events)

    def show(self, step: int) -> None:
        self._step = step
        self.query_one(EventList).show(step)

    def set_filter(self, text: str) -> None:
        self.query_one(EventList).set_filter(text)
        self.show(self._step)

    def toggle_raw(self) -> bool:
        """Sentences or raw fields, the other way round; True when raw fields are shown."""
        events = self.query_one(EventList)
        events.toggle_raw()
        self.show(self._step)
        return events.raw

    def open_search(self) -> None:
        search = self.query_one("#search", Input)
        search.add_class("shown")
        search.focus()

    def close_search(self) -> bool:
        """Hide the search box, if it was shown (then True)."""
        search = self.query_one("#search", Input)
        if not search.has_class("shown"):
            return False
        search.remove_class("shown")
        return True

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.set_filter(event.value)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        target = self.query_one(EventList).match_from(self._step)
        if target is None:
            # (the app's notify, which shows text plainly: Widget.notify asks for markup)
            self.app.notify("no event matches", timeout=2)
        else:
            self.post_message(self.Chosen(target))

    @on(LineList.Picked, "#events")
    def _event_picked(self, message: LineList.Picked) -> None:
        self.post_message(self.Chosen(self.query_one(EventList).shown[message.index]))
