"""W2: an MLP 784-512-256-10 (ReLU), batch 128, float32, cross-entropy, SGD: ms per step.

agdebug and torch run the same ``nn.Sequential`` / ``F.cross_entropy`` / ``optim.SGD`` code;
the NumPy floor is the same step written by hand as fast as plain NumPy goes: three matmuls
forward, a fused softmax cross-entropy gradient, manual backprop, an in-place SGD update, into
buffers made once.
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


def numpy_params(xp=np) -> list:
    """The floor's weights and biases, stored (in, out) so that no product reads a transpose
    in the forward (the faster OpenBLAS layout here, at one thread and at two)."""
    rng = np.random.default_rng(1)
    params = []
    for fan_in, fan_out in itertools.pairwise(SIZES):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(xp.asarray(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)))
        params.append(xp.asarray(rng.uniform(-bound, bound, fan_out).astype(np.float32)))
    return params


def numpy_model(xp=np, params=None):
    """The hand-written floor, as fast as plain NumPy goes: every array a buffer made once
    and written with ``out=``, ReLU in place, its gradient a multiplied mask (boolean
    indexing costs 10x more; ``copyto(where=)``, ``putmask`` and ``sign`` are slower too, a
    float mask or the forward's mask kept for the backward measured no faster), the fused softmax
    cross-entropy gradient, an in-place SGD update. ``xp`` is NumPy, or CuPy for the floor on
    a GPU; ``step.grads`` holds the last step's gradients (a test checks them against
    torch's)."""
    params = numpy_params(xp) if params is None else params
    x, y = (xp.asarray(a) for a in batch())
    pick = xp.arange(BATCH) * SIZES[-1] + y     # the target's logit, flat
    acts = [xp.empty((BATCH, n), np.float32) for n in SIZES[1:]]
    deltas = [xp.empty((BATCH, n), np.float32) for n in SIZES[1:-1]]
    masks = [xp.empty((BATCH, n), bool) for n in SIZES[1:-1]]
    grads = [xp.empty_like(p) for p in params]
    steps = [xp.empty_like(p) for p in params]      # lr * grad, so that grads stay readable
    inv_batch, lr = np.float32(1.0 / BATCH), np.float32(LR)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1, h2, z = acts
        d1, d2 = deltas
        _dense(xp, x, w1, b1, h1, relu=True)
        _dense(xp, h1, w2, b2, h2, relu=True)
        _dense(xp, h2, w3, b3, z)
        loss = _softmax_cross_entropy_grad(xp, z, pick, inv_batch)   # z holds dL/dz now
        _backprop(xp, z, w3, h2, d2, masks[1])
        _backprop(xp, d2, w2, h1, d1, masks[0])
        for delta, inputs, i in ((d1, x, 0), (d2, h1, 2), (z, h2, 4)):
            xp.matmul(inputs.T, delta, out=grads[i])
            xp.sum(delta, axis=0, out=grads[i + 1])
        for param, grad, scaled in zip(params, grads, steps):
            param -= xp.multiply(grad, lr, out=scaled)
        return loss
    step.grads = grads
    return step


def _dense(xp, inputs, weight, bias, out, relu=False):
    xp.matmul(inputs, weight, out=out)
    out += bias
    if relu:
        xp.maximum(out, 0, out=out)


def _softmax_cross_entropy_grad(xp, z, pick, inv_batch):
    """The mean cross-entropy of logits ``z``; leaves its gradient in ``z``."""
    z -= z.max(axis=1, keepdims=True)
    xp.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    flat = z.reshape(-1)
    loss = -xp.log(flat[pick]).mean()
    flat[pick] -= 1
    z *= inv_batch
    return loss


def _backprop(xp, delta, weight, act, out, mask):
    """The gradient at the pre-activation below ``weight``: ``delta @ weight.T`` where that
    layer's ReLU output ``act`` is positive, else 0."""
    xp.matmul(delta, weight.T, out=out)
    xp.greater(act, 0, out=mask)
    out *= mask


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
