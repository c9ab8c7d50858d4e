"""The adapter the engine calls (behind ``if WATCH.on:``) to publish events.

It turns tensors and nodes into plain summaries on the spot and keeps no
reference to either: node lifetimes are observed with weak references (whose
callback knows only the node's id) and GC passes with ``gc.callbacks``.
Objects are read duck-typed (``_data``, ``_id``, ``_next``...), so the
events layer imports nothing above it. Tensor ids are assigned here (``tensor_id``),
the first time a tensor appears in an event. It runs several times per engine step
while watching, so it reuses what it can prove unchanged (a tensor's summary, a
node's name and edges) instead of building it again.

Values (preview and statistics) are computed only when a subscriber asked for
them (``WATCH.values``): on a GPU they cost a device sync.
"""

from __future__ import annotations

import collections
import gc
import itertools
import linecache
import os
import sys
import sysconfig
import threading
import weakref

import numpy as np

from ..backend import device_of_array, get_dtype, is_array
from . import bus as _bus
from . import modules as _modules
from . import names as _names
from . import records as r
from .bus import WATCH, on_change, publish
from .bus import _seq as _bus_seq

__all__ = [
    "accumulator_created",
    "backward_failed",
    "backward_finished",
    "backward_planned",
    "backward_started",
    "buffer_accumulated",
    "failed_at",
    "grad_accumulated",
    "grad_set",
    "hook_called",
    "leaf_made",
    "node_created",
    "node_finished",
    "node_started",
    "PrintedLines",
    "printed",
    "saved_released",
    "summarize",
]

PREVIEW = 6
_NDARRAY = np.ndarray   # exactly: CuPy's test double subclasses it

# The records built at every step, through their fastest builders (``records.builder``).
_TensorSummary = r.builder(r.TensorSummary)
_SavedSummary = r.builder(r.SavedSummary)
_NodeCreated = r.builder(r.NodeCreated)
_PlannedNode = r.builder(r.PlannedNode)
_NodeStarted = r.builder(r.NodeStarted)
_NodeFinished = r.builder(r.NodeFinished)
_BufferAccumulated = r.builder(r.BufferAccumulated)
_SavedReleased = r.builder(r.SavedReleased)
_NodeFreed = r.builder(r.NodeFreed)


class _Emitting:
    """Delivery state: what waits to be delivered, and whose event is being delivered."""

    __slots__ = ("origin", "pending")

    def __init__(self):
        self.pending: collections.deque = collections.deque()
        self.origin: threading.Thread | None = None   # emitter of the event in delivery


_EMITTING = _Emitting()
# Whoever takes the one key delivers; nobody ever waits for it. ``dict.pop(key, None)`` takes
# it atomically (one C call under the GIL), without ``Lock.acquire(False)``'s per-call
# argument parsing: delivery happens several times per engine step.
_TURN: dict[str, bool] = {"turn": True}


def _emit(cls, *values, **fields) -> None:
    """Build a ``cls`` record from its fields after ``seq`` and publish it."""
    _send(cls(0, *values, **fields))


def _send(event) -> None:
    # Records are built with seq 0 and stamped here, in delivery order, as they enter the
    # stream (before any subscriber sees them), whichever thread built them. Building
    # outside the turn also spares the hot path a starred call.
    # A GC pass or a finalizer can fire while an event is being delivered: its event is
    # queued and published right after, so ``seq`` stays in stream order.
    # Another thread never waits for its turn: the delivering thread may be paused inside
    # a subscriber (the live stepper) until that very thread (a UI) says go on, so the
    # event is queued for the deliverer; the loop re-checks after giving the turn back.
    # The common case (nothing queued, nobody delivering) skips the queue.
    number = _THREAD.number
    if number:   # the process's first thread is 0, the records' default: no stamp to make
        _stamp_thread(event, number if number > 0 else _number_thread())
    if _PENDING or _TURN.pop("turn", None) is None:
        _PENDING.append((event, threading.current_thread()))
        _deliver_pending()
        return
    try:
        _stamp(event, _next_seq())
        for callback in _bus._callbacks:
            callback(event)
        if _PENDING:
            _drain()
    finally:
        _TURN["turn"] = True
    if _PENDING:
        _deliver_pending()


_stamp = r.Event.seq.__set__   # the slot's own setter: records are frozen to everyone else
_stamp_thread = r.Event.thread.__set__


class _ThreadNumber(threading.local):
    number = -1   # this thread's number in events (-1 until its first event)


