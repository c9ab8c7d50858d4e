"""Traces at the scale of training runs: a flat recorder, a timeline of checkpoints."""

from __future__ import annotations

import gc
import tracemalloc
import warnings

import pytest

import agdebug as ag
from agdebug.debug import TraceError, load_trace, record


def _steps(x, count: int) -> None:
    for _ in range(count):
        ((x.exp() * x).sin() * 2).sum().backward()


def _recorded_peak(path, count: int) -> tuple[int, int]:
    """(events written, tracemalloc's peak while recording ``count`` training steps)."""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    gc.collect()
    tracemalloc.start()
    try:
        with record(path) as trace:
            _steps(x, count)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return len(trace), peak


def test_recording_to_a_file_keeps_no_event_in_memory(tmp_path):
    _recorded_peak(tmp_path / "warm.agtrace", 20)    # imports, caches: not the recorder's
    small, small_peak = _recorded_peak(tmp_path / "small.agtrace", 60)
    large, large_peak = _recorded_peak(tmp_path / "large.agtrace", 600)
    assert large == 10 * small
    # Kept events would take ~240 B each (10x the events, ~10x the peak); the probe's
    # bounded caches account for the rest.
    assert large_peak < 3 * small_peak + 200_000, (small_peak, large_peak)


def test_a_streamed_trace_reads_its_events_back_from_the_file(tmp_path):
    path = tmp_path / "t.agtrace"
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with record(path) as trace:
        _steps(x, 2)
        assert trace._events is None and len(trace) > 0     # counted, not kept
        half = len(trace.events)                            # read back mid-run
        _steps(x, 2)
    assert len(trace) == len(trace.events) == 2 * half
    assert trace.events == load_trace(path).events
    assert trace.state().step == len(trace)


def _eventful_run():
    """Training steps with freed nodes, released and retained saved tensors, a cycle formed
    and broken, errors (a second backward through freed buffers, an in-place change)."""
    import gc
    w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for i in range(12):
        loss = ((w * (i + 1)).exp() * w).sin().sum()
        loss.backward(retain_graph=i % 3 == 0)
        if i % 4 == 1:
            try:
                loss.backward()
            except RuntimeError:
                pass
    with warnings.catch_warnings():                 # (torch's create_graph warning)
        warnings.simplefilter("ignore")
        (w * w).sum().backward(create_graph=True)  # the leaf -> .grad -> graph cycle
    gc.collect()
    w.grad = None
    gc.collect()
    y = w.exp()
    z = y * 2
    y.add_(1)
    try:
        z.sum().backward()
    except RuntimeError:
        pass


def _full_reductions(events) -> list:
    from agdebug.debug.state import EMPTY, reduce
    states = [EMPTY]
    for event in events:
        states.append(reduce(states[-1], event))
    return states


def _same(got, want) -> None:
    assert got == want
    assert list(got.nodes) == list(want.nodes)      # the same order too (drawing follows it)
    assert list(got.leaves) == list(want.leaves)


def test_seeking_gives_the_full_reduction_at_every_step():
    import random

    from agdebug.debug.state import Timeline
    with record() as trace:
        _eventful_run()
    events = trace.events
    kinds = {e.kind for e in events}
    assert {"node_freed", "saved_released", "cycle_detected", "cycle_broken", "error"} <= kinds
    full = _full_reductions(events)
    for every in (1, 7, 64, 10_000):
        timeline = Timeline(events, every=every)
        edges = {s + d for s in range(0, len(events) + 1, every) for d in (-1, 0, 1)}
        steps = sorted(edges | {0, len(events)}) + random.Random(every).sample(
            range(len(events) + 1), 200)
        for step in [s for s in steps if 0 <= s <= len(events)]:   # forwards, then anywhere
            _same(timeline.state(step), full[step])
        _same(timeline.final, full[-1])


