"""The HTML player's steps, reduced one event at a time: each step restyles only what changed.

Drawing every element at every step costs nodes x steps (a 3,000-node graph's 17,000 steps:
half an hour). An event changes a few nodes, so each step redraws only the elements that
can depend on them (the nodes written, their parents' edges, the current node before and
after, a leaf's ``.grad`` link, a cycle's edges) through the same ``dot_elements``, on a
layout cut down to those nodes and their neighbours. A summarised layout's boxes are the
whole layout's; a box with a node written is cut with every edge across its border, as
its edges to other boxes are merged from all of those. ``tests/render/test_player_steps.py``
checks the result equals restyling everything, step by step.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

from ..debug.cycles import cycle_edges
from ..debug.state import GraphState, _Builder
from .dot import layout_boxes

__all__ = ["StepStyles"]


class _Written(dict):
    """A builder's node or leaf map that notes each key written, and its first old value."""

    def __init__(self, items=()):
        super().__init__(items)
        self.old: dict = {}

    def __setitem__(self, key, value) -> None:
        if key not in self.old:
            self.old[key] = self.get(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key) -> None:   # (a freed node leaving at a backward's start)
        if key not in self.old:
            self.old[key] = self.get(key)
        dict.__delitem__(self, key)


class StepStyles:
    """Styles of ``timeline``'s steps in order, from ``start`` on: ``styles(step)`` gives
    the styles of the elements that may have changed since the previous call."""

    def __init__(self, timeline, start: int, options, styles_of):
        """``styles_of(state, options)``: key -> style of the elements ``options`` draws."""
        self.events, self.styles_of = timeline.events, styles_of
        self.layout = options.layout.nodes
        self.boxes = layout_boxes(options)
        self.options = dataclasses.replace(options, summary=self.boxes)
        self.parents: dict = {}
        for node in self.layout.values():
            for child, _ in node.edges:
                self.parents.setdefault(child, set()).add(node.id)
        self.borders = _borders(self.layout, self.boxes)
        self.siblings = _siblings(self.layout)
        self.builder = _Builder(timeline.state(start))
        self.builder.nodes = _Written(self.builder.nodes)
        self.builder.leaves = _Written(self.builder.leaves)
        self.current, self.cycles = self.builder.current, dict(self.builder.cycles)
        self.leaves_at: dict = {}   # node id -> the leaves whose view names it (LeafView.node)
        for leaf_id, view in self.builder.leaves.items():
            self.leaves_at.setdefault(view.node, set()).add(leaf_id)

    def state(self) -> GraphState:
        """The state now (its node map is the builder's own: read it before stepping on)."""
        return self.builder.freeze(self.builder.nodes)

    def styles(self, step: int) -> dict:
        b = self.builder
        for event in self.events[b.step:step]:
            b.apply(event)
        touched = self._touched()
        if not touched:
            return {}
        cut, exact = self._cut(touched)
        styles = self.styles_of(self._leaves_of(cut.layout.nodes), cut)
        return {key: style for key, style in styles.items() if _exact(key, exact)}

    def _leaves_of(self, near) -> GraphState:
        """The state now with only the leaves the cut draws: a graph of a thousand leaves
        would otherwise have each step look at every one."""
        leaves = self.builder.leaves
        ids = {leaf_id for node_id in near for leaf_id in self.leaves_at.get(node_id, ())}
        ids.update(node.leaf.id for node in near.values() if node.leaf is not None)
        return dataclasses.replace(self.state(), leaves=MappingProxyType(
            {leaf_id: leaves[leaf_id] for leaf_id in sorted(ids) if leaf_id in leaves}))

    def _touched(self) -> set:
        """Node ids whose elements may look different since the last step."""
        b = self.builder
        ids = set(b.nodes.old)
        ids.update((self.current, b.current))
        for leaf_id, old in b.leaves.old.items():
            new = b.leaves[leaf_id]
            if old is not None:
                ids.update((old.node, old.grad_fn))
                self.leaves_at[old.node].discard(leaf_id)
            ids.update((new.node, new.grad_fn))
            self.leaves_at.setdefault(new.node, set()).add(leaf_id)
        if b.cycles != self.cycles:
            for leaf_id in self.cycles.keys() ^ b.cycles.keys():
                view = b.leaves.get(leaf_id)
                ids.update((view.node, view.grad_fn) if view else ())
            ids.update(n for edge in cycle_edges(self.cycles) ^ cycle_edges(b.cycles)
                       for n in edge)
            self.cycles = dict(b.cycles)
        b.nodes.old.clear()
        b.leaves.old.clear()
        self.current = b.current
        ids.discard(0)
        return {i for i in ids if i in self.layout}

    def _cut(self, touched: set):
        """Options drawing ``touched``, their parents (whose edges reach them) and children,
        and the element keys whose edges the cut draws all of (see ``_exact``)."""
        layout = self.layout
        drawn = set(touched)
        for node_id in touched:
            drawn.update(self.parents.get(node_id, ()))
        whole = {self.boxes[n].key for n in touched if n in self.boxes}
        for key in whole:
            drawn.update(self.borders[key])
        exact = whole | {f"n{n}" for n in drawn if n not in self.boxes}
        near = set(drawn)
        for node_id in drawn:
            near.update(child for child, _ in layout[node_id].edges if child in layout)
        for node_id in list(near):
            near.update(self.siblings.get(node_id, ()))
        leaves = self.builder.leaves
        # A reserved .grad link is drawn with its leaf's accumulator, as whole-graph drawing
        # does; without it, the cut would call a visible link reserved (invisible).
        links = frozenset(pair for pair in self.options.layout_links if pair[1] in near
                          and pair[0] in leaves and leaves[pair[0]].node in near)
        cut = GraphState(nodes=MappingProxyType({i: layout[i] for i in sorted(near)}))
        return (dataclasses.replace(self.options, layout=cut, layout_links=links, legend=False),
                exact)


def _exact(key: str, exact: set) -> bool:
    """Whether the cut drew element ``key`` as the whole layout does. An edge to or from a
    box merges every edge between its two ends: whole when one end is a box cut with all
    its border, or a drawn node (all of whose edges, in and out, the cut has)."""
    src, arrow, dst = key.partition("->")
    if not arrow or src[:1] not in "ngc" or not (src[:1] in "gc" or dst[:1] in "gc"):
        return True   # a node, a box (coloured from the whole state), any other edge
    return src in exact or dst.split("#", 1)[0] in exact


def _borders(layout, boxes: dict) -> dict:
    """Box key -> the nodes at either end of an edge across its border."""
    out: dict = {box.key: set() for box in boxes.values()}
    for node in layout.values():
        inside = boxes.get(node.id)
        for child, _ in node.edges:
            other = boxes.get(child)
            if child in layout and inside is not other:
                for box in (inside, other):
                    if box is not None:
                        out[box.key].update((node.id, child))
    return out


def _siblings(layout) -> dict:
    """Node id -> the nodes that draw an element of the same name (a leaf's accumulators, one
    per backward that made one: ``t5``, ``t5#2``). A repeated name is numbered in drawing
    order, so a cut draws all of them or none."""
    names: dict = {}
    for node in layout.values():
        if node.leaf is not None:
            names.setdefault(f"t{node.leaf.id}", []).append(node.id)
        if node.outputs:
            names.setdefault(f"o{node.outputs[0].id}", []).append(node.id)
    return {node_id: group for group in names.values() if len(group) > 1 for node_id in group}
