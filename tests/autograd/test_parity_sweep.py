"""Differential checks against torch found by a parity sweep of the autograd API.

Each test runs the same scenario with agdebug and with torch and compares what a torch
user sees: values, which tensors get a gradient, flags, error types and texts.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import agdebug as ag

torch = pytest.importorskip("torch")

LIBS = [ag, torch]


def run(fn, lib):
    """``("ok", value)`` or ``("exc", type name, message)``; tensors become lists."""
    try:
        return ("ok", _plain(fn(lib)))
    except Exception as exc:   # noqa: BLE001 - the exception itself is what is compared
        return ("exc", type(exc).__name__, str(exc).split(" (Triggered internally")[0])


def _plain(v):
    if isinstance(v, (ag.Tensor, torch.Tensor)):
        return (np.asarray(v.detach().numpy(), dtype=float).round(6).tolist(),
                v.requires_grad)
    if isinstance(v, (tuple, list)):
        return type(v).__name__, [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def same(fn):
    assert run(fn, ag) == run(fn, torch)


def leaf(L, values=(1.0, 2.0, 3.0)):
    return L.tensor(list(values), requires_grad=True)


def dirty_fn(L, n_outputs=1):
    class Scale(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x if n_outputs == 1 else (x, x * 2)

        @staticmethod
        def backward(ctx, *grads):
            return grads[0] * 2
    return Scale


# ----------------------------------------------------------------------------- autograd.grad

def test_grad_inputs_as_dict_returns_a_dict():
    def f(L):
        x, z = leaf(L), leaf(L)
        return L.autograd.grad((x * z * z).sum(), {"x": x, "z": z})
    same(f)


def test_grad_inputs_other_mapping_is_a_type_error():
    same(lambda L: L.autograd.grad((leaf(L) * 2).sum(),
                                   collections.OrderedDict(a=leaf(L))))


def test_backward_inputs_as_generator_and_dict():
    def f(L):
        x, z = leaf(L), leaf(L)
        (x * z).sum().backward(inputs=(t for t in [x]))
        (x * z).sum().backward(inputs={"z": z})
        return x.grad, z.grad
    same(f)


def test_materialized_zeros_require_grad_with_create_graph():
    def f(L):
        x, z = leaf(L), leaf(L)
        return L.autograd.grad((x * x).sum(), [x, z], materialize_grads=True,
                               create_graph=True)
    same(f)


def test_gradient_edge_as_output():
    def f(L):
        x = leaf(L)
        y = (x * 2) * x
        edge = L.autograd.graph.get_gradient_edge(y)
        scalar = L.autograd.graph.get_gradient_edge((x * x).sum())
        return L.autograd.grad(edge, x, L.ones(3)), L.autograd.grad(scalar, x)
    same(f)


def test_gradient_edge_as_backward_root():
    def f(L):
        x = leaf(L)
        L.autograd.backward(L.autograd.graph.get_gradient_edge(x * x), L.ones(3))
        return x.grad
    same(f)


def test_materialize_grads_with_a_gradient_edge_input():
    def f(L):
        x, z = leaf(L), leaf(L)
        return L.autograd.grad((x * x).sum(), [x, L.autograd.graph.get_gradient_edge(z)],
                               materialize_grads=True)
    same(f)


@pytest.mark.parametrize("api", ["backward", "grad"])
def test_output_that_is_not_a_tensor(api):
    def f(L):
        x = leaf(L)
        if api == "grad":
            return L.autograd.grad([1.0], [x])
        return L.autograd.backward([(x * x).sum(), 3.0])
    same(f)


def test_only_inputs_warning_comes_after_the_empty_inputs_check():
    def f(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                L.autograd.grad((leaf(L) * 2).sum(), [], only_inputs=False)
            except RuntimeError as exc:
                return str(exc), [str(w.message) for w in caught]
    same(f)


# ----------------------------------------------------------------------------- grad modes

@pytest.mark.parametrize("name", ["no_grad", "enable_grad"])
def test_decorator_without_parentheses(name):
    def f(L):
        @getattr(L, name)
        def inner():
            return L.is_grad_enabled()
        with L.set_grad_enabled(name == "no_grad"):
            return inner(), L.is_grad_enabled()
    same(f)


def test_set_grad_enabled_as_decorator_does_not_change_the_mode_until_called():
    def f(L):
        @L.set_grad_enabled(False)
        def inner():
            return L.is_grad_enabled()
        after_decorating = L.is_grad_enabled()
        return after_decorating, inner(), L.is_grad_enabled()
    try:
        same(f)
    finally:
        ag.set_grad_enabled(True)


def test_set_grad_enabled_needs_a_bool():
    def f(L):
        try:
            L.set_grad_enabled(1)
        finally:
            L.set_grad_enabled(True)
    same(f)


def test_no_grad_decorated_generator_only_while_it_runs():
    def f(L):
        @L.no_grad()
        def gen():
            yield L.is_grad_enabled()
            yield L.is_grad_enabled()
        it = gen()
        first = next(it)
        between = L.is_grad_enabled()
        return first, between, next(it), L.is_grad_enabled()
    same(f)


def test_inference_mode_false_enables_grad():
    def f(L):
        with L.no_grad():
            with L.inference_mode(False):
                inside = L.is_grad_enabled(), L.is_inference_mode_enabled()
        with L.inference_mode():
            with L.inference_mode(False):
                nested = L.is_grad_enabled(), L.is_inference_mode_enabled()
        return inside, nested
    same(f)


def test_inference_mode_decorator_without_parentheses():
    def f(L):
        @L.inference_mode
        def inner():
            return L.is_inference_mode_enabled(), L.is_grad_enabled()
        return inner(), L.is_inference_mode_enabled()
    same(f)


def test_detect_anomaly_enter_returns_none():
    def f(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with L.autograd.detect_anomaly() as value:
                return value
    same(f)


# ----------------------------------------------------------------------------- mark_dirty

def test_mark_dirty_bumps_the_version():
    def f(L):
        h = leaf(L) * 1
        before = h._version
        dirty_fn(L).apply(h)
        return before, h._version
    same(f)


def test_mark_dirty_on_a_view_rebases_its_base():
    def f(L):
        x = leaf(L)
        b = x * 1
        y = dirty_fn(L).apply(b[1:])
        (b.sum() + y.sum()).backward()
        return x.grad, b.grad_fn.name().split("::")[-1]
    same(f)


def test_mark_dirty_on_a_view_with_two_outputs():
    same(lambda L: dirty_fn(L, 2).apply((leaf(L) * 1)[1:]))


def test_mark_dirty_on_a_view_of_a_leaf():
    same(lambda L: dirty_fn(L).apply(leaf(L)[1:]))


def test_mark_dirty_view_frees_saved_tensors_after_backward():
    def f(L):
        class Scale(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                _ = ctx.saved_tensors   # unpacked, as a real backward would
                return g * 2
        b = leaf(L).clone()   # saves nothing: only the Function's saved tensor is freed
        Scale.apply(b[1:])
        s = b.sum()
        s.backward()
        s.backward()
    same(f)


def test_mark_dirty_moves_retain_grad_to_the_new_node():
    def f(L):
        x = leaf(L)
        h = x * 1
        h.retain_grad()
        dirty_fn(L).apply(h).sum().backward()
        return h.grad, x.grad
    same(f)


def test_mark_dirty_of_a_non_input_warns():
    def f(L):
        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Fn.apply(leaf(L))
        return [str(w.message).split(" (Triggered internally")[0] for w in caught]
    same(f)


def test_mark_dirty_and_non_differentiable():
    def f(L):
        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                ctx.mark_non_differentiable(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        b = leaf(L) * 1
        y = Fn.apply(b)
        return y is b, y.requires_grad, y.grad_fn is None
    same(f)


# ------------------------------------------------------------- hooks, views, inference

@pytest.mark.parametrize("result", ["list", "shape", "dtype", "int"])
def test_node_pre_hook_results_are_checked(result):
    def f(L):
        x = leaf(L)
        y = x.exp()
        make = {"list": lambda g: [g[0]], "shape": lambda g: (g[0][:1],),
                "dtype": lambda g: (g[0].double(),), "int": lambda g: (3,)}[result]

        def hook(grads):
            return make(grads)
        y.grad_fn.register_prehook(hook)
        y.sum().backward()
        return x.grad
    same(f)


@pytest.mark.parametrize("result", ["list", "dtype", "int"])
def test_node_post_hook_results_are_checked(result):
    def f(L):
        x = leaf(L)
        y = x.exp()
        make = {"list": lambda gi: [gi[0]], "dtype": lambda gi: (gi[0].double(),),
                "int": lambda gi: (3,)}[result]

        def hook(grad_inputs, grad_outputs):
            return make(grad_inputs)
        y.grad_fn.register_hook(hook)
        y.sum().backward()
        return x.grad
    same(f)


@pytest.mark.parametrize("result", ["same", "int", "shape", "other"])
def test_post_accumulate_grad_hook_results(result):
    def f(L):
        x = leaf(L)
        x.register_post_accumulate_grad_hook(
            {"same": lambda t: t, "int": lambda t: 5, "shape": lambda t: L.ones(5),
             "other": lambda t: L.ones(3)}[result])
        (x * 2).sum().backward()
        return x.grad
    same(f)


@pytest.mark.parametrize("inputs", ["y", "y and x"])
def test_captured_gradient_of_a_non_leaf_and_its_hooks(inputs):
    # torch: the capture sees the hook's change only when y's node does not run
    def f(L):
        x = leaf(L)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        return L.autograd.grad((y * 2).sum(), [y] if inputs == "y" else [y, x])
    same(f)


@pytest.mark.parametrize("view", [False, True])
def test_retain_grad_then_in_place(view):
    def f(L):
        x = leaf(L)
        h = x * 1
        h.retain_grad()
        (h[1:] if view else h).mul_(2)
        h.sum().backward()
        return h.grad, x.grad
    same(f)


def test_in_place_on_a_detached_tensor_leaves_the_original_alone():
    def f(L):
        x = leaf(L)
        b = x * 1
        d = b.detach()
        w = leaf(L)
        d.mul_(w)
        d.sum().backward()
        return b.grad_fn.name(), w.grad, x.grad
    same(f)


@pytest.mark.parametrize("case", ["tensor operand", "scalar operand", "base without grad",
                                  "view of the view", "in-place inside no_grad"])
def test_in_place_on_a_view_made_in_no_grad(case):
    def f(L):
        b = L.ones(3) if case == "base without grad" else leaf(L) * 1
        with L.no_grad():
            v = b[1:]
        if case == "view of the view":
            v = v[0:]
        if case == "in-place inside no_grad":
            with L.no_grad():
                v.mul_(2)
            return b
        v.mul_(2 if case == "scalar operand" else leaf(L, (1.0, 2.0)))
        return b
    same(f)


@pytest.mark.parametrize("case", ["save", "inplace", "requires_grad", "add", "view in place",
                                  "setitem", "clone in place", "requires_grad attribute",
                                  "in place inside inference mode"])
def test_inference_tensor_rules(case):
    def f(L):
        with L.inference_mode():
            t = L.ones(3)
        if case == "save":
            return leaf(L) * t
        if case == "add":   # AddBackward0 saves nothing: allowed
            return leaf(L) + t
        if case == "inplace":
            return t.add_(1)
        if case == "view in place":
            return t[1:].add_(1)
        if case == "setitem":
            t[0] = 5.0
            return t
        if case == "clone in place":
            return t.clone().add_(1)
        if case == "requires_grad attribute":
            t.requires_grad = True
            return t
        if case == "in place inside inference mode":
            with L.inference_mode():
                t.add_(1)
            return t
        return t.requires_grad_()
    same(f)


def test_detach_in_place_of_a_view_of_a_tensor_without_grad():
    same(lambda L: L.ones(3)[1:].detach_())


@pytest.mark.parametrize("case", ["in place, base without grad", "in place, base with grad",
                                  "saved for backward", "is_inference", "view of the view"])
def test_views_made_in_inference_mode(case):
    # a view of a normal tensor made in inference mode is normal, but torch refuses to
    # modify it in place where grad mode would record that
    def f(L):
        base = leaf(L) * 1 if case in ("in place, base with grad", "view of the view") \
            else L.ones(3)
        with L.inference_mode():
            v = base[:2]
        if case == "view of the view":
            return v[1:].add_(1)
        if case == "saved for backward":
            return v * leaf(L, (1.0, 2.0))
        if case == "is_inference":
            return v.is_inference()
        return v.add_(1)
    same(f)


def test_detach_keeps_inference():
    def f(L):
        with L.inference_mode():
            t = L.ones(3)
        d = t.detach()
        return d.is_inference(), leaf(L) * d
    same(f)


@pytest.mark.parametrize("key", ["0", "0:1", "(0, 1)", "...", ":", "None", "(slice(None), 0)",
                                 "L.tensor([0])"])
def test_setitem_on_a_view_made_in_no_grad(key):
    def f(L):
        b = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        with L.no_grad():
            v = b[0:]
        exec(f"v[{key}] = value", {"L": L, "v": v, "value": leaf(L, (5.0,)).sum()})
        return b
    same(f)


# ------------------------------------------------------------- views whose base requires grad

def _view_in_no_grad(L, make=lambda x: x[:2]):
    x = leaf(L)
    with L.no_grad():
        return x, make(x)


VIEW_SCENARIOS = {
    "flags": lambda L: (lambda v: (v.requires_grad, v.is_leaf, v.grad_fn is None))(
        _view_in_no_grad(L)[1]),
    "recorded with no edge": lambda L: (lambda y: (
        y.requires_grad, type(y.grad_fn).__name__,
        [fn is None for fn, _ in y.grad_fn.next_functions]))(_view_in_no_grad(L)[1] * 2),
    "backward through it reaches nothing": lambda L: (lambda x, v: (
        (v * 2).sum().backward(), (v.sum() * 3).backward(), v.grad, x.grad))(
        *_view_in_no_grad(L)),
    "reductions and reshapes need no input shape": lambda L: (lambda x, v: (
        v.mean().backward(), v.reshape(1, 2).sum().backward(), v.expand(3, 2).sum().backward(),
        x.grad))(*_view_in_no_grad(L)),
    "repr and numpy": lambda L: (lambda v: (repr(v).replace("torch", "lib"), v.numpy()))(
        _view_in_no_grad(L)[1]),
    "requires_grad_(False) is a no-op": lambda L: (lambda v: (
        v.requires_grad_(False).requires_grad, setattr(v, "requires_grad", False),
        v.requires_grad))(_view_in_no_grad(L)[1]),
    "hooks and retain_grad": lambda L: (lambda v: (
        v.register_hook(lambda g: g) is not None, v.retain_grad(), v.retains_grad))(
        _view_in_no_grad(L)[1]),
    "grad of it is unused": lambda L: (lambda v: L.autograd.grad((v * 2).sum(), v))(
        _view_in_no_grad(L)[1]),
    "grad of it, allow_unused": lambda L: (lambda v: L.autograd.grad(
        (v * 2).sum(), v, allow_unused=True))(_view_in_no_grad(L)[1]),
    "a view of it": lambda L: (lambda w: (w.requires_grad, type(w.grad_fn).__name__))(
        _view_in_no_grad(L)[1][:1]),
    "clone and custom function": lambda L: (lambda v: (
        v.clone().requires_grad, type(v.clone().grad_fn).__name__,
        dirty_free_function(L).apply(v).requires_grad))(_view_in_no_grad(L)[1]),
    "unbind, split, expand": lambda L: [
        _view_in_no_grad(L, make)[1][0].requires_grad
        for make in (lambda x: x.unbind(0), lambda x: x.split(1), lambda x: [x.expand(2, 3)])],
    "detach is not a view": lambda L: _view_in_no_grad(L, lambda x: x.detach())[1].requires_grad,
    "base stops requiring grad": lambda L: (lambda x, v: (
        x.requires_grad_(False), v.requires_grad)[1])(*_view_in_no_grad(L)),
    "base starts requiring grad": lambda L: (lambda b: (lambda w: (
        b.requires_grad_(), w.requires_grad, w.is_leaf, type((w * 2).grad_fn).__name__))(
        b[:2]))(L.ones(3)),
    "in place on it": lambda L: _view_in_no_grad(L)[1].mul_(2),
}


def dirty_free_function(L):
    class Double(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Double


@pytest.mark.parametrize("scenario", list(VIEW_SCENARIOS))
def test_a_view_requires_grad_when_its_base_does(scenario):
    same(VIEW_SCENARIOS[scenario])


def test_non_differentiable_inputs_returned_as_is():
    def f(L):
        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, z):
                ctx.mark_non_differentiable(x, z)
                return x, z

            @staticmethod
            def backward(ctx, g, h):
                return g, h
        b, c = leaf(L) * 1, L.ones(2)
        y, w = Fn.apply(b, c)
        return y._base is None, y.requires_grad, w._base is c, w.requires_grad
    same(f)


@pytest.mark.parametrize("case", ["unbind 0", "unbind 1", "split", "chunk", "view of it",
                                  "setitem", "in no_grad", "base without grad",
                                  "base without grad, grad operand",
                                  "view of it, base without grad, grad operand"])
def test_in_place_on_an_output_of_a_multi_view_op(case):
    # torch refuses to modify in place one of several views returned together
    def f(L):
        y = (L.zeros(2, 3) if "base without" in case else leaf(L, (1.0,) * 6)
             .reshape(2, 3) * 1)
        views = y.split(1) if case == "split" else y.chunk(2) if case == "chunk" \
            else y.unbind(0)
        v = views[1] if case == "unbind 1" else views[0]
        if case.startswith("view of it"):
            v = v[1:]
        if case == "setitem":
            v[0] = 5.0
        elif case == "in no_grad":
            with L.no_grad():
                v.mul_(2)
        elif case.endswith("grad operand"):
            v.mul_(leaf(L, (1.0,) * v.shape[-1]))
        else:
            v.mul_(2)
        return y
    same(f)
