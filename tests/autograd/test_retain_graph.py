"""retain_graph semantics, and the rule that a call failing a check made before anything
runs loses nothing.

After each failing call below, every leaf's ``.grad`` is the same object with the same
values as before, and a later correct call through the same graph gives torch's numbers.
(A hook or a custom backward raising mid-way keeps what ran, as torch does:
tests/autograd/test_failed_backward.py.)
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import agdebug as ag

from .torch_texts import FREED


class World:
    """x, w leaves with existing grads; y a graph with saved tensors through both."""

    def __init__(self):
        self.x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        self.w = ag.tensor([0.5, -1.0, 2.0], requires_grad=True)
        (self.x * self.w).sum().backward()     # x.grad = w, w.grad = x
        self.gx, self.gw = self.x.grad, self.w.grad
        self.h = self.x * self.w
        self.y = (self.h.exp() * self.x).sum()

    def assert_untouched(self):
        assert self.x.grad is self.gx and self.w.grad is self.gw
        assert self.gx.tolist() == [0.5, -1.0, 2.0]
        assert self.gw.tolist() == [1.0, 2.0, 3.0]

    def assert_graph_still_works(self):
        self.y.backward()
        x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
        e = np.exp(x * w)
        np.testing.assert_allclose(self.x.grad.numpy(), w + e + x * w * e, rtol=1e-5)
        np.testing.assert_allclose(self.w.grad.numpy(), x + x * x * e, rtol=1e-5)


FAILING_CALLS = {
    "shape mismatch": (RuntimeError, lambda s: s.y.backward(ag.ones(2))),
    "list gradient": (TypeError, lambda s: s.y.backward([1.0])),
    "int gradient": (TypeError, lambda s: s.y.backward(1)),
    "count mismatch": (RuntimeError,
                       lambda s: ag.autograd.backward([s.y, s.y * 2], [ag.tensor(1.0)])),
    "root without grad": (RuntimeError, lambda s: ag.autograd.backward([s.y, ag.ones(1)])),
    "empty inputs": (RuntimeError, lambda s: s.y.backward(inputs=[])),
    "input without grad": (RuntimeError, lambda s: s.y.backward(inputs=[ag.ones(3)])),
    "both grad args": (RuntimeError, lambda s: ag.autograd.backward(
        [s.y], grad_tensors=[ag.tensor(1.0)], grad_variables=[ag.tensor(1.0)])),
    "grad unused input": (RuntimeError,
                          lambda s: ag.autograd.grad(s.y, [s.x, ag.ones(1, requires_grad=True)])),
    "grad materialize": (ValueError, lambda s: ag.autograd.grad(
        s.y, [s.x], materialize_grads=True, allow_unused=False)),
    "grad empty inputs": (RuntimeError, lambda s: ag.autograd.grad(s.y, [])),
    "grad input no grad": (RuntimeError, lambda s: ag.autograd.grad(s.y, [ag.ones(3)])),
    "grad bad batched": (RuntimeError, lambda s: ag.autograd.grad(
        s.h, s.x, ag.ones(4, 2), is_grads_batched=True)),
}


@pytest.mark.parametrize("name", list(FAILING_CALLS))
def test_failed_call_loses_nothing(name):
    exc, call = FAILING_CALLS[name]
    world = World()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc):
            call(world)
    world.assert_untouched()
    world.assert_graph_still_works()


def test_failed_version_check_loses_nothing():
    world = World()
    b = world.x * 1
    y = (b * b).sum() + world.y
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    world.assert_untouched()
    world.assert_graph_still_works()


def test_failed_second_backward_loses_nothing():
    world = World()
    z = (world.x * world.x).sum()
    z.backward()
    gx = world.x.grad.tolist()
    with pytest.raises(RuntimeError, match="^" + re.escape(FREED) + "$"):
        (z + world.y).backward()
    assert world.x.grad.tolist() == gx
    world.y.backward()
    np.testing.assert_allclose(world.x.grad.numpy()[0], gx[0] + np.exp(0.5) * 1.5,
                               rtol=1e-5)


def test_hook_raising_after_some_leaves_accumulated(torch):
    # torch does not roll back: the leaf accumulated before the hook raised keeps its new
    # grad, and so does agdebug.
    res = []
    for lib in (ag, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        y = (a * 2).sum() + (b * 3).sum()       # b's branch built later: runs first
        a.register_hook(lambda g: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            y.backward()
        res.append((a.grad, None if b.grad is None else b.grad.tolist()))
    assert res[0][0] is None and res[1][0] is None
    assert res[0][1] == res[1][1] == [3.0, 3.0]   # b's accumulation stays


# ------------------------------------------------------------------------- retain_graph

def test_retained_graph_runs_many_times():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    for _ in range(3):
        y.backward(retain_graph=True)
    y.backward()
    v = np.array([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.exp(v) * (1 + v), rtol=1e-6)
    with pytest.raises(RuntimeError, match="^" + re.escape(FREED) + "$"):
        y.backward()


def test_grad_then_backward_on_retained_graph():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x * x).sum()
    g, = ag.autograd.grad(y, x, retain_graph=True)
    assert g.tolist() == [3.0, 12.0]
    assert x.grad is None
    y.backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_partial_free_only_frees_what_ran():
    # backward with inputs= runs only part of the graph: the rest keeps its saved tensors
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    w = ag.tensor([3.0, 4.0], requires_grad=True)
    hx = x.exp()
    hw = w.exp()
    y = (hx * hw).sum()
    y.backward(inputs=[w])
    np.testing.assert_allclose(hx.grad_fn._saved_result.detach().numpy(),
                               np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="^" + re.escape(FREED) + "$"):
        hw.grad_fn._saved_result


def test_partial_free_matches_torch(torch):
    res = []
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        hx = x.exp()
        y = (hx * w.sin()).sum()
        y.backward(inputs=[w])
        try:
            hx.grad_fn._saved_result
            ok = True
        except RuntimeError:
            ok = False
        res.append(ok)
    assert res[0] == res[1]


def test_shared_subgraph_freed_by_first_backward():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    a = h.sum()
    b = (h * 2).sum()
    a.backward()              # ExpBackward0 ran and was freed
    with pytest.raises(RuntimeError, match="^" + re.escape(FREED) + "$"):
        b.backward()


def test_grad_without_retain_frees():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    ag.autograd.grad(y.sum(), x)
    with pytest.raises(RuntimeError, match="^" + re.escape(FREED) + "$"):
        y.grad_fn._saved_result
