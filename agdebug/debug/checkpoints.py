"""A ``Timeline``'s checkpoints as data: JSON text for the views, checked on the way back.

A trace index (``debug.index``) keeps the checkpoints of a long trace for the next opening.
It is a file anyone could have changed, so it holds data only, never code: each version of
a node view is one JSON list (naming by number what the node's versions share and its tensor
summaries, each of those stored once), a checkpoint's other state one JSON object, and
reading any back checks every field: items of the usual shape in one pass of a regular
expression each (``checkpoint_shapes``), any other as a trace line's fields are checked
(``records.decode``); anything else raises ``ValueError``.

>>> from agdebug.debug.state import NodeView
>>> from agdebug.events.records import TensorSummary
>>> node = NodeView(3, "MulBackward0", "mul", outputs=(TensorSummary(7, (2,), "float32",
...                 "cpu", 8),), status="done", runs=1)
>>> writer = NodeWriter()
>>> text = writer.node_json(node)
>>> tables = {"summaries": writer.summaries, "shared": writer.shared}
>>> reader = NodeReader(lambda table, ns: [tables[table][n] for n in ns],
...                     {t: len(v) for t, v in tables.items()})
>>> reader.node(text) == node
True
>>> reader.node(b'[0, "done"]')
Traceback (most recent call last):
...
ValueError: node view: expected 12 fields
"""

from __future__ import annotations

import dataclasses
import json
import typing
from itertools import chain
from types import MappingProxyType

from ..events import records
from ..events.names import MAX_NAME
from . import checkpoint_shapes as shapes
from .cycles import CycleView
from .state import STATUSES, BackwardView, ErrorView, GraphState, LeafView, NodeView, SavedView

__all__ = ["NodeReader", "NodeWriter", "state_from_json", "state_json"]

_NODE_HINTS = tuple(typing.get_type_hints(NodeView)[name] for name in NodeView._fields)
_LEAVES = tuple[tuple[int, LeafView], ...]
_CYCLES = tuple[tuple[int, CycleView], ...]
_RUNNING = tuple[tuple[int, tuple[BackwardView, ...]], ...]
_STATE_FIELDS = {"step": int, "leaves": _LEAVES, "cycles": _CYCLES,
                 "last_error": ErrorView | None, "backward": BackwardView | None,
                 "current": int, "gc_passes": int, "running": _RUNNING}


_ATOMS = frozenset({str, int, float, bool, type(None)})
_NAMES: dict = {}   # dataclass -> its field names (looked up once: an index holds millions)


