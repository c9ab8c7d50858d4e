"""GraphState: one model of "the graph now", reduced from events.

Everything that shows the graph (the TUI, the Graphviz renderer, the HTML
player) reads a ``GraphState``; nothing reads the engine. A state is built by
a pure reducer (``reduce(state, event) -> state``) and a ``Timeline`` keeps
periodic checkpoints (pages of nodes shared while unchanged) and the events between them,
so seeking to any step of a long trace is quick in both directions.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     y = (x.exp() * x).sum()
...     y.backward()
>>> tl = trace.timeline()
>>> sorted({n.status for n in tl.state(len(tl)).nodes.values()})
['done', 'released']
>>> tl.state(0).nodes
mappingproxy({})
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import NamedTuple

from ..events.records import TensorSummary
from .cycles import apply_cycle_event
from .validate import slot_limit

__all__ = [
    "EMPTY",
    "STATUSES",
    "BackwardView",
    "Checkpoint",
    "ErrorView",
    "GraphState",
    "LeafView",
    "NodeView",
    "SavedView",
    "Timeline",
    "reduce",
]

STATUSES = ("created", "waiting", "ready", "running", "done", "released", "freed", "errored")

_frozen = dataclass(frozen=True, slots=True)


@_frozen
class SavedView:
    name: str
    tensor: int
    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    released: bool = False
    version: int = -1    # the tensor's version when saved (-1: a scalar, or an older trace)


class NodeView(NamedTuple):
    """One node as of some step (a named tuple: immutable, and cheap to update)."""

    id: int
    name: str
    op: str = ""
    edges: tuple[tuple[int, int], ...] = ()          # ((node id or 0, output_nr), ...)
    inputs: tuple[TensorSummary | None, ...] = ()   # per forward input
    outputs: tuple[TensorSummary, ...] = ()         # per forward output
    saved: tuple[SavedView, ...] = ()               # per saved tensor
    attrs: tuple[tuple[str, str], ...] = ()         # ((name, repr), ...)
    leaf: TensorSummary | None = None    # the leaf of an AccumulateGrad
    status: str = "created"
    created_step: int = -1                  # -1: seen in a backward, created before recording
    remaining: int = 0                      # edges still to arrive in the running backward
    buffer: tuple[TensorSummary | None, ...] = ()   # latest gradient per input-buffer slot
    contributions: tuple[int, ...] = ()     # gradients summed per slot
    grads_in: tuple[TensorSummary | None, ...] = ()
    grads_out: tuple[TensorSummary | None, ...] = ()
    hooks: tuple[str, ...] = ()             # kinds of hooks that fired on this node
    runs: int = 0                           # how many times it ran
    freed_by: str = ""
    error: str = ""
    source: str = ""                        # the user's line making it (NodeCreated.source)
    module: str = ""                        # the module call making it: "layers.0.self_attn"
    module_type: str = ""                   # its class: "MultiheadAttention"

    @property
    def is_accumulator(self) -> bool:
        return self.leaf is not None or self.name.endswith("AccumulateGrad")

    @property
    def saved_bytes(self) -> int:
        """Bytes its saved tensors still hold."""
        if self.status == "freed":
            return 0
        return sum(s.nbytes for s in self.saved if not s.released)


@_frozen
class LeafView:
    tensor: TensorSummary
    node: int                      # its AccumulateGrad
    grad: TensorSummary | None = None
    grad_fn: int = 0               # node id of ``.grad``'s grad_fn (create_graph=True)
    accumulations: int = 0


@_frozen
class ErrorView:
    type: str
    message: str
    node: int
    step: int


@_frozen
class BackwardView:
    api: str
    roots: tuple[int, ...]
    inputs: tuple[int, ...] | None
    retain_graph: bool
    create_graph: bool
    ok: bool | None = None      # None while running
    thread: int = 0             # the thread running it (0 in traces of format version 1)
    nodes: tuple[int, ...] = ()   # ids of the nodes it planned


@dataclass(frozen=True)
class GraphState:
    """The graph after ``step`` events: nodes, leaves, cycles, the last error."""

    step: int = 0
    nodes: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    leaves: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    cycles: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    last_error: ErrorView | None = None
    backward: BackwardView | None = None
    current: int = 0               # the node running (or last started) in the backward
    event: object = None           # the last event applied
    gc_passes: int = 0
    # thread -> its running backwards, innermost last: threads' backwards run side by side
    running: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def saved_bytes(self) -> int:
        """Bytes held by saved tensors of live nodes (a tensor saved twice counts once)."""
        seen: set = set()
        total = 0
        for node in self.nodes.values():
            if node.status == "freed":
                continue
            for s in node.saved:
                if s.released or (s.tensor and s.tensor in seen):
                    continue
                seen.add(s.tensor)
                total += s.nbytes
        return total

    def count(self, status: str) -> int:
        return sum(1 for n in self.nodes.values() if n.status == status)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from ..render.export import mimebundle
        return mimebundle(self)


EMPTY = GraphState()


def _replace(node: NodeView, **changes) -> NodeView:
    return node._replace(**changes)


# ----------------------------------------------------------------------------- the reducer

class _Builder:
    """Mutable working copy of a state; ``freeze()`` gives the immutable ``GraphState``."""

    def __init__(self, state: GraphState):
        self.step = state.step
        self.nodes = dict(state.nodes)
        self.leaves = dict(state.leaves)
        self.cycles = dict(state.cycles)
        self.last_error = state.last_error
        self.backward = state.backward
        self.current = state.current
        self.event = state.event
        self.gc_passes = state.gc_passes
        self.running = dict(state.running)

    def freeze(self, nodes=None) -> GraphState:
        """The state now; ``nodes`` given (a map no one changes after) is used as it is."""
        nodes = MappingProxyType(dict(self.nodes) if nodes is None else nodes)
        return GraphState(self.step, nodes,
                          MappingProxyType(dict(self.leaves)), MappingProxyType(dict(self.cycles)),
                          self.last_error, self.backward, self.current, self.event,
                          self.gc_passes, MappingProxyType(dict(self.running)))

    def apply(self, event) -> None:
        handler = _HANDLERS.get(event.kind)
        if handler is not None:
            handler(self, event)
        self.step += 1
        self.event = event

    def node(self, node_id: int, name: str = "?") -> NodeView:
        node = self.nodes.get(node_id)
        if node is None:
            node = self.nodes[node_id] = NodeView(node_id, name)
        return node

    def update(self, node_id: int, **changes) -> None:
        node = self.nodes.get(node_id)
        if node is not None:
            self.nodes[node_id] = _replace(node, **changes)


def reduce(state: GraphState, event) -> GraphState:
    """The state after ``event`` (pure: ``state`` is not changed)."""
    builder = _Builder(state)
    builder.apply(event)
    return builder.freeze()


def _node_created(b: _Builder, e) -> None:
    saved = tuple(SavedView(s.name, s.tensor, s.shape, s.dtype, s.nbytes, version=s.version)
                  for s in e.saved)
    b.nodes[e.node] = NodeView(e.node, e.name, e.op, e.edges, e.inputs, e.outputs, saved,
                               e.attrs, e.leaf, created_step=b.step, source=e.source,
                               module=e.module, module_type=e.module_type)
    if e.leaf is not None:
        old = b.leaves.get(e.leaf.id)
        b.leaves[e.leaf.id] = (LeafView(e.leaf, e.node) if old is None
                               else replace(old, tensor=e.leaf, node=e.node))


def _backward_started(b: _Builder, e) -> None:
    _forget_freed(b)
    b.backward = BackwardView(e.api, e.roots, e.inputs, e.retain_graph, e.create_graph,
                              thread=e.thread)
    b.running[e.thread] = b.running.get(e.thread, ()) + (b.backward,)
    b.current = 0


def _forget_freed(b: _Builder) -> None:
    """Nodes freed before this backward leave the graph, as they left PyTorch's: a freed
    node is shown (greyed) until the next backward starts, so the steps after a freeing show
    what it freed, and a long run's graph holds what lives, not every node it ever made."""
    for node_id in [i for i, n in b.nodes.items() if n.status == "freed"]:
        del b.nodes[node_id]


