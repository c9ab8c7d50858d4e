"""SGD and Adam against torch.optim: several steps on the same quadratic-ish loss."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from agdebug import nn, optim

W0 = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
B0 = np.random.default_rng(1).standard_normal(4).astype(np.float32)


def _run(lib, opt_name, kwargs, steps=4):
    w = lib.nn.Parameter(lib.tensor(W0.copy()))
    b = lib.nn.Parameter(lib.tensor(B0.copy()))
    opt = getattr(lib.optim, opt_name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((w.sin() * 2 + b) ** 2).sum()
        loss.backward()
        opt.step()
    return w.detach().numpy().copy(), b.detach().numpy().copy()


@pytest.mark.parametrize("opt_name, kwargs", [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.8, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.9), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True}),
])
def test_steps_match_torch(torch, opt_name, kwargs):
    ours = _run(ag, opt_name, kwargs)
    theirs = _run(torch, opt_name, kwargs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_zero_grad_and_closure():
    w = nn.Parameter(ag.ones(2))
    opt = optim.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 2.0
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None
    assert sorted(opt.state[w]) == ["exp_avg", "exp_avg_sq", "step"]
    assert opt.state[w]["step"].item() == 1.0


def test_argument_errors():
    w = nn.Parameter(ag.ones(2))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                       "dampening"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid epsilon value: -1"):
        optim.Adam([w], eps=-1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([w * 2], lr=0.1)