def _plain(value):
    """JSON-ready data: a view's fields in order (a node) or by name (the rest)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is tuple or kind is NodeView:
        return [v if type(v) in _ATOMS else _plain(v) for v in value]
    names = _NAMES.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(kind):
            return value
        names = _NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return {name: _plain(getattr(value, name)) for name in names}


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode   # (json.dumps's, called direct)


def _dumps(data) -> bytes:
    return _ENCODE(data).encode("utf-8")


def _loads(text: bytes, what: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"{what}: not JSON") from None


_INT_LIMIT = 1 << 63
_STATUSES = frozenset(STATUSES)
_SUMMARIES = {"inputs", "outputs", "buffer", "grads_in", "grads_out"}   # stored by number
# What a node's versions share (the forward's record of it), stored once per node: a
# version stores the rest, the number of its shared part, and which saved tensors are gone.
_SHARED = ("id", "name", "op", "edges", "inputs", "outputs", "saved", "attrs", "leaf",
           "created_step", "source", "module", "module_type")
_OWN = tuple(name for name in NodeView._fields if name not in _SHARED)
_HINT = dict(zip(NodeView._fields, _NODE_HINTS))
if NodeView._fields != ("id", "name", "op", "edges", "inputs", "outputs", "saved", "attrs",
                        "leaf", "status", "created_step", "remaining", "buffer",
                        "contributions", "grads_in", "grads_out", "hooks", "runs", "freed_by",
                        "error", "source", "module", "module_type"):
    raise ImportError("NodeReader.node and NodeWriter.node_json build node views in their "
                      "fields' order: update them")


class NodeWriter:
    """Node versions as JSON lists: what a node's versions share is stored once (in
    ``shared``), and each tensor summary once (in ``summaries``, by value: a node's
    versions, and the gradient one node sends and the next receives, share it)."""

    REMEMBERED = 65_536   # items it remembers to store once (past that: stored again)

    def __init__(self, summaries=None, shared=None):
        """``summaries``, ``shared``: where each table's JSON goes (``append``, ``len``);
        lists by default."""
        self.numbers: dict = {}
        self.summaries = [] if summaries is None else summaries
        self.parts: dict = {}
        self.shared = [] if shared is None else shared

    def forget_except(self, node_ids) -> None:
        """Forget what it stored but for the nodes ``node_ids`` (those that may have more
        versions to come): a long trace's writer then holds its live graph, not its past."""
        self.parts = {key: n for key, n in self.parts.items() if key[0] in node_ids}
        self.numbers.clear()

    def node_json(self, node: NodeView) -> bytes:
        saved = node.saved
        if any([s.released for s in saved]):
            saved = tuple(dataclasses.replace(s, released=False) for s in saved)
        key = (*node[:6], saved, *node[7:9], *node[10:11], *node[20:])   # (_SHARED's)
        number = self.parts.get(key)
        if number is None:
            if len(self.parts) >= self.REMEMBERED:   # (memory stays flat on long traces)
                self.parts.clear()
            number = self.parts[key] = len(self.shared)
            self.shared.append(_dumps([self._plain(n, v) for n, v in zip(_SHARED, key)]))
        refs = self._numbers
        return _dumps([number, node.status, node.remaining, refs(node.buffer),   # (_OWN's)
                       list(node.contributions), refs(node.grads_in), refs(node.grads_out),
                       list(node.hooks), node.runs, node.freed_by, node.error,
                       [s.released for s in node.saved]])

    def _numbers(self, summaries) -> list:
        return [self._number(s) for s in summaries] if summaries else []

    def _plain(self, name: str, value):
        if name in _SUMMARIES:
            return [self._number(s) for s in value]
        if name == "saved":   # (a list of its fields: half the text of an object's)
            return [[s.name, s.tensor, list(s.shape), s.dtype, s.nbytes, s.released,
                     s.version] for s in value]
        return self._number(value) if name == "leaf" else _plain(value)

    def _number(self, summary) -> int | None:
        if summary is None:
            return None
        number = self.numbers.get(summary)
        if number is None:
            if len(self.numbers) >= self.REMEMBERED:
                self.numbers.clear()
            number = self.numbers[summary] = len(self.summaries)
            self.summaries.append(_dumps([_plain(v) for v in _fields(summary)]))
        return number