def _backward_planned(b: _Builder, e) -> None:
    stack = b.running.get(e.thread)
    if stack:
        top = replace(stack[-1], nodes=tuple(p.node for p in e.nodes))
        b.running[e.thread] = stack[:-1] + (top,)
        # Equal, not the same object: a decoded checkpoint holds two copies of it.
        b.backward = top if b.backward == stack[-1] else b.backward
    for p in e.nodes:
        node = b.node(p.node, p.name)
        if not node.edges and p.edges:
            node = _replace(node, edges=p.edges)
        b.nodes[p.node] = _replace(node, status="waiting", remaining=p.deps, buffer=(),
                                  contributions=(), grads_in=(), grads_out=(), error="")


def _buffer_accumulated(b: _Builder, e) -> None:
    node = b.node(e.node)
    if not 0 <= e.slot < max(slot_limit(len(node.outputs)), len(node.buffer)):
        return   # a slot the node cannot have (the trace loader refuses it)
    buffer, counts = list(node.buffer), list(node.contributions)
    while len(buffer) <= e.slot:
        buffer.append(None)
        counts.append(0)
    if e.grad is not None:
        buffer[e.slot] = e.grad
    counts[e.slot] = e.contributions
    status = "ready" if e.remaining == 0 else node.status
    b.nodes[e.node] = _replace(node, buffer=tuple(buffer), contributions=tuple(counts),
                              remaining=e.remaining, status=status)


