"""Which nodes the graph draws and which one it follows, and their layouts: one per
topology, kept for later.

A step that changes no topology (most of a backward) only restyles the graph; a
new topology is laid out on the spot when small, off the UI thread when big.
"""

from __future__ import annotations

from functools import partial

from .graphview import GraphView
from .layout import layout, topology

__all__ = ["FREED_SHOWN", "SYNC_LAYOUT", "Layouts", "followed_nodes", "neighbourhood",
           "visible_nodes"]

SYNC_LAYOUT = 300          # graphs up to this many nodes are laid out on the spot
FREED_SHOWN = 64           # freed nodes kept on screen (the most recent ones)
_TOPOLOGY = {"node_created", "node_freed", "backward_planned"}


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
    """The app's graph layouts: ``ensure(state)`` gives the graph view the one it needs."""

    def __init__(self, app):
        self.app = app
        self._layouts: dict = {}
        self._key = None
        self._checked = None         # (step, focus mode, selected) of the last check

    def ensure(self, state) -> None:
        if self._topology_same(state):
            return
        app = self.app
        self._checked = (state.step, app.focus_mode, app.selected)
        nodes = self._wanted_nodes(state)
        key = topology(nodes)
        if key == self._key:
            return
        self._key = key
        if key in self._layouts:
            self._show(self._layouts[key])
        elif len(nodes) <= SYNC_LAYOUT:
            self._ready(key, layout(nodes))
        else:
            app.query_one("#graph", GraphView).border_title = (
                f"graph: laying out {len(nodes)} nodes...")
            app.run_worker(partial(self._lay_out, key, nodes), name="layout", group="layout",
                           description=f"layout of {len(nodes)} nodes", exclusive=True,
                           thread=True)

    def _wanted_nodes(self, state) -> dict:
        app = self.app
        nodes = visible_nodes(state)
        centre = app.selected or state.current or app.current_node
        if app.focus_mode and centre in nodes:
            return neighbourhood(nodes, centre)
        return nodes

    def _topology_same(self, state) -> bool:
        """Whether no event between the last check's step and this one changes the drawing."""
        app = self.app
        if self._checked is None or self._checked[1:] != (app.focus_mode, app.selected):
            return False
        lo, hi = sorted((self._checked[0], state.step))
        return hi - lo <= 256 and not any(e.kind in _TOPOLOGY for e in app.events[lo:hi])

    def _lay_out(self, key, nodes) -> None:
        # (in a thread worker)
        self.app.call_from_thread(self._ready, key, layout(nodes))

    def _ready(self, key, graph_layout) -> None:
        if len(self._layouts) > 64:
            self._layouts.clear()
        self._layouts[key] = graph_layout
        if key == self._key:
            self._show(graph_layout)

    def _show(self, graph_layout) -> None:
        graph = self.app.query_one("#graph", GraphView)
        graph.border_title = f"graph ({len(graph_layout.boxes)} nodes)"
        graph.set_layout(graph_layout)
        graph.reveal(self.app.shown_node)