class NodeReader:
    """Node versions back from ``NodeWriter``'s JSON, every field checked (the usual shapes
    by ``checkpoint_shapes``, the rest field by field). ``blobs(table,
    numbers)`` gives the JSON of those items (in increasing order) of a table ("summaries" or
    "shared", of ``counts`` items); each item is decoded once, then kept."""

    def __init__(self, blobs, counts: dict):
        self._blobs, self.counts = blobs, counts
        self.forget()

    def forget(self) -> None:
        """Drop the items decoded so far (they are read again when needed)."""
        self._kept = {"summaries": {None: None}, "shared": {}}

    def node(self, text: bytes) -> NodeView:
        return self.nodes([text])[0]

    def nodes(self, texts: list) -> list[NodeView]:
        """Node versions from their JSON, read together: each table's items that are new
        are parsed in one pass (a cold seek reads a thousand versions)."""
        rows = _loads_all(texts, "node view")
        if all(map(shapes.OWN.fullmatch, texts)):
            found = self._usual_nodes(rows)
            if found is not None:
                return found
        for row in rows:
            if type(row) is not list or len(row) != len(_OWN) + 2:
                raise ValueError(f"node view: expected {len(_OWN) + 2} fields")
        shared = self._raw("shared", [row[0] for row in rows])
        wanted = [n for row in rows for name in (3, 5, 6) if type(row[name]) is list
                  for n in row[name]]
        for data in shared.values():
            if type(data) is list and len(data) == len(_SHARED):
                wanted += [n for n in (*_list(data[4]), *_list(data[5]), data[8])]
        kept = self._kept["summaries"]
        for number, data in self._raw("summaries", wanted).items():
            kept[number] = _summary(data)
        for number, data in shared.items():
            self._kept["shared"][number] = self._decoded("shared", data)
        return [self._node(row) for row in rows]

    def _usual_nodes(self, rows: list) -> list[NodeView] | None:
        """``nodes`` when each item it reads has the usual shape (``checkpoint_shapes``):
        built with no field checked again. ``None`` otherwise, and the checked way (which
        says what is wrong) runs."""
        shared, usual = self._parsed("shared", {row[0] for row in rows}, shapes.SHARED)
        if not usual:
            return None
        wanted = set(chain.from_iterable([row[3] + row[5] + row[6] for row in rows]))
        for data in shared.values():
            wanted.update(data[4], data[5], (data[8],))
        summaries, usual = self._parsed("summaries", wanted, shapes.SUMMARY)
        kept, parts = self._kept["summaries"], self._kept["shared"]
        for number, data in summaries.items():   # (with statistics: checked)
            kept[number] = _usual_summary(*data) if usual else _summary(data)
        get = kept.__getitem__   # (kept[None] is None: an optional summary left out)
        try:
            for number, data in shared.items():
                parts[number] = _usual_shared(data, get)
            return [_usual_node(row, parts[row[0]], get) for row in rows]
        except KeyError:   # a number past its table's end
            return None

    def _parsed(self, table: str, numbers, shape) -> tuple[dict, bool]:
        """(``_raw``, whether the text of each item has the usual ``shape``)."""
        kept, count = self._kept[table], self.counts[table]
        todo = sorted([n for n in numbers if type(n) is int and 0 <= n < count
                       and n not in kept])
        texts = self._blobs(table, todo)
        return dict(zip(todo, _loads_all(texts, table))), all(map(shape.fullmatch, texts))

    def _raw(self, table: str, numbers) -> dict:
        """Number -> parsed JSON of each item of ``table`` in ``numbers`` not decoded yet."""
        kept, count = self._kept[table], self.counts[table]
        todo = sorted({n for n in numbers if type(n) is int and 0 <= n < count
                       and n not in kept})
        return dict(zip(todo, _loads_all(self._blobs(table, todo), table)))

    def _node(self, row: list) -> NodeView:
        number, status, remaining, buffer, counts, grads_in, grads_out, hooks, runs, \
            freed_by, error, flags = row   # (checked one by one: a seek reads hundreds)
        if not (status in _STATUSES and type(freed_by) is str and type(error) is str
                and _int(remaining) and _int(runs)
                and (counts == [] or _listed(int, counts))     # (empty: the usual case)
                and (hooks == [] or _listed(str, hooks))):
            raise ValueError("node view: a field of the wrong type")
        part = self._kept["shared"].get(number) if type(number) is int else None
        try:
            i, name, op, edges, inputs, outputs, saved, attrs, leaf, created, source, module, \
                module_type = part or self._item("shared", number)
        except records.RecordError as exc:
            raise ValueError(str(exc)) from None
        refs = self._refs
        if flags != [] or saved:
            saved = _released(saved, flags)
        return tuple.__new__(NodeView, (   # NodeView(...), its fields in order, quicker
            i, name, op, edges, inputs, outputs, saved, attrs, leaf, status, created,
            remaining, () if buffer == [] else refs(buffer), tuple(counts),
            () if grads_in == [] else refs(grads_in), () if grads_out == [] else
            refs(grads_out), tuple(hooks), runs, freed_by, error, source, module, module_type))

    def _refs(self, numbers, optional: bool = True) -> tuple:
        if type(numbers) is not list:
            raise ValueError("node view: expected a list of summaries")
        if not numbers:
            return ()
        kept = self._kept["summaries"]
        return tuple([kept.get(n) or self.summary(n, optional) if type(n) is int
                      else self.summary(n, optional) for n in numbers])

    def _field(self, name: str, value):
        hint = _HINT[name]
        if hint is str and type(value) is str:   # the common cases, checked first
            return value
        if hint is int and type(value) is int and -_INT_LIMIT <= value < _INT_LIMIT:
            return value
        if name in _SUMMARIES:
            return self._refs(value, name != "outputs")
        if name == "leaf":
            return self.summary(value, True)
        if name == "saved" and type(value) is list:   # (each a list of its fields)
            value = [dict(zip(_SAVED_KEYS, v)) if type(v) is list and len(v) == len(_SAVED_KEYS)
                     else v for v in value]
        quick = _QUICK.get(name)
        found = quick(value) if quick is not None else None
        return found if found is not None else records.decode(hint, value, f"node view.{name}")

    def summary(self, number, optional: bool):
        if number is None and optional:
            return None
        return self._item("summaries", number)

    def _item(self, table: str, number):
        kept = self._kept[table]
        if type(number) is not int or not 0 <= number < self.counts[table]:
            raise ValueError(f"node view: not a number of one of its {table}")
        found = kept.get(number)
        if found is None:
            data = _loads(self._blobs(table, [number])[0], table)
            found = kept[number] = self._decoded(table, data)
        return found

    def _decoded(self, table: str, data):
        if table == "summaries":
            return _summary(data)
        if type(data) is not list or len(data) != len(_SHARED):
            raise ValueError(f"node view: expected {len(_SHARED)} shared fields")
        return tuple([self._field(n, v) for n, v in zip(_SHARED, data)])