_THREAD = _ThreadNumber()
_thread_numbers = itertools.count(0)


def _number_thread() -> int:
    # Numbers, not ``threading.get_ident()``: an ident is reused once its thread ends.
    _THREAD.number = number = next(_thread_numbers)
    return number
_next_seq = _bus_seq.__next__
_PENDING = _EMITTING.pending   # (one deque for the life of the process)


def _deliver_pending() -> None:
    state = _EMITTING
    while state.pending and _TURN.pop("turn", None) is not None:
        try:
            _drain()
        finally:
            _TURN["turn"] = True


def _drain() -> None:
    state = _EMITTING
    pending = state.pending
    try:
        while pending:
            event, state.origin = pending.popleft()
            _stamp(event, _next_seq())
            publish(event)
    finally:
        state.origin = None


def origin_thread() -> threading.Thread:
    """The thread whose step the event being delivered records (not always the caller)."""
    # ``origin`` is None while delivering an event the delivering thread emitted itself.
    return _EMITTING.origin or threading.current_thread()


# ----------------------------------------------------------------------------- summaries

def tensor_id(t) -> int:
    return t._id or _new_id(t)


_tensor_ids = itertools.count(1)


def _new_id(t) -> int:
    # Tensor ids are assigned here, on first sight while watching: events own them.
    t._id = tid = next(_tensor_ids)
    return tid


_DTYPE_NAMES: dict = {}   # numpy/cupy dtype -> agdebug's name for it


def _dtype_name(dtype) -> str:
    # numpy's dtype.name is slow (it formats the name each time): our dtype table has it.
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = get_dtype(dtype).name
    return name


# Tensor id -> its last summary without values. A tensor is usually summarized again a
# step later (an op's output is the next op's input; a gradient leaves one node and enters
# the next), and a frozen summary can be shared by events: reusing it saves building a
# record and gives the cyclic GC fewer objects to scan. It is reused only while everything
# it says still holds; a summary with values never is (they can change in place).
_SHARED: dict[int, r.TensorSummary] = {}


def summarize(t) -> r.TensorSummary | None:
    """A tensor's summary (``None`` for ``None``), with values when asked for."""
    if t is None:
        return None
    data = t._data
    tid = t._id
    if type(data) is not _NDARRAY or WATCH.values:
        return _summary(tid or _new_id(t), data)
    if tid:   # seen before: its last summary, while the shape and dtype it gives still hold
        summary = _SHARED.get(tid)
        # (an array's nbytes is its size times its itemsize, whatever its strides)
        if (summary is not None and summary.shape == data.shape
                and summary.dtype == _DTYPE_NAMES.get(data.dtype)):
            return summary
    else:     # first seen (most gradients): nothing to look up
        tid = _new_id(t)
    if len(_SHARED) >= 4096:   # bounded: ids never repeat, old entries are just dropped
        _SHARED.clear()
    summary = _SHARED[tid] = _summary(tid, data)
    return summary


def _summary(tid: int, data) -> r.TensorSummary:
    device = "cpu" if type(data) is _NDARRAY else str(device_of_array(data))
    key = (data.shape, data.dtype)
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = (key[0], _dtype_name(key[1]), data.nbytes)
        if len(_LAYOUTS) < 4096:
            _LAYOUTS[key] = layout
    shape, dtype, nbytes = layout
    return _TensorSummary(tid, shape, dtype, device, nbytes,
                          _stats(data) if WATCH.values else None, _TENSOR_NAMES.get(tid, ""))


# (shape, array dtype) -> (shape, dtype name, nbytes) as summaries give them, each shape
# tuple kept once: every object an event holds is one more for the cyclic GC to track and
# scan while the trace lives, and most runs repeat a few shapes. Name tuples, the same way.
_LAYOUTS: dict[tuple, tuple] = {}
_NAMES: dict[tuple, tuple] = {}


def _stats(data) -> r.Stats:
    flat = data.reshape(-1)
    preview = tuple(_num(v) for v in flat[:PREVIEW].tolist())
    if flat.size == 0 or data.dtype.kind not in "fciub":
        return r.Stats(preview, None, None, None, None, 0, 0)
    if data.dtype.kind == "c":
        flat = abs(flat)
    values = flat.astype("float64")
    nan = int((values != values).sum())
    inf = int((abs(values) == float("inf")).sum())
    return r.Stats(preview, float(values.min()), float(values.max()), float(values.mean()),
                   float((values * values).sum() ** 0.5), nan, inf)


