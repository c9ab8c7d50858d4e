"""Hooks as torch's engine runs them: tensor hooks of outputs that got no gradient, the
saved-tensor hooks stack after a backward, once_differentiable's error node."""

from __future__ import annotations

import pytest

import agdebug as ag

from .test_derivative_graphs import graph_of

MULTI_OUTPUT = ["x.unbind(0)", "x.split(1)", "x.split([1, 2])", "x.chunk(3)",
                "x.unsafe_chunk(3)", "x.unsafe_split(1)", "x.tensor_split(3)", "x.max(0)"]


def _hook_calls(lib, expr: str):
    x = lib.arange(6.0).reshape(3, 2).requires_grad_()
    outs = eval(expr, {"x": x})
    calls = []
    for i, out in enumerate(outs):
        if out.requires_grad:
            out.register_hook(lambda g, i=i: calls.append((i, None if g is None else g.tolist())))
    outs[0].sum().backward()
    return calls


@pytest.mark.parametrize("expr", MULTI_OUTPUT)
def test_hooks_of_outputs_without_a_gradient_are_called_as_in_torch(torch, expr):
    assert _hook_calls(ag, expr) == _hook_calls(torch, expr)


def test_a_hook_called_with_none_cannot_return_a_gradient(torch):
    def run(lib):
        a, b, c = lib.ones(3, 2, requires_grad=True).unbind(0)
        b.register_hook(lambda g: lib.ones(2))
        with pytest.raises(RuntimeError) as info:
            a.sum().backward()
        return str(info.value)
    assert run(ag) == run(torch) == "can't replace a None gradient with a non-None value"


def test_tensor_hooks_of_a_node_given_no_gradient_get_none(torch):
    def run(lib):
        class FirstGetsNone(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, grad):
                return None, grad
        calls = []
        x, w = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        h = x * 2
        h.register_hook(lambda g: calls.append(("h", g)))
        x.register_hook(lambda g: calls.append(("x", g)))
        FirstGetsNone.apply(h, w).sum().backward()
        return calls, x.grad
    assert run(ag) == run(torch) == ([("h", None), ("x", None)], None)


def _hook_stack(lib):
    if lib is ag:
        from agdebug.graph.saved import _HOOKS
        return len(_HOOKS.stack)
    hooks = lib._C._autograd._top_saved_tensors_default_hooks(False)
    return 0 if hooks is None else 1


@pytest.mark.parametrize("exits", [True, False])
def test_hooks_entered_in_an_unpack_hook_end_with_the_backward(torch, exits):
    def run(lib):
        graph = lib.autograd.graph
        packed = []

        def unpack(t):
            inner = graph.saved_tensors_hooks(lambda s: packed.append(1) or s, lambda s: s)
            if exits:
                with inner:
                    t * t
            else:
                inner.__enter__()   # never left: torch's engine drops it anyway
                t * t
            return t
        x = lib.ones(2, requires_grad=True)
        with graph.saved_tensors_hooks(lambda t: t, unpack):
            y = x * x
        lib.autograd.grad(y.sum(), x, create_graph=True)
        after = _hook_stack(lib)
        x * x   # packed by nothing now
        return after, len(packed)
    assert run(ag) == run(torch)


def test_once_differentiable_error_node_is_torchs(torch):
    def run(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, y):
                ctx.save_for_backward(x, y)
                return x * y * k

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                x, y = ctx.saved_tensors
                return grad * y, None, grad * x
        x, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        v = lib.ones(2, requires_grad=True)
        gx, gy = lib.autograd.grad(Twice.apply(x, 2.0, y), (x, y), v, create_graph=True)
        return graph_of(gx), gx.output_nr, gy.output_nr, gy.grad_fn is gx.grad_fn
    assert run(ag) == run(torch)
