"""Step latency: how long one step takes in a headless app, from the key's action to a
composited screen.

Each sample is the ``step`` action (reduce one event, restyle the graph, update
the inspector, timeline and status) plus a full-screen composite, which is
more than a real repaint does (that redraws only what changed). Pilot's own
key-press round trip (~100 ms of waiting for idle, even for a key bound to
nothing) is left out: it measures the test harness, not the app.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.ones(3, requires_grad=True)
...     (x * 2).sum().backward()
>>> len(step_latency(trace, 3))
3
"""

from __future__ import annotations

import asyncio
import time

__all__ = ["step_latency"]


def step_latency(trace, steps: int = 20, size=(120, 40)) -> list[float]:
    """Seconds each of ``steps`` single steps took (from the first backward on)."""
    return asyncio.run(_measure(trace, steps, size))


async def _measure(trace, steps: int, size) -> list[float]:
    from .app import AgDebugApp
    app = AgDebugApp(trace=trace)
    times = []
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range(steps):
            start = time.perf_counter()
            app.action_step()
            app.screen._compositor.render_update(full=True)
            times.append(time.perf_counter() - start)
            await pilot.pause(0)
    return times