def _num(v) -> float:
    return float(abs(v)) if isinstance(v, complex) else float(v)


# The helpers below loop into a list rather than use a comprehension: in Python 3.11 a
# comprehension is a function call of its own, and these run a few times per step on one or
# two items each. Lists, not generators: tuple() of a short list is several times cheaper.

def _summaries(tensors) -> tuple:
    if len(tensors) == 1:   # most outputs and gradients: no list
        t = tensors[0]
        return (summarize(t) if hasattr(t, "_data") else None,)
    out = []
    for t in tensors:
        out.append(summarize(t) if hasattr(t, "_data") else None)
    return tuple(out)


def _edges(node) -> tuple:
    out = []
    for fn, nr in zip(node._next, node._next_nr):   # (output numbers are ints: ``_output_nr``)
        # ``(0, 0)`` is a constant: no new tuple for an input that needs no gradient.
        out.append((fn._id, nr) if fn is not None else (0, nr) if nr else (0, 0))
    return tuple(out)


def _saved(saved: dict, renames: dict) -> tuple:
    out = []
    for name, s in saved.items():
        name = renames.get(name, name)   # torch's name (``self``), not the forward's (``x``)
        if "[" in name:   # an item of a list torch saves under one name (``indices[1]``)
            name = name[:name.index("[")]
        # Asked of the value, not its type: a failed lookup on a type raises inside (slow).
        if hasattr(s, "release"):   # a SavedTensor
            out.append(_saved_tensor_summary(name, s))
        elif type(s) in _NUMBERS:   # a saved Python number (torch saves it as a tensor)
            out.append(_value_summary(name, type(s)))
        # (None for an absent optional input, or a size: nothing torch saves as a tensor)
    return tuple(out)


def _saved_tensor_summary(name: str, s) -> r.SavedSummary:
    tensor = s._tensor   # a SavedTensor: the tensor, or (a saved output) its array
    data = tensor._data if tensor is not None else s._data
    if data is not None:
        shape, dtype = data.shape, _dtype_name(data.dtype)
    else:                # packed by saved-tensor hooks, or released
        shape, dtype = (), "NoneType"
    tid = tensor_id(tensor) if tensor is not None else _weak_id(s)
    return _SavedSummary(name, tid, shape, dtype, int(s.nbytes),
                         getattr(s, "_saved_version", -1))


_NUMBERS = frozenset((bool, int, float, complex))
_NO_RENAMES: dict = {}
_VALUE_SUMMARIES: dict[tuple[str, type], r.SavedSummary] = {}


def _value_summary(name: str, kind: type) -> r.SavedSummary:
    # A saved Python value is summarized by its name and type alone: one shared record each.
    summary = _VALUE_SUMMARIES.get((name, kind))
    if summary is None:
        if len(_VALUE_SUMMARIES) >= 1024:
            _VALUE_SUMMARIES.clear()
        summary = _VALUE_SUMMARIES[name, kind] = _SavedSummary(name, 0, (), kind.__name__, 0)
    return summary


def _weak_id(saved) -> int:
    ref = saved._weak
    tensor = ref() if ref is not None else None
    return tensor_id(tensor) if tensor is not None else 0


def _attrs(attrs: dict) -> tuple:
    return tuple((k, _short_repr(v)) for k, v in sorted(attrs.items()))


def _short_repr(value) -> str:
    """An attribute as text; a tensor or an array by its shape and dtype alone (``target`` of
    nll_loss): events carry values only when a subscriber asks for them, and formatting a
    batch's worth of them cost more than the op itself."""
    data = value._data if hasattr(value, "_data") else value
    if is_array(data):
        text = f"{'array' if data is value else 'tensor'} {list(data.shape)} " \
               f"{_dtype_name(data.dtype)}"
        return text if type(data) is _NDARRAY else f"{text} {device_of_array(data)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ----------------------------------------------------------------------------- forward