def _usual_node(row: list, part: tuple, get) -> NodeView:
    """A version whose text and shared ``part`` have the usual shapes; ``get``: summary
    number -> summary."""
    number, status, remaining, buffer, counts, grads_in, grads_out, hooks, runs, \
        freed_by, error, flags = row
    i, name, op, edges, inputs, outputs, saved, attrs, leaf, created, source, module, \
        module_type = part
    if len(flags) != len(saved):
        raise ValueError("node view: released flags do not match its saved tensors")
    if True in flags:
        saved = _released(saved, flags)
    return tuple.__new__(NodeView, (   # NodeView(...), its fields in order, quicker
        i, name, op, edges, inputs, outputs, saved, attrs, leaf, status, created, remaining,
        tuple(map(get, buffer)) if buffer else (), tuple(counts) if counts else (),
        tuple(map(get, grads_in)) if grads_in else (),
        tuple(map(get, grads_out)) if grads_out else (), tuple(hooks) if hooks else (), runs,
        freed_by, error, source, module, module_type))


def _usual_shared(data: list, get) -> tuple:
    i, name, op, edges, inputs, outputs, saved, attrs, leaf, created, source, module, \
        module_type = data
    saved = tuple([_saved_view(*v) for v in saved])
    return (i, name, op, tuple(map(tuple, edges)), tuple(map(get, inputs)),
            tuple(map(get, outputs)), saved, tuple(map(tuple, attrs)), get(leaf), created,
            source, module, module_type)


_SAVED_VIEWS: dict = {}   # one view per value: nodes save the same constants over and over


def _saved_view(name, tensor, shape, dtype, nbytes, released, version) -> SavedView:
    key = (name, tensor, tuple(shape), dtype, nbytes, released, version)
    found = _SAVED_VIEWS.get(key)
    if found is None:
        if len(_SAVED_VIEWS) >= 65_536:   # (bounded: a long trace just builds more)
            _SAVED_VIEWS.clear()
        found = _SAVED_VIEWS[key] = SavedView(*key)
    return found


def _usual_summary(tensor, shape, dtype, device, nbytes, stats, name) -> records.TensorSummary:
    return records.TensorSummary(tensor, tuple(shape), dtype, device, nbytes, None, name)


_SUMMARY_FIELDS = tuple(f.name for f in dataclasses.fields(records.TensorSummary))


def _fields(value) -> list:
    return [getattr(value, name) for name in _SUMMARY_FIELDS]


def _summary(data) -> records.TensorSummary:
    """A summary from its fields in order: the usual one (no statistics) checked here, any
    other through ``records.decode``, which also says what is wrong."""
    if type(data) is list and len(data) == len(_SUMMARY_FIELDS):
        tensor, shape, dtype, device, nbytes, stats, name = data
        if stats is None and _int(tensor) and _int(nbytes) and _listed(int, shape) \
                and type(dtype) is str and type(device) is str and type(name) is str \
                and len(name) <= MAX_NAME and name.isprintable():
            return records.TensorSummary(tensor, tuple(shape), dtype, device, nbytes, None,
                                         name)
        data = dict(zip(_SUMMARY_FIELDS, data))
    return records.decode(records.TensorSummary, data, "tensor summary")


# The usual shapes of a node's edges, attributes and saved tensors, checked in a few
# comparisons (a cold seek reads every node version it has not read yet: tens of
# thousands); ``None`` for anything else, which ``records.decode`` checks and explains.

def _quick_pairs(first: type, second: type):
    def pairs(value):
        if value == []:
            return ()
        if type(value) is list and all([type(p) is list and len(p) == 2 and type(p[0]) is first
                                        and type(p[1]) is second for p in value]) \
                and (first is not int or _all(int, [v for p in value for v in p])):
            return tuple(map(tuple, value))
        return None
    return pairs


_SAVED_KEYS = tuple(f.name for f in dataclasses.fields(SavedView))
if _SAVED_KEYS != ("name", "tensor", "shape", "dtype", "nbytes", "released", "version"):
    raise ImportError("_quick_saved and _released build saved views in their fields' order")


def _quick_saved(value):
    if type(value) is not list:
        return None
    out = []
    for item in value:
        if type(item) is not dict or tuple(item) != _SAVED_KEYS:
            return None
        name, tensor, shape, dtype, nbytes, released, version = item.values()
        if not (type(name) is str and type(dtype) is str and _int(tensor) and _int(nbytes)
                and _int(version) and _listed(int, shape) and type(released) is bool):
            return None
        out.append(SavedView(name, tensor, tuple(shape), dtype, nbytes, released, version))
    return tuple(out)


