"""The trace index on disk: a JSON header, then arrays and JSON, read only as seeks need them.

One file per trace in the user's cache folder (``index.cache_folder()``). Its first line is a
JSON header: the format and version, the trace it indexes (real path, size, modification
time), ``every``, the ops its nodes were made by (the command palette lists them without
decoding a state), and how many items each section holds. Then the sections, back to back, in
``SECTIONS`` order, each a little-endian array of one fixed type:

- ``offsets``, ``kinds``: where each event's line starts (and the last ends), its kind;
- ``steps``: the step of each checkpoint; ``states``: where its state (all but the nodes,
  one JSON object) lies in ``blobs``; ``lists``/``page_ids``: its pages;
- ``pages``/``node_ids``: the node versions of each page (a page is shared by the
  checkpoints it did not change between, a node version by the pages it is in);
- ``summaries``, ``shared``, ``nodes``: where each tensor summary and each part a node's
  versions share (stored once each) and each node version (which names them by number)
  lie in ``blobs``;
- ``blobs``: the JSON, in that order, then the checkpoints' states.

``IndexWriter`` writes them as a trace's first pass makes its checkpoints (each table
spooled to a temporary file, the sections put together at the end), so the pass keeps none.

Opening reads the header and the small arrays and checks them (sizes, order, bounds); a
checkpoint's JSON is read and checked (``debug.checkpoints``) when a seek first needs it.
Nothing in the file is code: anything wrong in it is a ``ValueError``, and the index is
ignored (and made again) or, found late, the state is rebuilt from the trace's events.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import tempfile
from array import array

import numpy as np

from ..events.names import MAX_NAME
from .checkpoints import NodeReader, NodeWriter, state_from_json, state_json

__all__ = ["FORMAT", "SECTIONS", "IndexWriter", "StoredCheckpoints", "read_index"]

FORMAT, VERSION = "agdebug-index", 7   # 3: node views name their line and module;
# 4: saved tensors keep their version when saved; 5: the ops, checkpoints placed by bytes;
# 6: freed nodes leave a checkpoint's graph when the next backward starts; 7: saved views
# are lists of their fields
SECTIONS = (("offsets", "<i8"), ("kinds", "u1"), ("steps", "<i8"), ("states", "<i8"),
            ("lists", "<i8"), ("page_ids", "<i4"), ("pages", "<i8"), ("node_ids", "<i4"),
            ("summaries", "<i8"), ("shared", "<i8"), ("nodes", "<i8"), ("blobs", "u1"))
_LAZY = {"page_ids", "node_ids", "blobs"}     # read a slice at a time, when a seek needs it
_HEADER_LIMIT = 1 << 22   # (the ops: at most _OPS_LIMIT names of MAX_NAME characters)
_OPS_LIMIT = 10_000       # (a palette lists no more)
KEPT_VERSIONS = 50_000    # decoded node versions a trace keeps for its next seeks


# ----------------------------------------------------------------------------- writing

_TABLES = ("summaries", "shared", "nodes", "states")   # the blobs, in this order


class _Spool:
    """One table's JSON items, written to a temporary file as they come."""

    def __init__(self, folder: str):
        self.file = tempfile.TemporaryFile(dir=folder)   # (gone with the process)
        self.bounds = [0]    # where each item ends

    def append(self, text: bytes) -> None:
        self.file.write(text)
        self.bounds.append(self.bounds[-1] + len(text))

    def __len__(self) -> int:
        return len(self.bounds) - 1


