"""The adapter the engine calls (behind ``if WATCH.on:``) to publish events.

It turns tensors and nodes into plain summaries on the spot and keeps no
reference to either: node lifetimes are observed with ``weakref.finalize``
(the callback holds only the node's id) and GC passes with ``gc.callbacks``.
Objects are read duck-typed (``_data``, ``_id``, ``next_functions``...), so the
events layer imports nothing above it; the one exception is the lazy lookup of
``agdebug.tensor.stable_id``, which owns the tensor id counter.

Values (preview and statistics) are computed only when a subscriber asked for
them (``WATCH.values``): on a GPU they cost a device sync.
"""

from __future__ import annotations

import collections
import gc
import sys
import threading
import weakref

from ..backend import device_of_array, get_dtype
from . import records as r
from .bus import WATCH, _lock, next_seq, on_change, publish

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
    "node_created",
    "node_finished",
    "node_started",
    "saved_released",
    "summarize",
]

PREVIEW = 6


class _Emitting:
    busy = False
    pending: collections.deque = collections.deque()  # noqa: RUF012 - one queue, by design
    origin: threading.Thread | None = None    # the thread that emitted the event in delivery


def _emit(cls, **fields) -> None:
    # A GC pass or a finalizer can fire while an event is being built or delivered:
    # its event is queued and published right after, so ``seq`` stays in stream order.
    # Another thread never waits for the lock: the publishing thread may be paused inside
    # a subscriber (the live stepper) until that very thread (a UI) says go on, so the
    # event is queued for the publisher to deliver; the loop re-checks after release.
    _Emitting.pending.append((cls, fields, threading.current_thread()))
    while _Emitting.pending and _lock.acquire(blocking=False):
        try:
            if _Emitting.busy:
                return
            _Emitting.busy = True
            try:
                while _Emitting.pending:
                    queued, queued_fields, _Emitting.origin = _Emitting.pending.popleft()
                    publish(queued(seq=next_seq(), **queued_fields))
            finally:
                _Emitting.busy = False
                _Emitting.origin = None
        finally:
            _lock.release()


def origin_thread() -> threading.Thread:
    """The thread whose step the event being delivered records (not always the caller)."""
    return _Emitting.origin or threading.current_thread()


# ----------------------------------------------------------------------------- summaries

def tensor_id(t) -> int:
    tid = t._id
    if not tid:
        from ..tensor import stable_id  # the tensor layer owns the id counter
        tid = stable_id(t)
    return tid


def summarize(t) -> r.TensorSummary | None:
    """A tensor's summary (``None`` for ``None``), with values when asked for."""
    if t is None:
        return None
    data = t._data
    stats = _stats(data) if WATCH.values else None
    # numpy's dtype.name is slow (it formats the name each time): our dtype table has it.
    return r.TensorSummary(tensor_id(t), data.shape, get_dtype(data.dtype).name,
                           str(device_of_array(data)), data.nbytes, stats)


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


def _summaries(tensors) -> tuple:
    return tuple(summarize(t) if hasattr(t, "_data") else None for t in tensors)


def _edges(node) -> tuple:
    return tuple((fn._id if fn is not None else 0, int(nr)) for fn, nr in node.next_functions)


def _saved(node) -> tuple:
    saved = node._saved
    if not saved:
        return ()
    out = []
    for name, s in saved.items():
        tensor = getattr(s, "_tensor", None)
        data = getattr(s, "_data", None)
        if tensor is not None:
            data = tensor._data
        shape = data.shape if data is not None else ()
        dtype = (get_dtype(data.dtype).name if data is not None
                 else type(getattr(s, "value", None)).__name__)
        tid = tensor_id(tensor) if tensor is not None else _weak_id(s)
        out.append(r.SavedSummary(name, tid, shape, dtype, int(s.nbytes)))
    return tuple(out)


def _weak_id(saved) -> int:
    ref = getattr(saved, "_weak", None)
    tensor = ref() if ref is not None else None
    return tensor_id(tensor) if tensor is not None else 0


def _attrs(node) -> tuple:
    attrs = node._attrs
    if not attrs:
        return ()
    return tuple((k, _short_repr(v)) for k, v in sorted(attrs.items()))


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ----------------------------------------------------------------------------- forward

def node_created(node, args: tuple, outputs) -> None:
    """An op node was recorded for ``args`` -> ``outputs``."""
    _watch_lifetime(node)
    op = getattr(node, "op", None)
    _emit(r.NodeCreated, node=node._id, name=node.name(),
          op=getattr(op, "name", "") or "", edges=_edges(node), inputs=_summaries(args),
          outputs=_summaries(outputs), saved=_saved(node), attrs=_attrs(node),
          source=user_line())


_PACKAGE = __file__.rsplit("events", 1)[0]   # ".../agdebug/", with its separator
_DEMOS = _PACKAGE + "demos"


def user_line() -> str:
    """``file.py:12: y = x * w``: the first line outside agdebug on this thread's stack.

    Only frames are walked (no source is read unless one is found, and linecache
    caches it), so it is cheap enough to run for every node while watching.
    """
    import linecache
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_PACKAGE) or name.startswith(_DEMOS):
            text = linecache.getline(name, frame.f_lineno).strip()
            short = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
            return f"{short}:{frame.f_lineno}: {text}" if text else f"{short}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def accumulator_created(acc, leaf) -> None:
    """A leaf got its AccumulateGrad."""
    _watch_lifetime(acc)
    _emit(r.NodeCreated, node=acc._id, name=acc.name(), op="", edges=(), inputs=(),
          outputs=(), saved=(), attrs=(), leaf=summarize(leaf))


