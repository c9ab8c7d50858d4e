"""What watching costs: forward+backward with nobody listening vs with a recorder.

Run: ``python3 benchmarks/bench_recorder.py`` (prints microseconds per step).
With nobody subscribed the engine pays one ``WATCH.on`` test per step; the
first line is the baseline to compare against the engine's own timings.
"""

from __future__ import annotations

import time

import agdebug as ag
from agdebug.debug import record
from agdebug.events import WATCH


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


if __name__ == "__main__":
    main()