class IndexWriter:
    """A timeline's checkpoints written as they are made (``add``: the pass that makes them
    keeps none, so its memory follows the live graph), each page, node version and summary
    once; ``finish`` writes the index at ``path`` whole."""

    def __init__(self, path: str):
        self.path = path
        self._spools = {name: _Spool(os.path.dirname(path)) for name in _TABLES}
        self._writer = NodeWriter(self._spools["summaries"], self._spools["shared"])
        self._arrays = {"steps": array("q"), "lists": array("q", [0]),
                        "page_ids": array("i"), "pages": array("q", [0]),
                        "node_ids": array("i")}   # (typed: millions of numbers, compact)
        # Per page position, the last checkpoint's page there, its number and its versions'
        # numbers by id: a page or node view unchanged since is the same object (held here,
        # so its id cannot be another's meanwhile).
        self._slots: list = []
        self._empty: int | None = None   # the number of the page of no nodes

    def add(self, step: int, checkpoint) -> None:
        a = self._arrays
        a["page_ids"].extend([self._page(p, page) for p, page in enumerate(checkpoint.pages)])
        a["lists"].append(len(a["page_ids"]))
        a["steps"].append(step)
        self._spools["states"].append(state_json(checkpoint.state))
        if len(a["steps"]) % 64 == 0:   # (what left the graph never comes back)
            self._writer.forget_except({i for page, _, _ in self._slots if page
                                        for i in page})

    def _page(self, p: int, page: dict) -> int:
        if p == len(self._slots):
            self._slots.append((None, -1, {}))
        old, number, versions = self._slots[p]
        if page is old:
            return number
        if not page and self._empty is not None:
            self._slots[p] = (page, self._empty, {})
            return self._empty
        a, nodes = self._arrays, self._spools["nodes"]
        number, kept = len(a["pages"]) - 1, {}
        for node in page.values():
            version = versions.get(id(node))
            if version is None:
                version = len(nodes)
                nodes.append(self._writer.node_json(node))
            kept[id(node)] = version
            a["node_ids"].append(version)
        a["pages"].append(len(a["node_ids"]))
        self._slots[p] = (page, number, kept)
        if not page:
            self._empty = number
        return number

    def finish(self, key: tuple, offsets, kinds, ops: list, every: int) -> None:
        """Write the index (its sections in ``SECTIONS`` order, the blobs last)."""
        a, base = self._arrays, 0
        for name in _TABLES:
            a[name] = np.asarray(self._spools[name].bounds, dtype=np.int64) + base
            base += self._spools[name].bounds[-1]
        a["offsets"], a["kinds"] = offsets, kinds
        data = [np.asarray(a[name], dtype=dtype) for name, dtype in SECTIONS[:-1]]
        ops = [op for op in ops if len(op) <= MAX_NAME][:_OPS_LIMIT]
        head = {"format": FORMAT, "version": VERSION, "trace": list(key), "every": every,
                "ops": ops, "counts": [len(x) for x in data] + [base]}
        partial = f"{self.path}.{os.getpid()}.part"
        try:
            with open(partial, "wb") as out:
                out.write(json.dumps(head).encode("utf-8", "surrogatepass") + b"\n")
                for array in data:
                    out.write(array.tobytes())
                for name in _TABLES:
                    spool = self._spools[name].file
                    spool.seek(0)
                    shutil.copyfileobj(spool, out, 1 << 20)
            os.replace(partial, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise

    def close(self) -> None:
        for spool in self._spools.values():
            spool.file.close()


# ----------------------------------------------------------------------------- reading

def read_index(path: str, key: tuple, trace_size: int, kinds: int, rebuild):
    """``(offsets, kinds, ops, every, StoredCheckpoints)`` from the index at ``path`` made for
    the trace ``key`` (of ``trace_size`` bytes, events of ``kinds`` kinds); ``ValueError``
    (or ``OSError``) when it is not that, or damaged. ``rebuild(step)`` makes a checkpoint
    found damaged later from the trace's events."""
    f = open(path, "rb")
    try:
        head, arrays = _read_sections(f, key)
        _check(arrays, trace_size, kinds)
    except BaseException:
        f.close()
        raise
    stored = StoredCheckpoints(f, arrays, rebuild)
    return arrays["offsets"], arrays["kinds"], head["ops"], head["every"], stored


def _read_sections(f, key: tuple):
    head = _header(f.readline(_HEADER_LIMIT), key)
    at, arrays = f.tell(), {}
    for (name, dtype), count in zip(SECTIONS, head["counts"]):
        size = count * np.dtype(dtype).itemsize
        if name in _LAZY:
            arrays[name] = (at, count)          # where it lies, read later
        else:
            f.seek(at)
            arrays[name] = np.frombuffer(_read_exactly(f, size), dtype=dtype)
        at += size
    if at != os.fstat(f.fileno()).st_size:
        raise ValueError("index: sections do not fill the file")
    return head, arrays


def _header(line: bytes, key: tuple) -> dict:
    try:
        head = json.loads(line)
    except (ValueError, RecursionError):
        raise ValueError("index: no header") from None
    counts = head.get("counts") if isinstance(head, dict) else None
    if (not isinstance(head, dict) or head.get("format") != FORMAT
            or head.get("version") != VERSION or head.get("trace") != list(key)):
        raise ValueError("index: not this trace's, or another version")
    if not (isinstance(counts, list) and len(counts) == len(SECTIONS)
            and all(type(c) is int and 0 <= c < 1 << 40 for c in counts)):
        raise ValueError("index: bad section counts")
    every = head.get("every")
    if type(every) is not int or not 0 < every < 1 << 30:
        raise ValueError("index: bad checkpoint interval")
    ops = head.get("ops")
    if not (isinstance(ops, list) and len(ops) <= _OPS_LIMIT and all(
            type(op) is str and len(op) <= MAX_NAME for op in ops)):
        raise ValueError("index: bad op names")
    return head


def _read_exactly(f, size: int) -> bytes:
    data = f.read(size)
    if len(data) != size:
        raise ValueError("index: truncated")
    return data


def _check(a: dict, trace_size: int, kinds: int) -> None:
    """Sizes, order and bounds of the arrays read at opening (slices are checked later)."""
    events, checkpoints, steps = len(a["kinds"]), len(a["steps"]), a["steps"]
    ok = (len(a["offsets"]) == events + 1 and _rising(a["offsets"], a["offsets"][0], trace_size)
          and a["offsets"][0] > 0 and (events == 0 or int(a["kinds"].max()) < kinds)
          and checkpoints > 0 and steps[0] == 0 and steps[-1] == events
          and bool(np.all(np.diff(steps) > 0))
          and len(a["states"]) == checkpoints + 1 and len(a["lists"]) == checkpoints + 1
          and len(a["pages"]) > 0 and _rising(a["lists"], 0, a["page_ids"][1])
          and _rising(a["pages"], 0, a["node_ids"][1])
          and _rising(a["summaries"], 0, int(a["shared"][0]))
          and _rising(a["shared"], int(a["summaries"][-1]), int(a["nodes"][0]))
          and _rising(a["nodes"], int(a["shared"][-1]), int(a["states"][0]))
          and _rising(a["states"], int(a["nodes"][-1]), a["blobs"][1]))
    if not ok:
        raise ValueError("index: inconsistent arrays")


def _rising(array, first: int, last: int) -> bool:
    """``array`` starts at ``first``, never falls and ends at ``last``."""
    return (len(array) > 0 and int(array[0]) == first and int(array[-1]) == last
            and bool(np.all(np.diff(array) >= 0)))


class StoredCheckpoints:
    """A timeline's checkpoints in an index file, as a read-only sequence: each is read
    (and checked) when asked for; pages and node versions once read are kept. One found
    damaged is made again by ``rebuild(step)`` (from the events: slow, but never wrong)."""

    def __init__(self, f, arrays: dict, rebuild):
        self._fd, self._file = f.fileno(), f
        self.arrays, self.rebuild = arrays, rebuild
        self._pages: dict[int, dict] = {}
        self._nodes: dict[int, object] = {}
        self._reader = NodeReader(lambda table, ns: self._blobs(arrays[table], ns),
                                  {t: len(arrays[t]) - 1 for t in ("summaries", "shared")})

    def __len__(self) -> int:
        return len(self.arrays["steps"])

    def __getitem__(self, index: int):
        try:
            return self._read(index)
        except (ValueError, OSError):
            return self.rebuild(int(self.arrays["steps"][index]))

    def _read(self, index: int):
        from .state import Checkpoint
        a = self.arrays
        state = state_from_json(self._blob(a["states"], index))
        if state.step != int(a["steps"][index]):
            raise ValueError("index: a checkpoint's step is not its place")
        numbers = self._ints("page_ids", a["lists"], index, len(a["pages"]) - 1).tolist()
        if len(self._nodes) > KEPT_VERSIONS:   # (read again when needed)
            self._nodes.clear()
            self._pages.clear()
            self._reader.forget()
        new = {n: self._ints("node_ids", a["pages"], n, len(a["nodes"]) - 1).tolist()
               for n in dict.fromkeys(numbers) if n not in self._pages}
        self._read_nodes([v for ids in new.values() for v in ids])
        for n, ids in new.items():
            nodes = [self._nodes[v] for v in ids]
            self._pages[n] = {node.id: node for node in nodes}
        return Checkpoint(state, tuple(self._pages[n] for n in numbers))

    def _read_nodes(self, numbers: list) -> None:
        """Decode the node versions ``numbers`` not read yet, all together (``_read``
        forgets those kept past ``KEPT_VERSIONS``: memory follows what the seeks read lately,
        not the whole index). The cyclic collector waits meanwhile: decoding makes thousands
        of objects, none in a cycle, and each of its passes would walk every version kept."""
        todo = sorted({v for v in numbers if v not in self._nodes})
        texts = self._blobs(self.arrays["nodes"], todo)
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._nodes.update(zip(todo, self._reader.nodes(texts)))
        finally:
            if collecting:
                gc.enable()

    def _blobs(self, bounds, numbers: list) -> list[bytes]:
        """The JSON of items ``numbers`` (increasing) of the table ``bounds`` delimits: each
        run of neighbours read at once (a page's versions were written side by side)."""
        out, at, blobs = [], 0, self.arrays["blobs"][0]
        while at < len(numbers):
            end = at + 1
            while end < len(numbers) and numbers[end] == numbers[end - 1] + 1 \
                    and end - at < 4096:
                end += 1
            first, last = numbers[at], numbers[end - 1]
            base = int(bounds[first])
            cuts = bounds[first:last + 2].tolist()
            data = self._pread(blobs + base, cuts[-1] - base)
            out += [data[a - base:b - base] for a, b in zip(cuts, cuts[1:])]
            at = end
        return out

    def _blob(self, bounds, index: int) -> bytes:
        start, end = int(bounds[index]), int(bounds[index + 1])
        return self._pread(self.arrays["blobs"][0] + start, end - start)

    def _ints(self, name: str, bounds, index: int, limit: int) -> np.ndarray:
        at, _ = self.arrays[name]
        start, end = int(bounds[index]), int(bounds[index + 1])
        ints = np.frombuffer(self._pread(at + 4 * start, 4 * (end - start)), dtype="<i4")
        if len(ints) and (int(ints.min()) < 0 or int(ints.max()) >= limit):
            raise ValueError(f"index: {name} out of range")
        return ints

    def _pread(self, at: int, size: int) -> bytes:
        data = os.pread(self._fd, size, at)
        if len(data) != size:
            raise ValueError("index: truncated")
        return data

    def close(self) -> None:
        self._file.close()
