"""Event records: one immutable record per step the engine takes.

Records are plain data (ints, strings, tuples, nested summaries): never a live
tensor or node, so that watching the engine cannot keep anything alive. Nodes
and tensors are named by stable ids the library assigns (``node._id`` and
``agdebug.events.probe.tensor_id``), never by ``id()``.

Every record has a ``seq`` (its place in the stream) and a class-level
``kind`` in snake_case, which is also its name in trace files:

>>> from agdebug.events.records import GcPass, event_from_dict
>>> e = GcPass(seq=7, generation=2, collected=10, uncollectable=0)
>>> e.kind, e.to_dict()["collected"]
('gc_pass', 10)
>>> event_from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass
from typing import ClassVar

from .names import MAX_NAME
from . import encoding, json_shapes

__all__ = [
    "EVENT_TYPES",
    "BackwardFinished",
    "BackwardPlanned",
    "BackwardStarted",
    "BufferAccumulated",
    "CycleBroken",
    "CycleDetected",
    "Error",
    "Event",
    "GcPass",
    "GradAccumulated",
    "GradSet",
    "HookCalled",
    "NodeCreated",
    "NodeFinished",
    "NodeFreed",
    "NodeStarted",
    "PlannedNode",
    "Printed",
    "RecordError",
    "SavedReleased",
    "SavedSummary",
    "Stats",
    "TensorSummary",
    "builder",
    "decode",
    "describe",
    "event_from_dict",
]

def _frozen(cls):
    """``@dataclass(frozen=True, slots=True)``, with a cheaper ``__init__`` and a ``builder``.

    A frozen class refuses plain assignment, so the generated ``__init__`` sets each field
    through ``object.__setattr__``: a call per field, and the engine builds several records
    per step while watching. Here a twin class with the same slots allows assignment: its
    ``__init__`` assigns the fields and turns the instance into ``cls``; ``cls``'s own first
    turns the instance into the twin. Same signature, defaults and result: a frozen
    dataclass. Record classes are final: a subclass needs ``@_frozen`` of its own.
    """
    cls = dataclass(frozen=True, slots=True)(cls)
    twin = _TWINS[cls] = _open_twin(cls)
    cls.__init__ = _init(cls, twin, "    _become(self, _twin)\n")
    twin.__init__ = _init(cls, twin, "")
    return cls


def builder(cls) -> type:
    """What builds a ``cls`` record fastest: called like ``cls``, it returns a ``cls``.

    >>> builder(GcPass)(1, 0, 0, 0) == GcPass(1, 0, 0, 0)
    True
    """
    return _TWINS[cls]


_TWINS: dict[type, type] = {}
_SET_CLASS = object.__dict__["__class__"].__set__   # ``obj.__class__ = c``, past __setattr__


def _open_twin(cls) -> type:
    """A subclass of ``cls`` with no slots of its own whose instances accept assignment.

    Both ``__setattr__`` and ``__delattr__`` must be object's own: then CPython gives the
    twin the generic attribute setter, and ``self.x = v`` stores straight into the slot.
    """
    return type(f"_Open{cls.__name__}", (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__, "__module__": cls.__module__})


def _init(cls, twin: type, first: str):
    """An ``__init__`` for ``cls`` or its twin: ``first``, the fields, then ``cls`` again."""
    scope = {"_twin": twin, "_cls": cls, "_become": _SET_CLASS}
    params, keywords = [], []
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            (keywords if f.kw_only else params).append(f"{f.name}=_default_{f.name}")
    if keywords:
        params += ["*", *keywords]
    body = "".join(f"    self.{f.name} = {f.name}\n" for f in dataclasses.fields(cls))
    text = f"def __init__(self, {', '.join(params)}):\n{first}{body}    self.__class__ = _cls\n"
    exec(text, scope)  # noqa: S102 - fixed text
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    return init


class RecordError(ValueError):
    """A dict that is not a valid event record (bad kind, missing field, wrong type)."""


# ----------------------------------------------------------------------------- summaries

@_frozen
class Stats:
    """Values of a tensor, computed only when a subscriber asks for them."""

    preview: tuple[float, ...]   # the first few elements, flattened
    min: float | None
    max: float | None
    mean: float | None
    norm: float | None
    nan: int
    inf: int


@_frozen
class TensorSummary:
    """What a tensor looks like: never the tensor itself."""

    id: int
    shape: tuple[int, ...]
    dtype: str
    device: str
    nbytes: int
    stats: Stats | None = None
    # What the user called it: ``x`` (the line that made it), ``0.weight`` (a module's
    # parameter), "" when nothing names it (older traces, which lack it, still load). Last
    # and positional: a keyword costs every summary the probe builds about 0.1 us.
    name: str = ""

    def label(self) -> str:
        """The user's name for it, else ``t<id>``."""
        return self.name or f"t{self.id}"

    def describe(self) -> str:
        """``[2, 3] float32`` (with ``cuda:0`` when not on the CPU)."""
        text = f"{list(self.shape)} {self.dtype}"
        return text if self.device == "cpu" else f"{text} {self.device}"


