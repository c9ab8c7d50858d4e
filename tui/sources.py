"""Where the app's steps come from: a recording (fixed) or a live program (growing).

Both answer ``len()``, ``events`` and ``state(step)`` (the ``GraphState`` after
``step`` events), so the app, the exporters and the tests treat them alike. Beside
them: an ``EventIndex`` (where the node starts, backwards, ops... are) and the
``MemorySeries`` (what is held at each step), both kept up as events arrive (a long
trace's come from its file's index, or are counted as far as a step needs).

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0], requires_grad=True)
...     (x * 2).backward()
>>> live = LiveHistory()
>>> live.extend(trace.events)
>>> live.state(len(live)).nodes == trace.state().nodes
True
"""

from __future__ import annotations

import bisect

from agdebug.debug.state import EMPTY, Timeline, reduce


__all__ = ["EventIndex", "LiveHistory", "MemorySeries", "NodeFacts", "memory_series"]


class LiveHistory:
    """A growing list of events with snapshots every ``every`` steps, for seeking back."""

    def __init__(self, every: int = 256):
        self.events: list = []
        self.every = every
        self._steps = [0]
        self._snapshots = [EMPTY]
        self._head = EMPTY

    def __len__(self) -> int:
        return len(self.events)

    def extend(self, events) -> None:
        state = self._head
        for event in events:
            self.events.append(event)
            state = reduce(state, event)
            if state.step % self.every == 0:
                self._steps.append(state.step)
                self._snapshots.append(state)
        self._head = state

    def state(self, step: int):
        step = max(0, min(int(step), len(self.events)))
        if step == self._head.step:
            return self._head
        index = bisect.bisect_right(self._steps, step) - 1
        state = self._snapshots[index]
        for event in self.events[state.step:step]:
            state = reduce(state, event)
        return state

    def timeline(self) -> Timeline:
        """A frozen ``Timeline`` of the events so far (for exporters)."""
        return Timeline(self.events)


class EventIndex:
    """Where things are in the events: each node's op and source line, and the indices of
    the node starts, backward starts and ends and printed output, kept up as events arrive."""

    def __init__(self):
        self.ops: dict[int, str] = {}
        self.sources: dict[int, str] = {}
        self.starts: list[int] = []      # indices of node_started events
        self.backwards: list[int] = []   # indices of backward_started events
        self.finishes: list[int] = []    # indices of backward_finished events
        self.prints: list[int] = []      # indices of printed events (the script's output)
        self.kinds: set[str] = set()     # the kinds of event there are
        self.paths: dict[str, str] = {}  # a source line -> its file's absolute path, if known

    @classmethod
    def of_file(cls, timeline, state) -> EventIndex:
        """The index of a long trace's ``timeline`` from its file's index of kinds, with
        no event read: a node's op and line are looked up when asked for (``NodeFacts``;
        ``state()`` is the state shown)."""
        index = cls()
        for name, kind in (("starts", "node_started"), ("backwards", "backward_started"),
                           ("prints", "printed")):
            setattr(index, name, [step - 1 for step in timeline.steps_of(kind)])
        index.kinds = set(timeline.events.kinds())
        index.ops = NodeFacts(timeline, state, "op")
        index.sources = NodeFacts(timeline, state, "source")
        return index

    def extend(self, events, first: int) -> None:
        """Index ``events``, the first of which is event number ``first``."""
        for i, e in enumerate(events, first):
            self.kinds.add(e.kind)
            path = getattr(e, "source_path", "")
            if path:   # (node_created, backward_started, hook_called, error)
                self.paths[e.source] = path
            if e.kind == "node_created":
                self.ops[e.node] = e.op
                if e.source:
                    self.sources[e.node] = e.source
            elif e.kind == "node_started":
                self.starts.append(i)
            elif e.kind == "backward_started":
                self.backwards.append(i)
            elif e.kind == "backward_finished":
                self.finishes.append(i)
            elif e.kind == "printed":
                self.prints.append(i)


