"""What two traces of one scenario must share, whichever engine ran it.

``outline(trace)`` keeps what both engines define the same way, with node ids replaced
by their creation index: the nodes (names, edges), the execution order, the saved-tensor
releases, the gradients accumulated, the user's names of tensors, the program's hooks
(where each ran: after how many node_started and node_finished), the cycles and when
nodes are freed.
"""

from __future__ import annotations

import dataclasses
import re

from agdebug.events.records import TensorSummary


def outline(trace) -> dict:
    index: dict = {}
    out: dict = {"nodes": [], "runs": [], "released": [], "grads": [], "cycles": [],
                 "freed": [], "errors": [], "hooks": [], "finished": []}
    freeing = None
    for e in trace.events:
        if e.kind != "node_freed":
            freeing = None
        _KEEP.get(e.kind, _skip)(e, index, out)
        if e.kind == "node_freed" and e.node in index:
            if freeing is None:   # nodes freed in one go: torch frees a chain depth first
                freeing = set()
                out["freed"].append(freeing)
            freeing.add(index[e.node])
    del out["finished"]   # (only counted, for where each hook ran)
    out["names"] = _names(trace.events)
    return out


def _names(events) -> list:
    """The user's name of each node's outputs and leaf: the last any event gave (a name
    can come after the node's creation: a library call's last op is named once the user's
    code goes on)."""
    given: dict = {}
    for e in events:
        _collect(e, given)
    out = []
    for e in events:
        if e.kind == "node_created":
            leaf = given.get(e.leaf.id, "") if e.leaf is not None else None
            out.append((tuple(filter(None, (given.get(t.id) for t in e.outputs))), leaf))
    return out


def _collect(value, given: dict) -> None:
    if isinstance(value, TensorSummary):
        if value.name:
            given[value.id] = value.name
    elif isinstance(value, tuple):
        for item in value:
            _collect(item, given)
    elif dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            _collect(getattr(value, field.name), given)


def _skip(e, index, out) -> None:
    pass


def _created(e, index, out) -> None:
    index[e.node] = len(index)
    edges = tuple((index.get(n, -1) if n else None, nr) for n, nr in e.edges)
    out["nodes"].append((e.name, edges))


def _started(e, index, out) -> None:
    if e.runs:   # (torch runs no hook at a node autograd.grad only captures)
        out["runs"].append((index.get(e.node), tuple(_shape(g) for g in e.grads)))


def _hook(e, index, out) -> None:
    # where it ran: at which node, after how many node_started and node_finished
    line = e.source.partition(":")[2]   # (the same line in the two engines' files)
    out["hooks"].append((index.get(e.node), e.hook, e.name, e.replaced, line,
                         len(out["runs"]), len(out["finished"])))


def _shape(g):
    return None if g is None else g.shape


_KEEP = {
    "node_created": _created,
    "node_started": _started,
    "node_finished": lambda e, index, out: out["finished"].append(index.get(e.node)),
    "hook_called": _hook,
    # (agdebug also "releases" a saved Python number: nothing torch frees, 0 bytes)
    "saved_released": lambda e, index, out: e.nbytes and out["released"].append(
        index.get(e.node)),
    "grad_accumulated": lambda e, index, out: out["grads"].append(
        (index.get(e.node), e.mode, e.grad.shape, index.get(e.grad_fn))),
    "cycle_detected": lambda e, index, out: out["cycles"].append(
        tuple(index.get(n) for n in e.nodes)),
    "cycle_broken": lambda e, index, out: out["cycles"].append(e.reason),
    "error": lambda e, index, out: out["errors"].append((e.type, e.message.split("\n")[0])),
}


def loosely(value) -> list:
    """A weaker form of one outline entry, for a difference the engines are known to have:
    what happened (names, edge shapes), without which node came first."""
    return sorted(re.sub(r"\d+", "#", repr(item)) for item in value)


def named_more(ours, theirs) -> bool:
    """The names entry where torch names more: each name agdebug gives, torch gives too. A
    fused C++ composite's result is named at once (``loss = F.cross_entropy(...)``), where
    agdebug's Python composite waits for the user's code to go on, and no later event
    mentions the loss; an in-place op's result is the same torch tensor (``b.add_(1)``
    gives ``b``), agdebug summarises it with a new id."""
    return len(ours) == len(theirs) and all(
        set(o[0]) <= set(t[0]) and o[1] == t[1] for o, t in zip(ours, theirs))