@_frozen
class SavedSummary:
    """One tensor (or scalar) a node saved for its backward."""

    name: str
    tensor: int          # stable id of the saved tensor; 0 for a saved Python scalar
    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    version: int = -1    # the tensor's version when saved (-1: a scalar, or an older trace)


@_frozen
class PlannedNode:
    """A node reachable from a backward's roots, with its dependency count."""

    node: int
    name: str
    deps: int                            # edges pointing at it in this backward
    runs: bool                           # False when ``inputs=`` pruned it
    edges: tuple[tuple[int, int], ...]   # (node id or 0, output_nr) per next function


# ----------------------------------------------------------------------------- events

@_frozen
class Event:
    """Base of every record: ``seq`` orders the stream."""

    kind: ClassVar[str] = "event"
    seq: int
    # The recording's number for the thread whose step this is (0: not recorded, as in
    # format version 1). Keyword-only, so every record keeps its positional fields.
    thread: int = dataclasses.field(default=0, kw_only=True)

    def to_dict(self) -> dict:
        """A JSON-ready dict, ``kind`` first."""
        out = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _encode(getattr(self, f.name))
        return out


@_frozen
class NodeCreated(Event):
    """The forward pass recorded a node (op nodes, and leaves' AccumulateGrad)."""

    kind: ClassVar[str] = "node_created"
    node: int
    name: str                              # MulBackward0, AccumulateGrad...
    op: str                                # the op's name ("mul"), "" when not an op node
    edges: tuple[tuple[int, int], ...]     # (node id or 0, output_nr) per next function
    inputs: tuple[TensorSummary | None, ...]
    outputs: tuple[TensorSummary, ...]
    saved: tuple[SavedSummary, ...]
    attrs: tuple[tuple[str, str], ...]     # (name, repr) of non-tensor attributes
    leaf: TensorSummary | None = None   # the leaf of an AccumulateGrad
    source: str = ""                       # "file.py:12: y = x * w", the user's line making it
    source_path: str = ""   # the absolute path of ``source``'s file ("": unknown, older traces)
    # The innermost nn.Module call making it ("" outside any; "" in older traces too): its
    # dotted path as named_modules() names it under the outermost module called, and class.
    module: str = ""                       # "layers.0.self_attn"
    module_type: str = ""                  # "MultiheadAttention"


@_frozen
class BackwardStarted(Event):
    """``backward()`` or ``autograd.grad()`` began."""

    kind: ClassVar[str] = "backward_started"
    api: str                                   # "backward" or "grad"
    roots: tuple[int, ...]                     # node ids the root gradients flow into
    grads: tuple[TensorSummary | None, ...]  # the root gradients
    inputs: tuple[int, ...] | None          # node ids of ``inputs=``, None for all leaves
    retain_graph: bool
    create_graph: bool
    source: str = ""                         # the user's line calling it ("" in older traces)
    source_path: str = ""   # the absolute path of ``source``'s file ("": unknown, older traces)


