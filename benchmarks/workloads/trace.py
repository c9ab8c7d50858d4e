"""TRACE: loading a 100,000-event trace file and seeking in it.

A recording of repeated W1 chains (forward and backward) until the trace holds the wanted
number of events is saved with ``Trace.save``; then timed: ``load_trace`` (parse and
validate), building its ``Timeline`` (the reducer over every event, with snapshots), and
``Timeline.state(step)`` at random steps (one seek: the nearest snapshot plus at most
``every`` reductions). Loads are not warmed up (each reads and parses the file
afresh). ``--quick`` uses 10,000 events.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time

from ..harness import Row, at_most, interleave, stopwatch
from . import chain

THREAD_SENSITIVE = False
SEEKS = 100


def recorded_trace(events: int):
    import agdebug as ag
    from agdebug.debug import record
    x = ag.tensor(chain.start(), requires_grad=True)
    with record() as trace:
        while len(trace.events) < events:
            chain.tensor_chain(x, 1_000).sum().backward()
    return trace


def seek_times(timeline, count: int) -> list:
    rng = random.Random(0)
    times = []
    for _ in range(count):
        step = rng.randrange(len(timeline) + 1)
        start = time.perf_counter()
        timeline.state(step)
        times.append(time.perf_counter() - start)
    return times


def rows(cfg) -> list:
    from agdebug.debug import load_trace
    wanted = cfg.size(100_000, 10_000, 2_000)
    trace = recorded_trace(wanted)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.agtrace")
        lap = stopwatch()
        trace.save(path)
        saved = lap()

        def load() -> dict:
            lap = stopwatch()
            loaded = load_trace(path)
            return {"load": lap(), "events": len(loaded.events)}
        loading = interleave({"agdebug": load}, cfg, warmup=0)["agdebug"]
    loaded = load_trace_events(trace)
    lap = stopwatch()
    timeline = loaded.timeline()
    built = lap()
    seeks = seek_times(timeline, SEEKS if cfg.mode != "smoke" else 10)
    label = f"{len(trace.events):,}-event trace"
    return [Row("TRACE", f"save {label} (1 run)", "s", {"agdebug": saved}),
            Row("TRACE", f"load_trace {label}", "s", {"agdebug": loading["load"]}),
            Row("TRACE", f"build Timeline of {label}", "s", {"agdebug": built}),
            Row("TRACE", f"seek in {label} (median of {len(seeks)})", "ms",
                {"agdebug": statistics.median(seeks) * 1e3}, at_most(100.0, "ms")),
            Row("TRACE", f"seek in {label} (worst of {len(seeks)})", "ms",
                {"agdebug": max(seeks) * 1e3})]


def load_trace_events(trace):
    """A fresh ``Trace`` of the same events (so the Timeline is built, not cached)."""
    from agdebug.debug import Trace
    return Trace(trace.events)
