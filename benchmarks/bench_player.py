"""What the HTML player costs: a 3,000-node branching graph's page, made and played.

Run: ``python benchmarks/bench_player.py [LEAVES] [SCREENSHOT_DIR]``. The graph is a tree of
adds over LEAVES leaves (each ``leaf * 2.0``): 3 x LEAVES nodes, 17 x LEAVES events. Prints
the export's seconds and peak memory, then, where Playwright and Debian's ``chromium`` are
installed, the page's load time (navigation to the load event) and ``show(i)`` times
(performance.now() around each call: steps forwards and back, the Home/End jumps).
Figures, never assertions: timings vary by machine. Targets (issue 25): the page made in
<= 20 s, loaded in <= 3 s, a step in <= 50 ms.
"""

from __future__ import annotations

import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex

# Steps timed one by one from the middle of the backward, then the jumps.
_TIMINGS = """(start) => {
  const n = FRAMES.length, time = (i) => { const a = performance.now(); show(i);
                                         return performance.now() - a; };
  show(start);
  const steps = [];
  for (let i = start + 1; i < Math.min(n, start + 300); i++) steps.push(time(i));
  for (let i = Math.min(n, start + 300) - 2; i > start; i--) steps.push(time(i));
  steps.sort((a, b) => a - b);
  return {median: steps[steps.length >> 1], p99: steps[Math.floor(steps.length * 0.99)],
          max: steps[steps.length - 1], end: time(n - 1), home: time(0)}; }"""


def tree(leaves: int):
    """A tree of adds over ``leaves`` leaves: branching, 3 x ``leaves`` nodes."""
    xs = [ag.tensor([1.0, 2.0], requires_grad=True) for _ in range(leaves)]
    ys = [x * 2.0 for x in xs]
    while len(ys) > 1:
        ys = [ys[i] + ys[i + 1] if i + 1 < len(ys) else ys[i] for i in range(0, len(ys), 2)]
    return ys[0].sum()


def play(path: Path, shots: Path | None) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("(playwright not installed: pip install playwright)")
        return
    chromium = shutil.which("chromium")
    if chromium is None:
        print("(no chromium on PATH)")
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        loads = []
        for _ in range(3):
            tab = browser.new_page(viewport={"width": 1200, "height": 800})
            tab.goto(path.as_uri())
            loads.append(tab.evaluate("performance.getEntriesByType('navigation')[0]"
                                      ".loadEventEnd"))
            tab.close() if len(loads) < 3 else None
        print(f"load in chromium (3 runs)      {', '.join(f'{t:.0f}' for t in loads)} ms")
        start = tab.evaluate("FRAMES.length >> 1")
        times = tab.evaluate(_TIMINGS, start)
        print("show(i) ms                     " + ", ".join(f"{k} {v:.1f}"
                                                             for k, v in times.items()))
        if shots:
            tab.evaluate(f"show({start})")
            tab.screenshot(path=str(shots / "player-3000-fit.png"))
            tab.evaluate("zoom(1 / k); follow()")   # natural size, at the step's node
            tab.screenshot(path=str(shots / "player-3000-zoomed.png"))
        browser.close()


def main(leaves: int = 1000, shots: str | None = None) -> None:
    with record() as trace:
        tree(leaves).backward()
    timeline = trace.timeline()
    print(f"tree of {leaves} leaves: {len(timeline.final.nodes)} nodes, {len(timeline)} events, "
          f"Graphviz: {ex.find_dot()}")
    path = Path(tempfile.mkdtemp()) / "player.html"
    start = time.perf_counter()
    ex.export(timeline, "html", path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"html export                     {time.perf_counter() - start:.2f} s, peak RSS "
          f"{peak:.0f} MB, {path.stat().st_size / 1e6:.1f} MB page")
    play(path, Path(shots) if shots else None)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, *sys.argv[2:3])
