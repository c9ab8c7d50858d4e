"""W6: grad-of-grad through a 1,000-op tanh chain on a (4,) tensor, milliseconds.

``g = grad(tanh^1000(x).sum(), x, create_graph=True)`` then ``g.sum().backward()``.
The NumPy floor writes both derivatives out: with ``y_k = tanh(y_{k-1})`` and
``P_k = prod_{j<=k} (1 - y_j^2)``, the gradient is ``P_n`` and the gradient of
``sum(P_n)`` is ``P_n * sum_k (-2 y_k P_{k-1})``, one reverse and one forward sweep.
"""

from __future__ import annotations

import numpy as np

from ..harness import Row, interleave, stopwatch, within

THREAD_SENSITIVE = False


def start() -> np.ndarray:
    return np.linspace(-1.0, 1.0, 4, dtype=np.float32)


def tensor_run(lib, n: int):
    x0 = start()

    def run() -> dict:
        x = lib.tensor(x0, requires_grad=True)
        lap = stopwatch()
        y = x
        for _ in range(n):
            y = y.tanh()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
        return {"total": lap()}
    return run


def numpy_run(n: int):
    x0 = start()

    def run() -> dict:
        lap = stopwatch()
        ys = [x0]
        for _ in range(n):
            ys.append(np.tanh(ys[-1]))
        grad = np.ones_like(x0)
        for y in reversed(ys[1:]):
            grad = grad * (1 - y * y)
        running, total = np.ones_like(x0), np.zeros_like(x0)
        for y in ys[1:]:
            total += np.float32(-2.0) * y * running
            running = running * (1 - y * y)
        grad2 = grad * total
        del grad2
        return {"total": lap()}
    return run


def rows(cfg) -> list:
    import agdebug as ag
    n = cfg.size(1_000, 1_000, 50)
    variants = {"agdebug": tensor_run(ag, n), "numpy": numpy_run(n)}
    if cfg.torch is not None:
        variants["torch"] = tensor_run(cfg.torch, n)
    medians = interleave(variants, cfg)
    values = {lib: m["total"] * 1e3 for lib, m in medians.items()}
    return [Row("W6", f"grad of grad, {n:,}-op tanh chain", "ms", values, within("torch", 2.0))]