def node_created(node, args: tuple, outputs, engine_frames: int = 0) -> None:
    """An op node was recorded for ``args`` -> ``outputs``; ``engine_frames`` callers of
    the caller are agdebug's own, known without looking (see ``user_line``)."""
    frame, library = _user_frame_past(engine_frames)
    if frame is not None and not _CTX.stack:   # a backward's nodes are not the line's value
        _name_outputs(frame, outputs, _call_kind(library) if library else "whole")
    node_id, name, edges = node._id, node.name(), _edges(node)
    _watch_lifetime(node, node_id, name, edges)
    op, saved, attrs = getattr(node, "op", None), node._saved, node._attrs
    saved = _saved(saved, getattr(node, "saved_as", _NO_RENAMES)) if saved else ()
    # seq, node, name, op, edges, inputs, outputs, saved, attrs, leaf, source, source_path,
    # module, module_type
    line = _line_of(frame)
    _send(_NodeCreated(0, node_id, name, getattr(op, "name", "") or "", edges,
                       _summaries(args), _summaries(outputs), saved,
                       _attrs(attrs) if attrs else (), None, line, _PATHS.get(line, ""),
                       *_modules.current()))


_PACKAGE = __file__.rsplit("events", 1)[0]   # ".../agdebug/", with its separator
_DEMOS = _PACKAGE + "demos"
_LIBRARY = _PACKAGE + "nn"


def user_line(engine_frames: int = 0) -> str:
    """``file.py:12: y = x * w``: the first line outside agdebug on this thread's stack,
    past the probe function calling this and ``engine_frames`` more frames above it.

    Only frames are walked, each file is classified once and each (file, line) formatted
    once per recording, so it is cheap enough to run for every node while watching. Each
    frame looked at costs most of it (Python 3.11 makes a frame object for it on demand,
    and copies the frame into it when the function returns): frames the caller knows to be
    the engine's are skipped unread, ``sys._getframe`` walking past them in C.
    """
    return _line_of(_user_frame(engine_frames + 1))


def _user_frame(engine_frames: int):
    """The first user frame past this function's caller's caller and ``engine_frames``."""
    frame = sys._getframe(2 + engine_frames)   # engine frames further up are walked past
    while frame is not None:
        name = frame.f_code.co_filename
        if name not in _ENGINE_FILES and (name in _USER_FILES or _is_user_file(name)):
            return frame
        frame = frame.f_back
    return None


def _user_frame_past(engine_frames: int):
    """``_user_frame``'s frame, and the library functions' frames (``agdebug.nn``: a module,
    ``F.cross_entropy``) between: one call of those may make several nodes."""
    frame = sys._getframe(2 + engine_frames)
    library = None
    while frame is not None:
        name = frame.f_code.co_filename
        if name not in _ENGINE_FILES and (name in _USER_FILES or _is_user_file(name)):
            return frame, library
        if name.startswith(_LIBRARY):
            library = [frame] if library is None else [*library, frame]
        frame = frame.f_back
    return None, library


def _call_kind(library: list) -> str:
    """Whether the node's outputs are what the library call returns: "whole" when each
    library frame is computing the value it returns (``return F.linear(x, w, b)``), "part"
    when one computes a piece of an expression (``weight.t()``), else "maybe" (``logp =
    log_softmax(x)``: a later node of the same call may be the result)."""
    kind = "whole"
    for frame in library:
        names = _names.frame_names(frame)
        if not names:
            return "part"
        if names is not _names.RETURNED:
            kind = "maybe"
    return kind


def _line_of(frame) -> str:
    if frame is None:
        return ""
    key = (frame.f_code.co_filename, frame.f_lineno)
    line = _LINES.get(key)
    if line is None:
        if len(_LINES) >= 4096:
            _LINES.clear()
        line = _LINES[key] = _format_line(*key)
    return line


_LINES: dict[tuple[str, int], str] = {}   # (file, line number) -> user_line's text
_ENGINE_FILES: set[str] = set()           # files user_line walks past
_USER_FILES: set[str] = set()             # files user_line stops at


def is_user_file(name: str) -> bool:
    """Whether code in file ``name`` is the user's: outside agdebug, or a demo script."""
    return not name.startswith(_PACKAGE) or name.startswith(_DEMOS)


def _is_user_file(name: str) -> bool:
    user = is_user_file(name)
    known = _USER_FILES if user else _ENGINE_FILES
    if len(known) >= 4096:
        known.clear()
    known.add(name)
    return user


def _format_line(name: str, number: int) -> str:
    text = linecache.getline(name, number).strip()
    short = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    line = f"{short}:{number}: {text}" if text else f"{short}:{number}"
    if len(_PATHS) >= 8192:   # (with the lines cached: each cached line keeps its path)
        _PATHS.clear()
        _LINES.clear()
    if not name.startswith("<"):   # (``<stdin>``, ``<string>``: no file to find again)
        _PATHS[line] = os.path.abspath(name)
    return line


