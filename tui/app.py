"""The debugger app: graph, inspector, timeline, order, memory and output, one step at a time.

The app reads only events and ``GraphState``: a recording (``trace=`` or
``trace_path=``, loaded off the UI thread) or a live script (``script=``,
run by ``LiveSession`` in its own thread). Stepping changes ``self.step`` and
restyles; the graph is laid out once per topology, big graphs off the UI thread.
"""

from __future__ import annotations

import bisect
import os
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Input, LoadingIndicator, Log, Static, TabbedContent, TabPane

from agdebug.debug.cycles import cycle_edges
from agdebug.debug.narration import Narrator
from agdebug.debug.recorder import TraceError, load_trace
from agdebug.debug.state import reduce
from agdebug.debug.stepping import Breakpoints, hit
from agdebug.events.records import describe

from .graphview import GraphView
from .inspector import Inspector
from .layout import layout, short_name, topology
from .legend import legend_text
from .lines import LineList
from .live import EventsArrived, LiveSession, ProgramFinished
from .memory import MemoryPanel
from .narration import NarrationBar
from .screens import HelpScreen
from .sources import LiveHistory, MemorySeries
from .text import plain, printable

__all__ = ["MIN_SIZE", "AgDebugApp"]

MIN_SIZE = (60, 16)
SYNC_LAYOUT = 300          # graphs up to this many nodes are laid out on the spot
FREED_SHOWN = 64           # freed nodes kept on screen (the most recent ones)
_KIND_STYLES = {"error": Style(color="#ff5555", bold=True), "node_started": Style(bold=True),
                "cycle_detected": Style(color="#ff5555"), "saved_released": Style(color="cyan"),
                "node_freed": Style(color="#8a8a8a"), "gc_pass": Style(color="#8a8a8a")}
_FUTURE = Style(dim=True)
_TOPOLOGY = {"node_created", "node_freed", "backward_planned"}


class LiveMessage(Message):
    """Something the live script's thread reported (see ``tui.live``)."""

    def __init__(self, payload):
        super().__init__()
        self.payload = payload


def visible_nodes(state) -> dict:
    """Nodes to draw: every live one, and the most recently created freed ones."""
    nodes = state.nodes
    freed = [n for n in nodes.values() if n.status == "freed"]
    if len(freed) <= FREED_SHOWN:
        return dict(nodes)
    keep = {n.id for n in sorted(freed, key=lambda n: n.created_step)[-FREED_SHOWN:]}
    return {i: n for i, n in nodes.items() if n.status != "freed" or i in keep}