class NodeFacts:
    """``node id -> op`` (or ``-> source line``) of a long trace, found when first asked
    for: from the node's view in the state shown (``state()``), else in the trace's last
    state (every node it saw), and for a line, the ``node_created`` event the view names."""

    def __init__(self, timeline, state, field: str):
        self.timeline, self.state, self.field = timeline, state, field
        self._known: dict[int, str] = {}

    def note(self, event) -> None:
        """Learn from ``event`` (a run through later events passes their creations)."""
        if event.kind == "node_created":
            self._known[event.node] = getattr(event, self.field)

    def get(self, node: int, default=None):
        if node not in self._known:
            self._known[node] = self._look_up(node)
        return self._known[node] or default   # ("" for none, as the index of a list has)

    def values(self) -> list:
        """Every node's (the command palette's op breakpoints): the ops from the trace's
        index, no state decoded; lines from the trace's last state."""
        if self.field == "op":
            return sorted(self.timeline.events.ops)
        return [self.get(node.id, "") for node in self.timeline.final.nodes.values()]

    def _look_up(self, node_id: int) -> str:
        for state in (self.state, lambda: self.timeline.final):   # (the last when needed)
            node = state().nodes.get(node_id)
            if node is not None:
                if self.field == "op":
                    return node.op
                created = node.created_step
                return self.timeline.events[created].source if created >= 0 else ""
        return ""


_COUNTED = ("node_created", "saved_released", "node_freed")   # what MemorySeries counts


class MemorySeries:
    """Per step: bytes held by saved tensors of live nodes (a tensor saved twice counts
    once, as in ``GraphState.saved_bytes``), and the number of live nodes."""

    def __init__(self):
        self.saved_bytes: list[int] = [0]
        self.live_nodes: list[int] = [0]
        self._saved: dict[int, dict[str, tuple[int, int]]] = {}   # node -> name -> (t, bytes)
        self._uses: dict[int, int] = {}                            # tensor id -> holders
        self._live: set[int] = set()
        self._held = 0
        self._source = None              # the events still to count (a long trace's file)

    def follow(self, events) -> None:
        """Count ``events`` only as far as ``reach`` asks (a long trace: a pass over all
        of it waits until the memory panel shows a late step)."""
        self._source = events

    def reach(self, step: int) -> None:
        """Count the followed events up to ``step`` (reading only the kinds that change
        what is held: the other steps hold what the step before held)."""
        source, done = self._source, len(self.saved_bytes) - 1
        if source is None or step <= done:
            return
        for start in range(done, min(step, len(source)), 65536):
            stop = min(start + 65536, step, len(source))
            for i, event in source.only(_COUNTED, start, stop):
                self._hold_until(i)
                self.extend((event,))
            self._hold_until(stop)

    def _hold_until(self, step: int) -> None:
        """The counts so far, for every step up to ``step``."""
        more = step + 1 - len(self.saved_bytes)
        self.saved_bytes += [self._held] * more
        self.live_nodes += [len(self._live)] * more

    def extend(self, events) -> None:
        for event in events:
            self._apply(event)
            self.saved_bytes.append(self._held)
            self.live_nodes.append(len(self._live))

    def _hold(self, tensor: int, nbytes: int, delta: int) -> None:
        if not tensor:
            self._held += delta * nbytes
            return
        before = self._uses.get(tensor, 0)
        after = before + delta
        self._uses[tensor] = after
        if before == 0 and after > 0:
            self._held += nbytes
        elif before > 0 and after == 0:
            self._held -= nbytes
            del self._uses[tensor]

    def _drop(self, node: int, names=None) -> None:
        held = self._saved.get(node, {})
        for name in list(held) if names is None else names:
            if name in held:
                self._hold(*held.pop(name), -1)

    def _apply(self, e) -> None:
        kind = e.kind
        if kind == "node_created":
            self._drop(e.node)
            self._live.add(e.node)
            self._saved[e.node] = {s.name: (s.tensor, s.nbytes) for s in e.saved}
            for tensor, nbytes in self._saved[e.node].values():
                self._hold(tensor, nbytes, 1)
        elif kind == "saved_released":
            self._drop(e.node, e.names)
        elif kind == "node_freed":
            self._live.discard(e.node)
            self._drop(e.node)


def memory_series(events) -> MemorySeries:
    """The ``MemorySeries`` of ``events``, in one pass."""
    series = MemorySeries()
    series.extend(events)
    return series
