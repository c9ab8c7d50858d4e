"""W1: a chain of elementwise ops on a (4,) tensor: forward and backward microseconds per op.

The chain alternates ``y * 1.0001`` and ``y + 0.0001``. The NumPy floor does the same
arithmetic plus the least an autograd on NumPy must do: a tape entry per op in the forward,
and a reverse walk of the tape multiplying the gradient in the backward.
"""

from __future__ import annotations

import numpy as np

from ..harness import Row, interleave, stopwatch, within

THREAD_SENSITIVE = False
SCALE, SHIFT = 1.0001, 0.0001


def start() -> np.ndarray:
    return np.linspace(-1.0, 1.0, 4, dtype=np.float32)


def tensor_chain(x, n: int):
    """``n`` ops (alternating mul and add) on ``x``; works for agdebug and torch tensors."""
    y = x
    for _ in range(n // 2):
        y = y * SCALE
        y = y + SHIFT
    return y


def tensor_run(lib, n: int):
    """A variant: build the chain, backward, then drop it (agdebug or torch as ``lib``)."""
    x0 = start()

    def run() -> dict:
        x = lib.tensor(x0, requires_grad=True)
        lap = stopwatch()
        y = tensor_chain(x, n)
        s = y.sum()
        fwd = lap()
        s.backward()
        bwd = lap()
        del y, s
        return {"fwd": fwd, "bwd": bwd, "free": lap()}
    return run


def numpy_run(n: int):
    """The hand-written NumPy floor of ``tensor_run``."""
    x0 = start()

    def run() -> dict:
        lap = stopwatch()
        tape = []
        y = x0
        for _ in range(n // 2):
            y = y * np.float32(SCALE)
            tape.append(SCALE)
            y = y + np.float32(SHIFT)
            tape.append(None)
        s = y.sum()
        fwd = lap()
        grad = np.ones_like(y)
        for scale in reversed(tape):
            if scale is not None:
                grad = grad * np.float32(scale)
        bwd = lap()
        del tape, y, s, grad
        return {"fwd": fwd, "bwd": bwd, "free": lap()}
    return run


def variants(cfg, n: int) -> dict:
    import agdebug as ag
    out = {"agdebug": tensor_run(ag, n), "numpy": numpy_run(n)}
    if cfg.torch is not None:
        out["torch"] = tensor_run(cfg.torch, n)
    return out


def rows(cfg) -> list:
    result = []
    for n in cfg.size((1_000, 10_000), (1_000, 10_000), (100,)):
        medians = interleave(variants(cfg, n), cfg)
        per_op = {lib: {k: v * 1e6 / n for k, v in m.items()} for lib, m in medians.items()}
        label = f"{n:,} ops"
        for phase in ("fwd", "bwd"):
            result.append(Row("W1", f"{phase} {label}", "us/op",
                              {lib: m[phase] for lib, m in per_op.items()}))
        both = {lib: m["fwd"] + m["bwd"] for lib, m in per_op.items()}
        result.append(Row("W1", f"fwd+bwd {label}", "us/op", both, within("torch", 1.5)))
    return result