def _node_started(b: _Builder, e) -> None:
    node = b.node(e.node, e.name)
    b.nodes[e.node] = _replace(node, status="running" if e.runs else "done", grads_in=e.grads)
    b.current = e.node


def _node_finished(b: _Builder, e) -> None:
    node = b.node(e.node)
    released = any(s.released for s in node.saved)
    b.nodes[e.node] = _replace(node, status="released" if released else "done",
                              grads_out=e.grads, runs=node.runs + 1)


def _saved_released(b: _Builder, e) -> None:
    node = b.nodes.get(e.node)
    if node is None:
        return
    names = set(e.names)
    saved = tuple(replace(s, released=True) if s.name in names else s for s in node.saved)
    b.nodes[e.node] = _replace(node, saved=saved)


def _hook_called(b: _Builder, e) -> None:
    node = b.nodes.get(e.node)
    if node is not None and e.hook not in node.hooks:
        b.nodes[e.node] = _replace(node, hooks=node.hooks + (e.hook,))


def _grad_accumulated(b: _Builder, e) -> None:
    leaf = b.leaves.get(e.tensor)
    if leaf is None:   # the leaf's accumulator was made before recording started
        g = e.grad
        leaf = LeafView(TensorSummary(e.tensor, g.shape, g.dtype, g.device, g.nbytes), e.node)
    b.leaves[e.tensor] = replace(leaf, grad=e.grad, grad_fn=e.grad_fn,
                                 accumulations=leaf.accumulations + 1)


def _grad_set(b: _Builder, e) -> None:
    leaf = b.leaves.get(e.tensor)
    if leaf is not None:
        b.leaves[e.tensor] = replace(leaf, grad=e.grad, grad_fn=e.grad_fn)


def _node_freed(b: _Builder, e) -> None:
    b.update(e.node, status="freed", freed_by=e.by)


def _cycle(b: _Builder, e) -> None:
    apply_cycle_event(b.cycles, e)


def _error(b: _Builder, e) -> None:
    b.last_error = ErrorView(e.type, e.message, e.node, b.step)
    b.update(e.node, status="errored", error=f"{e.type}: {e.message}")


def _backward_finished(b: _Builder, e) -> None:
    stack = b.running.pop(e.thread, ())
    if not stack:   # watching began inside this backward: which nodes are its is unknown
        if b.backward is not None:
            b.backward = replace(b.backward, ok=e.ok)
        _reset(b, list(b.nodes))
        b.current = 0
        return
    if len(stack) > 1:
        b.running[e.thread] = stack[:-1]
    finished = b.backward = replace(stack[-1], ok=e.ok)
    # Only this backward's nodes: another thread's backward may still be running its own.
    _reset(b, finished.nodes)
    if b.current in finished.nodes:
        b.current = 0


def _reset(b: _Builder, node_ids) -> None:
    """Nodes a finished backward left waiting, ready or running go back to "created"."""
    for node_id in node_ids:
        node = b.nodes.get(node_id)
        if node is not None and node.status in ("waiting", "ready", "running"):
            b.nodes[node_id] = _replace(node, status="created", remaining=0)


def _gc_pass(b: _Builder, e) -> None:
    b.gc_passes += 1


_HANDLERS = {
    "node_created": _node_created, "backward_started": _backward_started,
    "backward_planned": _backward_planned, "buffer_accumulated": _buffer_accumulated,
    "node_started": _node_started, "node_finished": _node_finished,
    "saved_released": _saved_released, "hook_called": _hook_called,
    "grad_accumulated": _grad_accumulated, "grad_set": _grad_set, "node_freed": _node_freed,
    "cycle_detected": _cycle, "cycle_broken": _cycle, "error": _error,
    "backward_finished": _backward_finished, "gc_pass": _gc_pass,
}


