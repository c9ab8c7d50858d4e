"""Which nodes the graph draws and which one it follows, and their layouts: one per
topology, kept for later.

A step that changes no topology (most of a backward) only restyles the graph; a
new topology is laid out on the spot when small, off the UI thread when big. What
is drawn also depends on the zoom level (``app.zoom``) and on what is drawn as one box
(while ``app.collapse_chains``): every linear chain of ``CHAIN_MIN`` or more nodes but
the one holding the node the step shows; past ``GROUP_ABOVE`` nodes, as in the exports
(``render.summary``), the nodes of one module call or source line too, but for those
holding the marked nodes (shown, selected, running, errored).
"""

from __future__ import annotations

from functools import partial

from agdebug.debug.chains import linear_chains
from agdebug.render.summary import summarise

from .graphview import GraphView
from .layout import fitting_level, layout, topology

__all__ = ["CHAIN_MIN", "FREED_SHOWN", "GROUP_ABOVE", "SYNC_LAYOUT", "Layouts",
           "followed_nodes",
           "neighbourhood", "visible_nodes"]

SYNC_LAYOUT = 300          # graphs up to this many nodes are laid out on the spot
FREED_SHOWN = 64           # freed nodes kept on screen (the most recent ones)
CHAIN_MIN = 4              # shorter linear runs are drawn node by node
GROUP_ABOVE = 60           # past this many nodes, module calls are boxes (as the exports)
GROUP_BOXES = 40           # about as many boxes then
_TOPOLOGY = {"node_created", "node_freed", "backward_planned"}


def visible_nodes(state, hide_freed: bool = False) -> dict:
    """Nodes to draw: every live one, and the most recently created freed ones (none when
    ``hide_freed``)."""
    nodes = state.nodes
    freed = [n for n in nodes.values() if n.status == "freed"]
    if len(freed) <= (0 if hide_freed else FREED_SHOWN):
        return dict(nodes)
    kept = [] if hide_freed else sorted(freed, key=lambda n: n.created_step)[-FREED_SHOWN:]
    keep = {n.id for n in kept}
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


def followed_nodes(state, events: list, step: int, selected: int) -> tuple[int, int]:
    """``(chosen, shown)`` after ``step`` events: the node drawn as selected (the one
    clicked, else the node of an error this step raised) and the node the view follows
    and the inspector shows (chosen, else the running one, else the one the event is
    about, else the newest live one)."""
    error = state.last_error
    failed = error.node if error is not None and error.step == step - 1 else 0
    chosen = selected or failed
    return chosen, chosen or state.current or _event_node(events, step) or _newest(state)


def _event_node(events: list, step: int) -> int:
    """The node the step's event is about (the one freed, released, created...); 0 for
    an event about none."""
    node = getattr(events[step - 1] if step else None, "node", 0)
    return node if type(node) is int else 0


def _newest(state) -> int:
    live = [n for n in state.nodes.values() if n.status != "freed"]
    return max((n.created_step, n.id) for n in live)[1] if live else 0


