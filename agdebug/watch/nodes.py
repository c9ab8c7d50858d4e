"""Torch autograd nodes as agdebug sees them: stable ids, creation events, lifetimes.

A node's id lives in its ``metadata`` dict as a small ``Tag`` (torch nodes take no weak
references, and a strong one would keep the graph alive). The tag is the one object only
the node holds: a weak reference to it tells when torch destroys the node.
"""

from __future__ import annotations

import weakref

from ..events import modules, probe
from ..events import records as r
from ..events.bus import WATCH
from ..graph.node import next_id
from .saved import named, naming_end, naming_start
from .state import STATE
from . import naming
from .tensors import summaries, summarize, tensor_id

__all__ = ["ACCUMULATE", "Tag", "created", "node_id", "tag_of", "walk_new"]

KEY = "agdebug"
_NodeCreated = r.builder(r.NodeCreated)
_SavedSummary = r.builder(r.SavedSummary)
_NodeFreed = r.builder(r.NodeFreed)
probe.LIFE.elsewhere = STATE.node_refs   # (a full GC pass is shown while torch nodes live)


class Tag:
    """What the watcher keeps in a node's ``metadata``: its id and the watch it belongs to."""

    __slots__ = ("__weakref__", "edges", "hooked", "hooks", "name", "node", "session")

    def __init__(self, node: int, name: str, edges: tuple = ()):
        self.node = node
        self.name = name
        self.edges = edges   # (node id or 0, output_nr) per next function: fixed once made
        self.session = STATE.session
        self.hooked = False
        self.hooks = ()   # torch's pre- and post-hook dicts holding the watcher's hooks


class _TagRef(weakref.ref):
    __slots__ = ("node",)


def tag_of(fn) -> Tag | None:
    """``fn``'s tag from this watch, or None when this watch has not seen it."""
    tag = fn.metadata.get(KEY)
    return tag if tag is not None and tag.session == STATE.session else None


def node_id(fn) -> int:
    """The id of a node already seen (0 for None)."""
    if fn is None:
        return 0
    tag = tag_of(fn)
    return tag.node if tag is not None else 0


def _tag(fn, name: str, edges: tuple = ()) -> Tag:
    node = next_id()
    tag = fn.metadata[KEY] = Tag(node, name, edges)
    ref = STATE.node_refs[node] = _TagRef(tag, _freed)
    ref.node = node
    return tag


def _freed(ref: _TagRef) -> None:
    STATE.node_refs.pop(ref.node, None)
    life = probe.LIFE   # the probe's GC bookkeeping: a pass that frees nodes is shown
    if life.in_gc:
        life.freed_in_gc += 1
    if WATCH.on and STATE.session:
        probe.send(_NodeFreed(0, ref.node, "gc" if life.in_gc else "refcount"))


def walk_new(roots, source: str = "", op_node=None, op: str = "", inputs=(), outputs=()):
    """Publish node_created for every node reachable from ``roots`` this watch has not
    seen, in torch's creation order. ``op_node`` gets the op's name, inputs and outputs;
    the others (made inside C++: a composite's inner nodes) get none."""
    if len(roots) == 1 and roots[0] is op_node:
        edges = _known_edges(op_node)
        if edges is not None:   # an op on known nodes: most ops
            created(op_node, source, op, inputs, outputs, edges)
            return
    new = _unseen(roots)
    if not new:
        return
    # Op nodes were made in sequence-number order (parents first); a leaf's AccumulateGrad
    # is made with the first node that uses it, just before that node.
    new.sort(key=lambda fn: fn._sequence_nr())
    for fn in new:
        if fn.name() == ACCUMULATE:
            if tag_of(fn) is None:   # (not yet created before a consumer)
                created(fn, source, "", (), ())
            continue
        for nxt, _ in fn.next_functions:
            if nxt is not None and tag_of(nxt) is None and nxt.name() == ACCUMULATE:
                created(nxt, source, "", (), ())
        mine = fn is op_node
        created(fn, source, op if mine else "", inputs if mine else (),
                outputs if mine else ())


