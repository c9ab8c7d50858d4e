"""DAG -> terminal cells: a layered (Sugiyama-style) layout, computed once per topology.

Nodes are ranked by longest path from the graph's outputs (gradients flow
down the screen), edges longer than one rank get a column in every rank they
cross, ranks are ordered by barycentre sweeps, and boxes are centred over
their parents. The result is plain data: boxes, and for every row the runs
of text to draw there, so a widget only restyles them per step.

Terminal cells cannot scale text, so zooming is a choice of ``LEVELS`` of detail:
full boxes (name, tensor, live line), compact ones (the name only) and dots (an
overview). A linear chain, or the nodes of one module call, may be drawn as one box
(``chains=``, see ``collapse``).

>>> from agdebug.debug.state import NodeView
>>> nodes = {1: NodeView(1, "AccumulateGrad"), 2: NodeView(2, "MulBackward0", edges=((1, 0),))}
>>> lay = layout(nodes)
>>> lay.boxes[2].y < lay.boxes[1].y          # the consumer above its input
True
>>> "MulBackward0" in "".join(run.text for row in lay.rows for run in row)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .text import printable

__all__ = ["BOX_HEIGHT", "LEVELS", "Box", "Layout", "Level", "Run", "fitting_level", "layout",
           "short_name", "topology"]

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
class Level:
    """A level of detail: rows of a box, its width bounds, the cells around its label and
    the rows between ranks (3: down, across, the arrow; 2: across, the arrow)."""

    name: str
    height: int
    min_width: int
    max_width: int
    padding: int
    gap: int


LEVELS = (Level("full", BOX_HEIGHT, MIN_WIDTH, MAX_WIDTH, 4, GAP_ROWS),
          Level("compact", 3, 6, 20, 2, 2), Level("dot", 1, 1, 1, 0, 2))


@dataclass(frozen=True, slots=True)
class Box:
    """Where a node is drawn: top-left ``x, y``, ``w`` cells wide and ``h`` high."""

    node: int
    x: int
    y: int
    w: int
    h: int = BOX_HEIGHT

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
    level: str = "full"
    chains: dict = field(default_factory=dict)   # a collapsed chain's head -> its members

    def node_at(self, x: int, y: int) -> int | None:
        """The node whose box covers cell ``(x, y)``, if any (a chain's: its head)."""
        for box in self.boxes.values():
            if box.x <= x < box.x + box.w and box.y <= y < box.y + box.h:
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


def _group_label(label: str) -> tuple[str, str]:
    """``MultiheadAttention blocks.1.attn`` and ``35 nodes``, from a summary's box label."""
    what, _, count = label.rpartition(" — ")
    return printable(what or label), printable(count)


def _chain_label(nodes, chain: tuple) -> tuple[str, str]:
    """``12 nodes:`` and the first names, head first (the order a backward runs them)."""
    names = " → ".join(short_name(nodes[n].name) for n in chain[:3])
    return f"{len(chain)} nodes:", names + " …"


def collapse(nodes: dict, groups) -> dict:
    """``nodes`` with each group (a chain, head first, or a module call's nodes, its
    output first) drawn as its first member: its edges are those leaving the group (a
    chain's tail's), and edges into a group lead to it."""
    first = {m: group[0] for group in groups for m in group}

    def outside(node, members) -> tuple:
        edges = ((first.get(child, child), nr) for child, nr in node.edges
                 if child not in members)
        return tuple(dict.fromkeys(edges))   # (several members may send to one node)

    out = dict(nodes)
    for group in groups:
        members = set(group)
        for member in group[1:]:
            del out[member]
        edges = tuple(dict.fromkeys(e for m in group for e in outside(nodes[m], members)))
        out[group[0]] = nodes[group[0]]._replace(edges=edges)
    for i, node in out.items():
        if i not in first and any(child in first for child, _ in node.edges):
            out[i] = node._replace(edges=outside(node, ()))
    return out


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
    left = min(x.values(), default=0)   # (centring can leave every rank indented)
    return {k: v - left for k, v in x.items()}


def layout(nodes, level: str = "full", chains=(), labels=None) -> Layout:
    """Lay out ``nodes`` (node id -> NodeView) at ``level`` (a ``LEVELS`` name), each of
    ``chains`` (member tuples, see ``collapse``) as one box, labelled ``labels[first
    member]`` when given (a module call's), else as a chain; edges to nodes not given are
    dropped."""
    plan = _plan(nodes, chains, labels)
    return _draw(plan, _level(level), _widths(plan, _level(level)))


def fitting_level(nodes, width: int, height: int, chains=(), labels=None
                  ) -> tuple[Layout, bool]:
    """The most detailed level's layout that fits ``width`` x ``height`` cells (else the
    least detailed one's), and whether it fits. Ranks and order are worked out once."""
    plan = _plan(nodes, chains, labels)
    for level in LEVELS:
        widths = _widths(plan, level)
        xs = _place(plan.layers, plan.up, plan.down, widths)
        fits = (_extent(xs, widths) <= width
                and len(plan.layers) * (level.height + level.gap) - level.gap <= height)
        if fits or level is LEVELS[-1]:
            return _draw(plan, level, widths, xs), fits
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class _Plan:
    nodes: dict            # what is drawn (chains collapsed to their heads)
    key: frozenset
    layers: list
    up: dict
    down: dict
    labels: dict
    chains: dict


def _plan(nodes, chains, labels=None) -> _Plan:
    """Ranks and order: what every level shares."""
    chains = {c[0]: tuple(c) for c in chains}
    drawn = collapse(nodes, chains.values()) if chains else nodes
    ids = set(drawn)
    children = {n: [c for c, _ in drawn[n].edges if c in ids and c != n] for n in ids}
    for n in ids:   # one drawn edge per pair, in next_functions order
        children[n] = list(dict.fromkeys(children[n]))
    rank = _ranks(ids, children)
    layers, up, down = _chains(ids, children, rank)
    _order(layers, up, down)
    given = labels or {}
    labels = {n: _group_label(given[n]) if n in given else
              _chain_label(nodes, chains[n]) if n in chains else _label(drawn[n]) for n in ids}
    key = topology(drawn) | {("chain", c) for c in chains.values()}
    return _Plan(drawn, key, layers, up, down, labels, chains)


def _level(name: str) -> Level:
    return next(level for level in LEVELS if level.name == name)


def _widths(plan: _Plan, level: Level) -> dict:
    widths = {}
    for layer in plan.layers:
        for k in layer:
            if isinstance(k, tuple):   # an edge's column through a rank
                widths[k] = 1
                continue
            # (compact boxes show the name alone, a chain's "12 nodes: Sin → …" on one line)
            text = plan.labels[k] if level.name == "full" else (
                (" ".join(plan.labels[k]),) if k in plan.chains else plan.labels[k][:1])
            widest = MAX_WIDTH if k in plan.chains else level.max_width
            widths[k] = min(widest, max(level.min_width, max(len(t) for t in text)
                                        + level.padding))
    return widths


def _extent(xs: dict, widths: dict) -> int:
    return max([xs[k] + widths[k] for k in xs] or [1]) + 1


def _draw(plan: _Plan, level: Level, widths: dict, xs: dict | None = None) -> Layout:
    xs = xs if xs is not None else _place(plan.layers, plan.up, plan.down, widths)
    stride = level.height + level.gap
    height = max(1, len(plan.layers) * stride - level.gap)
    rows: list[list[Run]] = [[] for _ in range(height)]
    masks: dict = {}
    boxes = {}
    for r, layer in enumerate(plan.layers):
        top = r * stride
        for k in layer:
            if isinstance(k, tuple):
                for y in range(top, top + level.height):
                    _mask(masks, xs[k], y, UP | DOWN, (k[1], k[2]))
            else:
                boxes[k] = Box(k, xs[k], top, widths[k], level.height)
                _box_runs(rows, boxes[k], plan.labels[k], level.name, k in plan.chains)
            for p in plan.up[k]:
                _route(masks, xs[p] + widths[p] // 2, xs[k] + widths[k] // 2, top - level.gap,
                       _edge_key(p, k), isinstance(k, tuple), level.gap)
    for (x, y), (mask, owners) in masks.items():
        text = "▼" if mask == -1 else _LINES.get(mask, "┼")
        rows[y].append(Run(x, text, "edge", tuple(sorted(owners))))
    frozen = tuple(tuple(sorted(row, key=lambda run: run.x)) for row in rows)
    return Layout(plan.key, _extent(xs, widths), height, boxes, frozen, level.name, plan.chains)


def _edge_key(p, k) -> tuple:
    u = p[1] if isinstance(p, tuple) else p
    v = k[2] if isinstance(k, tuple) else k
    return (u, v)


def _mask(masks: dict, x: int, y: int, bits: int, owner) -> None:
    mask, owners = masks.get((x, y), (0, set()))
    owners.add(owner)
    masks[(x, y)] = (-1 if -1 in (mask, bits) else mask | bits, owners)


def _route(masks, cu: int, cv: int, top: int, owner, to_dummy: bool, gap: int) -> None:
    """An edge through the ``gap`` rows from ``top``: down, across, down into the box."""
    across = top + gap - 2
    for y in range(top, across):
        _mask(masks, cu, y, UP | DOWN, owner)
    if cu == cv:
        _mask(masks, cu, across, UP | DOWN, owner)
    else:
        step = 1 if cv > cu else -1
        _mask(masks, cu, across, UP | (RIGHT if step > 0 else LEFT), owner)
        for x in range(cu + step, cv, step):
            _mask(masks, x, across, LEFT | RIGHT, owner)
        _mask(masks, cv, across, DOWN | (LEFT if step > 0 else RIGHT), owner)
    _mask(masks, cv, across + 1, UP | DOWN if to_dummy else -1, owner)


def _box_runs(rows, box: Box, label: tuple[str, str], level: str, chain: bool) -> None:
    if level == "dot":   # a chain's dot says it stands for several
        rows[box.y].append(Run(box.x, "◆" if chain else "●", "dot", box.node))
        return
    inner = box.w - 2
    lines = label if level == "full" else (" ".join(label) if chain else label[0],)
    rows[box.y].append(Run(box.x, "┌" + "─" * inner + "┐", "border", box.node))
    for i, text in enumerate(lines, 1):
        rows[box.y + i].append(Run(box.x, "│" + _fit(text, inner).center(inner) + "│", "label",
                                   box.node))
    if level == "full":   # (a chain has no one live line: its box stands for many)
        rows[box.y + 3].append(Run(box.x, "│" + " " * inner + "│", "label" if chain else "live",
                                   box.node))
    rows[box.y + box.h - 1].append(Run(box.x, "└" + "─" * inner + "┘", "border", box.node))


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
