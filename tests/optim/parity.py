"""What the optimizer parity tests share: a two-group model (float64 or float32), its loss,
gradients made in NumPy so both libraries step on the same arrays, a run of steps, and an
error as torch would be compared."""

from __future__ import annotations

import numpy as np

W0 = np.random.default_rng(0).standard_normal((3, 4))
B0 = np.random.default_rng(1).standard_normal(4)
X0 = np.random.default_rng(2).standard_normal((5, 3))


def model(lib, dtype):
    w = lib.nn.Parameter(lib.tensor(W0.copy(), dtype=dtype))
    b = lib.nn.Parameter(lib.tensor(B0.copy(), dtype=dtype))
    return w, b


def loss(lib, w, b, step):
    x = lib.tensor(X0 * (1 + 0.1 * step), dtype=w.dtype, device=w.device)
    return ((x @ w).tanh() * 2 + b - 0.5).pow(2).sum()


def set_grads(lib, params, step, frequency: float = 1.0):
    """Gradients computed in NumPy from the parameters' values: the same arrays for both
    libraries, so only the optimizers' arithmetic is compared (a higher ``frequency`` flips
    their signs more often)."""
    for p in params:
        value = p.detach().numpy()
        p.grad = lib.tensor(np.cos(frequency * value) * 3 + 0.5 * value - 0.2 * step,
                            dtype=p.dtype)


def run(lib, name, kwargs, steps=6, dtype="float64", backward=False, frequency=1.0):
    """``steps`` steps of ``lib.optim.<name>`` on the model; the optimizer and the parameters."""
    w, b = model(lib, getattr(lib, dtype))
    groups = [{"params": [w]}, {"params": [b], "lr": 0.05}]
    opt = getattr(lib.optim, name)(groups, **kwargs)
    for step in range(steps):
        opt.zero_grad()
        if backward:
            loss(lib, w, b, step).backward()
        else:
            set_grads(lib, [w, b], step, frequency)
        opt.step()
    return opt, [w.detach().numpy().copy(), b.detach().numpy().copy()]


def error_of(lib, make):
    """``(type name, message)`` of what ``make(lib)`` raises, or None."""
    try:
        make(lib)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e)
    return None


def meta_run(lib, name, kwargs, steps=3, lr_tensor=False, device="cpu"):
    """Meta-learning through ``steps`` differentiable steps: the parameters are non-leaf
    clones of ``w0``/``b0`` (and ``lr`` a tensor that needs grad, if asked), each gradient
    is a differentiable function of the parameter; returns the final parameters, the
    gradients of a post-step loss w.r.t. the initial tensors, and the parameters' node names."""
    w0 = lib.tensor(W0.copy(), dtype=lib.float64, device=device, requires_grad=True)
    b0 = lib.tensor(B0.copy(), dtype=lib.float64, device=device, requires_grad=True)
    lr = lib.tensor(0.05, dtype=lib.float64, requires_grad=True) if lr_tensor else 0.05
    w, b = w0.clone(), b0.clone()
    opt = getattr(lib.optim, name)([w, b], lr=lr, differentiable=True, **kwargs)
    for step in range(steps):
        for p in (w, b):
            p.grad = p.tanh() * 3 + 0.5 * p - 0.2 * step
        opt.step()
    inputs = [w0, b0] + ([lr] if lr_tensor else [])
    grads = lib.autograd.grad(loss(lib, w, b, 0), inputs, allow_unused=True)
    arrays = [t.detach().cpu().numpy().copy() for t in (w, b)]
    arrays += [None if g is None else g.cpu().numpy().copy() for g in grads]
    return arrays, [type(p.grad_fn).__name__ for p in (w, b)]
