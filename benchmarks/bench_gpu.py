"""W1 and W2 on a GPU: agdebug on CuPy beside PyTorch on CUDA, and W2 beside hand-written
CuPy too.

Run where a GPU and CuPy are: ``python benchmarks/bench_gpu.py`` (torch optional). Each
variant is timed with the device synchronized before the clock stops, the variants
interleaved so that drift cancels out; it prints medians and ratios. On a GPU a (4,)-tensor
chain measures the per-op launch and Python cost, the MLP step the real work.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import agdebug as ag  # noqa: E402
from benchmarks.harness import Config, interleave  # noqa: E402
from benchmarks.workloads import chain, mlp  # noqa: E402


# The harness's interleaving and repeats (``--full`` mode), each sample timed to a
# synchronized device.
CONFIG = Config("full", threads=1)


def synced(fn, sync):
    """A variant for ``interleave``: ``fn``'s seconds, the device synchronized around it;
    what ``fn`` returns is freed after the clock stops."""
    def run() -> dict:
        sync()
        start = time.perf_counter()
        kept = fn()
        sync()
        seconds = time.perf_counter() - start
        del kept
        return {"t": seconds}
    return run


def medians(variants: dict) -> dict:
    return {name: phases["t"] for name, phases in interleave(variants, CONFIG).items()}


def chain_run(lib, n: int):
    # As the CPU W1, only the forward and backward are timed: the leaf is copied to the
    # device once, its gradient starts from None each run, and the graph is freed (by
    # ``synced``) after the clock stops.
    x = lib.tensor(chain.start(), device="cuda", requires_grad=True)

    def run():
        x.grad = None
        out = chain.tensor_chain(x, n).sum()
        out.backward()
        return out
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

    libs = {"agdebug": ag} if torch is None else {"agdebug": ag, "torch": torch}
    n = 1000
    w1 = medians({name: synced(chain_run(lib, n), lib.cuda.synchronize)
                  for name, lib in libs.items()})
    _report(f"W1 chain of {n:,} ops on a (4,) tensor, fwd+bwd", w1, 1e6 / n, "us/op")

    w2 = {name: synced(mlp_run(mlp.tensor_model(lib, "cuda")), lib.cuda.synchronize)
          for name, lib in libs.items()}
    w2["cupy"] = synced(mlp_run(mlp.numpy_model(cupy)), cupy_sync)
    _report("W2 MLP 784-512-256-10 train step, batch 128", medians(w2), 1e3 / 10, "ms/step")


def _report(title: str, results: dict, scale: float, unit: str) -> None:
    print(f"\n{title} [{unit}]")
    base = results["agdebug"]
    for name, seconds in results.items():
        ratio = "" if name == "agdebug" else f"   agdebug / {name} = {base / seconds:.2f}x"
        print(f"  {name:<8} {seconds * scale:10.2f}{ratio}")


if __name__ == "__main__":
    main()
