"""The graph view: one scrolling Line-API widget drawing a precomputed ``Layout``.

A step only restyles: ``show(state, ...)`` stores the state and refreshes;
``render_line`` colours the layout's runs by each node's status. The current
node is drawn with a double border, the selected one in blue, breakpoints
with a red dot, edges on a live reference cycle in red. At the overview level a
node is one coloured dot (◉ when current or selected); a collapsed chain's box is
coloured as its tail (the last of it a backward runs). A graph smaller than the
view is drawn centred in it.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from agdebug.render.summary import BOX_RANK

from .layout import Layout

__all__ = ["STATUS_STYLES", "GraphView", "live_text"]

_BLACK = "#1a1a1a"
STATUS_STYLES = {
    "created": Style(color=_BLACK, bgcolor="#d9d9d9"),
    "waiting": Style(color=_BLACK, bgcolor="#fff3b0"),
    "ready": Style(color=_BLACK, bgcolor="#ffd166"),
    "running": Style(color=_BLACK, bgcolor="#ff9f1c", bold=True),
    "done": Style(color=_BLACK, bgcolor="#b7e4c7"),
    "released": Style(color=_BLACK, bgcolor="#a9d6e5"),
    "freed": Style(color="#8a8a8a", bgcolor="#3a3a3a", italic=True),
    "errored": Style(color="#ffffff", bgcolor="#c9184a", bold=True),
}
_EDGE = Style(color="#7a7a7a")
_EDGE_ACTIVE = Style(color="#ff9f1c", bold=True)
_EDGE_CYCLE = Style(color="#ff3b3b", bold=True)
_CURRENT = Style(color="#d00000", bold=True)
_SELECTED = Style(color="#1d4ed8", bold=True)
_BREAK = Style(color="#ff0000", bold=True)
_DOUBLE = str.maketrans("┌┐└┘─│", "╔╗╚╝═║")
_HEAVY = str.maketrans("┌┐└┘─│", "┏┓┗┛━┃")


def live_text(node, state, stale=()) -> str:
    """The box's live line: a leaf's ``.grad``, or what the node's saved tensors hold (and
    their versions, when one changed in place since: ``stale``, ``versions.stale_saved``'s)."""
    if stale:
        _, saved, now = stale[0]
        return f"v{now}, saved v{saved}"   # (the box's colour says whether it failed)
    if node.leaf is not None:
        leaf = state.leaves.get(node.leaf.id)
        grad = leaf.grad if leaf is not None else None
        mark = " ⟲" if node.leaf.id in state.cycles else ""
        return (f".grad {list(grad.shape)}" if grad is not None else ".grad None") + mark
    if node.status == "errored":
        return "error"
    if node.saved:
        # Released, not merely 0 bytes: a saved Python number holds none before the backward.
        if node.status == "freed" or all(s.released for s in node.saved):
            return "saved: freed"
        held = sum(s.nbytes for s in node.saved if not s.released)
        return f"saved {_bytes(held)}"
    return f"ran ×{node.runs}" if node.runs > 1 else ""


def _bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return f"{n}B"


