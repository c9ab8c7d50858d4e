"""W2: an MLP 784-512-256-10 (ReLU), batch 128, float32, cross-entropy, SGD: ms per step.

agdebug and torch run the same ``nn.Sequential`` / ``F.cross_entropy`` / ``optim.SGD`` code;
the NumPy floor is the same step written by hand: three matmuls forward, a fused softmax
cross-entropy gradient, manual backprop, an in-place SGD update.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..harness import Row, interleave, stopwatch, within

THREAD_SENSITIVE = True
SIZES = (784, 512, 256, 10)
BATCH, LR = 128, 0.01


def batch(seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0]), dtype=np.float32)
    return x, rng.integers(0, SIZES[-1], BATCH)


def tensor_model(lib, device="cpu"):
    """The training step for agdebug or torch as ``lib``, its model and data on ``device``."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                          nn.Linear(256, 10)).to(device)
    opt = lib.optim.SGD(model.parameters(), lr=LR)
    x_np, y_np = batch()
    x, y = lib.tensor(x_np, device=device), lib.tensor(y_np, device=device)

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def numpy_model(xp=np):
    """The hand-written floor: weights stored (in, out) so no transposes in the forward;
    ``xp`` is NumPy, or CuPy for the floor on a GPU."""
    rng = np.random.default_rng(1)
    params = []
    for fan_in, fan_out in itertools.pairwise(SIZES):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(xp.asarray(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)))
        params.append(xp.asarray(rng.uniform(-bound, bound, fan_out).astype(np.float32)))
    x, y = (xp.asarray(a) for a in batch())
    rows = xp.arange(BATCH)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1 = x @ w1 + b1
        a1 = xp.maximum(h1, 0)
        h2 = a1 @ w2 + b2
        a2 = xp.maximum(h2, 0)
        z = a2 @ w3 + b3
        z -= z.max(axis=1, keepdims=True)
        e = xp.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        loss = -xp.log(p[rows, y]).mean()
        p[rows, y] -= 1
        dz = p / np.float32(BATCH)
        da2 = dz @ w3.T
        da2[h2 <= 0] = 0
        da1 = da2 @ w2.T
        da1[h1 <= 0] = 0
        grads = (x.T @ da1, da1.sum(0), a1.T @ da2, da2.sum(0), a2.T @ dz, dz.sum(0))
        for param, grad in zip(params, grads):
            param -= np.float32(LR) * grad
        return loss
    return step


def per_step(step, steps: int):
    def run() -> dict:
        lap = stopwatch()
        for _ in range(steps):
            step()
        return {"step": lap() / steps}
    return run


def variants(cfg, steps: int) -> dict:
    import agdebug as ag
    out = {"agdebug": per_step(tensor_model(ag), steps),
           "numpy": per_step(numpy_model(), steps)}
    if cfg.torch is not None:
        out["torch"] = per_step(tensor_model(cfg.torch), steps)
    return out


def rows(cfg) -> list:
    steps = cfg.size(20, 5, 2)
    medians = interleave(variants(cfg, steps), cfg)
    values = {lib: m["step"] * 1e3 for lib, m in medians.items()}
    return [Row("W2", f"MLP train step (median of {steps}-step runs)", "ms", values,
                within("numpy", 1.10))]