@_frozen
class BackwardPlanned(Event):
    """The engine counted dependencies and pruned: what this backward will run."""

    kind: ClassVar[str] = "backward_planned"
    nodes: tuple[PlannedNode, ...]


@_frozen
class NodeStarted(Event):
    """The engine took a node from the ready queue (its input buffer is complete)."""

    kind: ClassVar[str] = "node_started"
    node: int
    name: str
    grads: tuple[TensorSummary | None, ...]   # incoming gradients, one per output
    runs: bool                                   # False: only captured for autograd.grad


@_frozen
class NodeFinished(Event):
    """A node ran; ``grads`` are its outgoing gradients, one per next function."""

    kind: ClassVar[str] = "node_finished"
    node: int
    grads: tuple[TensorSummary | None, ...]


@_frozen
class BufferAccumulated(Event):
    """A gradient arrived in a node's input buffer along the edge source -> node."""

    kind: ClassVar[str] = "buffer_accumulated"
    node: int
    slot: int            # which output of ``node`` the gradient belongs to
    source: int          # the node that produced the gradient
    grad: TensorSummary | None
    contributions: int   # gradients summed into this slot so far
    remaining: int       # edges still to arrive before ``node`` is ready


@_frozen
class GradAccumulated(Event):
    """A leaf's ``.grad`` was set or summed by AccumulateGrad."""

    kind: ClassVar[str] = "grad_accumulated"
    node: int            # the AccumulateGrad
    tensor: int          # the leaf
    mode: str            # "new", "inplace" (summed into the same tensor) or "summed"
    grad: TensorSummary  # the leaf's ``.grad`` afterwards
    grad_fn: int         # node id of the new ``.grad``'s grad_fn, 0 when it has none


@_frozen
class GradSet(Event):
    """User code assigned or deleted a tensor's ``.grad``."""

    kind: ClassVar[str] = "grad_set"
    tensor: int
    grad: TensorSummary | None
    grad_fn: int


@_frozen
class HookCalled(Event):
    """A hook ran; ``replaced`` when it returned a new value."""

    kind: ClassVar[str] = "hook_called"
    node: int
    hook: str            # "tensor", "pre", "post" or "post_accumulate"
    name: str            # the hook function's __name__
    replaced: bool
    source: str = ""     # the line defining the hook, when it is the user's ("": unknown)
    source_path: str = ""   # the absolute path of ``source``'s file ("": unknown, older traces)


@_frozen
class SavedReleased(Event):
    """A node's saved tensors were freed after it ran (no ``retain_graph``)."""

    kind: ClassVar[str] = "saved_released"
    node: int
    names: tuple[str, ...]
    nbytes: int


@_frozen
class NodeFreed(Event):
    """A node object died: ``by`` is "refcount" or "gc" (freed inside a cyclic GC pass)."""

    kind: ClassVar[str] = "node_freed"
    node: int
    by: str


@_frozen
class CycleDetected(Event):
    """A reference cycle through a leaf: ``path`` names it, e.g. t1 -> t9 -> n8 -> n2 -> t1."""

    kind: ClassVar[str] = "cycle_detected"
    leaf: int
    path: tuple[str, ...]   # "t<id>" for tensors, "n<id>" for nodes; first == last
    nodes: tuple[int, ...]  # the node ids on the path, in order


@_frozen
class CycleBroken(Event):
    """A cycle through ``leaf`` was broken (its ``.grad`` was cleared or reassigned)."""

    kind: ClassVar[str] = "cycle_broken"
    leaf: int
    reason: str


@_frozen
class GcPass(Event):
    """Python's cyclic GC finished a pass that freed graph nodes, or a full one (generation
    2, as ``gc.collect()`` runs); ``collected`` counts every object it collected."""

    kind: ClassVar[str] = "gc_pass"
    generation: int
    collected: int
    uncollectable: int


