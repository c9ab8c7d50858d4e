"""W1 and W2 on a GPU: agdebug on CuPy beside hand-written CuPy and PyTorch on CUDA.

Run where a GPU and CuPy are: ``python benchmarks/bench_gpu.py`` (torch optional). Each
variant is timed with the device synchronized before the clock stops, the variants
interleaved so that drift cancels out; it prints medians and ratios. On a GPU a (4,)-tensor
chain measures the per-op launch and Python cost, the MLP step the real work.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import agdebug as ag  # noqa: E402
from benchmarks.workloads import chain, mlp  # noqa: E402


def _synchronizer(lib):
    if lib is ag:
        return ag.cuda.synchronize
    return lib.cuda.synchronize


def timed(fn, sync) -> float:
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def interleaved(variants: dict, repeats: int) -> dict:
    """Median seconds of each ``(fn, sync)`` variant, run in turn ``repeats`` times."""
    for fn, sync in variants.values():   # warm-up: kernels compiled, caches filled
        timed(fn, sync)
        timed(fn, sync)
    times: dict = {name: [] for name in variants}
    for _ in range(repeats):
        for name, (fn, sync) in variants.items():
            times[name].append(timed(fn, sync))
    return {name: statistics.median(values) for name, values in times.items()}


def chain_run(lib, n: int):
    x0 = chain.start()

    def run():
        x = lib.tensor(x0, device="cuda", requires_grad=True)
        chain.tensor_chain(x, n).sum().backward()
    return run


def mlp_run(step, steps: int = 10):
    def run():
        for _ in range(steps):
            step()
    return run


def main() -> None:
    import cupy
    torch = importlib.import_module("torch") if importlib.util.find_spec("torch") else None
    if torch is not None and not torch.cuda.is_available():
        torch = None
    print(f"GPU: {ag.cuda.get_device_name()}; CuPy {cupy.__version__}; "
          f"torch {torch.__version__ if torch else 'absent'}; numpy {np.__version__}")
    cupy_sync = cupy.cuda.get_current_stream().synchronize

    n = 1000
    w1 = {"agdebug": (chain_run(ag, n), _synchronizer(ag))}
    if torch is not None:
        w1["torch"] = (chain_run(torch, n), _synchronizer(torch))
    w1 = interleaved(w1, repeats=11)
    _report(f"W1 chain of {n:,} ops on a (4,) tensor, fwd+bwd", w1, 1e6 / n, "us/op")

    w2 = {"agdebug": (mlp_run(mlp.tensor_model(ag, "cuda")), _synchronizer(ag)),
          "cupy": (mlp_run(mlp.numpy_model(cupy)), cupy_sync)}
    if torch is not None:
        w2["torch"] = (mlp_run(mlp.tensor_model(torch, "cuda")), _synchronizer(torch))
    w2 = interleaved(w2, repeats=11)
    _report("W2 MLP 784-512-256-10 train step, batch 128", w2, 1e3 / 10, "ms/step")


def _report(title: str, medians: dict, scale: float, unit: str) -> None:
    print(f"\n{title} [{unit}]")
    base = medians["agdebug"]
    for name, seconds in medians.items():
        ratio = "" if name == "agdebug" else f"   agdebug / {name} = {base / seconds:.2f}x"
        print(f"  {name:<8} {seconds * scale:10.2f}{ratio}")


if __name__ == "__main__":
    main()