class GraphView(ScrollView, can_focus=True):
    """The DAG, drawn from a ``Layout`` and coloured from a ``GraphState``."""

    class NodeClicked(Message):
        def __init__(self, node: int):
            super().__init__()
            self.node = node

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.graph: Layout | None = None
        self._wanted = 0                 # the node last asked to be in view (0: none)
        self._revealed_at = None         # the scroll offset its reveal left
        self.state = None
        self.selected = 0
        self.breakpoints: frozenset = frozenset()
        self.cycle_edges: set = set()
        self.stale: dict = {}            # node -> its saved tensors changed in place

    def set_layout(self, graph: Layout) -> None:
        self.graph = graph
        self.virtual_size = Size(graph.width, graph.height)
        self.refresh()

    def show(self, state, selected: int, breakpoints, cycle_edges, stale=None) -> None:
        self.state = state
        self.stale = stale or {}
        self.selected = selected
        self.breakpoints = frozenset(breakpoints)
        self.cycle_edges = cycle_edges
        self.refresh()

    def reveal(self, node: int) -> None:
        """Scroll so ``node``'s box is in view (no-op when it already is)."""
        self._wanted = node
        self.call_after_refresh(self._reveal, node)

    def _reveal(self, node: int) -> None:
        boxes = self.graph.boxes if self.graph else None
        if not boxes or not node:    # (no node to follow: the view stays)
            return
        # A node without a box (freed: hidden, or older than the freed ones kept) shows the
        # newest box: the last layout's scroll offset may be blank in this one.
        box = boxes.get(node) or self._chain_box(node) or boxes[max(boxes)]
        self.scroll_to_region(Region(box.x, box.y, box.w, box.h), animate=False,
                              force=True, immediate=True)
        self._revealed_at = self.scroll_offset

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        self._scrollbar_shown(shown)

    def watch_show_horizontal_scrollbar(self, shown: bool) -> None:
        self._scrollbar_shown(shown)

    def _scrollbar_shown(self, shown: bool) -> None:
        # A layout that outgrew the view gets its scrollbars a refresh after the box was
        # scrolled into view: they cover its edge cells, so it is scrolled again (unless the
        # user has scrolled since).
        if shown and self._wanted and self._revealed_at == self.scroll_offset:
            self.call_after_refresh(self._reveal, self._wanted)

    def _chain_box(self, node: int):
        """The box of the collapsed chain ``node`` is in, if any."""
        for head, members in self.graph.chains.items():
            if node in members:
                return self.graph.boxes.get(head)
        return None

    def centre(self) -> None:
        """Scroll so the middle of the graph is in the middle of the view."""
        if self.graph is not None:
            self.scroll_to(max(0, (self.graph.width - self.size.width) // 2),
                           max(0, (self.graph.height - self.size.height) // 2),
                           animate=False, force=True, immediate=True)

    def padding(self) -> tuple[int, int]:
        """Cells left blank left of and above a graph smaller than the view (centring it)."""
        if self.graph is None:
            return 0, 0
        width, height = self.size
        return max(0, (width - self.graph.width) // 2), max(0, (height - self.graph.height) // 2)

    def box_after(self, node: int, delta: int) -> int:
        """The box ``delta`` boxes after ``node``'s in reading order (wrapping round; from
        the first when ``node`` has none). The layout must have boxes."""
        boxes = self.graph.boxes
        ids = sorted(boxes, key=lambda n: (boxes[n].y, boxes[n].x))
        i = ids.index(node) + delta if node in ids else 0
        return ids[i % len(ids)]

    # ----------------------------------------------------------------- drawing

    def render_lines(self, crop):
        self._base = self.rich_style     # once per repaint, not once per line
        self._pad = self.padding()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        pad_x, pad_y = self._pad
        row = scroll_y + y - pad_y
        base = self._base
        if self.graph is None or self.state is None or not 0 <= row < self.graph.height:
            return Strip.blank(width, base)
        left = scroll_x - pad_x
        right = left + width
        segments, cursor = [], left
        for run in self.graph.rows[row]:
            end = run.x + len(run.text)
            if end <= left or run.x >= right:
                continue
            x = run.x
            for text, style in self._styled(run):
                stop = x + len(text)
                if stop > cursor and x < right:
                    if x > cursor:
                        segments.append(Segment(" " * (x - cursor), base))
                    segments.append(Segment(text[max(0, cursor - x):], base + style))
                    cursor = stop
                x = stop
        return Strip(segments).crop(0, width).extend_cell_length(width, base)

    def _styled(self, run):
        if run.role == "edge":
            return [(run.text, self._edge_style(run.owner))]
        chain = self.graph.chains.get(run.owner)
        node = self.state.nodes.get(run.owner) if chain is None else self._telling(chain)
        if node is None:
            return [(" " * len(run.text), Style())]
        fill = STATUS_STYLES.get(node.status, STATUS_STYLES["created"])
        text = run.text
        edge = self._frame(run.owner)
        if run.role == "dot":
            return [self._dot(run, fill, edge)]
        if edge is not None:
            text = text.translate(_DOUBLE if run.owner == self.state.current else _HEAVY)
        if run.role == "live":
            inner = len(text) - 2
            live = live_text(node, self.state, self.stale.get(node.id))[:inner]
            side = fill + (edge or Style())
            return [(text[0], side), (live.center(inner), fill + Style(dim=True)),
                    (text[-1], side)]
        if run.role == "border" or run.role == "label":
            if run.role == "border" and run.owner in self.breakpoints and text[0] in "┌╔┏":
                return [(text[0], fill + (edge or Style())), ("●", fill + _BREAK),
                        (text[2:], fill + (edge or Style()))]
            if run.role == "label":
                return [(text[0], fill + (edge or Style())), (text[1:-1], fill),
                        (text[-1], fill + (edge or Style()))]
            return [(text, fill + (edge or Style()))]
        return [(text, fill)]

    def _telling(self, members):
        """The member whose status a collapsed box shows: the most telling one (an error,
        then what runs or is due, then what ran, then what is gone), as the exports do."""
        live = [self.state.nodes[m] for m in members if m in self.state.nodes]
        return max(live, key=lambda n: BOX_RANK.get(n.status, 0), default=None)

    def _dot(self, run, fill: Style, edge):
        """An overview node: its status colour, ◉ in the frame's colour when marked."""
        if run.owner in self.breakpoints:
            return "●", _BREAK
        if edge is not None:
            return "◉", edge
        return run.text, Style(color=fill.bgcolor, bold=True)

    def _frame(self, node: int):
        if node == self.state.current:
            return _CURRENT
        if node == self.selected:
            return _SELECTED
        return None

    def _edge_style(self, owners) -> Style:
        if self.cycle_edges and any(o in self.cycle_edges for o in owners):
            return _EDGE_CYCLE
        current = self.state.current
        if current and any(current == o[0] for o in owners):
            return _EDGE_ACTIVE
        return _EDGE

    # ----------------------------------------------------------------- mouse

    def on_click(self, event) -> None:
        if self.graph is None:
            return
        at = event.get_content_offset(self)   # (inside the border: the graph's cells)
        if at is None:
            return
        pad_x, pad_y = self.padding()
        x = at.x + int(self.scroll_offset.x) - pad_x
        y = at.y + int(self.scroll_offset.y) - pad_y
        node = self.graph.node_at(x, y)
        if node is not None:
            self.post_message(self.NodeClicked(node))
