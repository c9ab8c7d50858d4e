"""DOT text from a ``GraphState``: no Graphviz binary needed, same state -> same bytes.

Drawn: op nodes and AccumulateGrad (coloured by status, the current node
outlined in red, nodes whose hooks fired outlined in purple), leaves, outputs,
saved tensors as rows inside their node (released ones struck out and greyed),
edges in the direction gradients flow, labelled with the gradient's shape; edges
on a live reference cycle in red.

Frames of an animation pass ``layout=``: the nodes and labels then come from
that (final) state and only styles come from the state drawn, so Graphviz
gives every frame the same positions.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> text = to_dot(trace.state())
>>> text.startswith("digraph agdebug {") and "MulBackward0" in text
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..debug.attrs import attr_text
from ..debug.cycles import cycle_edges
from .summary import BOX_RANK, check_size, neighbourhood, summarise

__all__ = ["STATUS_COLORS", "DotOptions", "dot_elements", "layout_boxes", "to_dot"]

STATUS_COLORS = {
    "created": "#ffffff", "waiting": "#fff3b0", "ready": "#ffd166", "running": "#ff9f1c",
    "done": "#b7e4c7", "released": "#a9d6e5", "freed": "#e0e0e0", "errored": "#ef476f",
}
LEAF_COLOR = "#cfe8ff"
OUTPUT_COLOR = "#d8f3dc"


@dataclass(frozen=True)
class DotOptions:
    """What to draw. ``focus``/``radius`` keep a node's neighbourhood. Past ``max_nodes``
    the graph is summarised in about ``boxes`` elements (see ``render.summary``): groups of
    nodes from one module call or one source line become one box, then linear chains;
    ``expand`` names groups to draw open (a module path, a line number, or "all")."""

    values: bool = False
    saved: bool = True
    attrs: bool = False
    focus: int | None = None
    radius: int = 2
    max_nodes: int = 60
    boxes: int = 40
    expand: tuple[str, ...] = ()
    layout: object = None           # a GraphState giving nodes and labels (fixed layout)
    layout_links: frozenset = frozenset()   # (leaf id, node id) .grad links to reserve
    title: str = ""
    reveal: bool = False            # draw hidden elements (the HTML player hides them per step)
    dpi: int | None = None          # PNG resolution (Graphviz's default: 96)
    legend: bool = True
    fit: float | None = None        # scale the drawing down to at most fit x fit inches
    # Node id -> Box of a whole layout, for a cut of it (the player's steps) to draw the
    # whole's boxes (None: computed from the nodes drawn)
    summary: dict | None = None


def to_dot(state, options: DotOptions | None = None) -> str:
    """The DOT text of ``state``."""
    opts = options or DotOptions()
    return _build(state, opts, _Writer(reveal=opts.reveal)).text()


def dot_elements(state, options: DotOptions | None = None) -> list[tuple[str, dict]]:
    """``(key, attributes)`` of every node and edge ``to_dot`` writes, in order."""
    return _build(state, options or DotOptions(), _Writer(elements=[])).elements


def _build(state, opts: DotOptions, out: _Writer) -> _Writer:
    frame = opts.layout is not None
    universe = opts.layout.nodes if frame else state.nodes
    keep = _visible(universe, opts)
    boxes = _boxes(universe, keep, opts.layout if frame else state, opts)
    out.line("digraph agdebug {")
    out.line('  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.3, ranksep=0.35'
             + (f", label={_q(opts.title)}, labelloc=t" if opts.title else "")
             + (f", dpi={int(opts.dpi)}" if opts.dpi else "")
             + (f', size="{opts.fit:.2f},{opts.fit:.2f}"' if opts.fit else "") + "];")
    out.line('  node [fontname="Helvetica", fontsize=10, style=filled, shape=box];')
    out.line('  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];')
    order = sorted(keep)
    for node_id in order:
        if node_id in boxes:
            continue
        _draw_node(out, universe[node_id], state, opts, frame)
    _draw_boxes(out, boxes, state)
    _draw_outputs(out, universe, keep, boxes, state)
    _draw_edges(out, universe, order, keep, boxes, state, opts, frame)
    _draw_leaf_links(out, state, keep, boxes, opts, frame)
    if opts.legend:
        out.line(_LEGEND)
    out.line("}")
    return out


class _Writer:
    """Collects DOT lines, and the ``(key, attrs)`` elements when given a list for them.

    Attributes come as DOT ``key=value`` fragments: written as they are, and split at
    the first ``=`` (keys never hold one) only when the elements are asked for."""

    def __init__(self, elements: list | None = None, reveal: bool = False):
        self.lines: list[str] = []
        self.elements = elements
        self.reveal = reveal

    def line(self, text: str) -> None:
        self.lines.append(text)

    def element(self, key: str, *attrs: str) -> None:
        """A node (``n3``) or edge (``n3 -> n2``) with its ``key=value`` attributes."""
        if self.reveal and "style=invis" in attrs:   # a whole fragment, never label text
            shown = "style=solid" if " -> " in key else "style=filled"
            attrs = tuple(shown if a == "style=invis" else a for a in attrs)
        if self.elements is not None:
            self.elements.append((key, dict(a.split("=", 1) for a in attrs)))
        self.lines.append(f"  {key} [{', '.join(attrs)}]" if attrs else f"  {key}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# Characters a trace may hold that Graphviz rejects or SVG/XML cannot carry: C0/C1 controls
# (but newline), lone surrogates (json.loads makes them from "\\ud800") and U+FFFE/U+FFFF.
_UNPRINTABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _printable(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)   # the Control Pictures block: U+0001 shows as a visible glyph
    return "\u2421" if code == 0x7f else "\ufffd"


def clean(text) -> str:
    """``text`` with every character a diagram cannot carry replaced by a visible one."""
    return _UNPRINTABLE.sub(_printable, str(text))


def _q(text: str) -> str:
    """A DOT double-quoted string. ``&`` is escaped too: Graphviz decodes entities in labels,
    so a name holding ``&lt;`` must stay those four characters on the page."""
    text = clean(text).replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\n", "\\n") + '"'


def _html(text: str) -> str:
    """Text for a Graphviz HTML-like label."""
    return (clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\n", "<BR/>"))


# Labels repeat (every MulBackward0 of a [4] tensor, every "[4]" edge): quote each once.
_q_label = lru_cache(maxsize=4096)(_q)


def _style(**attrs: str) -> tuple[str, ...]:
    """``key=value`` fragments for attributes that many elements share, made once."""
    return tuple(f"{k}={v}" for k, v in attrs.items())


_INVISIBLE = _style(style="invis")


# ----------------------------------------------------------------------------- selection

def _visible(universe, opts: DotOptions) -> set:
    if opts.focus is None or opts.focus not in universe:
        return set(universe)
    return neighbourhood(universe, opts.focus, opts.radius)


def _boxes(universe, keep: set, base, opts: DotOptions) -> dict:
    """Node id -> the box standing for it. Computed from ``base`` (a frame's layout), so
    frames share their boxes; errored nodes and the focus stay outside any."""
    if opts.summary is not None:
        return {n: box for n, box in opts.summary.items() if n in keep}
    key = (opts.focus, opts.radius, opts.max_nodes, opts.boxes, opts.expand)
    if _LAST and _LAST[0] is base and _LAST[1] == key:
        return _LAST[2]   # every frame of an animation: the same layout, the same boxes
    protected = {n.id for n in base.nodes.values() if n.status == "errored"}
    protected.add(opts.focus if opts.focus is not None else base.current)
    boxes = {}
    if len(keep) > opts.max_nodes or opts.expand:
        boxes = summarise(universe, keep, protected, opts.boxes, opts.max_nodes, opts.expand)
    check_size(universe, keep, boxes)
    _LAST[:] = [base, key, boxes]
    return boxes


_LAST: list = []   # [state, options key, boxes] of the last summary (plain data: no graph)


def layout_boxes(opts: DotOptions) -> dict:
    """Node id -> the box standing for it in the frames of ``opts.layout``."""
    universe = opts.layout.nodes
    return _boxes(universe, _visible(universe, opts), opts.layout, opts)


# ----------------------------------------------------------------------------- nodes

def _output_summary(node):
    if node.leaf is not None:
        return node.leaf
    return node.outputs[0] if node.outputs else None


def _stats_text(summary) -> str:
    if summary is None or summary.stats is None:
        return ""
    s = summary.stats
    if s.min is None:
        return ""
    text = f"min {s.min:.4g} max {s.max:.4g} mean {s.mean:.4g} norm {s.norm:.4g}"
    if s.nan or s.inf:
        text += f" nan {s.nan} inf {s.inf}"
    return text


_DESCRIBED: dict = {}   # (shape, dtype, device) -> summary.describe()


def _describe(summary) -> str:
    """``summary.describe()``, which reads only shape, dtype and device: cached on those, as a
    graph shows the same few kinds of tensor on thousands of nodes."""
    key = (summary.shape, summary.dtype, summary.device)
    text = _DESCRIBED.get(key)
    if text is None:
        if len(_DESCRIBED) >= 4096:
            _DESCRIBED.clear()   # bounded: a long session can see many shapes
        text = _DESCRIBED[key] = summary.describe()
    return text


def short_name(name: str) -> str:
    """``torch::autograd::AccumulateGrad`` -> ``AccumulateGrad``: what a diagram shows."""
    return name.rpartition("::")[2]


def _node_label(node, opts: DotOptions, frame: bool) -> str:
    lines = [short_name(node.name)]
    out = _output_summary(node)
    if out is not None:
        lines.append(_describe(out))
    if opts.attrs:
        lines.extend(attr_text(k, v) for k, v in node.attrs)
    return "\n".join(lines)


@lru_cache(maxsize=None)
def _status_style(fill: str, freed: bool, hooks: bool, current: bool) -> tuple[str, ...]:
    """Filled by status (greyed and dashed once freed); outlined purple when hooks fired, red
    and wider for the current node. A few combinations cover every node: made once each."""
    attrs = {"fillcolor": _q(fill), "style": _q("filled,dashed" if freed else "filled")}
    if freed:
        attrs["fontcolor"] = _q("#888888")
        attrs["color"] = _q("#999999")
    if hooks:
        attrs["color"] = _q("#7b2cbf")
        attrs["penwidth"] = "2"
    if current:
        attrs["color"] = _q("#d00000")
        attrs["penwidth"] = "3"
    return _style(**attrs)


def _node_style(node_id: int, state) -> tuple[str, ...]:
    node = state.nodes.get(node_id)
    if node is None:
        return _INVISIBLE
    return _status_style(STATUS_COLORS.get(node.status, "#ffffff"), node.status == "freed",
                         bool(node.hooks), node_id == state.current)


def _tooltip(node) -> str:
    parts = [f"{node.name} n{node.id}", f"status: {node.status}"]
    if node.op:
        parts.append(f"op: {node.op}")
    for s in node.inputs:
        if s is not None:
            parts.append(f"in {_describe(s)}")
    for g in node.grads_in:
        if g is not None:
            parts.append(f"grad in: {_describe(g)} {_stats_text(g)}".strip())
    if node.hooks:
        parts.append("hooks: " + ", ".join(node.hooks))
    if node.saved:
        parts.append("saved: " + ", ".join([s.name + (" (released)" if s.released else "")
                                            for s in node.saved]))
    if node.error:
        parts.append("error: " + node.error)
    if node.freed_by:
        parts.append(f"freed by {node.freed_by}")
    return "\n".join(parts)


def _draw_node(out: _Writer, node, state, opts: DotOptions, frame: bool) -> None:
    live = state.nodes.get(node.id, node)
    label = _node_label(node, opts, frame)
    if opts.values and not frame:
        extra = [_stats_text(g) for g in live.grads_in if g is not None]
        label = "\n".join([label, *[f"grad {e}" for e in extra if e]])
    shape = "ellipse" if node.is_accumulator else "box"
    saved = _saved_rows(node, live) if opts.saved and node.saved else ()
    label = _table_label(label, saved) if saved else _q_label(label)
    out.element(f"n{node.id}", f"label={label}", f"shape={shape}",
                f"tooltip={_q(_tooltip(live))}", *_node_style(node.id, state))
    if node.leaf is not None:
        _draw_leaf(out, node, state)


_LEAF = _style(fillcolor=_q(LEAF_COLOR), style="filled")
# leaf -> its AccumulateGrad: dotted, no arrowhead; by ``hidden``
_LINKS = {hidden: _style(style="invis" if hidden else "dotted", arrowhead="none")
          for hidden in (False, True)}


def _draw_leaf(out: _Writer, node, state) -> None:
    leaf = node.leaf
    view = state.leaves.get(leaf.id)
    hidden = node.id not in state.nodes
    tip = f"leaf t{leaf.id}"
    if view is not None and view.grad is not None:
        tip += f"\n.grad {view.grad.describe()} {_stats_text(view.grad)}".rstrip()
    label = _q(f"leaf {leaf.label()}\n{leaf.describe()}")
    out.element(f"t{leaf.id}", f"label={label}", "shape=box", f"tooltip={_q(tip)}",
                *(_INVISIBLE if hidden else _LEAF))
    out.element(f"n{node.id} -> t{leaf.id}", *_LINKS[hidden])


@lru_cache(maxsize=4096)
def _saved_text(name: str, shape: tuple, dtype: str) -> str:
    """``self: [2] float32``, HTML-escaped: every node of one op saves alike."""
    return _html(f"{name}: {list(shape)} {dtype}")


def _saved_rows(node, live) -> tuple[tuple[str, bool], ...]:
    """``(text, gone)`` per saved tensor: gone once released, or once its node is freed."""
    freed = live.status == "freed"
    rows = []
    for i, saved in enumerate(node.saved):
        now = live.saved[i] if i < len(live.saved) else saved
        rows.append((_saved_text(saved.name, saved.shape, saved.dtype), now.released or freed))
    return tuple(rows)


# A saved tensor's row: small, brown while held, grey and struck out once released. Rows
# sit inside their node, so a chain stays one node wide (beside it, they pushed the next
# node sideways: a staircase). The html player finds rows by ``SAVED_ROW``.
SAVED_ROW = '<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="8" COLOR="{}">{}</FONT></TD></TR>'
SAVED_COLORS = {False: "#7a5c00", True: "#999999"}


@lru_cache(maxsize=4096)
def _table_label(text: str, saved: tuple) -> str:
    """An HTML-like label: a row per line of ``text``, then a row per saved tensor."""
    rows = "".join(f"<TR><TD>{_html(line)}</TD></TR>" for line in text.split("\n"))
    for row, gone in saved:
        rows += SAVED_ROW.format(SAVED_COLORS[gone], f"<S>{row}</S>" if gone else row)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{rows}</TABLE>>'


def _draw_boxes(out: _Writer, boxes: dict, state) -> None:
    """A box per collapsed group or chain, coloured by its members' statuses now."""
    for box in sorted(set(boxes.values()), key=lambda b: b.members[0]):
        live = [state.nodes[m] for m in box.members if m in state.nodes]
        counts: dict = {}
        for node in live:
            counts[node.status] = counts.get(node.status, 0) + 1
        tip = box.label + "".join(f"\n{s}: {c}" for s, c in sorted(counts.items()))
        if not live:
            style = _INVISIBLE
        else:
            status = max(counts, key=BOX_RANK.get)
            style = _status_style(STATUS_COLORS.get(status, "#ffffff"), status == "freed",
                                  any(n.hooks for n in live), state.current in box.members)
        out.element(box.key, f"label={_q(box.label)}", "shape=box3d", f"tooltip={_q(tip)}",
                    *style)


_OUTPUTS = {False: _style(shape="oval", fillcolor=_q(OUTPUT_COLOR), style="filled"),
            True: _style(shape="oval", style="invis")}   # by ``hidden``


def _draw_outputs(out: _Writer, universe, keep, boxes, state) -> None:
    """The tensors of op nodes nothing else consumes: where gradients enter."""
    consumed = {child for n in universe.values() for child, _ in n.edges}
    for node_id in sorted(keep - consumed):
        node = universe[node_id]
        if node.is_accumulator or not node.outputs:
            continue
        summary = node.outputs[0]
        # a freed node stays drawn (greyed) until the next backward; its output is gone
        hidden = node_id not in state.nodes or state.nodes[node_id].status == "freed"
        label = _q(f"output {summary.label()}\n{summary.describe()}")   # (the user's name)
        out.element(f"o{summary.id}", f"label={label}", *_OUTPUTS[hidden])
        box = boxes.get(node_id)
        out.element(f"o{summary.id} -> {box.key if box else f'n{node_id}'}",
                    *(_INVISIBLE if hidden else ()))


# ----------------------------------------------------------------------------- edges

@lru_cache(maxsize=1024)
def _shape_text(shape: tuple) -> str:
    """``[2, 3]``: a graph repeats a few shapes on many edges."""
    return str(list(shape))


def _edge_label(universe, child: int, nr: int) -> str:
    target = universe.get(child)
    if target is None:
        return ""
    if target.leaf is not None:
        return _shape_text(target.leaf.shape)
    if nr < len(target.outputs):
        return _shape_text(target.outputs[nr].shape)
    return ""


def _draw_edges(out: _Writer, universe, order, keep, boxes, state, opts, frame: bool) -> None:
    red = cycle_edges(state.cycles)
    values = opts.values and not frame
    merged: dict = {}   # (src, dst) -> [labels, all hidden, any on a cycle], boxes' edges
    for node_id in order:
        box = boxes.get(node_id)
        src = box.key if box else f"n{node_id}"
        live = state.nodes.get(node_id)
        for i, (child, nr) in enumerate(universe[node_id].edges):
            if child == 0 or child not in keep:
                continue
            target = boxes.get(child)
            dst = target.key if target else f"n{child}"
            if src == dst:
                continue
            label = _edge_label(universe, child, nr)
            hidden, on_cycle = live is None or child not in state.nodes, (node_id, child) in red
            if box or target:   # one edge per pair of ends, counted (h * h: two, as nodes)
                seen = merged.setdefault((src, dst), [[], True, False])
                seen[0].append(label)
                seen[1], seen[2] = seen[1] and hidden, seen[2] or on_cycle
                continue
            if values and live is not None and i < len(live.grads_out):
                stats = _stats_text(live.grads_out[i])
                label = f"{label}\n{stats}" if stats else label
            out.element(f"{src} -> {dst}", f"label={_q_label(label)}", *_EDGES[hidden, on_cycle])
    for (src, dst), (labels, hidden, on_cycle) in merged.items():
        text = labels[0] if len(set(labels)) == 1 else "mixed shapes"
        text = f"{text} ×{len(labels)}" if len(labels) > 1 else text
        out.element(f"{src} -> {dst}", f"label={_q_label(text)}", *_EDGES[hidden, on_cycle])


def _edge_style(hidden: bool, on_cycle: bool) -> tuple[str, ...]:
    attrs = {"style": "invis"} if hidden else {}
    if on_cycle:
        attrs.update(color=_q("#d00000"), penwidth="2")
    return _style(**attrs)


_EDGES = {(hidden, on_cycle): _edge_style(hidden, on_cycle)      # by (hidden, on a cycle)
          for hidden in (False, True) for on_cycle in (False, True)}


def _draw_leaf_links(out: _Writer, state, keep, boxes, opts, frame: bool) -> None:
    """leaf -> .grad's grad_fn (create_graph=True): the edge that closes a cycle (to the
    grad_fn's box when it is in one; none when the leaf itself is inside a box)."""
    links = {}
    for leaf_id, leaf in state.leaves.items():
        if leaf.grad_fn and leaf.node in keep and leaf.grad_fn in keep:
            links[(leaf_id, leaf.grad_fn)] = leaf_id in state.cycles
    if frame:
        for pair in opts.layout_links:
            links.setdefault(pair, None)
    universe = opts.layout.nodes if frame else state.nodes
    drawn = set()
    for (leaf_id, fn), on_cycle in sorted(links.items(), key=lambda item: item[0]):
        leaf = (opts.layout if frame else state).leaves.get(leaf_id)
        if fn not in universe or (leaf is not None and leaf.node in boxes):
            continue
        box = boxes.get(fn)
        key = f"t{leaf_id} -> {box.key if box else f'n{fn}'}"
        if key not in drawn:
            drawn.add(key)
            out.element(key, *_LEAF_LINKS[on_cycle])


# .grad links by ``on_cycle``; None: reserved for a later frame (invisible)
_LEAF_LINKS = {None: _style(label=_q(".grad"), style="invis", constraint="false"),
               False: _style(label=_q(".grad"), style="dashed", constraint="false"),
               True: _style(label=_q(".grad"), style="dashed", constraint="false",
                            color=_q("#d00000"), fontcolor=_q("#d00000"), penwidth="2")}


def _legend() -> str:
    """A key to the colours: statuses, a cycle's red, a released saved tensor's strike."""
    cells = "".join(f'<TD BGCOLOR="{color}">{status}</TD>' for status, color in
                    STATUS_COLORS.items())
    extra = ('<TD><FONT COLOR="#d00000">red edge: a reference cycle</FONT></TD>'
             f'<TD><FONT COLOR="{SAVED_COLORS[True]}"><S>released saved tensor</S></FONT></TD>'
             '<TD BORDER="2" COLOR="#d00000">current node</TD>'
             '<TD BORDER="2" COLOR="#7b2cbf">hooks fired</TD>')
    table = ('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="2" CELLPADDING="2">'
             f'<TR>{cells}</TR><TR><TD COLSPAN="{len(STATUS_COLORS)}"><TABLE BORDER="0" '
             f'CELLSPACING="4"><TR>{extra}</TR></TABLE></TD></TR></TABLE>>')
    return f"  legend [label={table}, shape=plaintext, style=solid, fontsize=8]"


_LEGEND = _legend()
