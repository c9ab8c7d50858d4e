"""Traces at the scale of training runs: a flat recorder, a timeline of checkpoints."""

from __future__ import annotations

import gc
import tracemalloc
import warnings

import agdebug as ag
from agdebug.debug import load_trace, record


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
    assert len(timeline.final.nodes) > (pages - 1) * PAGE
