"""W5: memory over training iterations on (N, N) activations, with and without retain_graph.

Each iteration is ``h = tanh(x * w + b); loss = (h * h).mean(); loss.backward(retain_graph=?)``
then an SGD update of ``w`` and ``b``; the loop keeps the last ``loss`` (and so its graph)
alive, as a training loop does. Reported above the memory held before the loop: the peak,
what is held after the last iteration, and the growth from the first iteration to the last
(flat means no leak: the target is a growth under 5% of the peak). agdebug and the NumPy floor are measured with ``tracemalloc`` (NumPy
reports its buffers to it); torch's allocations are invisible to it, so torch runs in a
child process and is measured by its resident set size (RSS), sampled after each forward
and each update: coarser, and the C allocator may keep freed pages.

Sizes: N=2048, 200 iterations; ``--quick``: N=512, 20 iterations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc

import numpy as np

from ..harness import Row, Target

THREAD_SENSITIVE = True
LR = 0.01
MB = 2.0 ** 20


def inputs(n: int) -> tuple:
    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, n), dtype=np.float32),
            rng.standard_normal(n, dtype=np.float32), np.zeros(n, dtype=np.float32))


def tensor_iteration(lib, n: int, retain: bool):
    """One training iteration for agdebug or torch; ``probe()`` is called after the forward."""
    x_np, w_np, b_np = inputs(n)
    x = lib.tensor(x_np)
    w, b = lib.tensor(w_np, requires_grad=True), lib.tensor(b_np, requires_grad=True)

    def iteration(probe):
        h = (x * w + b).tanh()
        loss = (h * h).mean()
        probe()
        loss.backward(retain_graph=retain)
        with lib.no_grad():
            for p in (w, b):
                p -= LR * p.grad
                p.grad = None
        return loss
    return iteration


def numpy_iteration(n: int, retain: bool):
    """The floor: explicit backward; with ``retain`` the saved arrays live on with the loss."""
    x, w, b = inputs(n)

    def iteration(probe):
        h = np.tanh(x * w + b)
        loss = (h * h).mean()
        probe()
        grad_z = (np.float32(2.0 / h.size) * h) * (1 - h * h)
        w[...] -= LR * (grad_z * x).sum(0)
        b[...] -= LR * grad_z.sum(0)
        return (loss, h) if retain else (loss,)
    return iteration


def run_traced(iteration, iterations: int) -> dict:
    """Peak, final and growth in bytes, from tracemalloc."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        held, first = None, None
        for i in range(iterations):
            held = iteration(lambda: None)
            if i == 0:
                first = tracemalloc.get_traced_memory()[0]
        final, peak = tracemalloc.get_traced_memory()
        del held
    finally:
        tracemalloc.stop()
    return {"peak": peak - base, "final": final - base, "growth": final - first}


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_rss(iteration, iterations: int) -> dict:
    base = rss()
    samples, first, held = [], None, None
    for i in range(iterations):
        held = iteration(lambda: samples.append(rss()))
        samples.append(rss())
        if i == 0:
            first = samples[-1]
    del held
    return {"peak": max(samples) - base, "final": samples[-1] - base,
            "growth": samples[-1] - first}


def torch_child(n: int, iterations: int, retain: bool, threads: int) -> dict | None:
    """Runs ``run_rss`` for torch in a fresh process (so earlier runs do not blur its RSS)."""
    if not os.path.exists("/proc/self/statm"):
        return None
    code = ("import json, sys, torch; from benchmarks.workloads import memory as m; "
            f"torch.set_num_threads({threads}); "
            f"it = m.tensor_iteration(torch, {n}, {retain}); "
            f"print(json.dumps(m.run_rss(it, {iterations})))")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def flat(row: Row) -> tuple:
    """Flat: the growth over the loop is under 5% of the peak (a leak of one activation per
    iteration would be many times the peak)."""
    growth = row.values["agdebug"]
    return growth <= 0.05 * row.extra["agdebug_peak"], f"{growth:+.3g} MB"


def rows(cfg) -> list:
    import agdebug as ag
    n, iterations = cfg.size((2048, 200), (512, 20), (64, 3))
    result = []
    for retain in (False, True):
        measured = {"agdebug": run_traced(tensor_iteration(ag, n, retain), iterations),
                    "numpy": run_traced(numpy_iteration(n, retain), iterations)}
        if cfg.torch is not None:
            measured["torch"] = torch_child(n, iterations, retain, cfg.threads)
        label = f"{iterations} its, {n}x{n}, retain_graph={retain}"
        for key in ("peak", "final", "growth"):
            values = {lib: m[key] / MB for lib, m in measured.items() if m is not None}
            target = (Target("flat (< 5% of peak)", flat)
                      if key == "growth" and not retain else None)
            result.append(Row("W5", f"{key} {label}", "MB", values, target,
                              extra={"agdebug_peak": measured["agdebug"]["peak"] / MB},
                              compare=("numpy",) if key != "growth" else ()))
    return result
