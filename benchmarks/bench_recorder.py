"""What watching costs: forward+backward with nobody listening vs with a recorder, and
where a recording's time goes, probe function by probe function.

Run: ``python3 benchmarks/bench_recorder.py`` (prints microseconds per step, then per op).
With nobody subscribed the engine pays one ``WATCH.on`` test per step; the
first line is the baseline to compare against the engine's own timings.
"""

from __future__ import annotations

import collections
import time

import agdebug as ag
from agdebug.debug import record
from agdebug.events import WATCH, probe

# The probe functions the engine calls while recording a chain (``_node_freed`` through the
# weak references' callbacks); each is looked up on the module at every call.
PROBES = ("node_created", "node_started", "node_finished", "buffer_accumulated",
          "saved_released", "_node_freed", "backward_planned", "backward_started",
          "backward_finished")


def step(x, w) -> None:
    y = x
    for _ in range(20):
        y = (y * w).tanh() if hasattr(y, "tanh") else y * w
    y.sum().backward()


def timed(fn, repeat: int = 50) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def main() -> None:
    x = ag.randn(64, requires_grad=True)
    w = ag.randn(64, requires_grad=True)
    assert not WATCH.on
    off = timed(lambda: step(x, w))
    with record() as trace:
        on = timed(lambda: step(x, w))
    with record(values=True):
        values = timed(lambda: step(x, w), repeat=10)
    per = len(trace.events) / (5 * 50)
    print(f"nobody listening : {off:9.1f} us per forward+backward")
    print(f"recording        : {on:9.1f} us  ({on / off:.1f}x, {per:.0f} events per step)")
    print(f"recording values : {values:9.1f} us  ({values / off:.1f}x)")


def probe_costs(ops: int = 1000, runs: int = 20) -> dict[str, float]:
    """Microseconds per op spent inside each probe function while recording a W1-style chain
    of ``ops`` ops. Each call is timed by a wrapper, whose own cost (about 0.1 us) is
    included, as is any cyclic GC pass that an allocation inside the call sets off (most of
    ``backward_finished``'s time)."""
    spent: collections.Counter = collections.Counter()
    originals = {name: getattr(probe, name) for name in PROBES}

    def timed_probe(name, fn):
        def call(*args, **kwargs):
            if "engine_frames" in kwargs:   # the wrapper is one more frame to skip unread
                kwargs["engine_frames"] += 1
            start = time.perf_counter_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter_ns() - start
        return call

    def chain():
        y = ag.ones(4, requires_grad=True)
        for _ in range(ops // 2):
            y = (y * 1.0001) + 0.0001
        y.sum().backward()

    for name, fn in originals.items():
        setattr(probe, name, timed_probe(name, fn))
    try:
        with record():
            chain()          # warm-up
        spent.clear()
        for _ in range(runs):
            with record():
                chain()
    finally:
        for name, fn in originals.items():
            setattr(probe, name, fn)
    return {name: ns / 1e3 / runs / ops for name, ns in spent.most_common()}


if __name__ == "__main__":
    main()
    print("inside the probe, per recorded op of a 1,000-op chain:")
    for name, us in probe_costs().items():
        print(f"  {name:<20} {us:6.2f} us")