def source_path(line: str) -> str:
    """The absolute path of the file a line ``user_line`` (or ``raised_at``) gave is in
    ("" when unknown): events show the short name, a replay finds the file by this."""
    return _PATHS.get(line, "") if line else ""


_PATHS: dict[str, str] = {}   # a formatted line -> its file's absolute path


def accumulator_created(acc, leaf) -> None:
    """A leaf got its AccumulateGrad."""
    if tensor_id(leaf) not in _PARAMETERS:
        _name_parameters(sys._getframe(1))
    node_id, name = acc._id, acc.name()
    _watch_lifetime(acc, node_id, name, ())
    _send(_NodeCreated(0, node_id, name, "", (), (), (), (), (), summarize(leaf), "",
                       "", *_modules.current()))


# ----------------------------------------------------------------------------- names

# Tensor id -> what the user called it. Ids, never tensors: naming keeps nothing alive.
_TENSOR_NAMES: dict[int, str] = {}
_PARAMETERS: set[int] = set()   # ids named by a module's attribute path
_MODULE_FILE = _PACKAGE + "nn" + _PACKAGE[-1] + "modules" + _PACKAGE[-1] + "module.py"


def _name(t, name: str) -> None:
    tid = t if type(t) is int else tensor_id(t)
    if len(_TENSOR_NAMES) >= 65536:   # bounded: a long run's oldest names go
        _TENSOR_NAMES.clear()
        _PARAMETERS.clear()
    _TENSOR_NAMES[tid] = name
    _SHARED.pop(tid, None)   # its summary without the name is out of date


def leaf_made(t) -> None:
    """``t`` was made a leaf that requires grad: named after the user's line making it."""
    frame = _user_frame(0)
    if frame is not None and not _CTX.stack and t._id not in _PARAMETERS:
        names = _user_names(frame)
        if len(names) == 1:
            _name(t, names[0])


def _name_outputs(frame, outputs, kind: str) -> None:
    """Name the outputs of a node the user's code at ``frame`` made: at once when they are
    what that code computes (``y = x * w``, ``h = lin(x)``: ``_call_kind`` "whole"), never
    when "part" of it. When "maybe", only the last such node of the call is ``h``, known
    once the user's code goes on: the name waits for the next node made elsewhere (or the
    next backward), and later events name the tensor."""
    pending = _NAMING.pending
    if pending is not None and pending[0] != (id(frame), frame.f_lasti):
        _name_pending()
    names = _user_names(frame)
    if not names or kind == "part":
        return
    if kind == "whole":
        # (a node the same call made before, waiting to be named, was not its value:
        # ``logp = log_softmax(x)`` inside ``loss = cross_entropy(x, y)``)
        _NAMING.pending = None
        _name_all(outputs, names)
    else:   # ids (never the frame or the tensors): waiting keeps nothing alive
        _NAMING.pending = ((id(frame), frame.f_lasti),
                           [tensor_id(t) for t in outputs if hasattr(t, "_data")], names)


def _user_names(frame) -> tuple:
    """The names the user's statement at ``frame`` gives its value: none for a ``return``
    (the value is the caller's to name; the table's ``<return>`` is for library frames)."""
    names = _names.frame_names(frame)
    return () if names is _names.RETURNED else names


class _Naming(threading.local):
    pending = None   # ((frame id, instruction), output ids, names) of a library call's last node


_NAMING = _Naming()


def _name_pending() -> None:
    pending, _NAMING.pending = _NAMING.pending, None
    if pending is not None:
        _name_all(pending[1], pending[2])


def _name_all(outputs, names: tuple) -> None:
    if len(names) == len(outputs):   # ``y = x * w``; ``a, b = x.unbind()``
        for t, name in zip(outputs, names):
            if type(t) is int or hasattr(t, "_data"):
                _name(t, name)
    elif len(names) == 1:            # ``parts = x.unbind()``: ``parts[0]``, ``parts[1]``
        for i, t in enumerate(outputs):
            if type(t) is int or hasattr(t, "_data"):
                _name(t, f"{names[0]}[{i}]"[:_names.MAX_NAME])


def _name_parameters(frame) -> None:
    """Name the parameters and buffers of the outermost module being called on the stack
    (``names.parameter_names``: ``0.weight``, ``head.weight``)."""
    module = outermost = None
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__call__" and code.co_filename == _MODULE_FILE:
            module, outermost = frame.f_locals.get("self", module), frame
        frame = frame.f_back
    if module is None:
        return
    caller = outermost.f_back   # the frame calling the outermost module: the user's
    for name, t in _names.parameter_names(module, caller):
        _name(t, name)
        _PARAMETERS.add(t._id)