# ----------------------------------------------------------------------------- lifetime

class _Lifetimes:
    """Finalizers of watched nodes, and whether a cyclic GC pass is running."""

    def __init__(self):
        self.finalizers: dict[int, weakref.finalize] = {}
        self.in_gc = 0


_LIFE = _Lifetimes()


def _watch_lifetime(node) -> None:
    node_id = node._id
    if node_id not in _LIFE.finalizers:
        # The callback gets only the id: the finalizer must not keep the node alive.
        fin = _LIFE.finalizers[node_id] = weakref.finalize(node, _node_freed, node_id)
        fin.atexit = False


def _node_freed(node_id: int) -> None:
    _LIFE.finalizers.pop(node_id, None)
    if WATCH.on:
        _emit(r.NodeFreed, node=node_id, by="gc" if _LIFE.in_gc else "refcount")


def _gc_callback(phase: str, info: dict) -> None:
    if phase == "start":
        _LIFE.in_gc += 1
        return
    _LIFE.in_gc = max(0, _LIFE.in_gc - 1)
    if WATCH.on:
        _emit(r.GcPass, generation=int(info.get("generation", -1)),
              collected=int(info.get("collected", 0)),
              uncollectable=int(info.get("uncollectable", 0)))


def _watching_changed(on: bool) -> None:
    if on:
        if _gc_callback not in gc.callbacks:
            gc.callbacks.append(_gc_callback)
        return
    if _gc_callback in gc.callbacks:
        gc.callbacks.remove(_gc_callback)
    _LIFE.in_gc = 0
    _CYCLES.clear()
    finalizers, _LIFE.finalizers = _LIFE.finalizers, {}
    for fin in finalizers.values():
        fin.detach()


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
        self.contributions: dict[tuple[int, int], int] = {}
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
    _CTX.stack.append(_Run(api))
    inputs = None
    if input_edges is not None:
        inputs = tuple(fn._id if fn is not None else 0 for fn, _ in input_edges)
    _emit(r.BackwardStarted, api=api, roots=tuple(fn._id for fn, _ in graph_root.next_functions
                                                  if fn is not None),
          grads=_summaries(graph_root._grads), inputs=inputs, retain_graph=bool(keep_graph),
          create_graph=bool(create_graph))


def backward_planned(task, nodes: list) -> None:
    """Dependencies are counted and ``inputs=`` pruning done: the plan of this run."""
    deps, needed, captures = task.deps, task.needed, task.captures or {}
    planned = []
    for node in nodes[1:]:   # nodes[0] is the GraphRoot
        runs = needed is None or node in needed
        if runs or node in captures:
            planned.append(r.PlannedNode(node._id, node.name(), int(deps.get(node, 0)), runs,
                                         _edges(node)))
    _emit(r.BackwardPlanned, nodes=tuple(planned))


def node_started(node, grads, runs: bool = True) -> None:
    run = _run()
    run.current = node._id
    _emit(r.NodeStarted, node=node._id, name=node.name(), grads=_summaries(grads),
          runs=bool(runs))


def node_finished(node, outputs) -> None:
    _emit(r.NodeFinished, node=node._id, grads=_summaries(outputs or ()))


def buffer_accumulated(source, fn, nr: int, grad, remaining: int) -> None:
    """``grad`` (from ``source``) went into slot ``nr`` of ``fn``'s input buffer."""
    counts = _run().contributions
    key = (fn._id, int(nr))
    if grad is not None:
        counts[key] = counts.get(key, 0) + 1
    _emit(r.BufferAccumulated, node=fn._id, slot=int(nr), source=source._id,
          grad=summarize(grad), contributions=counts.get(key, 0), remaining=int(remaining))


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
    _emit(r.HookCalled, node=node_id, hook=kind,
          name=str(getattr(hook, "__name__", type(hook).__name__)),
          replaced=result is not None)


def saved_released(node) -> None:
    """Called before ``node`` releases its saved tensors."""
    saved = node._saved
    if not saved or node._released:
        return
    live = [(k, s) for k, s in saved.items() if not s.released]
    if live:
        _emit(r.SavedReleased, node=node._id, names=tuple(k for k, _ in live),
              nbytes=int(sum(s.nbytes for _, s in live)))


def failed_at(node, exc: BaseException) -> None:
    """A check before the run raised ``exc`` (at ``node`` if not None): the backward ends."""
    _emit(r.Error, type=type(exc).__name__, message=str(exc),
          node=node._id if node is not None else 0)
    _finish(ok=False)


def backward_failed(exc: BaseException) -> None:
    """The run raised ``exc`` at the node that was running."""
    run = _run()
    _emit(r.Error, type=type(exc).__name__, message=str(exc), node=run.current)
    _finish(ok=False)


def backward_finished() -> None:
    _finish(ok=True)


def _finish(ok: bool) -> None:
    run = _CTX.stack.pop() if _CTX.stack else _Run("backward")
    _emit(r.BackwardFinished, api=run.api, ok=ok)


def script_error(exc: BaseException) -> None:
    """An exception escaped the watched program (not tied to a node)."""
    _emit(r.Error, type=type(exc).__name__, message=str(exc), node=0)


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
        for fn, _ in node.next_functions:
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