# ----------------------------------------------------------------------------- seeking

PAGE = 256   # nodes per checkpoint page, in the order the state first saw them
_PREFIX = 64      # pages per level of the node maps kept for restoring (``Timeline._prefix``)
_LIVE_PAGES = 8   # last pages left out of those (a step's live nodes are the newest)
_NO_NODES = MappingProxyType({})
_EMPTY_PAGE: dict = {}   # a page whose nodes all left (one object: stored once, never changed)


class _TrackedNodes(dict):
    """The building pass's node map: it notes the ids written since the last checkpoint
    (``dirty``) and the new ones (``added``, in insertion order)."""

    __slots__ = ("added", "dirty")

    def __setitem__(self, key, value) -> None:
        if key in self:
            self.dirty.add(key)
        else:
            self.added.append(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key) -> None:
        self.dirty.add(key)
        dict.__delitem__(self, key)


class Checkpoint(NamedTuple):
    """A ``Timeline``'s state at one step, its nodes apart in pages."""

    state: GraphState     # everything but the nodes (its ``nodes`` is empty)
    pages: tuple          # node maps of PAGE nodes each, shared while unchanged

    @classmethod
    def replayed(cls, events, step: int) -> Checkpoint:
        """The checkpoint at ``step``, reduced from the first ``step`` of ``events``."""
        builder = _Builder(EMPTY)
        for event in events[:step]:
            builder.apply(event)
        return cls(builder.freeze(_NO_NODES), (builder.nodes,))


