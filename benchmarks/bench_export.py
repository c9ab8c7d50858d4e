"""What an export costs: PNG and GIF of a 300-op chain, beside torchviz on the same graph.

Run: ``python3 benchmarks/bench_export.py [OPS] [GIF_FRAMES]`` (prints seconds and peak
memory). The same chain (``y = y.sin() * 1.01``, OPS ops) is built in agdebug and in torch;
torchviz's ``make_dot`` draws torch's graph and the same Graphviz program as ours renders it
(``dot`` on PATH, else graphviz-pure). Figures, never assertions: timings vary by machine.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex


def chain(module, ops: int):
    x = module.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(ops // 2):
        y = y.sin() * 1.01
    return y.sum()


def timed(label: str, work) -> None:
    start = time.perf_counter()
    work()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<34} {time.perf_counter() - start:8.2f} s   peak RSS {peak:7.0f} MB")


def torchviz_png(ops: int) -> bytes | None:
    try:
        import torch
        from torchviz import make_dot
    except ImportError:
        return None
    return ex.render(make_dot(chain(torch, ops)).source, "png")


def main(ops: int = 300, gif_frames: int = 400) -> None:
    with record() as trace:
        chain(ag, ops).backward()
    timeline = trace.timeline()
    steps = ex.frame_steps(timeline, max_frames=gif_frames)
    print(f"{ops}-op chain: {len(timeline)} events, {len(steps)} GIF frames, "
          f"Graphviz: {ex.find_dot()}")
    out = Path(tempfile.mkdtemp())
    timed("agdebug PNG (one diagram)", lambda: ex.export(timeline, "png", out / "a.png"))
    timed("torchviz make_dot + same program",
          lambda: torchviz_png(ops) or print("  (torchviz or torch not installed)"))
    timed(f"agdebug GIF ({len(steps)} frames)",
          lambda: (out / "a.gif").write_bytes(ex.gif_bytes(timeline, steps)))


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
