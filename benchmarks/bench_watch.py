"""WATCH: what watching real PyTorch costs (``agdebug.watch``), side by side in one run.

Five variants of each workload, interleaved (``harness.interleave``): torch unwatched,
torch watched while recording to a trace file, watched into memory only (the watcher's
own cost, without the trace file's JSON), torch unwatched again after a watch ended
(nothing may be left installed: 1.00x), and the floor: torch with every public hook the
watcher needs installed, each doing only what it must (a node's id put in its
``metadata``, a pre- and a post-hook on every node that runs, saved tensors passed
through), module-call hooks that return nothing, publishing nothing. What watching can
cost is bounded below by the floor. W1 is the chain of small ops (per op, forward and
backward, target <= 4x); W2 the MLP training step (per step of a ten-step run, each run
one recording; target <= 1.5x). Opening and closing a recording is not timed (about
1 ms, most of it creating the file).

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
MLP_STEPS = 10   # training steps per recording (W2)


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
        # A short training run, as a user records one: its first step costs more watched
        # (each parameter and module is named when first seen: about 1.6x against 1.4x
        # for the steps after it), so one step per recording would overstate what a
        # training step costs.
        lap = stopwatch()
        for _ in range(MLP_STEPS):
            step()
        return {"t": lap() / MLP_STEPS}
    return run


def _floor(torch, run):
    """``run`` under the watcher's hooks, doing nothing: the least watching can cost."""
    ids = iter(range(1, 1 << 62))

    class Tagging(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            fn = getattr(out, "grad_fn", None)
            if fn is not None and "id" not in fn.metadata:
                fn.metadata["id"] = next(ids)
            return out

    def nothing(*args):
        return None

    def hook_every_node(tensors, *args, **kwargs):
        # as the watcher does when a backward starts: every node it will run is hooked
        roots = tensors if isinstance(tensors, (tuple, list)) else (tensors,)
        stack, seen = [t.grad_fn for t in roots if t.grad_fn is not None], set()
        while stack:
            fn = stack.pop()
            if id(fn) not in seen:
                seen.add(id(fn))
                fn.register_prehook(nothing)
                fn.register_hook(nothing)
                stack.extend(n for n, _ in fn.next_functions if n is not None)
        return backward(tensors, *args, **kwargs)

    backward = torch.autograd.backward

    def floor():
        torch.autograd.backward = hook_every_node   # (Tensor.backward calls it)
        module = torch.nn.modules.module   # the module-call stack that names nodes' modules
        calls = [module.register_module_forward_pre_hook(nothing),
                 module.register_module_forward_hook(nothing, always_call=True)]
        try:
            with Tagging(), torch.autograd.graph.saved_tensors_hooks(nothing_but, nothing_but):
                return run()
        finally:
            torch.autograd.backward = backward
            for handle in calls:
                handle.remove()
    return floor


def nothing_but(t):
    return t


def _watched(run, path: str | None):
    import agdebug.watch

    def watched():
        with agdebug.watch.torch(path):
            return run()
    return watched


def measure(torch, cfg: Config, folder: str) -> list[tuple]:
    """(workload, unit, off, to a file, in memory, off again, floor, target)."""
    rows = []
    for name, make, scale, unit, target in (
            ("W1 chain", _chain, 1e6 / CHAIN_OPS, "us/op", 4.0),
            ("W2 MLP step", _mlp, 1e3, "ms", 1.5)):
        run = make(torch)
        variants = {"off": run, "watched": _watched(run, os.path.join(folder, "w.agtrace")),
                    "in memory": _watched(run, None), "off again": run,
                    "floor": _floor(torch, run)}
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
          f"{'target':>7} {'in memory':>10} {'off again':>10} {'floor':>7}")
    for name, unit, off, on, memory, again, floor, target in rows:
        print(f"{name:<12} {unit:<6} {off:8.2f} {on:8.2f} {on / off:6.2f}x {target:6.1f}x "
              f"{memory / off:9.2f}x {again / off:9.2f}x {floor / off:6.2f}x")


if __name__ == "__main__":
    main()
