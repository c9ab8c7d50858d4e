"""Traces at the scale of training runs: a flat recorder, a timeline of checkpoints."""

from __future__ import annotations

import gc
import tracemalloc

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
