"""Exports of big graphs: PNG and HTML of a 3,000-node MLP and a transformer, beside torchviz.

Run: ``python3 -m benchmarks.bench_big_graphs [LAYERS]`` (default 600 Linear+Tanh pairs:
3,001 nodes). Each row runs in a fresh process and prints wall seconds, peak RSS (the
process or the Graphviz program it ran, whichever is larger), the output's size and what it
shows: the nodes drawn out of the graph's nodes. torchviz's ``make_dot`` draws torch's
graph of the same model and the same program renders it. graphviz-pure is forced even where
a real ``dot`` is on PATH, as the target (<= 20 s, <= 1 GB) is for pip-installed Graphviz.
Figures, never assertions: timings vary by machine.
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

CASES = ("agdebug png", "agdebug html", "torchviz png")


def mlp(nn, layers: int):
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(4, 4), nn.Tanh())])


def transformer(nn):
    layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def build(module, graph: str, layers: int):
    """The loss of ``graph`` ("mlp" or "transformer") built with ``module`` (agdebug/torch)."""
    module.manual_seed(0)
    if graph == "mlp":
        return mlp(module.nn, layers)(module.randn(2, 4)).sum()
    return transformer(module.nn)(module.randn(5, 3, 32)).pow(2).mean()


def _graphviz_pure():
    scripts = Path(sysconfig.get_path("scripts") or "")
    for candidate in (scripts / "graphviz-pure", shutil.which("graphviz-pure")):
        if candidate and Path(candidate).is_file():
            return str(candidate), "graphviz-pure"
    return None


def _drawn(dot_text: str) -> int:
    """Node statements in DOT text (not edges, defaults, or agdebug's legend)."""
    return len(re.findall(r"^\s+\w+ \[(?!.*->)", dot_text, re.M)) - ("legend [" in dot_text)


def one(case: str, graph: str, layers: int) -> dict:
    """Run ``case`` here; what it made and showed."""
    from agdebug.render import export as ex
    ex.find_dot = _graphviz_pure   # render() asks find_dot() each time
    out = Path(tempfile.mkdtemp())
    start = time.perf_counter()
    if case == "torchviz png":
        import torch
        from torchviz import make_dot
        sys.setrecursionlimit(50_000)   # make_dot recurses once per node along a path
        source = make_dot(build(torch, graph, layers)).source
        data, total = ex.render(source, "png"), None
        shown = _drawn(source)
    else:
        import agdebug as ag
        from agdebug.debug import record
        with record() as trace:
            build(ag, graph, layers).backward()
        timeline = trace.timeline()
        fmt = case.split()[1]
        ex.export(timeline, fmt, out / f"g.{fmt}")
        data = (out / f"g.{fmt}").read_bytes()
        total = len(timeline.final.nodes)
        shown = _drawn(ex.to_dot(timeline.final))
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(who).ru_maxrss for who in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    return {"s": seconds, "mb": peak, "kb": len(data) / 1024, "shown": shown, "total": total}


def main(layers: int = 600) -> None:
    if _graphviz_pure() is None:
        print("graphviz-pure is not installed (pip install graphviz-pure)")
        return
    print(f"{'graph':<22} {'what':<14} {'seconds':>8} {'peak MB':>8} {'out KB':>8}  shows")
    for graph in ("mlp", "transformer"):
        name = f"MLP {layers}x(Linear,Tanh)" if graph == "mlp" else "transformer 2 layers"
        for case in CASES:
            if case.startswith("torchviz") and not _has("torch", "torchviz"):
                print(f"{name:<22} {case:<14}  (torch or torchviz not installed)")
                continue
            done = subprocess.run([sys.executable, "-m", "benchmarks.bench_big_graphs",
                                   "--one", case, graph, str(layers)],
                                  capture_output=True, text=True, check=False)
            if done.returncode:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{name:<22} {case:<14}  failed: {last[:80]}")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            shows = f"{r['shown']} boxes/nodes" + (f" of {r['total']} nodes" if r["total"]
                                                    else " (every node)")
            print(f"{name:<22} {case:<14} {r['s']:8.2f} {r['mb']:8.0f} {r['kb']:8.0f}  {shows}")


def _has(*names: str) -> bool:
    import importlib.util
    return all(importlib.util.find_spec(n) is not None for n in names)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
    else:
        main(*map(int, sys.argv[1:2]))
