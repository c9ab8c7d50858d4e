"""The debugger app's shell: its keys, its screen, and what a step refreshes.

The app reads only events and ``GraphState``: a recording or a live script
(``session``: where events come from). A step changes ``self.step`` and
restyles (``refresh_view``); the graph is laid out once per topology
(``layouts``). What a key does lives with its idea (``stepping``: steps and
breakpoints; ``export``); what a step shows, with the widget or panel that shows
it (``status``, ``panels``, ``timeline``); the palette's entries in ``commands``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, LoadingIndicator, Static, TabbedContent, TabPane

from agdebug.debug.cycles import cycle_edges
from agdebug.debug.narration import Narrator
from agdebug.debug.state import reduce
from agdebug.debug.stepping import Breakpoints

from . import export, session, stepping
from .commands import agdebug_commands
from .graphview import GraphView
from .inspector import Inspector
from .layout import LEVELS
from .layouts import Layouts, followed_nodes
from .lines import LineList
from .live import LiveSession
from .memory import MemoryPanel
from .narration import NarrationBar
from .panels import OutputLog, order_start, show_inspector, show_order
from .screens import HelpScreen
from .sourceview import SourceView, source_folders, step_source
from .sources import EventIndex, MemorySeries
from .status import show_narration, show_status
from .text import printable
from .timeline import EventsTab
from .versions import stale_nodes

__all__ = ["MIN_SIZE", "AgDebugApp"]

MIN_SIZE = (60, 16)


class AgDebugApp(App):
    """Step through autograd: ``AgDebugApp(trace=...)``, ``trace_path=`` or ``script=``."""

    CSS_PATH = "app.tcss"
    TITLE = "agdebug"
    # Footer order is what stays visible at 80 columns: the legend and help come early.
    BINDINGS: ClassVar = [
        Binding("space,n", "step", "step"),
        Binding("c", "continue", "continue"),
        Binding("p,backspace", "back", "back"),
        Binding("l", "legend", "legend"),
        Binding("s", "source", "source"),
        Binding("r", "raw", "raw"),
        Binding("question_mark", "help", "help"),
        Binding("N", "next_node", "next node"),
        Binding("b", "toggle_breakpoint", "break"),
        Binding("slash", "search", "search"),
        Binding("e", "export", "export"),
        Binding("z", "fit", "fit"),
        Binding("plus,equals_sign", "zoom(-1)", "zoom in", show=False),
        Binding("minus", "zoom(1)", "zoom out", show=False),
        Binding("F", "follow", "follow", show=False),
        Binding("x", "chains", "chains", show=False),
        Binding("f", "focus_view", "focus", show=False),
        Binding("h", "hide_freed", "hide freed", show=False),
        Binding("left_square_bracket", "select(-1)", "prev node", show=False),
        Binding("right_square_bracket", "select(1)", "next node", show=False),
        Binding("g,home", "goto(0)", "first", show=False),
        Binding("G,end", "goto(-1)", "last", show=False),
        Binding("escape", "escape", "deselect", show=False),
        Binding("q", "quit", "quit"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),   # as in a script
    ]
    # The actions that belong to another module's idea (the app is passed as ``self``).
    action_step = stepping.step
    action_next_node = stepping.next_node
    action_continue = stepping.continue_
    action_back = stepping.back
    action_goto = stepping.jump
    action_toggle_breakpoint = stepping.toggle_node_breakpoint
    action_export = export.export_view
    deliver_screenshot = export.deliver_screenshot

    def __init__(self, *, trace=None, trace_path=None, script=None, args=(), title: str = "",
                 export_dir=".", start: int | None = None, output: str = "",
                 engine: str = "agdebug", source_dirs=()):
        super().__init__()
        self.engine = engine   # a live script's engine: "torch" runs it watched
        self.source_dirs = source_dirs   # more folders the source pane looks in
        self.trace, self.trace_path, self.script, self.script_args = trace, trace_path, script, args
        self.label = title or os.path.basename(str(trace_path or script or "trace"))
        self.export_dir = Path(export_dir)
        self.export_format = "svg"
        self.start = start
        self.initial_output = output
        self.history = None
        self.events: list = []
        self.series = MemorySeries()
        self.step = 0
        self.selected = 0
        self.breakpoints = Breakpoints(errors=True)   # an error stops ``c``, as in pdb
        self.narrator = Narrator()
        self.legend = False              # the inspector shows the legend
        self.focus_mode = False
        self.hide_freed = False          # the graph leaves freed nodes out (h)
        self.zoom = "full"               # the graph's level of detail (+, -, z: a LEVELS name)
        self.follow = True               # each step scrolls its node into view (F)
        self.collapse_chains = True      # long chains, big graphs' module calls: boxes (x)
        self.live: LiveSession | None = None
        self.paused_reason = ""
        self.outcome = None
        self.error = ""
        self.index = EventIndex()        # ops, sources, starts, backwards, prints
        self.indexing: int | None = None   # a first opening's pass (percent), while its
        #                                    first events are shown
        self.layouts = Layouts(self)
        self.current_node = 0            # the running node at the last refresh
        self.shown_node = 0              # the node the view followed at the last refresh
        self._state = None

    # ----------------------------------------------------------------- building

    def compose(self):
        yield Static(id="status")
        yield NarrationBar(id="narration")
        with Horizontal(id="loading"):
            yield LoadingIndicator()
            yield Static(id="loading-text")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield GraphView(id="graph")
                yield SourceView(id="source")
            yield Inspector(id="inspector")
        with TabbedContent(id="bottom"):
            yield EventsTab(self.narrator, id="tab-events")
            with TabPane("Order", id="tab-order"):
                yield LineList(id="order")
            with TabPane("Memory", id="tab-memory"):
                yield MemoryPanel(id="memory")
            with TabPane("Output", id="tab-output"):
                yield OutputLog(id="output", highlight=False)
        yield Static(id="too-small")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#graph").border_title = "graph"
        self.query_one("#inspector").border_title = "inspector"
        self.query_one(SourceView).folders = source_folders(
            self.script, self.trace_path, extra=self.source_dirs)
        self._fit_screen()
        session.open_events(self)

    # ----------------------------------------------------------------- showing a step

    @property
    def state(self):
        """The state after ``self.step`` events; a step forward costs one reduction."""
        cached = self._state
        if cached is None or cached.step != self.step:
            if cached is not None and cached.step == self.step - 1:
                cached = reduce(cached, self.events[self.step - 1])
            else:
                cached = self.history.state(self.step)
            self._state = cached
        return cached

    def goto(self, step: int) -> None:
        if self.history is None:
            return
        self.step = max(0, min(step, len(self.history)))
        self.refresh_view()

    def refresh_view(self) -> None:
        if self.history is None:
            return
        state = self.state
        graph = self.query_one("#graph", GraphView)
        chosen, shown = followed_nodes(state, self.events, self.step, self.selected)
        self.layouts.ensure(state, shown)
        graph.show(state, chosen, self.breakpoints.nodes, cycle_edges(state.cycles),
                   stale_nodes(state))
        if self.follow:   # every step: the user may have scrolled away (a no-op in view)
            graph.reveal(shown)
        self.current_node, self.shown_node = state.current, shown
        show_inspector(self, state, shown)
        show_narration(self)
        source = step_source(self)
        self.query_one(SourceView).show(source, self.index.paths.get(source, ""))
        self.query_one(EventsTab).show(self.step)
        show_order(self, state)
        self.query_one(OutputLog).show(self.events, self.index.prints, self.step)
        if self.query_one("#bottom", TabbedContent).active == "tab-memory":
            self.query_one(MemoryPanel).show(state, self.series, self.events, self.step)
        show_status(self, state)

    # ----------------------------------------------------------------- selection and panels

    def action_select(self, delta: int) -> None:
        graph = self.query_one("#graph", GraphView)
        if graph.graph is not None and graph.graph.boxes:
            self.select(graph.box_after(self.selected or self.state.current, delta))

    def select(self, node: int) -> None:
        self.selected = node
        self.refresh_view()
        self.query_one("#graph", GraphView).reveal(node)

    def action_escape(self) -> None:
        if self.query_one(EventsTab).close_search():
            self.query_one("#graph").focus()
            return
        self.selected = 0
        self.refresh_view()

    def action_raw(self) -> None:
        """Toggle the events list between sentences and the events' raw fields."""
        raw = self.query_one(EventsTab).toggle_raw()
        self.notify("events: raw fields" if raw else "events: sentences", timeout=2)

    def action_legend(self) -> None:
        self.legend = not self.legend
        if self.history is not None:
            show_inspector(self, self.state, self.shown_node)

    def action_source(self) -> None:
        """Hide the source pane (tall screens), or show it in the graph's place (short)."""
        self.screen.toggle_class("source-toggled")

    def action_search(self) -> None:
        self.query_one("#bottom", TabbedContent).active = "tab-events"
        self.query_one(EventsTab).open_search()

    def action_focus_view(self) -> None:
        self.focus_mode = not self.focus_mode
        self.refresh_view()

    def action_hide_freed(self) -> None:
        self.hide_freed = not self.hide_freed
        self.notify("freed nodes: hidden" if self.hide_freed else "freed nodes: shown",
                    timeout=2)
        self.refresh_view()

    def action_fit(self) -> None:
        """The most detailed level at which the whole graph fits the view, centred."""
        self.layouts.fit()

    def action_zoom(self, delta: int) -> None:
        """One level more detailed (-1) or less (+1): full boxes, compact boxes, dots."""
        names = [level.name for level in LEVELS]
        at = max(0, min(len(names) - 1, names.index(self.zoom) + delta))
        if names[at] != self.zoom:
            self.zoom = names[at]
            self.notify(f"zoom: {self.zoom} boxes", timeout=2)
            self.refresh_view()

    def action_follow(self) -> None:
        self.follow = not self.follow
        self.notify("follow: on" if self.follow else "follow: off (the view stays)", timeout=2)
        self.refresh_view()

    def action_chains(self) -> None:
        self.collapse_chains = not self.collapse_chains
        self.notify("long chains and module calls: collapsed" if self.collapse_chains
                    else "long chains and module calls: open", timeout=2)
        self.refresh_view()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from agdebug_commands(self)

    # ----------------------------------------------------------------- messages up

    def on_live_message(self, message: session.LiveMessage) -> None:
        session.take(self, message.payload)

    def on_events_tab_chosen(self, message: EventsTab.Chosen) -> None:
        self.goto(message.index + 1)

    @on(TabbedContent.TabActivated, "#bottom")
    def _tab_changed(self, event) -> None:
        if self.history is not None and event.pane.id == "tab-memory":
            self.query_one(MemoryPanel).show(self.state, self.series, self.events, self.step)

    def on_graph_view_node_clicked(self, message: GraphView.NodeClicked) -> None:
        self.select(message.node)

    @on(LineList.Picked, "#order")
    def _order_picked(self, message: LineList.Picked) -> None:
        start = order_start(self, message.index)
        if start is not None:
            self.goto(start + 1)

    # ----------------------------------------------------------------- screen size, quit

    def on_resize(self, event) -> None:
        self._fit_screen(event.size)

    def _fit_screen(self, size=None) -> None:
        width, height = size or self.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.screen.set_class(small, "small")
        self.screen.set_class(width < 100, "narrow")
        self.screen.set_class(height < 30, "short")
        if small:
            self.query_one("#too-small", Static).update(
                f"The terminal is too small ({width}x{height}).\nagdebug needs at least "
                f"{MIN_SIZE[0]}x{MIN_SIZE[1]}: enlarge it, or press q to quit.")

    def notify(self, message: str, **kwargs) -> None:
        """A notice, as plain text: it often names an op or quotes an error of the program."""
        kwargs.setdefault("markup", False)
        super().notify(printable(message, lines=True), **kwargs)

    async def action_quit(self) -> None:
        self._stop_script()
        self.exit(self.outcome)

    def on_unmount(self) -> None:
        # However the app ends (q, an error, the caller), a script it paused is let go: a
        # paused program holds the event stream, and would hold it for later sessions.
        self._stop_script()

    def _stop_script(self) -> None:
        if self.live is not None and self.outcome is None:
            self.live.stop()