@_frozen
class Error(Event):
    """An error was raised (``node`` 0 when it is not tied to a node)."""

    kind: ClassVar[str] = "error"
    type: str
    message: str
    node: int
    source: str = ""     # the user's line the error names: where it was raised ("": unknown)
    source_path: str = ""   # the absolute path of ``source``'s file ("": unknown, older traces)


@_frozen
class BackwardFinished(Event):
    """A backward ended, successfully (``ok``) or by an error."""

    kind: ClassVar[str] = "backward_finished"
    api: str
    ok: bool


@_frozen
class Printed(Event):
    """The watched program wrote ``text`` to ``stream`` ("stdout" or "stderr"): a trace
    keeps each print at its place among the engine's steps. (Traces from before it have
    no such events.)"""

    kind: ClassVar[str] = "printed"
    stream: str
    text: str


EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in (
    NodeCreated, BackwardStarted, BackwardPlanned, NodeStarted, NodeFinished,
    BufferAccumulated, GradAccumulated, GradSet, HookCalled, SavedReleased, NodeFreed,
    CycleDetected, CycleBroken, GcPass, Error, BackwardFinished, Printed)}


# ----------------------------------------------------------------------------- codec

def to_json(event: Event) -> str:
    """One event as one line of JSON, exactly ``json.dumps(event.to_dict())`` (compact),
    written by ``encoding``'s per-class f-strings: the recorder writes every event
    through this."""
    return encoding.to_json(event)


