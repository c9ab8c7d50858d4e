"""Checks of a trace's references and order, event by event: a trace file is untrusted input.

The loader feeds every decoded event to a ``TraceCheck``; a problem raises ``InvalidTrace``
(one line, which the loader prefixes with the file and line). Limits come from the data
seen so far: an input-buffer slot is bounded by its node's recorded outputs, so no small
file can make ``GraphState`` allocate a buffer of millions of slots.

>>> from agdebug.events.records import BackwardFinished
>>> TraceCheck().check(BackwardFinished(seq=1, api="backward", ok=True))
Traceback (most recent call last):
...
agdebug.debug.validate.InvalidTrace: backward_finished without a backward running on thread 0
"""

from __future__ import annotations

__all__ = ["UNRECORDED_SLOTS", "InvalidTrace", "TraceCheck", "slot_limit"]

# How many input-buffer slots a node may use when the trace does not say how many outputs it
# has (an AccumulateGrad, or a node created before the recording started).
UNRECORDED_SLOTS = 1024


class InvalidTrace(ValueError):
    """An event that contradicts the events before it."""


def slot_limit(outputs: int) -> int:
    """How many input-buffer slots a node with ``outputs`` recorded outputs may have."""
    return outputs or UNRECORDED_SLOTS


class TraceCheck:
    """Feed the events in order to ``check``; the first inconsistent one raises."""

    def __init__(self):
        self.seq: int | None = None
        self.outputs: dict[int, int] = {}   # node id (created or planned) -> recorded outputs
        self.links: set = set()             # (node, next node) along every edge seen
        self.running: dict[int, int] = {}   # thread -> backwards running on it

    def check(self, event) -> None:
        if self.seq is not None and event.seq <= self.seq:
            raise InvalidTrace(f"sequence number {event.seq} after {self.seq} "
                               "(repeated or out of order)")
        self.seq = event.seq
        handler = _CHECKS.get(event.kind)
        if handler is not None:
            handler(self, event)

    def add_node(self, node: int, edges, outputs: int) -> None:
        if node <= 0:
            raise InvalidTrace(f"invalid node id {node}")
        if outputs or node not in self.outputs:
            self.outputs[node] = outputs
        for target, nr in edges:
            if target == 0:   # an input that needs no gradient
                continue
            self.check_edge(node, target, nr)

    def check_edge(self, node: int, target: int, nr: int) -> None:
        if target == node:
            raise InvalidTrace(f"node n{node} has an edge to itself")
        if (target, node) in self.links:
            raise InvalidTrace(f"nodes n{node} and n{target} have edges to each other")
        limit = slot_limit(self.outputs.get(target, 0))
        if not 0 <= nr < limit:
            raise InvalidTrace(f"node n{node} has an edge to output {nr} of n{target}, "
                               f"which has {limit} {'output' if limit == 1 else 'outputs'}")
        self.links.add((node, target))

    def known(self, event, node: int) -> None:
        if node not in self.outputs:
            raise InvalidTrace(f"{event.kind} of node n{node}, which no earlier event "
                               "created or planned")

    def in_backward(self, event) -> None:
        if not self.running.get(event.thread):
            raise InvalidTrace(f"{event.kind} without a backward running on thread "
                               f"{event.thread}")


def _node_created(c: TraceCheck, e) -> None:
    if e.node in c.outputs:   # ids are never reused: it was created or planned already
        raise InvalidTrace(f"node_created of node n{e.node}, which an earlier event "
                           "created or planned")
    c.add_node(e.node, e.edges, len(e.outputs))


def _backward_started(c: TraceCheck, e) -> None:
    c.running[e.thread] = c.running.get(e.thread, 0) + 1


def _backward_planned(c: TraceCheck, e) -> None:
    c.in_backward(e)
    for p in e.nodes:
        c.add_node(p.node, p.edges, 0)


def _node_event(c: TraceCheck, e) -> None:
    c.in_backward(e)
    c.known(e, e.node)


def _buffer_accumulated(c: TraceCheck, e) -> None:
    _node_event(c, e)
    limit = slot_limit(c.outputs[e.node])
    if not 0 <= e.slot < limit:
        raise InvalidTrace(f"buffer_accumulated into slot {e.slot} of node n{e.node}, "
                           f"which has {limit} {'slot' if limit == 1 else 'slots'}")


def _backward_finished(c: TraceCheck, e) -> None:
    c.in_backward(e)
    c.running[e.thread] -= 1


_CHECKS = {
    "node_created": _node_created, "backward_started": _backward_started,
    "backward_planned": _backward_planned, "buffer_accumulated": _buffer_accumulated,
    "node_started": _node_event, "node_finished": _node_event,
    "backward_finished": _backward_finished,
}
