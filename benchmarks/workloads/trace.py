"""TRACE: opening a 100,000-event trace file and seeking in it.

A recording of repeated W1 chains (forward and backward) until the trace holds the wanted
number of events is saved with ``Trace.save``; then, once each (not warmed up): the first
opening (``load_trace``'s validating pass, which builds the index of a long trace) and the
state of its first screen (the first backward about to run), that screen from the trace's
first events alone (what the TUI shows while the pass runs), the same from the index, peak
memory of the first opening (a fresh process's RSS) and of the indexed one (tracemalloc),
and ``Timeline.state(step)`` at random steps (the nearest checkpoint plus at most ``every``
events), also with the events held in a list (up to
200,000 events) for comparison. ``--quick`` uses 10,000 events (opened eagerly:
below ``debug.index.LAZY_BYTES``). ``AGDEBUG_BENCH_BIG=1`` in full mode adds the same rows
at 1,000,000 events and the recorder's memory over 10,000 steps (minutes).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time

from ..harness import Row, at_most, stopwatch
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
    wanted = cfg.size(100_000, 10_000, 2_000)
    result = trace_rows(cfg, wanted)
    if cfg.mode == "full" and os.environ.get("AGDEBUG_BENCH_BIG"):   # opt-in: minutes
        result += trace_rows(cfg, 1_000_000, repeats=1) + recorder_rows(10_000)
    return result


def trace_rows(cfg, wanted: int, repeats: int | None = None) -> list:
    from agdebug.debug import load_trace
    trace = recorded_trace(wanted)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.agtrace")
        lap = stopwatch()
        trace.save(path)
        saved = lap()
        label = f"{len(trace.events):,}-event trace"
        del trace
        os.environ["AGDEBUG_CACHE"] = os.path.join(folder, "cache")   # (a fresh index)
        first_peak = first_opening_rss(path, os.path.join(folder, "cache-rss"))
        shown = first_screen_meanwhile(path)    # (before the index exists)
        first = opened(path, load_trace)        # the pass: it builds the index
        again = opened(path, load_trace)        # the index read back
        peak = memory(path, load_trace)
        last = last_state(path, load_trace)
        timeline = load_trace(path).timeline()
        seeks = seek_times(timeline, SEEKS if cfg.mode != "smoke" else 10)
        eager = in_memory(timeline, SEEKS if cfg.mode != "smoke" else 10)
    return eager + [Row("TRACE", f"save {label} (1 run)", "s", {"agdebug": saved}),
            Row("TRACE", f"load_trace {label}, first opening (indexing pass)", "s",
                {"agdebug": first["load"]}),
            Row("TRACE", f"first screen's state of {label}, first opening", "s",
                {"agdebug": first["load"] + first["screen"]}),
            Row("TRACE", f"first screen's state of {label}, first opening, from its first "
                "events (the TUI's, while the pass runs)", "s", {"agdebug": shown},
                at_most(2.0, "s")),
            Row("TRACE", f"peak memory (RSS), first opening of {label}", "MB",
                {"agdebug": first_peak}),
            Row("TRACE", f"first screen's state of {label}, indexed", "s",
                {"agdebug": again["load"] + again["screen"]}, at_most(2.0, "s")),
            Row("TRACE", f"peak memory, indexed opening of {label}", "MB", {"agdebug": peak},
                at_most(500.0, "MB")),
            Row("TRACE", f"seek in {label} (median of {len(seeks)})", "ms",
                {"agdebug": statistics.median(seeks) * 1e3}, at_most(20.0, "ms")),
            Row("TRACE", f"seek in {label} (worst of {len(seeks)})", "ms",
                {"agdebug": max(seeks) * 1e3}),
            Row("TRACE", f"last step's state of {label} (the TUI's G), indexed", "s",
                {"agdebug": last})]


def last_state(path: str, load_trace) -> float:
    """Seconds to the state after the last event, from a fresh indexed opening (every
    node version it holds read from the index)."""
    timeline = load_trace(path).timeline()
    lap = stopwatch()
    timeline.state(len(timeline))
    return lap()


def in_memory(timeline, count: int) -> list:
    """The same seeks in the same events held in a list (as a short trace opens), for the
    lazy seeks to be compared with on one machine in one run (up to 200,000 events: a list
    of a million costs gigabytes)."""
    from agdebug.debug.state import Timeline
    if len(timeline) > 200_000 or not hasattr(timeline.events, "steps_of"):
        return []
    seeks = seek_times(Timeline(list(timeline.events)), count)
    return [Row("TRACE", f"seek in {len(timeline):,}-event trace held in memory (median of "
                f"{len(seeks)})", "ms", {"agdebug": statistics.median(seeks) * 1e3})]


def first_screen_meanwhile(path: str) -> float:
    """Seconds to the first screen's state of a first opening from the trace's first events
    (``first_events``): what the TUI shows while the pass over the rest runs."""
    from agdebug.debug.index import first_events
    from agdebug.debug.state import Timeline
    lap = stopwatch()
    events = first_events(path)
    starts = [i for i, e in enumerate(events) if e.kind == "backward_started"]
    Timeline(events).state(starts[0] if starts else len(events))
    return lap()


def opened(path: str, load_trace) -> dict:
    """Seconds to load, and then to reach the first screen's state (the first backward
    about to run)."""
    lap = stopwatch()
    timeline = load_trace(path).timeline()
    load = lap()
    starts = timeline.steps_of("backward_started")
    timeline.state(starts[0] - 1 if starts else len(timeline))
    return {"load": load, "screen": lap()}


# The peak of this process alone: ru_maxrss would count the parent's pages it forked with
# (Linux keeps that peak across exec), /proc's VmHWM is the new image's.
_FIRST_OPENING = """
import os, resource, sys
from agdebug.debug import load_trace
load_trace(sys.argv[1]).state(0)
if os.path.exists("/proc/self/status"):
    with open("/proc/self/status") as status:
        print([line.split()[1] for line in status if line.startswith("VmHWM:")][0])
else:   # (kB, as VmHWM; macOS gives bytes)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(peak // 1024 if sys.platform == "darwin" else peak)
"""


def first_opening_rss(path: str, cache: str) -> float:
    """Peak resident memory (MB) of a fresh process opening ``path`` for the first time
    (its index made in ``cache``): what the user's machine must have, interpreter included."""
    import subprocess
    import sys
    env = {**os.environ, "AGDEBUG_CACHE": cache}
    done = subprocess.run([sys.executable, "-c", _FIRST_OPENING, path], env=env, check=True,
                          capture_output=True, text=True)
    return int(done.stdout.split()[-1]) / 1024


def memory(path: str, load_trace) -> float:
    """tracemalloc's peak (MB) while opening ``path`` to its first screen (timed apart:
    tracemalloc slows allocation several times)."""
    import gc
    import tracemalloc
    gc.collect()
    tracemalloc.start()
    try:
        opened(path, load_trace)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def recorder_rows(steps: int) -> list:
    """The recorder's memory over ``steps`` training steps streamed to a file."""
    import tracemalloc

    import agdebug as ag
    from agdebug.debug import record
    x = ag.tensor(chain.start(), requires_grad=True)
    with tempfile.TemporaryDirectory() as folder:
        tracemalloc.start()
        try:
            with record(os.path.join(folder, "rec.agtrace")) as trace:
                for _ in range(steps):
                    chain.tensor_chain(x, 10).sum().backward()
            peak = tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()
    return [Row("TRACE", f"recorder peak memory, {steps:,} steps to a file ({len(trace):,} "
                "events)", "MB", {"agdebug": peak})]
