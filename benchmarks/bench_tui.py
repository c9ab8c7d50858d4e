"""TUI step latency on a 2,000-node graph (a recorded chain of 2,000 ops, forward and backward).

Run: ``python3 benchmarks/bench_tui.py [NODES]``. Prints the median and worst step
latency (see ``agdebug_tui.bench``), the trace's size and the one-off layout time.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import agdebug as ag
from agdebug.cli import _tui
from agdebug.debug import record
from benchmarks.workloads import chain


def main(nodes: int = 2_000, steps: int = 50) -> None:
    tui = _tui()
    from agdebug_tui.layouts import visible_nodes
    from agdebug_tui.layout import layout
    x = ag.tensor(chain.start(), requires_grad=True)
    with record() as trace:
        chain.tensor_chain(x, nodes).sum().backward()
    timeline = trace.timeline()
    state = timeline.state(timeline.steps_of("backward_started")[0])
    start = time.perf_counter()
    drawn = layout(visible_nodes(state))
    took = time.perf_counter() - start
    times = tui.step_latency(trace, steps)
    print(f"{len(state.nodes)} nodes, {len(trace)} events; layout {took * 1e3:.0f} ms "
          f"({drawn.width}x{drawn.height} cells, once per topology, off the UI thread)")
    print(f"step latency: median {statistics.median(times) * 1e3:.1f} ms, "
          f"worst {max(times) * 1e3:.1f} ms over {steps} steps")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2_000)
