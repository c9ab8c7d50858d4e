"""Opening trace files: one validating pass, and for long traces an index kept for next time.

A trace file is read line by line: every event is decoded, checked (``validate.py``) and
reduced once. A short trace keeps its events in a list. A long one (``LAZY_BYTES`` and
more) keeps only what seeking needs: the byte offset and kind of every line and the
``Timeline``'s checkpoints; an event is read back from the file, and checked again, when it
is asked for. That index is saved in the user's cache folder (``cache_folder()``), keyed by
the file's path, size and modification time, so the next opening skips the pass: it reads
the index and no event before the first screen needs one.

Why a pickle in the user's own cache, not a file beside the trace or SQLite: the index is
derived data only this user's agdebug writes (a file beside a downloaded trace would be
untrusted too, and a folder of traces may be read-only); it holds the checkpoints as the
objects seeking uses (SQLite would need a codec for every view and a decode per seek); and it
is loaded by an unpickler that builds nothing but agdebug's own state and event records.

>>> import os, tempfile
>>> import agdebug as ag
>>> from agdebug.debug import record
>>> path = os.path.join(tempfile.mkdtemp(), "run.agtrace")
>>> with record(path):
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> trace = open_trace(path)
>>> len(trace) == len(trace.events), trace.events[0].kind
(True, 'node_created')
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from array import array

from ..events import records
from .recorder import Trace, TraceError, _check_header, _parse_event
from .validate import InvalidTrace, TraceCheck

__all__ = ["LAZY_BYTES", "EventFile", "cache_folder", "open_trace"]

LAZY_BYTES = 8_000_000   # files this large (~40,000 events) open lazily, with an index
CACHE_VERSION = 1
KINDS = tuple(records.EVENT_TYPES)          # a line's kind is stored as its index here
_CODES = {kind: code for code, kind in enumerate(KINDS)}


def cache_folder() -> str:
    """Where indexes are kept: ``$AGDEBUG_CACHE``, else ``$XDG_CACHE_HOME/agdebug``, else
    ``~/.cache/agdebug``."""
    chosen = os.environ.get("AGDEBUG_CACHE")
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "agdebug")


class EventFile:
    """The events of a trace file as a read-only sequence: each is read from its line when
    asked for (and checked again: a line changed since shows as a one-line ``TraceError``)."""

    def __init__(self, name: str, offsets: array, kinds: bytearray):
        self.name = name
        self.offsets = offsets   # where each event's line starts, and where the last ends
        self.codes = kinds
        self._file = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.codes)

    def kind(self, index: int) -> str:
        return KINDS[self.codes[index]]

    def steps_of(self, kinds) -> list[int]:
        """The steps right after each event of ``kinds`` (every event when empty)."""
        import numpy as np
        codes = np.frombuffer(self.codes, dtype=np.uint8)
        if not kinds:
            return list(range(1, len(codes) + 1))
        wanted = [_CODES[kind] for kind in kinds if kind in _CODES]
        return (np.flatnonzero(np.isin(codes, wanted)) + 1).tolist()

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._read(*index.indices(len(self))[:2]) if index.step in (None, 1) \
                else [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("event index out of range")
        return self._read(index, index + 1)[0]

    def __iter__(self):
        for start in range(0, len(self), 4096):
            yield from self._read(start, min(start + 4096, len(self)))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    __hash__ = None

    def _read(self, start: int, stop: int) -> list:
        if start >= stop:
            return []
        with self._lock:
            if self._file is None:
                self._file = open(self.name, "rb")
            self._file.seek(self.offsets[start])
            data = self._file.read(self.offsets[stop] - self.offsets[start])
        lines = data.split(b"\n")
        return [_event(self.name, start + 2 + i, raw) for i, raw in enumerate(lines[:-1])]


def _event(name: str, number: int, raw: bytes):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{name}:{number}: corrupted: not UTF-8 text") from None
    return _parse_event(name, number, text)


# ----------------------------------------------------------------------------- the pass

def _scan(name: str, f, index: EventFile, progress=None):
    """Yield every event of the open file ``f`` checked, noting offsets and kinds in
    ``index``; ``progress(bytes read, file size)`` is called now and then."""
    total = os.fstat(f.fileno()).st_size
    head = f.readline()
    offset = len(head)
    head = _event_text(name, 1, head.removeprefix(b"\xef\xbb\xbf"))   # (an editor's BOM)
    if not head.strip():
        raise TraceError(f"{name}:1: empty file, not an agdebug trace")
    _check_header(name, head)
    index.offsets.append(offset)
    check = TraceCheck()
    for number, raw in enumerate(f, 2):
        if not raw.endswith(b"\n"):
            raise TraceError(f"{name}:{number}: truncated: the last line is incomplete "
                             "(the recording was interrupted while writing it)")
        event = _event(name, number, raw[:-1])
        try:
            check.check(event)
        except InvalidTrace as exc:
            raise TraceError(f"{name}:{number}: invalid trace: {exc}") from None
        offset += len(raw)
        index.offsets.append(offset)
        index.codes.append(_CODES[event.kind])
        if progress is not None and number % 8192 == 0:
            progress(offset, total)
        yield event


def _event_text(name: str, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{name}:{number}: corrupted: not UTF-8 text") from None


def open_trace(path, progress=None) -> Trace:
    """Read and validate a trace file (lazily when it is long); one-line ``TraceError``s."""
    name = os.fspath(path)
    try:
        f = open(name, "rb")
    except OSError as exc:
        raise TraceError(f"{name}: cannot read trace: {exc.strerror or exc}") from None
    with f:
        size = os.fstat(f.fileno()).st_size
        index = EventFile(name, array("q"), bytearray())
        if size < LAZY_BYTES:
            return Trace(list(_scan(name, f, index)), source=name)
        key = _identity(name, f)
        cached = _load_index(name, key)
        if cached is not None:
            return cached
        from .state import Timeline
        timeline = Timeline(index, stream=_scan(name, f, index, progress))
    if progress is not None:
        progress(size, size)
    _save_index(key, index, timeline)
    return _lazy_trace(name, timeline)


def _lazy_trace(name: str, timeline) -> Trace:
    trace = Trace(source=name)
    trace._events, trace._timeline = timeline.events, timeline
    return trace


# ----------------------------------------------------------------------------- the index file

def _identity(name: str, f) -> tuple:
    info = os.fstat(f.fileno())
    return (os.path.realpath(name), info.st_size, info.st_mtime_ns)


def _index_path(key: tuple) -> str:
    digest = hashlib.sha256(repr(key[0]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(cache_folder(), f"{digest}.agindex")


def _save_index(key: tuple, index: EventFile, timeline) -> None:
    data = (CACHE_VERSION, key, index.offsets.tobytes(), bytes(index.codes), timeline.every,
            timeline._steps, timeline._checkpoints, timeline.final)
    path = _index_path(key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.part"
        with open(partial, "wb") as out:
            pickle.dump(data, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)   # whole or not at all: a reader never sees half of it
    except (OSError, pickle.PicklingError, RecursionError):
        pass   # no cache: the next opening makes the pass again


def _load_index(name: str, key: tuple) -> Trace | None:
    try:
        with open(_index_path(key), "rb") as f:
            data = _Unpickler(f).load()
        version, saved_key, offsets, codes, every, steps, checkpoints, final = data
    except Exception:  # noqa: BLE001 - a stale, foreign or broken index is only rebuilt
        return None
    if version != CACHE_VERSION or saved_key != key:
        return None
    index = EventFile(name, array("q"), bytearray(codes))
    index.offsets.frombytes(offsets)
    from .state import Timeline
    return _lazy_trace(name, Timeline.restored(index, every, steps, checkpoints, final))


class _Unpickler(pickle.Unpickler):
    """Builds only agdebug's state views and event records (and plain containers)."""

    _ALLOWED = {"agdebug.debug.state": {"NodeView", "SavedView", "LeafView", "ErrorView",
                                        "BackwardView", "_Checkpoint", "_graph_state"},
                "agdebug.debug.cycles": {"CycleView"},
                "agdebug.events.records": set(records.__all__)}

    def find_class(self, module: str, name: str):
        if name in self._ALLOWED.get(module, ()):
            found = super().find_class(module, name)
            if isinstance(found, type) or name == "_graph_state":
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of an index")