_QUICK = {"edges": _quick_pairs(int, int), "attrs": _quick_pairs(str, str),
          "saved": _quick_saved}


def _loads_all(texts: list, what: str) -> list:
    """Each of ``texts`` parsed as JSON, in one parse of them all (one JSON value each, or
    a ``ValueError``)."""
    if not texts:
        return []
    if len(texts) == 1:
        return [_loads(texts[0], what)]
    found = _loads(b"[" + b",".join(texts) + b"]", what)
    if len(found) != len(texts):
        raise ValueError(f"{what}: not JSON")
    return found


def _list(value) -> list:
    return value if type(value) is list else []


def _all(kind: type, values) -> bool:
    """Every one of ``values`` (a list or tuple) of type ``kind`` (an int: within int64)."""
    if not values:
        return True
    if set(map(type, values)) != {kind}:
        return False
    return kind is not int or (-_INT_LIMIT <= min(values) and max(values) < _INT_LIMIT)


def _int(value) -> bool:
    return type(value) is int and -_INT_LIMIT <= value < _INT_LIMIT


def _listed(kind: type, values) -> bool:
    return type(values) is list and (not values or _all(kind, values))


def _released(saved: tuple, flags) -> tuple:
    """``saved`` with the views ``flags`` marks released."""
    if type(flags) is not list or len(flags) != len(saved) \
            or (flags and not all([type(f) is bool for f in flags])):
        raise ValueError("node view: released flags do not match its saved tensors")
    if not any(flags):
        return saved
    return tuple(SavedView(s.name, s.tensor, s.shape, s.dtype, s.nbytes, True, s.version)
                 if f else s for s, f in zip(saved, flags))   # (a replace, quicker)


def state_json(state: GraphState) -> bytes:
    """Everything in ``state`` but its nodes (a checkpoint keeps those in pages)."""
    data = {name: _plain(getattr(state, name)) for name in ("step", "last_error", "backward",
                                                            "current", "gc_passes")}
    for name in ("leaves", "cycles"):
        data[name] = [[key, _plain(view)] for key, view in getattr(state, name).items()]
    data["running"] = [[thread, _plain(stack)] for thread, stack in state.running.items()]
    data["event"] = None if state.event is None else state.event.to_dict()
    return _dumps(data)


def _state_field(name: str, tp, value):
    if name == "backward" and value is not None:
        found = _quick_backward(value)
    elif name == "running" and type(value) is list:
        found = _quick_running(value)
    else:
        found = None
    return found if found is not None else records.decode(tp, value, f"checkpoint.{name}")


_BACKWARD_KEYS = tuple(f.name for f in dataclasses.fields(BackwardView))


def _quick_backward(data):
    """The usual backward view, checked in a few comparisons (during a backward each
    checkpoint holds the ids of the thousands of nodes it planned, twice); else ``None``."""
    if type(data) is not dict or tuple(data) != _BACKWARD_KEYS:
        return None
    api, roots, inputs, retain, create, ok, thread, nodes = data.values()
    if not (type(api) is str and _listed(int, roots) and _listed(int, nodes)
            and (inputs is None or _listed(int, inputs)) and type(retain) is bool
            and type(create) is bool and (ok is None or type(ok) is bool)
            and _all(int, (thread,))):
        return None
    return BackwardView(api, tuple(roots), None if inputs is None else tuple(inputs), retain,
                        create, ok, thread, tuple(nodes))


def _quick_running(value):
    out = []
    for item in value:
        if not (type(item) is list and len(item) == 2 and _all(int, item[:1])
                and type(item[1]) is list):
            return None
        stack = [_quick_backward(view) for view in item[1]]
        if None in stack:
            return None
        out.append((item[0], tuple(stack)))
    return tuple(out)


def state_from_json(text: bytes) -> GraphState:
    """The ``GraphState`` (with no nodes) that ``state_json`` wrote."""
    data = _loads(text, "checkpoint")
    if not isinstance(data, dict) or set(data) != {*_STATE_FIELDS, "event"}:
        raise ValueError("checkpoint: not a checkpoint's fields")
    try:
        values = {name: _state_field(name, tp, data[name]) for name, tp in _STATE_FIELDS.items()}
        event = None if data["event"] is None else records.event_from_dict(data["event"])
    except records.RecordError as exc:
        raise ValueError(str(exc)) from None
    maps = {name: MappingProxyType(dict(values.pop(name)))
            for name in ("leaves", "cycles", "running")}
    return GraphState(nodes=MappingProxyType({}), event=event, **values, **maps)