def test_unchanged_checkpoint_pages_are_shared():
    from agdebug.debug.state import PAGE, Timeline
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        _steps(x, 400)   # ~2,400 nodes, each freed once its step ends
    timeline = Timeline(trace.events, every=256)
    first, last = timeline._checkpoints[len(timeline._checkpoints) // 2], \
        timeline._checkpoints[-1]
    pages = len(first.pages)
    assert pages >= 4 and len(first.state.nodes) == 0
    shared = sum(a is b for a, b in zip(first.pages, last.pages))
    assert shared >= pages - 2                       # only the last pages were touched since
    # Freed nodes leave the graph when the next backward starts: the pages of the steps
    # before the last are the one empty page, and the last state holds one step's nodes.
    assert len({id(page) for page in last.pages[:-2]}) == 1 and not last.pages[0]
    assert 0 < len(timeline.final.nodes) <= 6
    assert max(len(c.pages) for c in timeline._checkpoints) * PAGE >= 2_400


# ----------------------------------------------------------------------------- lazy opening

@pytest.fixture
def lazy(tmp_path, monkeypatch):
    """Every trace opens lazily, with its index kept in ``tmp_path / "cache"``."""
    from agdebug.debug import index
    monkeypatch.setattr(index, "LAZY_BYTES", 0)
    monkeypatch.setenv("AGDEBUG_CACHE", str(tmp_path / "cache"))
    return index


def _recorded(tmp_path, count: int = 30):
    path = tmp_path / "t.agtrace"
    with record(path):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        _steps(x, count)
    return path


def test_a_long_trace_opens_lazily_and_the_index_is_kept(tmp_path, lazy, monkeypatch):
    path = _recorded(tmp_path)
    with monkeypatch.context() as patched:
        patched.setattr(lazy, "LAZY_BYTES", 10**12)
        eager = load_trace(path)
    first = load_trace(path)
    assert isinstance(first.events, lazy.EventFile) and first.events == eager.events
    assert len(list((tmp_path / "cache").iterdir())) == 1
    monkeypatch.setattr(lazy, "_scan", None)            # the second opening makes no pass
    again = load_trace(path)
    full = _full_reductions(eager.events)
    for step in (0, 1, 511, 512, 513, len(eager) // 2, len(eager)):
        _same(again.state(step), full[step])
        _same(first.state(step), full[step])
    kinds = ("backward_started", "error")
    assert again.timeline().steps_of(*kinds) == eager.timeline().steps_of(*kinds)
    assert again.events[-3:] == eager.events[-3:] and again.events[5] == eager.events[5]


def test_a_changed_file_is_indexed_again(tmp_path, lazy):
    path = _recorded(tmp_path, 3)
    assert len(load_trace(path)) > 0
    path.write_text(path.read_text().splitlines(keepends=True)[0])   # only the header now
    assert len(load_trace(path)) == 0


def test_a_bad_line_read_late_is_a_one_line_error(tmp_path, lazy):
    import os
    path = _recorded(tmp_path)
    trace = load_trace(path)
    lines = path.read_bytes().split(b"\n")
    info = os.stat(path)
    bad = len(lines) - 5                 # a line near the end, changed in place
    lines[bad - 1] = b"#" + lines[bad - 1][1:]
    path.write_bytes(b"\n".join(lines))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))    # the index still matches it
    with pytest.raises(TraceError) as raised:
        load_trace(path).state(len(trace) - 1)   # from the checkpoint before: reads it
    assert str(raised.value).startswith(f"{path}:{bad}: corrupted line")
    assert "\n" not in str(raised.value)


def test_an_index_that_is_not_agdebugs_is_never_run(tmp_path, lazy):
    path = _recorded(tmp_path, 3)
    want = load_trace(path).state(len(load_trace(path)))
    (index_file,) = (tmp_path / "cache").iterdir()
    marker = tmp_path / "ran"
    index_file.write_bytes(_evil_pickle(marker))
    got = load_trace(path)
    assert not marker.exists() and got.state(len(got)) == want     # ignored, indexed again
    assert index_file.read_bytes().startswith(b'{"format": "agdebug-index"')


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os
        return os.system, (f"touch {self.marker}",)