# ----------------------------------------------------------------------------- lifetime

class _NodeRef(weakref.ref):
    """A weak reference to a watched node with its id, name and edges (plain data only).

    ``backward_planned`` reads the name and edges from here instead of the node again.
    """

    __slots__ = ("edges", "name", "node_id")


class _Lifetimes:
    """Weak references to watched nodes, whether a cyclic GC pass is running, and how many
    watched nodes the running pass has freed."""

    def __init__(self):
        self.refs: dict[int, _NodeRef] = {}
        self.in_gc = 0
        self.freed_in_gc = 0
        self.elsewhere: dict = {}   # the torch watcher's node map (its nodes live there)

    def any_alive(self) -> bool:
        return bool(self.refs) or bool(self.elsewhere)


_LIFE = _Lifetimes()


def _watch_lifetime(node, node_id: int, name: str, edges: tuple) -> None:
    if node_id not in _LIFE.refs:
        # A bare weakref with a callback (cheaper than weakref.finalize); the dict keeps it
        # alive so its callback runs, and dropping it (watching stops) cancels the callback.
        ref = _LIFE.refs[node_id] = _NodeRef(node, _node_freed)
        ref.node_id, ref.name, ref.edges = node_id, name, edges


def _node_freed(ref: _NodeRef) -> None:
    node_id = ref.node_id
    _LIFE.refs.pop(node_id, None)
    if _LIFE.in_gc:
        _LIFE.freed_in_gc += 1
    if WATCH.on:
        _send(_NodeFreed(0, node_id, "gc" if _LIFE.in_gc else "refcount"))


def _gc_callback(phase: str, info: dict) -> None:
    if phase == "start":
        _LIFE.in_gc += 1
        return
    _LIFE.in_gc = max(0, _LIFE.in_gc - 1)
    freed, _LIFE.freed_in_gc = _LIFE.freed_in_gc, 0
    generation = int(info.get("generation", -1))
    # A pass is shown when it freed graph nodes, or when it was a full collection (what
    # ``gc.collect()`` runs) while graph nodes lived: "the GC ran and freed none of them" is
    # a lesson of its own. The young passes Python starts every few hundred allocations,
    # which free none of the graph, and the full ones before any node exists (a program's
    # imports run several), would only interleave noise, at points that move with
    # unrelated allocations.
    if WATCH.on and (freed or (generation == 2 and _LIFE.any_alive())):
        _emit(r.GcPass, generation=generation, collected=int(info.get("collected", 0)),
              uncollectable=int(info.get("uncollectable", 0)))



# The interpreter prints and drops an exception raised in these callbacks: a Ctrl-C that
# lands in one must wait for the next event outside them (the recorder asks).
CALLBACK_CODES = frozenset((_node_freed.__code__, _gc_callback.__code__))

def _watching_changed(on: bool) -> None:
    if on:
        if _gc_callback not in gc.callbacks:
            gc.callbacks.append(_gc_callback)
        return
    if _gc_callback in gc.callbacks:
        gc.callbacks.remove(_gc_callback)
    _LIFE.in_gc = _LIFE.freed_in_gc = 0
    _CYCLES.clear()
    _LIFE.refs = {}     # dead references never call back
    _LINES.clear()      # a later recording rereads source lines that may have changed
    _PATHS.clear()
    _SHARED.clear()
    _TENSOR_NAMES.clear()
    _PARAMETERS.clear()
    _NAMING.pending = None
    _names.forget()


on_change(_watching_changed)


# ----------------------------------------------------------------------------- backward

class _Context(threading.local):
    def __init__(self):
        self.stack: list[_Run] = []


class _Run:
    """What the probe remembers about one running backward (ids only)."""

    __slots__ = ("api", "contributions", "current", "failed")

    def __init__(self, api: str):
        self.api = api
        self.current = 0
        self.contributions: dict = {}   # node id (slot 0) or (node id, slot) -> count
        self.failed = False


_CTX = _Context()


def _run() -> _Run:
    stack = _CTX.stack
    if not stack:   # watching started in the middle of a backward
        stack.append(_Run("backward"))
    return stack[-1]


