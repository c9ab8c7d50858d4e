"""DAG -> terminal cells: a layered (Sugiyama-style) layout, computed once per topology.

Nodes are ranked by longest path from the graph's outputs (gradients flow
down the screen), edges longer than one rank get a column in every rank they
cross, ranks are ordered by barycentre sweeps, and boxes are centred over
their parents. The result is plain data: boxes, and for every row the runs
of text to draw there, so a widget only restyles them per step.

>>> from agdebug.debug.state import NodeView
>>> nodes = {1: NodeView(1, "AccumulateGrad"), 2: NodeView(2, "MulBackward0", edges=((1, 0),))}
>>> lay = layout(nodes)
>>> lay.boxes[2].y < lay.boxes[1].y          # the consumer above its input
True
>>> "MulBackward0" in "".join(run.text for row in lay.rows for run in row)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import printable

__all__ = ["BOX_HEIGHT", "Box", "Layout", "Run", "layout", "short_name", "topology"]

BOX_HEIGHT = 5            # border, name, id + shape, a live line (saved / .grad), border
GAP_ROWS = 3              # rows between ranks, where edges turn
GAP_COLS = 2
MIN_WIDTH = 16
MAX_WIDTH = 30
UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
_LINES = {
    UP | DOWN: "│", LEFT | RIGHT: "─", DOWN | RIGHT: "┌", DOWN | LEFT: "┐", UP | RIGHT: "└",
    UP | LEFT: "┘", UP | DOWN | RIGHT: "├", UP | DOWN | LEFT: "┤", DOWN | LEFT | RIGHT: "┬",
    UP | LEFT | RIGHT: "┴", UP | DOWN | LEFT | RIGHT: "┼", UP: "│", DOWN: "│", LEFT: "─",
    RIGHT: "─",
}


@dataclass(frozen=True, slots=True)
class Box:
    """Where a node is drawn: top-left ``x, y`` and ``w`` cells wide, ``BOX_HEIGHT`` high."""

    node: int
    x: int
    y: int
    w: int

    @property
    def center(self) -> int:
        return self.x + self.w // 2


@dataclass(frozen=True, slots=True)
class Run:
    """Text at column ``x`` of a row. ``role``: "border", "label", "live" (filled in per
    step), or "edge"; ``owner`` the node id (boxes) or the edges ``((u, v), ...)``."""

    x: int
    text: str
    role: str
    owner: object


@dataclass(frozen=True)
class Layout:
    key: frozenset
    width: int
    height: int
    boxes: dict
    rows: tuple            # one tuple of Runs per row, sorted by x

    def node_at(self, x: int, y: int) -> int | None:
        """The node whose box covers cell ``(x, y)``, if any."""
        for box in self.boxes.values():
            if box.x <= x < box.x + box.w and box.y <= y < box.y + BOX_HEIGHT:
                return box.node
        return None


def short_name(name: str) -> str:
    """``torch::autograd::AccumulateGrad`` -> ``AccumulateGrad`` (control characters
    escaped: a name comes from a program or a trace, and is drawn cell by cell)."""
    return printable(name.rpartition("::")[2])


def topology(nodes) -> frozenset:
    """What a layout depends on: the nodes drawn and their edges."""
    return frozenset((n.id, n.edges) for n in nodes.values())


def _label(node) -> tuple[str, str]:
    summary = node.leaf if node.leaf is not None else (node.outputs[0] if node.outputs else None)
    shape = f" {list(summary.shape)}" if summary is not None else ""
    name = summary.name if summary is not None else ""   # the user's (``x``, ``0.weight``)
    if len(name) > 16:   # a box is a few cells wide: the inspector has the whole name
        name = name[:15] + "…"
    prefix = f"t{node.leaf.id}" if node.leaf is not None else f"n{node.id}"
    return short_name(node.name), f"{printable(name) or prefix}{shape}"


# ----------------------------------------------------------------------------- ranks

def _ranks(nodes, children: dict) -> dict:
    """Longest path from the sources (nodes nothing points at), iteratively."""
    indeg = {n: 0 for n in nodes}
    for kids in children.values():
        for k in kids:
            indeg[k] += 1
    rank = {n: 0 for n in nodes}
    ready = sorted((n for n, d in indeg.items() if d == 0), reverse=True)
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        for k in children[n]:
            rank[k] = max(rank[k], rank[n] + 1)
            indeg[k] -= 1
            if indeg[k] == 0:
                ready.append(k)
    return rank


def _chains(nodes, children, rank):
    """Per-edge chains of (node or dummy) keys; dummies are ("d", u, v, rank)."""
    layers: dict[int, list] = {}
    for n in sorted(nodes):
        layers.setdefault(rank[n], []).append(n)
    up: dict = {n: [] for n in nodes}
    down: dict = {n: [] for n in nodes}
    for u in sorted(nodes):
        for v in children[u]:
            prev = u
            for r in range(rank[u] + 1, rank[v]):
                dummy = ("d", u, v, r)
                layers.setdefault(r, []).append(dummy)
                up[dummy], down[dummy] = [prev], []
                down[prev].append(dummy)
                prev = dummy
            down[prev].append(v)
            up[v].append(prev)
    return [layers[r] for r in sorted(layers)], up, down


def _order(layers, up, down, sweeps: int = 4) -> None:
    """Barycentre sweeps, down then up, in place."""
    for sweep in range(sweeps):
        seq = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        adj = up if sweep % 2 == 0 else down
        for i in seq:
            ref = layers[i - 1] if sweep % 2 == 0 else layers[i + 1]
            pos = {k: j for j, k in enumerate(ref)}
            layer = layers[i]

            def bary(k, j, pos=pos, adj=adj):
                ps = [pos[p] for p in adj[k] if p in pos]
                return (sum(ps) / len(ps), j) if ps else (float(j), j)

            keyed = sorted((bary(k, j), k) for j, k in enumerate(layer))
            layers[i][:] = [k for _, k in keyed]


# ----------------------------------------------------------------------------- positions

def _place(layers, up, down, widths) -> dict:
    """x of every key: packed left to right, then pulled under the parents' centres."""
    x: dict = {}
    for i, layer in enumerate(layers):
        cursor = 0
        for k in layer:
            want = cursor
            parents = [p for p in up[k] if p in x]
            if i and parents:
                centre = sum(x[p] + widths[p] // 2 for p in parents) / len(parents)
                want = max(cursor, int(centre) - widths[k] // 2)
            x[k] = want
            cursor = want + widths[k] + GAP_COLS
    for layer in reversed(layers[:-1]):      # then centre parents over their children
        cursor = 0
        for k in layer:
            kids = down[k]
            want = x[k]
            if kids:
                centre = sum(x[c] + widths[c] // 2 for c in kids) / len(kids)
                want = int(centre) - widths[k] // 2
            x[k] = max(cursor, want)
            cursor = x[k] + widths[k] + GAP_COLS
    return x


def layout(nodes) -> Layout:
    """Lay out ``nodes`` (node id -> NodeView); edges to nodes not given are dropped."""
    ids = set(nodes)
    children = {n: [c for c, _ in nodes[n].edges if c in ids and c != n] for n in ids}
    for n in ids:   # one drawn edge per pair, in next_functions order
        children[n] = list(dict.fromkeys(children[n]))
    rank = _ranks(ids, children)
    layers, up, down = _chains(ids, children, rank)
    _order(layers, up, down)
    labels = {n: _label(nodes[n]) for n in ids}
    widths = {}
    for layer in layers:
        for k in layer:
            widths[k] = 1 if isinstance(k, tuple) else min(MAX_WIDTH, max(
                MIN_WIDTH, max(len(t) for t in labels[k]) + 4))
    xs = _place(layers, up, down, widths)
    return _draw(nodes, layers, up, xs, widths, labels)


def _draw(nodes, layers, up, xs, widths, labels) -> Layout:
    stride = BOX_HEIGHT + GAP_ROWS
    height = max(1, len(layers) * stride - GAP_ROWS)
    width = max([xs[k] + widths[k] for k in xs] or [1]) + 1
    rows: list[list[Run]] = [[] for _ in range(height)]
    masks: dict = {}
    boxes = {}
    for r, layer in enumerate(layers):
        top = r * stride
        for k in layer:
            if isinstance(k, tuple):
                for y in range(top, top + BOX_HEIGHT):
                    _mask(masks, xs[k], y, UP | DOWN, (k[1], k[2]))
            else:
                boxes[k] = Box(k, xs[k], top, widths[k])
                _box_runs(rows, boxes[k], labels[k])
            for p in up[k]:
                _route(masks, xs[p] + widths[p] // 2, xs[k] + widths[k] // 2, top - GAP_ROWS,
                       _edge_key(p, k), isinstance(k, tuple))
    for (x, y), (mask, owners) in masks.items():
        text = "▼" if mask == -1 else _LINES.get(mask, "┼")
        rows[y].append(Run(x, text, "edge", tuple(sorted(owners))))
    frozen = tuple(tuple(sorted(row, key=lambda run: run.x)) for row in rows)
    return Layout(frozenset((n.id, n.edges) for n in nodes.values()), width, height, boxes,
                  frozen)


def _edge_key(p, k) -> tuple:
    u = p[1] if isinstance(p, tuple) else p
    v = k[2] if isinstance(k, tuple) else k
    return (u, v)


def _mask(masks: dict, x: int, y: int, bits: int, owner) -> None:
    mask, owners = masks.get((x, y), (0, set()))
    owners.add(owner)
    masks[(x, y)] = (-1 if -1 in (mask, bits) else mask | bits, owners)


def _route(masks, cu: int, cv: int, top: int, owner, to_dummy: bool) -> None:
    """An edge through the gap rows ``top .. top+2``: down, across, down into the box."""
    _mask(masks, cu, top, UP | DOWN, owner)
    if cu == cv:
        _mask(masks, cu, top + 1, UP | DOWN, owner)
    else:
        step = 1 if cv > cu else -1
        _mask(masks, cu, top + 1, UP | (RIGHT if step > 0 else LEFT), owner)
        for x in range(cu + step, cv, step):
            _mask(masks, x, top + 1, LEFT | RIGHT, owner)
        _mask(masks, cv, top + 1, DOWN | (LEFT if step > 0 else RIGHT), owner)
    _mask(masks, cv, top + 2, UP | DOWN if to_dummy else -1, owner)


def _box_runs(rows, box: Box, label: tuple[str, str]) -> None:
    inner = box.w - 2
    name, sub = (_fit(t, inner) for t in label)
    rows[box.y].append(Run(box.x, "┌" + "─" * inner + "┐", "border", box.node))
    rows[box.y + 1].append(Run(box.x, "│" + name.center(inner) + "│", "label", box.node))
    rows[box.y + 2].append(Run(box.x, "│" + sub.center(inner) + "│", "label", box.node))
    rows[box.y + 3].append(Run(box.x, "│" + " " * inner + "│", "live", box.node))
    rows[box.y + 4].append(Run(box.x, "└" + "─" * inner + "┘", "border", box.node))


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
