"""A scrolling list of one-line rows (Line API), with a marked row and click to pick.

The timeline (thousands of events) and the execution order use it: only the
visible rows are rendered, so its cost does not grow with the trace.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["LineList", "TextView"]

_MARK = Style(bgcolor="#264f78", color="#ffffff", bold=True)


class _LineView(ScrollView):
    """A scrolling Line-API view that reads its base style once per repaint."""

    def render_lines(self, crop):
        self._base = self.rich_style     # once per repaint, not once per line
        return super().render_lines(crop)


class LineList(_LineView, can_focus=True):
    """Rows from ``line(i) -> (text, Style)``; ``mark`` is highlighted and kept in view."""

    class Picked(Message):
        def __init__(self, sender: LineList, index: int):
            super().__init__()
            self.list = sender
            self.index = index

        @property
        def control(self) -> LineList:
            return self.list

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.count = 0
        self.mark = -1
        self.line = lambda i: ("", Style())

    def set_rows(self, count: int, line, mark: int = -1) -> None:
        self.count = count
        self.line = line
        self.mark = mark
        # As wide as the visible area (not the widget, which includes the vertical
        # scrollbar): wider, a horizontal scrollbar appears and covers the last row.
        self.virtual_size = Size(self.scrollable_content_region.width or 1, count)
        self.refresh()
        self.call_after_refresh(self.reveal, mark)

    def reveal(self, index: int) -> None:
        if index < 0 or index >= self.count:
            return
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        if index < top or index >= top + height:
            self.scroll_to(y=max(0, index - height // 2), animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_offset.y) + y
        base = self._base
        if index >= self.count:
            return Strip.blank(width, base)
        text, style = self.line(index)
        if index == self.mark:
            style = style + _MARK
        text = text[:width].ljust(width)
        return Strip([Segment(text, base + style)], width)

    def on_click(self, event) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < self.count:
            self.post_message(self.Picked(self, index))


class TextView(_LineView, can_focus=True):
    """Rich ``Text``, wrapped to the width and drawn line by line: updating it never
    re-lays out the screen (a ``Static`` of changing height would)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.text = None
        self._strips: list[Strip] = []
        self._width = 0

    def update(self, text) -> None:
        self.text = text
        self._wrap()

    def _wrap(self) -> None:
        # The width without scrollbars; less the vertical one's when the text will need
        # it (wrapped to the full width, the text's last columns would hide under it).
        width = max(1, self.content_region.width or 40)
        lines = self._lines(width)
        if len(lines) > self.content_region.height:
            width = max(1, width - self.styles.scrollbar_size_vertical)
            lines = self._lines(width)
        self._width = width
        self._strips = [Strip(line.render(self.app.console), line.cell_len) for line in lines]
        self.virtual_size = Size(width, len(self._strips))
        self.refresh()

    def _lines(self, width: int) -> list:
        return list(self.text.wrap(self.app.console, width)) if self.text is not None else []

    def on_resize(self, event) -> None:
        if self.text is not None:
            self._wrap()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_offset.y) + y
        base = self._base
        if index >= len(self._strips):
            return Strip.blank(width, base)
        return self._strips[index].apply_style(base).extend_cell_length(width, base).crop(
            0, width)
