"""Opening trace files: one validating pass, and for long traces an index kept for next time.

A trace file is read line by line: every event is decoded, checked (``validate.py``) and
reduced once. A short trace keeps its events in a list. A long one (``LAZY_BYTES`` and
more) keeps only what seeking needs: the byte offset and kind of every line and the
``Timeline``'s checkpoints; an event is read back from the file, and checked again, when it
is asked for. That index is saved in the user's cache folder (``cache_folder()``), keyed by
the file's path, size and modification time, so the next opening skips the pass: it reads
the index and no event before the first screen needs one.

Why a file in the user's own cache, not one beside the trace or SQLite: the index is derived
data only this user's agdebug writes (a file beside a downloaded trace would be untrusted
too, and a folder of traces may be read-only), and a seek reads only the checkpoint it
starts from. It is data, never code (``debug.index_file``): a damaged or foreign one is
ignored and made again.

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

import contextlib
import hashlib
import os
import threading
from array import array
from collections import OrderedDict
from functools import partial

import numpy as np

from ..events import records
from .index_file import IndexWriter, read_index
from .recorder import Trace, TraceError, _check_header, _parse_event
from .validate import InvalidTrace, TraceCheck

__all__ = ["LAZY_BYTES", "EventFile", "cache_folder", "first_events", "open_trace"]

LAZY_BYTES = 8_000_000   # files this large (~40,000 events) open lazily, with an index
LAZY_EVERY = 128         # a lazy trace's checkpoint interval: a seek decodes fewer lines
LAZY_BYTES_EVERY = 16_384   # and its checkpoints' spacing in bytes of lines: see ``Timeline``
BLOCK = 64               # events decoded together and kept (the last BLOCKS_KEPT blocks)
BLOCKS_KEPT = 128
BLOCK_BYTES = 65_536    # a block with more bytes of lines is decoded only in part
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
        self.ops: set[str] = set()   # the ops of its node_created events (the palette's)
        self._file = None
        self._lock = threading.Lock()
        self._blocks: OrderedDict[int, list] = OrderedDict()   # block number -> its events

    def __len__(self) -> int:
        return len(self.codes)

    def kind(self, index: int) -> str:
        return KINDS[self.codes[index]]

    def kinds(self) -> list[str]:
        """The kinds of event the file holds."""
        return [KINDS[code] for code in np.unique(np.frombuffer(self.codes, np.uint8))]

    def steps_of(self, kinds) -> list[int]:
        """The steps right after each event of ``kinds`` (every event when empty)."""
        codes = np.frombuffer(self.codes, dtype=np.uint8)
        if not kinds:
            return list(range(1, len(codes) + 1))
        wanted = [_CODES[kind] for kind in kinds if kind in _CODES]
        return (np.flatnonzero(np.isin(codes, wanted)) + 1).tolist()

    def only(self, kinds, start: int, stop: int) -> list:
        """``(index, event)`` for the events of ``kinds`` from ``start`` to ``stop``: no
        other line is decoded (a pass that needs a few kinds reads the file at its pace)."""
        codes = np.frombuffer(self.codes, dtype=np.uint8)[start:stop]
        wanted = [_CODES[kind] for kind in kinds if kind in _CODES]
        found = (np.flatnonzero(np.isin(codes, wanted)) + start).tolist()
        if not found:
            return []
        base, end = int(self.offsets[found[0]]), int(self.offsets[found[-1] + 1])
        with self._lock:
            if self._file is None:
                self._file = open(self.name, "rb")
            self._file.seek(base)
            data = self._file.read(end - base)
        offsets = self.offsets
        return [(i, _event(self.name, i + 2,
                           data[int(offsets[i]) - base:int(offsets[i + 1]) - base - 1]))
                for i in found]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._slice(*index.indices(len(self))[:2]) if index.step in (None, 1) \
                else [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("event index out of range")
        return self._block(index // BLOCK)[index % BLOCK]

    def __iter__(self):   # (a whole pass: read in large pieces, none of them kept)
        for start in range(0, len(self), 4096):
            yield from self._read(start, min(start + 4096, len(self)))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    __hash__ = None

    def _slice(self, start: int, stop: int) -> list:
        """Events ``start`` to ``stop`` from the kept blocks: a seek, or a step back and
        forth, decodes each line once. A block of long lines (over ``BLOCK_BYTES``) is read
        only as far as asked for: a seek never decodes a line it does not replay."""
        if stop - start > BLOCK * BLOCKS_KEPT // 2:
            return self._read(start, stop)
        out = []
        for number in range(start // BLOCK, (stop - 1) // BLOCK + 1 if stop > start else 0):
            first, end = number * BLOCK, min((number + 1) * BLOCK, len(self))
            low, high = max(start, first), min(stop, end)
            if (low, high) != (first, end) and number not in self._blocks \
                    and self.offsets[end] - self.offsets[first] > BLOCK_BYTES:
                out += self._read(low, high)
            else:
                out += self._block(number)[low - first:high - first]
        return out

    def _block(self, number: int) -> list:
        with self._lock:
            block = self._blocks.get(number)
            if block is not None:
                self._blocks.move_to_end(number)
                return block
        block = self._read(number * BLOCK, min((number + 1) * BLOCK, len(self)))
        with self._lock:
            self._blocks[number] = block
            if len(self._blocks) > BLOCKS_KEPT:
                self._blocks.popitem(last=False)
        return block

    def _read(self, start: int, stop: int) -> list:
        if start >= stop:
            return []
        begin, end = int(self.offsets[start]), int(self.offsets[stop])
        with self._lock:
            if self._file is None:
                self._file = open(self.name, "rb")
            self._file.seek(begin)
            data = self._file.read(end - begin)
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
        if event.kind == "node_created" and event.op:
            index.ops.add(event.op)
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
        trace = _indexed(name, f, index, key, progress)
    if progress is not None:
        progress(size, size)
    return trace if trace is not None else _in_memory(name)


FIRST_EVENTS = 50_000   # at most, for a first screen while a first opening's pass runs


def first_events(path, limit: int = FIRST_EVENTS) -> list:
    """The checked events of a long trace file not indexed yet, up to the end of its first
    backward (at most ``limit``): what a first screen shows while the first opening's pass
    over the rest runs. Empty for a short file or an indexed one (they open quickly), or
    one that cannot be read (``open_trace`` says why); a bad line is its ``TraceError``."""
    name = os.fspath(path)
    try:
        f = open(name, "rb")
    except OSError:
        return []
    with f:
        if os.fstat(f.fileno()).st_size < LAZY_BYTES:
            return []
        if _has_index(name, _identity(name, f)):
            return []
        events, scan = [], _scan(name, f, EventFile(name, array("q"), bytearray()))
        for event in scan:
            events.append(event)
            if event.kind == "backward_finished" or len(events) >= limit:
                break
        scan.close()
        return events


def _indexed(name: str, f, index: EventFile, key: tuple, progress) -> Trace | None:
    """The pass over ``f``, each checkpoint written to the trace's index as it is made (none
    kept: memory follows the live graph); the trace read back from that index. ``None``
    when the index could not be finished (the pass is then made again, in memory); the
    checkpoints kept in memory when none can be written (no cache folder)."""
    from .state import Timeline
    writer = _index_writer(key)
    try:
        timeline = Timeline(index, LAZY_EVERY, stream=_scan(name, f, index, progress),
                            budget=LAZY_BYTES_EVERY, keep=writer and writer.add)
        if writer is None:
            return _lazy_trace(name, timeline)
        finished = _finish_index(writer, key, index, timeline)
    finally:
        if writer is not None:
            writer.close()
    return _load_index(name, key) if finished else None


def _in_memory(name: str) -> Trace:
    """A long trace's pass with its checkpoints kept in memory (its index failed)."""
    from .state import Timeline
    with open(name, "rb") as f:
        index = EventFile(name, array("q"), bytearray())
        timeline = Timeline(index, LAZY_EVERY, stream=_scan(name, f, index),
                            budget=LAZY_BYTES_EVERY)
    return _lazy_trace(name, timeline)