def neighbourhood(nodes: dict, centre: int, radius: int = 2) -> dict:
    """``centre`` and the nodes within ``radius`` edges of it (either direction)."""
    adjacent: dict = {}
    for node in nodes.values():
        for child, _ in node.edges:
            if child in nodes:
                adjacent.setdefault(node.id, set()).add(child)
                adjacent.setdefault(child, set()).add(node.id)
    seen, frontier = {centre}, {centre}
    for _ in range(radius):
        frontier = {n for f in frontier for n in adjacent.get(f, ())} - seen
        seen |= frontier
    return {i: nodes[i] for i in seen if i in nodes}


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
        Binding("r", "raw", "raw"),
        Binding("question_mark", "help", "help"),
        Binding("N", "next_node", "next node"),
        Binding("b", "toggle_breakpoint", "break"),
        Binding("slash", "search", "search"),
        Binding("e", "export", "export"),
        Binding("f", "focus_view", "focus", show=False),
        Binding("left_square_bracket", "select(-1)", "prev node", show=False),
        Binding("right_square_bracket", "select(1)", "next node", show=False),
        Binding("g,home", "goto(0)", "first", show=False),
        Binding("G,end", "goto(-1)", "last", show=False),
        Binding("escape", "escape", "deselect", show=False),
        Binding("q", "quit", "quit"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),   # as in a script
    ]

    def __init__(self, *, trace=None, trace_path=None, script=None, args=(), title: str = "",
                 export_dir=".", start: int | None = None, output: str = "",
                 engine: str = "agdebug"):
        super().__init__()
        self.engine = engine   # a live script's engine: "torch" runs it watched
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
        self.raw = False                 # the events list shows raw fields, not sentences
        self.legend = False              # the inspector shows the legend
        self.focus_mode = False
        self.live: LiveSession | None = None
        self.paused_reason = ""
        self.outcome = None
        self.error = ""
        self.ops: dict[int, str] = {}
        self.sources: dict[int, str] = {}
        self.starts: list[int] = []      # indices of node_started events
        self.backwards: list[int] = []   # indices of backward_started events
        self.prints: list[int] = []      # indices of printed events (the script's output)
        self._printed = 0                # how many of them the output tab shows
        self.query_text = ""
        self.shown: list[int] = []       # event indices the timeline shows
        self._layouts: dict = {}
        self._layout_key = None
        self._layout_for = None          # (step, focus mode, selected) of the last check
        self._current = 0
        self._shown = 0
        self._state = None
        self._texts: dict[int, str] = {}
        self._searched: dict[int, str] = {}

    # ----------------------------------------------------------------- building

    def compose(self):
        yield Static(id="status")
        yield NarrationBar(id="narration")
        with Horizontal(id="loading"):
            yield LoadingIndicator()
            yield Static(id="loading-text")
        with Horizontal(id="main"):
            yield GraphView(id="graph")
            yield Inspector(id="inspector")
        with TabbedContent(id="bottom"):
            with TabPane("Events", id="tab-events"):
                yield Input(placeholder="search events (kind:NAME to filter)", id="search")
                yield LineList(id="events")
            with TabPane("Order", id="tab-order"):
                yield LineList(id="order")
            with TabPane("Memory", id="tab-memory"):
                yield MemoryPanel(id="memory")
            with TabPane("Output", id="tab-output"):
                yield Log(id="output", highlight=False)
        yield Static(id="too-small")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#graph").border_title = "graph"
        self.query_one("#inspector").border_title = "inspector"
        self._fit_screen()
        if self.trace is not None:
            self._loaded(self.trace.timeline())
        elif self.trace_path is not None:
            self._show_loading(True)
            self._load(str(self.trace_path))
        elif self.script is not None:
            self.history = LiveHistory()
            self.live = LiveSession(self.script, self.script_args,
                                    post=lambda m: self.post_message(LiveMessage(m)),
                                    engine=self.engine)
            self.live.stepper.breakpoints = self.breakpoints
            self.live.start()
            self.refresh_view()

    def _show_loading(self, on: bool) -> None:
        self.screen.set_class(on, "loading")
        if on:
            size = os.path.getsize(self.trace_path) if os.path.exists(self.trace_path) else 0
            self.query_one("#loading-text", Static).update(
                plain(f"loading {self.trace_path} ({size / 1e6:.1f} MB)..."))

    @work(thread=True, exclusive=True, group="load")
    def _load(self, path: str) -> None:
        try:
            timeline = load_trace(path).timeline()
        except TraceError as exc:
            self.call_from_thread(self._fail, str(exc))
            return
        self.call_from_thread(self._loaded, timeline)

    def _fail(self, message: str) -> None:
        self.error = message
        self.exit(return_code=2)

    def _loaded(self, timeline) -> None:
        self._show_loading(False)
        self.history = timeline
        self._absorb(timeline.events)
        if self.initial_output and not self.prints:   # a trace from before printed events
            self.query_one("#output", Log).write(printable(self.initial_output, lines=True))
        self.step = self._first_step() if self.start is None else self.start
        self.refresh_view()

    def _first_step(self) -> int:
        """Where a recording opens: the first backward about to run (its graph complete)."""
        return self.backwards[0] if self.backwards else len(self.events)

    def _absorb(self, events) -> None:
        """Index new events: ops, source lines, node starts, backward starts, memory."""
        self.events = self.history.events     # the history holds ``events`` already
        for i, e in enumerate(events, len(self.events) - len(events)):
            if e.kind == "node_created":
                self.ops[e.node] = e.op
                if e.source:
                    self.sources[e.node] = e.source
            elif e.kind == "node_started":
                self.starts.append(i)
            elif e.kind == "backward_started":
                self.backwards.append(i)
            elif e.kind == "printed":
                self.prints.append(i)
        self.series.extend(events)
        self.narrator.extend(events)
        self._refilter()

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
        self._ensure_layout(state)
        failed = self._error_node(state)   # an error's node is selected and in view
        chosen = self.selected or failed
        graph.show(state, chosen, self.breakpoints.nodes, cycle_edges(state.cycles))
        shown = chosen or state.current or self._event_node() or self._last_created(state)
        if shown != self._shown:
            graph.reveal(shown)
        self._current, self._shown = state.current, shown
        self._show_inspector(state, shown)
        self._show_narration()
        self._show_timeline()
        self._show_order(state)
        self._show_output()
        if self.query_one("#bottom", TabbedContent).active == "tab-memory":
            self.query_one(MemoryPanel).show(state, self.series, self.events, self.step)
        self._show_status(state)

    def _error_node(self, state) -> int:
        """The node of the error this step raised (0 when it raised none at a node)."""
        error = state.last_error
        return error.node if error is not None and error.step == self.step - 1 else 0

    def _show_inspector(self, state, shown: int) -> None:
        inspector = self.query_one(Inspector)
        inspector.border_title = "legend" if self.legend else "inspector"
        if self.legend:
            inspector.update(legend_text())
        else:
            inspector.show(state, shown, self.sources.get(shown, ""))

    def _show_narration(self) -> None:
        bar = self.query_one(NarrationBar)
        if self.live and self.outcome is not None and not self.outcome.ok \
                and not self.outcome.stopped and self.step == len(self.history):
            bar.say("error", f"The script stopped with an error: {self.outcome.error}")
        elif self.step:
            bar.say(self.events[self.step - 1].kind, self.narrator.sentence(self.step - 1))
        else:
            bar.say("", "The start: nothing has happened yet. Press space to take a step.")

    def _show_output(self) -> None:
        """What the program printed before this step (back in time, the log starts over)."""
        count = bisect.bisect_left(self.prints, self.step)
        if count == self._printed:
            return
        log = self.query_one("#output", Log)
        if count < self._printed:
            log.clear()
            self._printed = 0
        text = "".join(self.events[i].text for i in self.prints[self._printed:count])
        log.write(printable(text, lines=True))
        self._printed = count

    def _event_node(self) -> int:
        """The node the current step's event is about (the one freed, released, created...),
        so the view follows it and the inspector shows it; 0 for an event about none."""
        event = self.events[self.step - 1] if self.step else None
        node = getattr(event, "node", 0)
        return node if type(node) is int else 0

    def _last_created(self, state) -> int:
        live = [n for n in state.nodes.values() if n.status != "freed"]
        return max((n.created_step, n.id) for n in live)[1] if live else 0

    def _show_status(self, state) -> None:
        event = self.events[self.step - 1] if self.step else None
        mode = "live" if self.live else "replay"
        parts = [f"{mode} {self.label}", f"step {self.step}/{len(self.history)}",
                 event.kind if event else "start"]
        if self.live:
            if self.outcome is not None:
                parts.append(self._ending())
            elif self.live.stepper.paused:
                parts.append(f"paused ({self.paused_reason})")
            else:
                parts.append("running")
        if self.focus_mode:
            parts.append("focus")
        self.query_one("#status", Static).update(plain(" │ ".join(parts)), layout=False)

    def _ending(self) -> str:
        code = self.live.exit_code
        if self.outcome.ok:
            return f"finished (exit status {code})" if code else "finished"
        return f"ended: {self.outcome.error}"

    # ----------------------------------------------------------------- layout

    def _wanted_nodes(self, state) -> dict:
        nodes = visible_nodes(state)
        centre = self.selected or state.current or self._current
        if self.focus_mode and centre in nodes:
            return neighbourhood(nodes, centre)
        return nodes

    def _topology_same(self, state) -> bool:
        """Whether no event between the last layout's step and this one changes the drawing."""
        if self._layout_for is None or self._layout_for[1:] != (self.focus_mode, self.selected):
            return False
        lo, hi = sorted((self._layout_for[0], state.step))
        return hi - lo <= 256 and not any(e.kind in _TOPOLOGY for e in self.events[lo:hi])

    def _ensure_layout(self, state) -> None:
        if self._topology_same(state):
            return
        self._layout_for = (state.step, self.focus_mode, self.selected)
        nodes = self._wanted_nodes(state)
        key = topology(nodes)
        if key == self._layout_key:
            return
        self._layout_key = key
        graph = self.query_one("#graph", GraphView)
        if key in self._layouts:
            self._show_layout(self._layouts[key])
        elif len(nodes) <= SYNC_LAYOUT:
            self._layout_ready(key, layout(nodes))
        else:
            graph.border_title = f"graph: laying out {len(nodes)} nodes..."
            self._layout_worker(key, nodes)

    @work(thread=True, exclusive=True, group="layout")
    def _layout_worker(self, key, nodes) -> None:
        self.call_from_thread(self._layout_ready, key, layout(nodes))

    def _layout_ready(self, key, graph_layout) -> None:
        if len(self._layouts) > 64:
            self._layouts.clear()
        self._layouts[key] = graph_layout
        if key == self._layout_key:
            self._show_layout(graph_layout)

    def _show_layout(self, graph_layout) -> None:
        graph = self.query_one("#graph", GraphView)
        graph.border_title = f"graph ({len(graph_layout.boxes)} nodes)"
        graph.set_layout(graph_layout)
        graph.reveal(self._shown)

    # ----------------------------------------------------------------- timeline and order

    def _text(self, index: int) -> str:
        text = self._texts.get(index)
        if text is None:
            said = describe(self.events[index]) if self.raw else self.narrator.sentence(index)
            text = self._texts[index] = printable(said)
        return text

    def action_raw(self) -> None:
        """Toggle the events list between sentences and the events' raw fields."""
        self.raw = not self.raw
        self._texts.clear()
        self._show_timeline()
        self.notify("events: raw fields" if self.raw else "events: sentences", timeout=2)

    def action_legend(self) -> None:
        self.legend = not self.legend
        if self.history is not None:
            self._show_inspector(self.state, self._shown)

    def _refilter(self) -> None:
        words = self.query_text.lower().split()
        kinds = {w[5:] for w in words if w.startswith("kind:")}
        terms = [w for w in words if not w.startswith("kind:")]
        if not words:
            self.shown = list(range(len(self.events)))
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

    def _show_timeline(self) -> None:
        view = self.query_one("#events", LineList)
        mark = bisect.bisect_left(self.shown, self.step - 1)
        mark = mark if mark < len(self.shown) and self.shown[mark] == self.step - 1 else -1
        shown, step = self.shown, self.step

        def line(i):
            j = shown[i]
            style = _KIND_STYLES.get(self.events[j].kind, Style())
            return f"{j + 1:>6} {self._text(j)}", style + _FUTURE if j >= step else style

        view.set_rows(len(shown), line, mark)

    def _show_order(self, state) -> None:
        at = bisect.bisect_right(self.backwards, self.step - 1) - 1
        begin = self.backwards[at] if at >= 0 else len(self.events)
        lo = bisect.bisect_left(self.starts, begin)
        hi = bisect.bisect_left(self.starts, self.step)
        order = [self.events[i].node for i in self.starts[lo:hi]]
        waiting = [n.id for n in state.nodes.values() if n.status in ("waiting", "ready")]
        rows = order + waiting

        def line(i):
            node = state.nodes.get(rows[i])
            name = short_name(node.name) if node else "?"
            status = node.status if node else "?"
            label = f"{i + 1:>4}." if i < len(order) else "   -"
            return f"{label} {name} n{rows[i]}  {status}", Style(dim=i >= len(order))

        mark = len(order) - 1 if order and state.current == order[-1] else -1
        self.query_one("#order", LineList).set_rows(len(rows), line, mark)

    # ----------------------------------------------------------------- stepping

    def _can_drive(self) -> bool:
        return self.live is not None and self.outcome is None and self.step == len(self.history)

    def action_step(self) -> None:
        if self.history is None:
            return
        if self.step < len(self.history):
            self.goto(self.step + 1)
        elif self._can_drive():
            self.live.stepper.step()
        else:
            self.notify("end of the recording", timeout=2)

    def action_next_node(self) -> None:
        i = bisect.bisect_left(self.starts, self.step)
        if i < len(self.starts):
            self.goto(self.starts[i] + 1)
        elif self._can_drive() or (self.live and self.outcome is None):
            self.goto(len(self.history))
            self.live.stepper.step_node()
        else:
            self.goto(len(self.history))

    def action_continue(self) -> None:
        if self.history is None:
            return
        for i in range(self.step, len(self.events)):
            reason = hit(self.breakpoints, self.events[i], self.ops) if self.breakpoints else ""
            if reason and i + 1 > self.step:
                self.goto(i + 1)
                self.notify(reason, timeout=3)
                return
        self.goto(len(self.history))
        if self.live is not None and self.outcome is None:
            self.live.stepper.resume()

    def action_back(self) -> None:
        self.goto(self.step - 1)

    def action_goto(self, step: int) -> None:
        self.goto(len(self.history or ()) if step < 0 else step)

    def action_select(self, delta: int) -> None:
        graph = self.query_one("#graph", GraphView)
        if graph.graph is None or not graph.graph.boxes:
            return
        ids = sorted(graph.graph.boxes, key=lambda n: (graph.graph.boxes[n].y,
                                                       graph.graph.boxes[n].x))
        now = self.selected or self.state.current
        i = ids.index(now) + delta if now in ids else 0
        self.select(ids[i % len(ids)])

    def select(self, node: int) -> None:
        self.selected = node
        self.refresh_view()
        self.query_one("#graph", GraphView).reveal(node)

    def action_escape(self) -> None:
        search = self.query_one("#search", Input)
        if search.has_class("shown"):
            search.remove_class("shown")
            self.query_one("#graph").focus()
            return
        self.selected = 0
        self.refresh_view()

    # ----------------------------------------------------------------- breakpoints

    def action_toggle_breakpoint(self) -> None:
        node = self.selected or (self.state.current if self.history else 0)
        if not node:
            self.notify("select a node first (click it, or [ and ])", timeout=3)
            return
        nodes = self.breakpoints.nodes
        self.breakpoints.nodes = nodes - {node} if node in nodes else nodes | {node}
        self.notify(f"breakpoint {'off' if node in nodes else 'on'} n{node}", timeout=2)
        self.refresh_view()

    def break_on_op(self, op: str) -> None:
        ops = self.breakpoints.ops
        self.breakpoints.ops = ops - {op} if op in ops else ops | {op}
        self.notify(f"break on {op}: {'off' if op in ops else 'on'}", timeout=2)

    def toggle_flag(self, flag: str) -> None:
        setattr(self.breakpoints, flag, not getattr(self.breakpoints, flag))
        state = "on" if getattr(self.breakpoints, flag) else "off"
        self.notify(f"break on {'NaN/Inf' if flag == 'nan' else 'errors'}: {state}", timeout=2)

    def clear_breakpoints(self) -> None:
        self.breakpoints.ops, self.breakpoints.nodes = set(), set()
        self.breakpoints.nan = self.breakpoints.errors = False
        self.notify("breakpoints cleared", timeout=2)
        self.refresh_view()

    # ----------------------------------------------------------------- search, focus, help

    def action_search(self) -> None:
        self.query_one("#bottom", TabbedContent).active = "tab-events"
        search = self.query_one("#search", Input)
        search.add_class("shown")
        search.focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.set_filter(event.value)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        later = [i for i in self.shown if i >= self.step]
        target = later[0] if later else (self.shown[0] if self.shown else None)
        if target is None:
            self.notify("no event matches", timeout=2)
        else:
            self.goto(target + 1)

    def set_filter(self, text: str) -> None:
        self.query_text = text
        self._refilter()
        self._show_timeline()

    def action_focus_view(self) -> None:
        self.focus_mode = not self.focus_mode
        self.refresh_view()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    # ----------------------------------------------------------------- export

    def action_export(self) -> None:
        if self.history is None:
            return
        path = self.export_dir / f"agdebug-step{self.step}.{self.export_format}"
        self.notify(f"exporting {path}...", timeout=2)
        focus = (self.selected or self.state.current) if self.focus_mode else None
        self._export(self.export_format, path, self.step, focus)

    @work(thread=True, exclusive=True, group="export")
    def _export(self, fmt: str, path: Path, step: int, focus) -> None:
        from agdebug.render.dot import DotOptions
        from agdebug.render.export import RenderError, export
        timeline = self.history if hasattr(self.history, "steps_of") else self.history.timeline()
        try:
            written = export(timeline, fmt, path, step=step, options=DotOptions(focus=focus))
            self.call_from_thread(self.notify, f"wrote {written[0]}", timeout=4)
        except (RenderError, OSError) as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", timeout=6)

    def deliver_screenshot(self, filename=None, path=None, time_format=None) -> None:
        """Save an SVG of the screen next to the trace (or in the current folder), and say
        where: Textual's default, ~/Downloads, is missing on many machines."""
        folder = path or (os.path.dirname(os.path.abspath(self.trace_path))
                          if self.trace_path is not None else ".")
        try:
            written = self.save_screenshot(filename, folder, time_format)
        except OSError as exc:
            self.notify(f"cannot save a screenshot in {folder}: {exc.strerror or exc}",
                        severity="error", timeout=8)
            return
        self.notify(f"saved the screenshot to {os.path.abspath(written)}", timeout=8)

    def set_export_format(self, fmt: str) -> None:
        self.export_format = fmt
        self.action_export()

    # ----------------------------------------------------------------- live

    def on_live_message(self, message: LiveMessage) -> None:
        payload = message.payload
        if isinstance(payload, EventsArrived):
            at_head = self.step == len(self.history)
            self.history.extend(payload.events)
            self._absorb(payload.events)
            if payload.paused:
                self.paused_reason = payload.reason
                if payload.reason not in ("step", "step to node"):
                    self.notify(f"paused: {payload.reason}", timeout=3)
            if at_head:
                self.step = len(self.history)
            self.refresh_view()
            self.live.taken()
        elif isinstance(payload, ProgramFinished):
            self.outcome = payload.outcome
            if not self.outcome.ok and not self.outcome.stopped:
                self.notify(f"the script raised {self.outcome.error}", severity="error",
                            timeout=8)
                self.query_one("#bottom", TabbedContent).active = "tab-output"
            self.refresh_view()

    @on(TabbedContent.TabActivated, "#bottom")
    def _tab_changed(self, event) -> None:
        if self.history is not None and event.pane.id == "tab-memory":
            self.query_one(MemoryPanel).show(self.state, self.series, self.events, self.step)

    def on_graph_view_node_clicked(self, message: GraphView.NodeClicked) -> None:
        self.select(message.node)

    @on(LineList.Picked, "#events")
    def _event_picked(self, message: LineList.Picked) -> None:
        self.goto(self.shown[message.index] + 1)

    @on(LineList.Picked, "#order")
    def _order_picked(self, message: LineList.Picked) -> None:
        self._order_pick(message.index)

    def _order_pick(self, index: int) -> None:
        lo = bisect.bisect_left(self.starts, self.backwards[bisect.bisect_right(
            self.backwards, self.step - 1) - 1]) if self.backwards else 0
        if lo + index < len(self.starts):
            self.goto(self.starts[lo + index] + 1)

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

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield SystemCommand("Break on NaN/Inf", "toggle: stop where a gradient has NaN or Inf",
                            lambda: self.toggle_flag("nan"))
        yield SystemCommand("Break on errors", "toggle: stop at an error event",
                            lambda: self.toggle_flag("errors"))
        yield SystemCommand("Clear breakpoints", "remove every breakpoint",
                            self.clear_breakpoints)
        for op in sorted({o for o in self.ops.values() if o}):
            yield SystemCommand(f"Break on op: {op}", f"toggle a breakpoint on every {op} node",
                                lambda op=op: self.break_on_op(op))
        for fmt in ("svg", "png", "pdf", "dot", "html", "gif"):
            yield SystemCommand(f"Export as {fmt}", f"write the current view as {fmt}",
                                lambda fmt=fmt: self.set_export_format(fmt))
        yield SystemCommand("Focus view", "toggle: only the selected node's neighbourhood",
                            self.action_focus_view)
        for kind in sorted({e.kind for e in self.events}):
            yield SystemCommand(f"Timeline: only {kind}", "filter the event log by kind",
                                lambda kind=kind: self.set_filter(f"kind:{kind}"))
        yield SystemCommand("Timeline: all events", "clear the timeline filter",
                            lambda: self.set_filter(""))