def _known_edges(fn) -> tuple | None:
    """``fn``'s edges when this watch knows every node they lead to, else None."""
    edges, session = [], STATE.session
    for nxt, nr in fn.next_functions:
        if nxt is None:
            edges.append((0, nr))
            continue
        tag = nxt.metadata.get(KEY)
        if tag is None or tag.session != session:
            return None
        edges.append((tag.node, nr))
    return tuple(edges)


def _unseen(roots) -> list:
    """The nodes reachable from ``roots`` that this watch has not seen (iteratively: a
    long chain must not recurse; known nodes end the walk)."""
    found, stack, seen = [], [fn for fn in roots if fn is not None], set()
    while stack:
        fn = stack.pop()
        key = id(fn)   # (each node is held by ``stack``/``found`` while walked)
        if key in seen or tag_of(fn) is not None:
            continue
        seen.add(key)
        found.append(fn)
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return found


def created(fn, source: str, op: str, inputs, outputs, edges=None) -> int:
    """Tag ``fn`` and publish its node_created (``edges``: known already)."""
    name = fn.name()
    if edges is None:
        edges = tuple((node_id(nxt), nr) for nxt, nr in fn.next_functions)
    tag = _tag(fn, name, edges)
    leaf = _leaf(fn.variable) if name == ACCUMULATE else None
    saved, attrs = saved_of(fn, tag.node) if leaf is None else ((), ())
    if WATCH.on:
        probe.send(_NodeCreated(0, tag.node, name, op, edges, summaries(inputs),
                                 summaries(outputs), saved, attrs, leaf, source,
                                 probe.source_path(source), *modules.current()))
    return tag.node


def _leaf(t):
    if not naming.is_parameter(tensor_id(t)):   # a module's, named by its path (``0.weight``)
        naming.name_parameters(tensor_id)
    return summarize(t)


ACCUMULATE = "torch::autograd::AccumulateGrad"
_SAVED_NAMES: dict = {}   # node class -> (attribute, name) of its saved fields


def _saved_names(fn) -> tuple:
    cls = type(fn)
    names = _SAVED_NAMES.get(cls)
    if names is None:
        attrs = tuple(a for a in dir(fn) if a.startswith("_saved_"))
        if not attrs and hasattr(fn, "saved_tensors"):   # a custom autograd.Function
            attrs = ("saved_tensors",)
        names = _SAVED_NAMES[cls] = tuple((a, a.removeprefix("_saved_")) for a in attrs)
    return names


_PLAIN = (bool, int, float, str)
_UNSIGNED, _SIGNED_END = 1 << 64, 1 << 63
_LAYOUT = ("sizes", "strides")   # torch's ``_saved_self_sym_sizes``, ``_saved_mat1_sym_strides``


def _attr_text(value) -> str | None:
    """How a saved non-tensor value reads (None: not a plain value or a tuple of ints).
    torch's getters give a saved int64 as unsigned: ``x.sum(-1)``'s ``_saved_dim`` reads
    ``(18446744073709551615,)`` where torch holds ``(-1,)``; the value held is shown."""
    if isinstance(value, _PLAIN):
        return repr(_signed(value))
    if type(value) is tuple and all(type(v) is int for v in value):
        return repr(tuple([_signed(v) for v in value]))
    return None


def _signed(value):
    if type(value) is int and _SIGNED_END <= value < _UNSIGNED:
        return value - _UNSIGNED
    return value


def saved_of(fn, node: int) -> tuple[tuple, tuple]:
    """The saved tensors of ``fn`` and its saved non-tensor values (as attributes: torch
    keeps ``alpha``, ``dim``... as plain values, agdebug as node attributes). Tensors are
    read through the watcher's unpack hook, which names the holders it unpacks (so each
    release is tied to its node and name)."""
    names = _saved_names(fn)
    if not names:
        return (), ()
    saved, attrs = [], []
    naming_start()
    try:
        for attr, name in names:
            value = getattr(fn, attr)
            holders = named(node, name)
            if holders:
                saved.extend(_SavedSummary(name, h.tensor, h.shape, h.dtype, h.nbytes)
                             for h in holders)
            elif not name.endswith(_LAYOUT):   # (sizes and strides: the inputs' shapes)
                text = _attr_text(value)
                if text is not None:
                    attrs.append((name, text))
    finally:
        naming_end()
    return tuple(saved), tuple(attrs)
