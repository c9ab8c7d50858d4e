"""Where an agdebug training step's time goes on a GPU (cProfile, 50 steps of W2's MLP).

Run where a GPU and CuPy are: ``python benchmarks/profile_gpu_step.py``.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import agdebug as ag  # noqa: E402
from benchmarks.workloads import mlp  # noqa: E402


def main() -> None:
    step = mlp.tensor_model(ag, "cuda")
    for _ in range(5):
        step()
    ag.cuda.synchronize()
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(50):
        step()
    ag.cuda.synchronize()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