class Timeline:
    """Every step of a trace, seekable: ``state(n)`` is the graph after ``n`` events.

    As time-travel debuggers do, it keeps a checkpoint every ``every`` events plus the
    events between them: ``state(n)`` is the nearest checkpoint at or before ``n`` and at
    most ``every`` reductions. A checkpoint holds its nodes in pages of ``PAGE``; a page no
    event touched since the previous checkpoint (freed nodes, a finished step's graph) is
    that checkpoint's very object, so memory grows with what each interval touches, not
    with checkpoints x every node ever seen.
    """

    def __init__(self, events, every: int = 512, stream=None, budget: int = 0, keep=None):
        """``stream``: the same events, read once as they are built (``events`` then is a
        sequence over a file that fills as ``stream`` is read: see ``debug.index``).
        ``budget``: over a file, a checkpoint also once the lines since the last one hold
        that many bytes (a line's decoding costs about its length). ``keep(step,
        checkpoint)``: given, each checkpoint goes there instead (to a trace index, the
        timeline then is rebuilt from: see ``debug.index``)."""
        self._sink = keep
        keep = stream is not None or isinstance(events, list) or hasattr(events, "steps_of")
        self.events = events if keep else list(events)
        self.every = every
        self._steps: list[int] = []
        self._checkpoints: list[Checkpoint] = []
        self._prefixes: dict[int, tuple] = {}
        self._rank: dict[int, int] = {}   # node id -> its place in first-seen order
        self._order: list[int] = []       # node ids, first seen first
        self._pages: list[dict] = []
        builder = _Builder(EMPTY)
        builder.nodes = nodes = _TrackedNodes()
        nodes.added, nodes.dirty = [], set()
        offsets = getattr(self.events, "offsets", None) if budget else None
        for i, event in enumerate(self.events if stream is None else stream):
            if not self._steps or self._due(i, offsets, budget):
                self._keep(builder, nodes)
            builder.apply(event)
        self._keep(builder, nodes)
        self._final = self._last = builder.freeze(dict(nodes))
        del self._rank, self._order, self._pages, self._sink   # only building needs them

    def _due(self, i: int, offsets, budget: int) -> bool:
        """Whether a checkpoint goes before event ``i``: ``every`` events since the last, or
        ``budget`` bytes of lines. So no seek decodes more than ``budget`` bytes of lines,
        and a line longer than that (a backward's plan of thousands of nodes) is never
        replayed: the checkpoint after it is that step's."""
        last = self._steps[-1]
        return i - last >= self.every or (offsets is not None
                                           and offsets[i] - offsets[last] >= budget)

    @classmethod
    def restored(cls, events, every: int, steps: list, checkpoints):
        """A timeline over the checkpoints a trace index kept (``debug.index``): a sequence
        that reads each when asked for, at ``steps``."""
        timeline = cls.__new__(cls)
        timeline.events, timeline.every, timeline._checkpoints = events, every, checkpoints
        timeline._steps, timeline._final, timeline._last = steps, None, EMPTY
        timeline._prefixes = {}
        return timeline

    @property
    def final(self) -> GraphState:
        """The state after the last event."""
        if self._final is None:
            self._final = self.state(len(self.events))
        return self._final

    def drawn(self) -> GraphState:
        """The last state with every node any step had, each as it was last: what an
        animation of the trace lays out once (a freed node leaves the state when the next
        backward starts, so the last state alone lacks the earlier graphs)."""
        final = self.final
        nodes: dict = {}
        for start in self.steps_of("backward_started"):
            before = self.state(start - 1)
            nodes.update((i, n) for i, n in before.nodes.items() if n.status == "freed")
        if not nodes:
            return final
        nodes.update(final.nodes)
        ordered = sorted(nodes.values(), key=lambda n: (n.created_step, n.id))
        return replace(final, nodes=MappingProxyType({n.id: n for n in ordered}))

    def _keep(self, builder: _Builder, nodes: _TrackedNodes) -> None:
        if self._steps and self._steps[-1] == builder.step:
            return
        for key in nodes.added:
            if key not in self._rank:   # (an id made again after it left keeps its place)
                self._rank[key] = len(self._order)
                self._order.append(key)
        touched = {self._rank[key] // PAGE for key in nodes.dirty}
        touched.update(self._rank[key] // PAGE for key in nodes.added)
        nodes.added.clear()
        nodes.dirty.clear()
        for p in sorted(touched):   # new pages come last, in order: they append
            page = {key: nodes[key] for key in self._order[p * PAGE:(p + 1) * PAGE]
                    if key in nodes} or _EMPTY_PAGE
            if p == len(self._pages):
                self._pages.append(page)
            else:
                self._pages[p] = page
        self._steps.append(builder.step)
        checkpoint = Checkpoint(builder.freeze(_NO_NODES), tuple(self._pages))
        if self._sink is None:
            self._checkpoints.append(checkpoint)
        else:
            self._sink(builder.step, checkpoint)

    def __len__(self) -> int:
        return len(self.events)

    def state(self, step: int) -> GraphState:
        """The state after the first ``step`` events (clamped to the trace)."""
        step = max(0, min(int(step), len(self.events)))
        if step == len(self.events) and self._final is not None:
            return self._final
        last = self._last
        if last.step == step:
            return last
        index = bisect.bisect_right(self._steps, step) - 1
        if self._steps[index] <= last.step < step:   # stepping on: fewer events to reduce
            builder = _Builder(last)
        else:
            builder = self._restore(self._checkpoints[index])
        for event in self.events[builder.step:step]:
            builder.apply(event)
        self._last = state = builder.freeze(builder.nodes)
        return state

    def _restore(self, checkpoint: Checkpoint) -> _Builder:
        builder = _Builder(checkpoint.state)
        level, builder.nodes = self._prefix(checkpoint.pages)
        for page in checkpoint.pages[level:]:
            builder.nodes.update(page)
        return builder

    def _prefix(self, pages: tuple) -> tuple[int, dict]:
        """``(n, a new dict of the nodes of pages[:n])``, copied from one kept for the same
        first pages: copying a dict costs a third of filling it page by page, and the first
        pages of a long trace (freed nodes) are the same objects in every later checkpoint.
        One prefix is kept per multiple of ``_PREFIX`` pages; the last pages, which the
        running step still changes, are left out of it."""
        top = max(0, len(pages) - _LIVE_PAGES) // _PREFIX * _PREFIX
        found = 0, {}
        for level in range(top, 0, -_PREFIX):
            kept = self._prefixes.get(level)
            if kept is not None and all(a is b for a, b in zip(kept[0], pages[:level])):
                found = level, kept[1]
                break
        if found[0] < top:
            nodes = found[1].copy()
            for page in pages[found[0]:top]:
                nodes.update(page)
            self._prefixes[top] = (pages[:top], nodes)
            found = top, nodes
        return found[0], found[1].copy()

    def steps_of(self, *kinds: str) -> list[int]:
        """The steps (1-based counts) right after each event of the given kinds."""
        events = self.events
        if hasattr(events, "steps_of"):   # a trace file's index: no event is read
            return events.steps_of(kinds)
        return [i + 1 for i, e in enumerate(events) if not kinds or e.kind in kinds]
