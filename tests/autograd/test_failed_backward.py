"""A backward that fails mid-way (a hook or a custom backward raising) keeps what it did.

torch does not roll back: every gradient already accumulated into a ``.grad`` (or into a
retained non-leaf's) stays, and the nodes that ran have freed their saved tensors. A
debugger of torch's autograd shows that. What is checked before anything runs (arguments,
unused inputs, freed or modified saved tensors) still fails with nothing touched, as in
torch: tests/autograd/test_retain_graph.py.
"""

from __future__ import annotations

import pytest

import agdebug as ag


def _custom_failing(lib):
    class Fails(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            raise ZeroDivisionError("custom backward")
    return Fails


def _raise(*args):
    raise ZeroDivisionError("hook")


def _scene(lib, where: str):
    """Leaves a (an existing .grad), b, c; the failure happens at ``where``. Returns the
    leaves, the non-leaf h (retaining its grad) and the root."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([0.5, -1.0], requires_grad=True)
    (a * 10).sum().backward()
    h = a * b
    h.retain_grad()
    late = c * 3   # built last: runs first, before h's branch
    mid = _custom_failing(lib).apply(h) if where == "custom" else h * 2
    hooks = {
        "leaf hook": lambda: a.register_hook(_raise),
        "non-leaf hook": lambda: mid.register_hook(_raise),
        "prehook": lambda: mid.grad_fn.register_prehook(_raise),
        "post hook": lambda: mid.grad_fn.register_hook(_raise),
        "post-accumulate hook": lambda: a.register_post_accumulate_grad_hook(_raise),
        "custom": lambda: None,
    }
    hooks[where]()
    root = (mid * b).sum() + late.sum() + (a * c).sum()
    return (a, b, c), h, root


def _state(lib, where: str, call: str):
    (a, b, c), h, root = _scene(lib, where)
    grad_of_a = a.grad
    with pytest.raises(ZeroDivisionError):
        if call == "backward":
            root.backward()
        else:
            lib.autograd.grad(root, (a, b, c))
    grads = [None if t.grad is None else t.grad.tolist() for t in (a, b, c, h)]
    return grads, a.grad is grad_of_a


WHERE = ["leaf hook", "non-leaf hook", "prehook", "post hook", "post-accumulate hook",
         "custom"]


# (autograd.grad accumulates nothing, so no post-accumulate hook runs there)
CASES = [(where, call) for where in WHERE for call in ("backward", "grad")
         if (where, call) != ("post-accumulate hook", "grad")]


@pytest.mark.parametrize("where, call", CASES)
def test_failed_backward_keeps_what_torch_keeps(torch, where, call):
    assert _state(ag, where, call) == _state(torch, where, call)


def test_nodes_that_ran_before_the_failure_freed_their_saved_tensors(torch):
    def run(lib):
        (a, b, c), h, root = _scene(lib, "leaf hook")
        with pytest.raises(ZeroDivisionError):
            root.backward()
        try:
            root.backward()
            return "ran"
        except RuntimeError as e:
            return str(e).splitlines()[0]
    assert run(ag) == run(torch)