def _lazy_trace(name: str, timeline) -> Trace:
    trace = Trace(source=name)
    trace._events, trace._timeline = timeline.events, timeline
    return trace


# ----------------------------------------------------------------------------- the index file

def _identity(name: str, f) -> tuple:
    """What an index must have been made for: this file as it is now, read by an agdebug
    that numbers the kinds of event as this one does (the kinds array holds numbers)."""
    info = os.fstat(f.fileno())
    return (os.path.realpath(name), info.st_size, info.st_mtime_ns, list(KINDS))


def _index_path(key: tuple) -> str:
    digest = hashlib.sha256(repr(key[0]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(cache_folder(), f"{digest}.agindex")


def _index_writer(key: tuple) -> IndexWriter | None:
    """A writer of the index for ``key`` in the cache folder (``None``: it cannot be made)."""
    path = _index_path(key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return IndexWriter(path)
    except OSError:
        return None


def _finish_index(writer: IndexWriter, key: tuple, index: EventFile, timeline) -> bool:
    try:
        writer.finish(key, np.frombuffer(index.offsets, dtype=np.int64),
                      np.frombuffer(index.codes, dtype=np.uint8), sorted(index.ops),
                      timeline.every)
        return True
    except (OSError, ValueError, UnicodeEncodeError):
        return False   # (a full disk, a path it cannot encode): kept in memory instead


def _load_index(name: str, key: tuple) -> Trace | None:
    path = _index_path(key)
    index = EventFile(name, array("q"), bytearray())
    try:
        offsets, kinds, ops, every, stored = read_index(path, key, key[1], len(KINDS),
                                                        partial(_rebuilt, index, path))
    except (OSError, ValueError):   # none yet, stale, foreign or damaged: made again
        return None
    index.offsets, index.codes, index.ops = offsets, kinds, set(ops)
    from .state import Timeline
    steps = stored.arrays["steps"].tolist()
    return _lazy_trace(name, Timeline.restored(index, every, steps, stored))


def _has_index(name: str, key: tuple) -> bool:
    """Whether the cache holds a good index for ``key`` (read as ``_load_index`` reads it,
    then closed)."""
    try:
        *_, stored = read_index(_index_path(key), key, key[1], len(KINDS), lambda step: None)
    except (OSError, ValueError):
        return False
    stored.close()
    return True


def _rebuilt(events: EventFile, path: str, step: int):
    """A checkpoint at ``step`` reduced from the events (the index held a damaged one)."""
    from .state import Checkpoint
    with contextlib.suppress(OSError):
        os.remove(path)   # the next opening indexes the trace again
    return Checkpoint.replayed(events, step)