def backward_started(graph_root, input_edges, keep_graph: bool, create_graph: bool,
                     accumulate_grad: bool) -> None:
    """A backward()/grad() call is about to count dependencies."""
    api = "backward" if accumulate_grad else "grad"
    _name_pending()
    _CTX.stack.append(_Run(api))
    inputs = None
    if input_edges is not None:
        inputs = tuple(fn._id if fn is not None else 0 for fn, _ in input_edges)
    roots = tuple(fn._id for fn in graph_root._next if fn is not None)
    # seq, api, roots, grads, inputs, retain_graph, create_graph, source, source_path
    line = user_line()
    _send(r.BackwardStarted(0, api, roots, _summaries(graph_root._grads), inputs,
                            bool(keep_graph), bool(create_graph), line, source_path(line)))


def backward_planned(task, nodes: list) -> None:
    """Dependencies are counted and ``inputs=`` pruning done: the plan of this run."""
    deps, needed, captures = task.deps, task.needed, task.captures or {}
    refs = _LIFE.refs
    planned = []
    for node in nodes[1:]:   # nodes[0] is the GraphRoot
        runs = needed is None or node in needed
        if runs or node in captures:
            node_id = node._id
            ref = refs.get(node_id)
            if ref is not None:   # watched since its creation: its name and edges are known
                name, edges = ref.name, ref.edges
            else:
                name, edges = node.name(), _edges(node)
            planned.append(_PlannedNode(node_id, name, int(deps.get(node, 0)), runs, edges))
    _send(r.BackwardPlanned(0, tuple(planned)))


def node_started(node, grads, runs: bool = True) -> None:
    node_id = node._id
    stack = _CTX.stack
    (stack[-1] if stack else _run()).current = node_id
    ref = _LIFE.refs.get(node_id)   # a watched node's name is known: no call into the node
    name = ref.name if ref is not None else node.name()
    _send(_NodeStarted(0, node_id, name, _summaries(grads), runs))


def node_finished(node, outputs) -> None:
    _send(_NodeFinished(0, node._id, _summaries(outputs or ())))


def buffer_accumulated(source, fn, nr: int, grad, remaining: int) -> None:
    """``grad`` (from ``source``) went into slot ``nr`` of ``fn``'s input buffer."""
    stack = _CTX.stack
    counts = (stack[-1] if stack else _run()).contributions
    node_id = fn._id
    key = (node_id, nr) if nr else node_id   # most slots are 0: no key tuple for those
    count = counts.get(key, 0)
    if grad is not None:
        count = counts[key] = count + 1
    # seq, node, slot, source, grad, contributions, remaining
    _send(_BufferAccumulated(0, node_id, nr, source._id, summarize(grad), count, remaining))


def grad_accumulated(acc, leaf, old) -> None:
    """AccumulateGrad updated ``leaf.grad`` (``old`` is the ``.grad`` before)."""
    new = leaf._grad
    mode = "new" if old is None else ("inplace" if new is old else "summed")
    fn = new._grad_fn
    _emit(r.GradAccumulated, node=acc._id, tensor=tensor_id(leaf), mode=mode,
          grad=summarize(new), grad_fn=fn._id if fn is not None else 0)
    if fn is not None:
        _check_cycle(leaf, new, acc)


def grad_set(tensor, value) -> None:
    """User code set ``tensor.grad = value`` (or deleted it)."""
    tid = tensor_id(tensor)
    fn = getattr(value, "_grad_fn", None)
    _emit(r.GradSet, tensor=tid, grad=summarize(value), grad_fn=fn._id if fn is not None else 0)
    if tid in _CYCLES:
        _CYCLES.discard(tid)
        _emit(r.CycleBroken, leaf=tid,
              reason="grad_cleared" if value is None else "grad_reassigned")


def hook_called(kind: str, node, hook, result) -> None:
    """A hook ran; ``node`` None means the node now running (tensor hooks)."""
    node_id = node._id if node is not None else _run().current
    line = _hook_line(hook)
    _emit(r.HookCalled, node=node_id, hook=kind,
          name=str(getattr(hook, "__name__", type(hook).__name__)),
          replaced=result is not None, source=line, source_path=source_path(line))


def _hook_line(hook) -> str:
    """The line defining ``hook`` (its ``def`` or lambda), when it is the user's code."""
    code = getattr(hook, "__code__", None)
    if code is None or not is_user_file(code.co_filename):
        return ""
    return _format_line(code.co_filename, code.co_firstlineno)