def _evil_pickle(marker) -> bytes:
    import pickle
    return pickle.dumps(_Evil(marker))


def _damaged(data: bytes, how: str, sections: dict) -> bytes:
    """The index ``data`` damaged: its header, a small array, the end, or its JSON."""
    head, _, body = data.partition(b"\n")
    if how == "header":
        return head.replace(b'"version": 2', b'"version": "2"') + b"\n" + body
    if how == "truncated":
        return data[:-7]
    if how == "offsets":                       # the first event's offset, made 0
        return head + b"\n" + b"\0" * 8 + body[8:]
    start = len(head) + 1 + sections["blobs"]
    if how == "summary":                       # the first tensor summary: not JSON now
        return data[:start] + b'["' + data[start + 2:]
    at = data.rindex(b'{"step":')               # the last checkpoint's state
    return data[:at] + b'{"stop":' + data[at + 8:]


@pytest.mark.parametrize("how", ["header", "truncated", "offsets", "summary", "state"])
def test_a_damaged_index_is_ignored_or_rebuilt_from_the_events(tmp_path, lazy, how):
    import json

    import numpy as np

    from agdebug.debug.index_file import SECTIONS
    path = _recorded(tmp_path, 30)
    eager = _full_reductions(load_trace(path).events)
    (index_file,) = (tmp_path / "cache").iterdir()
    data = index_file.read_bytes()
    counts = json.loads(data.partition(b"\n")[0])["counts"]
    sizes = [c * np.dtype(t).itemsize for (_, t), c in zip(SECTIONS, counts)]
    index_file.write_bytes(_damaged(data, how, {"blobs": sum(sizes[:-1])}))
    trace = load_trace(path)
    for step in (len(eager) - 1, 0, 300, len(eager) // 2):
        _same(trace.state(step), eager[step])
    # Found at opening: indexed again; found by a seek: removed, for the next opening.
    assert index_file.exists() == (how not in ("summary", "state"))
    if index_file.exists():
        assert index_file.read_bytes() == data


def test_an_indexed_opening_reads_checkpoints_only_when_a_seek_needs_them(tmp_path, lazy):
    path = _recorded(tmp_path, 60)
    load_trace(path)
    trace = load_trace(path)
    stored = trace.timeline()._checkpoints
    assert not stored._pages and not stored._nodes              # nothing read yet
    trace.state(300)
    assert 0 < len(stored._nodes) < len(stored.arrays["nodes"]) - 1   # of every version kept


def test_export_of_a_step_past_a_bad_line_is_a_one_line_error(tmp_path, lazy, capsys):
    import os

    from agdebug.cli import main
    path = _recorded(tmp_path)
    count = len(load_trace(path))
    out = tmp_path / "g.dot"
    assert main(["export", str(path), "-f", "dot", "--step", str(count - 1), "-o",
                 str(out)]) == 0
    lines = path.read_bytes().split(b"\n")
    info = os.stat(path)
    lines[-4] = b"#" + lines[-4][1:]
    path.write_bytes(b"\n".join(lines))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    capsys.readouterr()
    assert main(["export", str(path), "-f", "dot", "--step", str(count - 1), "-o",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"agdebug: {path}:{len(lines) - 3}: corrupted line: invalid JSON " \
        "(Expecting value)\n"


class _Stream:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def _progress(tty: bool, times) -> str:
    from agdebug.cli import Progress
    clock = iter(times)
    stream = _Stream(tty)
    progress = Progress("reading t.agtrace", stream)
    progress.clock = lambda: next(clock)
    progress.start = progress.said = 0.0
    for done in (10, 50, 100):
        progress(done, 100)
    return stream.text


def test_progress_shows_on_a_terminal_or_after_a_second():
    assert _progress(True, [0.1, 0.5, 0.6]) == (
        "\ragdebug: reading t.agtrace: 10% (0 s)\ragdebug: reading t.agtrace: 50% (0 s)"
        "\ragdebug: reading t.agtrace: 100% (1 s)\n")
    assert _progress(False, [0.1, 0.5, 0.6]) == ""          # a quick load says nothing
    assert _progress(False, [0.5, 2.0, 3.0]) == (
        "agdebug: reading t.agtrace: 50% (2 s)\nagdebug: reading t.agtrace: 100% (3 s)\n")


# ----------------------------------------------------------------------------- record's flags

def _cli(*args, cwd):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "agdebug.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_limit_events_stops_recording_and_the_script_runs_on(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys\nimport agdebug as ag\n"
                      "x = ag.tensor([1.0, 2.0], requires_grad=True)\n"
                      "for i in range(20):\n    (x * x).sum().backward()\n"
                      "print('done', i)\nsys.exit(3)\n")
    done = _cli("record", "--limit-events", 25, script, "-o", tmp_path / "t.agtrace",
                cwd=tmp_path)
    assert done.returncode == 3 and done.stdout == "done 19\n"
    assert done.stderr.count("--limit-events 25 reached") == 1
    assert "wrote 25 events" in done.stderr
    assert len(load_trace(tmp_path / "t.agtrace")) == 25
    refused = _cli("record", "--limit-events", 0, script, "-o", tmp_path / "u.agtrace",
                   cwd=tmp_path)
    assert refused.returncode == 2 and "must be 1 or more" in refused.stderr


def _training(unused: bool) -> None:
    import gc
    w = ag.tensor([1.0, -2.0], requires_grad=True)
    for _ in range(3):
        if unused:
            (w.exp() * 3).sum()         # a forward freed unused: no backward sees it
            gc.collect()
            print("between")
        loss = (w * w).sin().sum()
        loss.backward()
        del loss


def _backward_kinds(events) -> list:
    kept, running = [], 0
    for e in events:
        running += e.kind == "backward_started"
        if running:
            kept.append(e.kind)
        running -= e.kind == "backward_finished"
    return kept


def test_only_backward_keeps_the_backwards_and_the_graphs_they_run(tmp_path):
    import sys

    from agdebug.cli import _Echo
    with record() as full:
        _training(unused=True)
    path = tmp_path / "b.agtrace"
    saved = sys.stdout
    sys.stdout = _Echo(saved, "stdout")        # printed output, as agdebug record keeps it
    try:
        with record(path, only_backward=True) as some:
            _training(unused=True)
    finally:
        sys.stdout = saved
    events = load_trace(path).events             # it validates: every reference resolves
    assert len(some) < len(full)
    assert _backward_kinds(events) == _backward_kinds(full.events)
    assert not {"gc_pass", "printed"} & {e.kind for e in events}
    created = {e.node for e in events if e.kind == "node_created"}
    planned = {p.node for e in events if e.kind == "backward_planned" for p in e.nodes}
    assert planned <= created                                  # each backward's graph
    every = {e.node for e in full.events if e.kind == "node_created"}
    # Dropped: each unused forward's exp, mul and sum, and the AccumulateGrad of w made for
    # it (freed with them).
    assert len(created) == len(every) - 3 * 4
    freed = {e.node for e in events if e.kind == "node_freed"}
    assert planned <= freed                                    # what happened to them after


def test_record_indexes_a_long_trace_as_it_finishes(tmp_path, lazy, monkeypatch, capsys):
    from agdebug.cli import main
    script = tmp_path / "s.py"
    script.write_text("import agdebug as ag\nx = ag.tensor([1.0, 2.0], requires_grad=True)\n"
                      "for i in range(5):\n    (x * x).sum().backward()\n")
    path = tmp_path / "t.agtrace"
    assert main(["record", str(script), "-o", str(path)]) == 0
    assert len(list((tmp_path / "cache").iterdir())) == 1
    monkeypatch.setattr(lazy, "_scan", None)            # its first opening makes no pass
    assert load_trace(path).state().step == len(load_trace(path)) > 0


def test_a_long_traces_narration_reads_only_what_it_learns_from(tmp_path, lazy):
    from agdebug.debug.narration import Narrator
    path = tmp_path / "t.agtrace"
    with record(path):
        _eventful_run()
    eager = Narrator(load_trace(path).events)
    events = load_trace(path).events
    assert isinstance(events, lazy.EventFile)
    told = Narrator(events)
    assert [told.sentence(i) for i in range(len(events))] == \
        [eager.sentence(i) for i in range(len(events))]
    late = Narrator(events)
    late.sentence(len(events) - 1)               # far ahead first: the same sentences
    assert late.sentence(3) == eager.sentence(3) and late._indexed == len(events)


def test_a_far_sentence_of_a_long_trace_indexes_only_the_window_before_it(tmp_path, lazy,
                                                                            monkeypatch):
    """With its timeline, a narrator told a late sentence first reads only the ``WINDOW``
    events before it (G on a million events), starting as deep in backwards as the state
    there: each sentence whose names lie in the window is the whole pass's."""
    from agdebug.debug import narration
    path = tmp_path / "t.agtrace"
    with record(path):
        w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
        for _ in range(6):
            (w.exp() * w).sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (w.sin() * w).sum().backward(create_graph=True)   # nodes made inside a backward
    trace = load_trace(path)
    eager = narration.Narrator(list(trace.events))
    monkeypatch.setattr(narration, "WINDOW", 40)
    late = narration.Narrator()
    late.follow(trace.events, trace.timeline())
    read = []
    only = trace.events.only
    monkeypatch.setattr(trace.events, "only", lambda kinds, a, b: read.append((a, b))
                        or only(kinds, a, b))
    n = len(trace.events)
    assert late.sentence(n - 1) == eager.sentence(n - 1)
    assert read == [(n - 40, n)] and late._indexed == 0
    inside = [i for i, e in enumerate(trace.events) if e.kind == "node_created"
              and "the backward itself records" in eager.sentence(i)]
    assert inside and all(late.sentence(i) == eager.sentence(i) for i in inside)
    for i in range(n - 40, n):                     # (the window: read once)
        assert late.sentence(i) == eager.sentence(i)
    assert late.sentence(3) == eager.sentence(3) and late._indexed == 4   # the start: as ever


# ----------------------------------------------------------------------------- seeking far

def _long_backwards(path, steps: int, nodes: int) -> None:
    """``steps`` backwards through chains of ``nodes`` ops: each plan is one long line."""
    with record(path):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(steps):
            y = x
            for _ in range(nodes):
                y = (y * 1.0001).sin()
            y.sum().backward()


def test_seeks_anywhere_in_a_lazy_trace_give_the_full_reduction(tmp_path, lazy, monkeypatch):
    from agdebug.debug import state
    # Small pages and prefixes, so a short trace has many of each (as a 1M-event one has).
    monkeypatch.setattr(state, "PAGE", 8)
    monkeypatch.setattr(state, "_PREFIX", 2)
    monkeypatch.setattr(state, "_LIVE_PAGES", 1)
    monkeypatch.setattr(lazy, "LAZY_BYTES_EVERY", 4096)
    path = tmp_path / "t.agtrace"
    _long_backwards(path, 12, 40)
    first = load_trace(path)                       # the pass, then the index read back
    again = load_trace(path)
    full = _full_reductions(list(first.events))
    steps = again.timeline()._steps
    assert len(steps) > 2 * len(full) // lazy.LAZY_EVERY   # placed by bytes, not count only
    import random
    edges = {s + d for s in steps for d in (-1, 0, 1)} | {0, len(full) - 1}
    wanted = [s for s in sorted(edges) if 0 <= s < len(full)]
    wanted += random.Random(0).sample(range(len(full)), 300) + wanted[::-1]
    for trace in (first, again):
        for step in wanted:
            _same(trace.state(step), full[step])
        _same(trace.timeline().final, full[-1])


def test_a_seek_decodes_a_bounded_number_of_line_bytes(tmp_path, lazy, monkeypatch):
    """No seek decodes more than the checkpoints' byte budget (and a block's slack) of
    lines: a backward's long plan line is never replayed (it is the event of the
    checkpoint that follows it). Counted, not timed."""
    path = tmp_path / "t.agtrace"
    _long_backwards(path, 6, 1200)                 # plans of ~100 KB
    load_trace(path)
    trace = load_trace(path)
    events = trace.events
    sizes = [int(events.offsets[i + 1] - events.offsets[i]) for i in range(len(events))]
    assert max(sizes) > lazy.LAZY_BYTES_EVERY + 2 * lazy.BLOCK_BYTES
    decoded = []
    real = lazy._event
    monkeypatch.setattr(lazy, "_event", lambda name, number, raw: (
        decoded.append(len(raw)), real(name, number, raw))[1])
    import random
    plans = [step - 1 for step in trace.timeline().steps_of("backward_planned")]
    wanted = [p + d for p in plans for d in range(0, 300, 7)] + random.Random(1).sample(
        range(len(events)), 200)
    for step in wanted:
        trace.timeline()._last = trace.timeline().state(0)     # no stepping on: a seek
        events._blocks.clear()
        decoded.clear()
        trace.state(step)
        assert sum(decoded) <= lazy.LAZY_BYTES_EVERY + 2 * lazy.BLOCK_BYTES, step


def test_an_indexed_trace_keeps_a_bounded_number_of_decoded_versions(tmp_path, lazy,
                                                                       monkeypatch):
    from agdebug.debug import index_file
    path = _recorded(tmp_path, 60)
    full = _full_reductions(load_trace(path).events)
    monkeypatch.setattr(index_file, "KEPT_VERSIONS", 20)
    trace = load_trace(path)
    stored, most = trace.timeline()._checkpoints, 0
    for step in range(0, len(full), 7):
        _same(trace.state(step), full[step])
        most = max(most, len(stored._nodes))
    assert 20 < most <= 20 + max(len(full[s].nodes) for s in range(len(full)))


@pytest.mark.parametrize("every", [2, 3])
def test_an_indexed_trace_replayed_from_any_checkpoint_gives_the_full_reduction(
        tmp_path, lazy, monkeypatch, every):
    """Checkpoints every few steps: events replayed after one between a backward's start and
    its plan (decoded, the running stack's top and ``backward`` are equal, not one object)
    still give the plan to ``backward``."""
    monkeypatch.setattr(lazy, "LAZY_EVERY", every)
    monkeypatch.setattr(lazy, "LAZY_BYTES_EVERY", 10**9)   # ``every`` alone places them
    path = _recorded(tmp_path, 3)
    full = _full_reductions(load_trace(path).events)
    trace = load_trace(path)
    assert len(trace.timeline()._checkpoints) > len(full) // (every + 1)
    for step in reversed(range(len(full))):   # backwards: each seek starts at a checkpoint
        _same(trace.state(step), full[step])


def test_node_versions_read_together_are_each_one_json_value():
    """A checkpoint's versions are parsed in one pass: a damaged item holding two values, or
    half of one, is a ValueError (the checkpoint is then rebuilt), never a shifted field."""
    from agdebug.debug.checkpoints import NodeReader, NodeWriter
    from agdebug.debug.state import NodeView
    writer = NodeWriter()
    texts = [writer.node_json(NodeView(i, "MulBackward0", "mul")) for i in (1, 2)]
    tables = {"summaries": writer.summaries, "shared": writer.shared}
    reader = NodeReader(lambda table, ns: [tables[table][n] for n in ns],
                        {t: len(v) for t, v in tables.items()})
    assert [n.id for n in reader.nodes(texts)] == [1, 2]
    for bad in ([texts[0] + b"," + texts[1], b"1"], [b'"x', b'y"', texts[0]],
                [texts[0], b""]):
        with pytest.raises(ValueError):
            NodeReader(reader._blobs, reader.counts).nodes(bad)


@pytest.mark.parametrize("fault", ["no cache folder", "index unfinished"])
def test_a_trace_opens_whole_when_its_index_cannot_be_written(tmp_path, lazy, monkeypatch,
                                                              fault):
    from agdebug.debug import index_file
    path = _recorded(tmp_path, 30)
    full = _full_reductions(load_trace(path).events)
    if fault == "no cache folder":
        (tmp_path / "file").write_text("")
        monkeypatch.setenv("AGDEBUG_CACHE", str(tmp_path / "file" / "cache"))
    else:
        def full_disk(*args):
            raise OSError(28, "No space left on device")
        monkeypatch.setenv("AGDEBUG_CACHE", str(tmp_path / "other"))
        monkeypatch.setattr(index_file.IndexWriter, "finish", full_disk)
    trace = load_trace(path)
    for step in (0, 300, len(full) // 2, len(full) - 1):
        _same(trace.state(step), full[step])
    if fault == "index unfinished":
        assert not list((tmp_path / "other").iterdir())   # (nothing half-written left)


def _first_opening_peak(path) -> int:
    """tracemalloc's peak while a trace is opened the first time (its index made)."""
    gc.collect()
    tracemalloc.start()
    try:
        load_trace(path).state(0)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_first_opening_keeps_no_checkpoint_in_memory(tmp_path, lazy):
    """The pass writes each checkpoint to the index as it makes it: its memory follows the
    live graph (and the events' offsets), not the checkpoints of the whole trace."""
    small, large = tmp_path / "small.agtrace", tmp_path / "large.agtrace"
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with record(small):
        _steps(x, 40)
    with record(large):
        _steps(x, 400)
    _first_opening_peak(_recorded(tmp_path, 3))    # imports, caches: not the pass's
    small_peak, large_peak = _first_opening_peak(small), _first_opening_peak(large)
    # Kept checkpoints took ~3.5 KB per event (10x the events, ~10x the peak); the
    # offsets and kinds take 9 B per event, the writer's typed arrays a few more.
    assert large_peak < 2 * small_peak + 1_000_000, (small_peak, large_peak)


def test_first_events_are_a_long_unindexed_traces_first_backward(tmp_path, lazy, monkeypatch):
    """What a first screen shows while a first opening's pass runs: the checked events up
    to the end of the first backward, at most ``limit``; none once the trace is indexed or
    when it is short (those open quickly)."""
    path = _recorded(tmp_path, 3)
    events = lazy.first_events(path)
    full = load_trace(path).events                      # (this opening indexes it)
    end = next(i for i, e in enumerate(full) if e.kind == "backward_finished") + 1
    assert events == list(full[:end])
    assert lazy.first_events(path) == []                # indexed now
    (tmp_path / "cache").rename(tmp_path / "old")
    assert len(lazy.first_events(path, limit=5)) == 5
    with monkeypatch.context() as patched:
        patched.setattr(lazy, "LAZY_BYTES", 10**12)
        assert lazy.first_events(path) == []            # short: it opens at once
    lines = path.read_bytes().split(b"\n")
    lines[3] = b'{"kind":"node_freed"}'
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(TraceError, match=r":4: invalid event"):
        lazy.first_events(path)
    assert lazy.first_events(tmp_path / "missing.agtrace") == []
