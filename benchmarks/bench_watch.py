"""WATCH: what watching real PyTorch costs (``agdebug.watch``), side by side in one run.

Four variants of each workload, interleaved (``harness.interleave``): torch unwatched,
torch watched while recording to a trace file, watched into memory only (the watcher's
own cost, without the trace file's JSON), and torch unwatched again after a watch ended
(nothing may be left installed: 1.00x). W1 is the chain of small ops (per op,
forward and backward, target <= 4x); W2 the MLP training step (target <= 1.5x).

Run: ``python3 benchmarks/bench_watch.py [--quick]`` (prints the table). No test times it.
"""

from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.harness import Config, interleave, stopwatch  # noqa: E402
from benchmarks.workloads.chain import tensor_chain  # noqa: E402
from benchmarks.workloads.mlp import tensor_model  # noqa: E402

CHAIN_OPS = 1000


def _chain(torch):
    x0 = torch.linspace(-1.0, 1.0, 4)

    def run():
        x = x0.clone().requires_grad_()
        lap = stopwatch()
        tensor_chain(x, CHAIN_OPS).sum().backward()
        return {"t": lap()}
    return run


def _mlp(torch):
    torch.manual_seed(0)
    step = tensor_model(torch)

    def run():
        lap = stopwatch()
        step()
        return {"t": lap()}
    return run


def _watched(run, path: str | None):
    import agdebug.watch

    def watched():
        with agdebug.watch.torch(path):
            return run()
    return watched


def measure(torch, cfg: Config, folder: str) -> list[tuple]:
    """(workload, unit, off, watched to a file, watched in memory, off again, target)."""
    rows = []
    for name, make, scale, unit, target in (
            ("W1 chain", _chain, 1e6 / CHAIN_OPS, "us/op", 4.0),
            ("W2 MLP step", _mlp, 1e3, "ms", 1.5)):
        run = make(torch)
        variants = {"off": run, "watched": _watched(run, os.path.join(folder, "w.agtrace")),
                    "in memory": _watched(run, None), "off again": run}
        medians = interleave(variants, cfg)
        rows.append((name, unit, *(medians[k]["t"] * scale for k in variants), target))
    return rows


def main(argv=None) -> None:
    import torch
    argv = sys.argv[1:] if argv is None else argv
    torch.set_num_threads(1)
    cfg = Config("quick" if "--quick" in argv else "full", threads=1, torch=torch)
    with tempfile.TemporaryDirectory() as folder:
        rows = measure(torch, cfg, folder)
    print(f"{'workload':<12} {'unit':<6} {'torch':>8} {'to file':>8} {'ratio':>7} "
          f"{'target':>7} {'in memory':>10} {'off again':>10}")
    for name, unit, off, on, memory, again, target in rows:
        print(f"{name:<12} {unit:<6} {off:8.2f} {on:8.2f} {on / off:6.2f}x {target:6.1f}x "
              f"{memory / off:9.2f}x {again / off:9.2f}x")


if __name__ == "__main__":
    main()