def _encode(value):
    if dataclasses.is_dataclass(value):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def event_from_dict(data: dict) -> Event:
    """Rebuild an event from ``to_dict()`` output, checking every field's type."""
    if not isinstance(data, dict):
        raise RecordError(f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RecordError(f"unknown event kind {kind!r}")
    body = {k: v for k, v in data.items() if k != "kind"}
    return _decoder(cls)(body, kind)


def event_from_json(line: str, data) -> Event:
    """``event_from_dict(data)``, ``data`` being the trace line ``line`` parsed: a line of
    the usual shape (``json_shapes``: what the recorder writes) is built without checking
    each field again; any other goes the checked way, which says what is wrong."""
    if type(data) is dict:
        kind = data.get("kind")
        usual = _usual_line(kind) if type(kind) is str and kind in EVENT_TYPES else None
        if usual is not None and usual[0].fullmatch(line):
            try:
                return usual[1](data)
            except RecordError:   # (statistics half given: the checked way says where)
                pass
    return event_from_dict(data)


_USUAL_LINES: dict = {}   # kind -> (the compiled shape of its line, its builder)


def _usual_line(kind: str) -> tuple:
    found = _USUAL_LINES.get(kind)
    if found is None:
        cls = EVENT_TYPES[kind]
        shape = json_shapes.pattern(cls, kind=kind, labels=frozenset({(TensorSummary, "name")}))
        build = json_shapes.event_builder(cls, ((Stats, _check_usual_stats),), builder)
        found = _USUAL_LINES[kind] = (re.compile(shape), build)
    return found


def decode(tp, value, where: str):
    """``value`` (JSON data) as the type ``tp`` names (a record, ``tuple[int, ...]``, ``str |
    None``...), checked as an event's fields are; a ``RecordError`` says where it is wrong."""
    return _decoder(tp)(value, where)


# Decoders are built once per type (from its hints) and kept: a trace file decodes
# millions of fields, and reading the hints again for each cost most of a line's time.
_DECODERS: dict = {}


def _decoder(tp):
    found = _DECODERS.get(tp)
    if found is None:
        found = _DECODERS[tp] = _make_decoder(tp)
    return found


def _make_decoder(tp):
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        inner = _decoder([a for a in typing.get_args(tp) if a is not type(None)][0])
        return lambda value, where: None if value is None else inner(value, where)
    if origin is tuple:
        return _tuple_decoder(typing.get_args(tp))
    if dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    return _scalar_decoder(tp)


def _dataclass_decoder(cls):
    hints = typing.get_type_hints(cls)
    fields = [(f.name, _decoder(hints[f.name]), f.default is dataclasses.MISSING)
              for f in dataclasses.fields(cls)]
    names = {name for name, _, _ in fields}
    check = {Stats: _check_stats, TensorSummary: _check_summary}.get(cls)

    def decode_record(data, where: str):
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected an object, got {type(data).__name__}")
        if len(data) > len(names) or not names.issuperset(data):
            raise RecordError(f"{where}: unexpected field {sorted(set(data) - names)[0]!r}")
        values = {}
        for name, field_decoder, required in fields:
            if name in data:
                values[name] = field_decoder(data[name], f"{where}.{name}")
            elif required:
                raise RecordError(f"{where}: missing field {name!r}")
        if check is not None:
            check(values, where)
        return cls(**values)
    return decode_record


def _check_usual_stats(values: dict) -> None:
    _check_stats(values, "stats")


def _check_summary(values: dict, where: str) -> None:
    _check_name(values.get("name", ""), where)


def _check_name(name: str, where: str) -> None:
    # A name is drawn as a label in the TUI and the exports: short, one line, no controls.
    if len(name) > MAX_NAME or not name.isprintable():
        raise RecordError(f"{where}.name: not a name (over {MAX_NAME} characters, or "
                          "control characters)")


def _check_stats(values: dict, where: str) -> None:
    # The probe gives all four statistics or none (an empty or non-numeric tensor): what
    # shows them formats all four once ``min`` is there.
    given = [values.get(k) is not None for k in ("min", "max", "mean", "norm")]
    if any(given) and not all(given):
        raise RecordError(f"{where}: min, max, mean and norm must all be numbers or all null")


def _tuple_decoder(args):
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def decode_items(value, where: str) -> tuple:
            if not isinstance(value, list):
                raise RecordError(f"{where}: expected a list, got {type(value).__name__}")
            return tuple([item(v, where) for v in value])
        return decode_items
    items = [_decoder(a) for a in args]

    def decode_fixed(value, where: str) -> tuple:
        if not isinstance(value, list):
            raise RecordError(f"{where}: expected a list, got {type(value).__name__}")
        if len(value) != len(items):
            raise RecordError(f"{where}: expected {len(items)} items, got {len(value)}")
        return tuple([d(v, where) for d, v in zip(items, value)])
    return decode_fixed


def _scalar_decoder(tp):
    def decode_scalar(value, where: str):
        if type(value) is tp and tp is not int:   # the common case, checked first
            return value
        return _decode_scalar(tp, value, where)
    return decode_scalar


def _decode_scalar(tp, value, where: str):
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    ok = isinstance(value, tp) and (tp is bool or not isinstance(value, bool))
    if not ok:
        raise RecordError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")
    if tp is int and not -_INT_LIMIT <= value < _INT_LIMIT:
        raise RecordError(f"{where}: integer out of range (over 64 bits)")
    return value


_INT_LIMIT = 1 << 63   # ids, sizes and counts all fit in 64 bits; a float of the rest overflows


def describe(event) -> str:
    """One line for people: ``node_started n3 MulBackward0 grads [2]``."""
    skip = {"seq", "kind", "thread"}
    parts = [event.kind]
    for f in dataclasses.fields(event):
        if f.name in skip:
            continue
        parts.append(f"{f.name}={_brief(getattr(event, f.name))}")
    return " ".join(parts)


def _brief(value) -> str:
    if isinstance(value, TensorSummary):
        return f"t{value.id}{list(value.shape)}"
    if isinstance(value, PlannedNode):
        return f"n{value.node}"
    if isinstance(value, SavedSummary):
        return value.name
    if isinstance(value, tuple):
        items = [_brief(v) for v in value[:8]]
        more = ",..." if len(value) > 8 else ""
        return "(" + ",".join(items) + more + ")"
    if isinstance(value, str):
        return value if len(value) <= 60 else value[:57] + "..."
    return str(value)
