"""W4: one tensor used 10,000 times (fan-in): ``acc = x * 1; acc = acc + x`` repeated.

Every use sends a gradient to the same leaf, so its accumulator sums 10,000 contributions.
The time must grow linearly with the uses: the second row divides the time for 10,000
uses by the time for 1,000 (10 is linear).
"""

from __future__ import annotations

import numpy as np

from ..harness import Row, Target, interleave, stopwatch, within

THREAD_SENSITIVE = False


def tensor_run(lib, n: int):
    x0 = np.linspace(-1.0, 1.0, 4, dtype=np.float32)

    def run() -> dict:
        x = lib.tensor(x0, requires_grad=True)
        lap = stopwatch()
        acc = x * 1.0
        for _ in range(n - 1):
            acc = acc + x
        acc.sum().backward()
        return {"total": lap()}
    return run


def numpy_run(n: int):
    """Floor: a tape of the uses; the backward adds the chain's gradient into x's buffer."""
    x0 = np.linspace(-1.0, 1.0, 4, dtype=np.float32)

    def run() -> dict:
        lap = stopwatch()
        acc = x0 * np.float32(1.0)
        tape = []
        for _ in range(n - 1):
            acc = acc + x0
            tape.append(None)
        grad_acc = np.ones_like(acc)
        grad_x = np.zeros_like(x0)
        for _ in reversed(tape):
            grad_x += grad_acc
        grad_x += grad_acc
        return {"total": lap()}
    return run


def medians(cfg, n: int) -> dict:
    import agdebug as ag
    variants = {"agdebug": tensor_run(ag, n), "numpy": numpy_run(n)}
    if cfg.torch is not None:
        variants["torch"] = tensor_run(cfg.torch, n)
    return {lib: m["total"] for lib, m in interleave(variants, cfg).items()}


def linear(row: Row) -> tuple:
    ratio = row.values["agdebug"]
    return ratio <= 12.0, f"{ratio:.1f}"


def rows(cfg) -> list:
    n = cfg.size(10_000, 10_000, 500)
    big, small = medians(cfg, n), medians(cfg, n // 10)
    growth = {lib: big[lib] / small[lib] for lib in big}
    return [Row("W4", f"fwd+bwd, {n:,} uses", "s", big, within("torch", 1.0)),
            Row("W4", f"time({n:,} uses) / time({n // 10:,})", "ratio", growth,
                Target("<= 12 (linear is 10)", linear), compare=())]