class Layouts:
    """The app's graph layouts: ``ensure(state, shown)`` gives the graph view the one it
    needs; ``fit()`` picks the zoom level at which the graph fits the view."""

    def __init__(self, app):
        self.app = app
        self._layouts: dict = {}
        self._key = None
        self._checked = None         # (step, what the drawing depends on) last checked
        self._chains: dict = {}      # topology -> (its chains, member -> its chain's head)
        self._found: list = []       # the drawn topology's chains
        self._members: dict = {}     # and each member's chain's head
        self._drawn = ({}, (), {})   # the nodes, collapsed chains and their labels asked for
        self._grouping = False       # whether modules were boxes at the last check
        self._groups: dict = {}      # (topology, marked nodes) -> (groups, their labels)
        self.hidden = 0              # freed nodes the graph leaves out

    def ensure(self, state, shown: int = 0) -> None:
        if self._topology_same(state, self._wanted(state, shown)):
            return
        app = self.app
        visible = visible_nodes(state, app.hide_freed)
        self.hidden = len(state.nodes) - len(visible)
        nodes = self._wanted_nodes(state, visible)
        topo = topology(nodes)
        self._grouping = app.collapse_chains and len(nodes) > GROUP_ABOVE
        if not self._grouping:
            self._find_chains(topo, nodes)
        wanted = self._wanted(state, shown)    # (with this topology's chains)
        self._checked = (state.step, wanted)
        chains, labels = (self._grouped(topo, nodes, wanted[-1]) if self._grouping
                          else (self._collapsed(wanted[-1]), {}))
        self._drawn = (nodes, chains, labels)
        key = (topo, chains, app.zoom)
        if key == self._key:
            if key in self._layouts:     # (else it is being laid out: its title says so)
                self._title()
            return
        self._key = key
        if key in self._layouts:
            self._show(self._layouts[key])
        elif len(nodes) <= SYNC_LAYOUT:
            self._ready(key, layout(nodes, app.zoom, chains, labels))
        else:
            self._in_worker(nodes, partial(self._lay_out, key, nodes, app.zoom, chains,
                                           labels))

    def fit(self) -> None:
        """Lay the graph out at the most detailed level that fits the view, and centre it."""
        nodes, chains, labels = self._drawn
        if not nodes:
            return
        size = self.app.query_one("#graph", GraphView).size
        if len(nodes) <= SYNC_LAYOUT:
            self._fitted(nodes, chains, *fitting_level(nodes, *size, chains, labels))
        else:
            self._in_worker(nodes, partial(self._fit_off_thread, nodes, chains, labels, size))

    # ----------------------------------------------------------------- what is drawn

    def _wanted(self, state, shown: int) -> tuple:
        """What the drawing depends on besides the topology; last, the chains shown open."""
        app = self.app
        error = state.last_error.node if state.last_error is not None else 0
        marked = (shown, app.selected, state.current, error)
        if self._grouping:   # (which boxes hold them is the summary's to say)
            opened = frozenset(n for n in marked if n)
        else:
            opened = frozenset(self._members[n] for n in marked if n in self._members)
        return (app.focus_mode, app.selected, app.hide_freed, app.zoom, app.collapse_chains,
                opened)

    def _find_chains(self, topo, nodes: dict) -> None:
        found = self._chains.get(topo)
        if found is None:
            chains = linear_chains(nodes, CHAIN_MIN)
            found = (chains, {m: c[0] for c in chains for m in c})
            if len(self._chains) > 64:
                self._chains.clear()
            self._chains[topo] = found
        self._found, self._members = found

    def _collapsed(self, opened: frozenset) -> tuple:
        """The chains drawn as one box: all but those ``opened`` (none when not collapsing)."""
        if not self.app.collapse_chains:
            return ()
        return tuple(c for c in self._found if c[0] not in opened)

    def _grouped(self, topo, nodes: dict, marked: frozenset) -> tuple:
        """The boxes of a big graph, as the exports draw it (``render.summary``): each a
        member tuple for ``layout.collapse`` (a chain head first, a group its newest node,
        its output, first), and the labels of the groups, by first member."""
        key = (topo, marked)
        found = self._groups.get(key)
        if found is None:
            boxes = summarise(nodes, set(nodes), set(marked), GROUP_BOXES, GROUP_ABOVE)
            groups, labels = [], {}
            for box in sorted(set(boxes.values()), key=lambda b: b.members):
                if box.key.startswith("c"):   # a chain's box (``summary.chains``): head first
                    groups.append(box.members)
                    continue
                first = max(box.members)
                groups.append((first, *(m for m in box.members if m != first)))
                labels[first] = box.label
            found = (tuple(groups), labels)
            if len(self._groups) > 64:
                self._groups.clear()
            self._groups[key] = found
        return found

    def _wanted_nodes(self, state, nodes: dict) -> dict:
        app = self.app
        centre = app.selected or state.current or app.current_node
        if app.focus_mode and centre in nodes:
            return neighbourhood(nodes, centre)
        return nodes

    def _topology_same(self, state, wanted: tuple) -> bool:
        """Whether no event between the last check's step and this one changes the drawing."""
        if self._checked is None or self._checked[1] != wanted:
            return False
        lo, hi = sorted((self._checked[0], state.step))
        return hi - lo <= 256 and not any(e.kind in _TOPOLOGY for e in self.app.events[lo:hi])

    # ----------------------------------------------------------------- laying out

    def _in_worker(self, nodes: dict, work) -> None:
        self.app.query_one("#graph", GraphView).border_title = (
            f"graph: laying out {len(nodes)} nodes...")
        self.app.run_worker(work, name="layout", group="layout", thread=True, exclusive=True,
                            description=f"layout of {len(nodes)} nodes")

    def _lay_out(self, key, nodes, level, chains, labels) -> None:
        # (in a thread worker)
        self.app.call_from_thread(self._ready, key, layout(nodes, level, chains, labels))

    def _fit_off_thread(self, nodes, chains, labels, size) -> None:
        # (in a thread worker)
        graph_layout, fits = fitting_level(nodes, *size, chains, labels)
        self.app.call_from_thread(self._fitted, nodes, chains, graph_layout, fits)

    def _fitted(self, nodes, chains, graph_layout, fits: bool) -> None:
        app = self.app
        app.zoom = graph_layout.level
        key = self._key = (topology(nodes), chains, app.zoom)
        self._ready(key, graph_layout)
        app.query_one("#graph", GraphView).centre()
        app.notify(f"fit: {app.zoom} boxes" if fits else
                   f"too big to fit: {app.zoom} boxes, centred", timeout=2)
        app.refresh_view()

    def _ready(self, key, graph_layout) -> None:
        if len(self._layouts) > 64:
            self._layouts.clear()
        self._layouts[key] = graph_layout
        if key == self._key:
            self._show(graph_layout)

    def _show(self, graph_layout) -> None:
        graph = self.app.query_one("#graph", GraphView)
        graph.set_layout(graph_layout)
        self._title()
        if self.app.follow:
            graph.reveal(self.app.shown_node)

    def _title(self) -> None:
        graph = self.app.query_one("#graph", GraphView)
        drawn = graph.graph
        members = sum(len(c) - 1 for c in drawn.chains.values())
        hidden = f", {self.hidden} freed hidden" if self.hidden else ""
        groups = sum(head in self._drawn[2] for head in drawn.chains)
        boxes = [f"{count} {what}{'s' if count > 1 else ''}" for count, what in (
            (groups, "group"), (len(drawn.chains) - groups, "chain")) if count]
        chains = f", {' and '.join(boxes)} collapsed" if boxes else ""
        zoom = "" if drawn.level == "full" else f", {drawn.level}"
        graph.border_title = f"graph ({len(drawn.boxes) + members} nodes{hidden}{chains}{zoom})"
