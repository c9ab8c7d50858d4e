"""A ``Timeline``'s checkpoints as data: JSON text for the views, checked on the way back.

A trace index (``debug.index``) keeps the checkpoints of a long trace for the next opening.
It is a file anyone could have changed, so it holds data only, never code: each node view
is one JSON list, a checkpoint's other state one JSON object, and reading either back
checks every field as a trace line's fields are checked (``records.decode``); anything
else raises ``ValueError``.

>>> from agdebug.debug.state import NodeView
>>> node = NodeView(3, "MulBackward0", "mul", status="done", runs=1)
>>> node_from_json(node_json(node)) == node
True
>>> node_from_json(b'[3, "MulBackward0"]')
Traceback (most recent call last):
...
ValueError: node view: expected 20 fields, got 2
"""

from __future__ import annotations

import dataclasses
import json
import typing
from types import MappingProxyType

from ..events import records
from .cycles import CycleView
from .state import STATUSES, BackwardView, ErrorView, GraphState, LeafView, NodeView

__all__ = ["node_from_json", "node_json", "state_from_json", "state_json"]

_NODE_HINTS = tuple(typing.get_type_hints(NodeView)[name] for name in NodeView._fields)
_LEAVES = tuple[tuple[int, LeafView], ...]
_CYCLES = tuple[tuple[int, CycleView], ...]
_RUNNING = tuple[tuple[int, tuple[BackwardView, ...]], ...]
_STATE_FIELDS = {"step": int, "leaves": _LEAVES, "cycles": _CYCLES,
                 "last_error": ErrorView | None, "backward": BackwardView | None,
                 "current": int, "gc_passes": int, "running": _RUNNING}


def _plain(value):
    """JSON-ready data: a view's fields in order (a node) or by name (the rest)."""
    if isinstance(value, NodeView) or type(value) is tuple:
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _dumps(data) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8")


def _loads(text: bytes, what: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"{what}: not JSON") from None


def node_json(node: NodeView) -> bytes:
    return _dumps(_plain(node))


def node_from_json(text: bytes) -> NodeView:
    data = _loads(text, "node view")
    if not isinstance(data, list) or len(data) != len(_NODE_HINTS):
        count = len(data) if isinstance(data, list) else type(data).__name__
        raise ValueError(f"node view: expected {len(_NODE_HINTS)} fields, got {count}")
    try:
        values = [records.decode(tp, v, "node view") for tp, v in zip(_NODE_HINTS, data)]
    except records.RecordError as exc:
        raise ValueError(str(exc)) from None
    node = NodeView(*values)
    if node.status not in STATUSES:
        raise ValueError(f"node view: unknown status {node.status!r}")
    return node


def state_json(state: GraphState) -> bytes:
    """Everything in ``state`` but its nodes (a checkpoint keeps those in pages)."""
    data = {name: _plain(getattr(state, name)) for name in ("step", "last_error", "backward",
                                                            "current", "gc_passes")}
    for name in ("leaves", "cycles"):
        data[name] = [[key, _plain(view)] for key, view in getattr(state, name).items()]
    data["running"] = [[thread, _plain(stack)] for thread, stack in state.running.items()]
    data["event"] = None if state.event is None else state.event.to_dict()
    return _dumps(data)


def state_from_json(text: bytes) -> GraphState:
    """The ``GraphState`` (with no nodes) that ``state_json`` wrote."""
    data = _loads(text, "checkpoint")
    if not isinstance(data, dict) or set(data) != {*_STATE_FIELDS, "event"}:
        raise ValueError("checkpoint: not a checkpoint's fields")
    try:
        values = {name: records.decode(tp, data[name], f"checkpoint.{name}")
                  for name, tp in _STATE_FIELDS.items()}
        event = None if data["event"] is None else records.event_from_dict(data["event"])
    except records.RecordError as exc:
        raise ValueError(str(exc)) from None
    maps = {name: MappingProxyType(dict(values.pop(name)))
            for name in ("leaves", "cycles", "running")}
    return GraphState(nodes=MappingProxyType({}), event=event, **values, **maps)