def saved_released(node) -> None:
    """Called before ``node`` releases its saved tensors."""
    saved = node._saved
    if not saved or node._released:
        return
    names, nbytes = [], 0
    renames = getattr(node, "saved_as", _NO_RENAMES)
    for k, s in saved.items():
        # A saved Python number has no flag of its own; None or a size was never a tensor.
        if not getattr(s, "released", type(s) not in _NUMBERS):
            names.append(renames.get(k, k))
            nbytes += getattr(s, "nbytes", 0)
    if names:
        names = tuple(names)
        names = _NAMES.setdefault(names, names) if len(_NAMES) < 4096 else names
        _send(_SavedReleased(0, node._id, names, int(nbytes)))


def failed_at(node, exc: BaseException) -> None:
    """A check before the run raised ``exc`` (at ``node`` if not None): the backward ends."""
    line = raised_at(exc) or user_line()
    _emit(r.Error, type=type(exc).__name__, message=str(exc),
          node=node._id if node is not None else 0, source=line, source_path=source_path(line))
    _finish(ok=False)


def backward_failed(exc: BaseException) -> None:
    """The run raised ``exc`` at the node that was running."""
    run = _run()
    line = raised_at(exc) or user_line()
    _emit(r.Error, type=type(exc).__name__, message=str(exc), node=run.current,
          source=line, source_path=source_path(line))
    _finish(ok=False)


def backward_finished() -> None:
    _finish(ok=True)


def _finish(ok: bool) -> None:
    run = _CTX.stack.pop() if _CTX.stack else _Run("backward")
    _emit(r.BackwardFinished, api=run.api, ok=ok)


def script_error(exc: BaseException) -> None:
    """An exception escaped the watched program (not tied to a node)."""
    line = raised_at(exc)
    _emit(r.Error, type=type(exc).__name__, message=str(exc), node=0, source=line,
          source_path=source_path(line))


def raised_at(exc: BaseException) -> str:
    """``file.py:12: text`` of the deepest user frame in ``exc``'s traceback (where the
    user's code raised it, or called what raised it); "" when it has none."""
    line, tb = "", exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if is_user_file(name) and not name.startswith(_NOT_USER):
            line = _format_line(name, tb.tb_lineno)
        tb = tb.tb_next
    return line


# The standard library (runpy runs a script) and frozen modules are nobody's program.
_NOT_USER = ("<", sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])


def printed(stream: str, text: str) -> None:
    """The watched program wrote ``text`` to ``stream`` ("stdout" or "stderr")."""
    if WATCH.on and text:
        _emit(r.Printed, stream=stream, text=text)


class PrintedLines:
    """A program's writes to ``stream`` as ``printed`` events of whole lines (``print``
    writes a line in pieces); ``flush()`` publishes a last, unfinished one."""

    def __init__(self, stream: str):
        self.stream = stream
        self.pending = ""

    def write(self, text: str) -> None:
        head, newline, self.pending = (self.pending + text).rpartition("\n")
        if newline:
            printed(self.stream, head + newline)

    def flush(self) -> None:
        text, self.pending = self.pending, ""
        printed(self.stream, text)


# ----------------------------------------------------------------------------- cycles

_CYCLES: set[int] = set()   # leaf ids with a live reference cycle


def _check_cycle(leaf, grad, acc) -> None:
    """Find leaf -> .grad -> grad_fn -> ... -> AccumulateGrad(leaf) -> leaf, iteratively."""
    start = grad._grad_fn
    parent = {start: None}
    stack = [start]
    while stack:
        node = stack.pop()
        if node is acc:
            _report_cycle(leaf, grad, node, parent)
            return
        for fn in node._next:
            if fn is not None and fn not in parent:
                parent[fn] = node
                stack.append(fn)


def _report_cycle(leaf, grad, end, parent: dict) -> None:
    chain = []
    node = end
    while node is not None:
        chain.append(node._id)
        node = parent[node]
    chain.reverse()
    tid = tensor_id(leaf)
    path = (f"t{tid}", f"t{tensor_id(grad)}", *(f"n{i}" for i in chain), f"t{tid}")
    _CYCLES.add(tid)
    _emit(r.CycleDetected, leaf=tid, path=path, nodes=tuple(chain))


# ----------------------------------------------------------------------------- other sources

# What another event source (agdebug.watch, which observes real torch) publishes through:
# the same stream, ids, statistics, source lines and GC bookkeeping as this probe's.
send = _send
stats = _stats
format_line = _format_line
hook_line = _hook_line
LIFE = _LIFE


def new_tensor_id() -> int:
    """A tensor id no other tensor summary in this process has."""
    return next(_tensor_ids)
