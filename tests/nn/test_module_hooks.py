"""Module hooks and accessors against torch: each scenario runs with both libraries (``lib``)
and returns plain values (hook call order, gradient shapes, node names, errors) to compare."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag
from agdebug.nn.modules import module as ag_module

from .module_parity import raised


def _both(torch, scenario):
    """The scenario's record with agdebug, checked equal to torch's; returned."""
    ours, theirs = scenario(ag), scenario(torch)
    assert ours == theirs
    return ours


def _shape(g):
    return None if g is None else tuple(g.shape)


def _graph_names(t) -> list:
    """Every node name reachable from ``t.grad_fn``, breadth first, duplicates kept once."""
    seen, order, queue = set(), [], [t.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node.name().rpartition("::")[2])
        queue.extend(fn for fn, _ in node.next_functions)
    return order


def _warnings(fn) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in caught]


def _two_input_module(lib):
    class Mix(lib.nn.Module):
        def forward(self, x, y, scale, z):
            return x * y * scale + z.sum(), (x * 2).detach()
    return Mix()


def _data(lib, *shape):
    n = int(np.prod(shape))
    return lib.tensor(np.linspace(-1.0, 1.0, n).reshape(shape), dtype=lib.float32)


# ----------------------------------------------------------------------------- forward hooks

def test_forward_pre_hook_replaces_args_in_registration_order(torch):
    def scenario(lib):
        log, m = [], lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args: log.append("a") or args[0] + 1)
        h = m.register_forward_pre_hook(lambda mod, args: log.append("b") or (args[0] * 10,))
        m.register_forward_pre_hook(lambda mod, args: log.append("first"), prepend=True)
        out = m(lib.ones(2)).tolist()
        h.remove()
        h.remove()   # a second remove is harmless
        return list(log), out, m(lib.ones(2)).tolist(), len(m._forward_pre_hooks)
    assert _both(torch, scenario) == (["first", "a", "b"], [20.0, 20.0], [2.0, 2.0], 2)


def test_forward_hooks_with_kwargs_replace_output(torch):
    def scenario(lib):
        class M(lib.nn.Module):
            def forward(self, x, *, k=1.0):
                return x * k
        m, log = M(), []
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: (args, {"k": kwargs["k"] + 1}), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(kwargs["k"]) or out + 1,
                                with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append(out.tolist()))
        out = m(lib.ones(2), k=2.0)
        return log, out.tolist(), out.grad_fn is None
    assert _both(torch, scenario) == ([3.0, [4.0, 4.0]], [4.0, 4.0], True)


def test_forward_pre_hook_with_kwargs_bad_return(torch):
    def scenario(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
        return raised(lambda: m(lib.ones(1)))
    assert _both(torch, scenario)[0] == "RuntimeError"


def test_handle_is_a_context_manager_and_clears_the_flags(torch):
    def scenario(lib):
        m = lib.nn.Identity()
        with m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True):
            inside = (len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
                      len(m._forward_hooks_always_called))
        return inside, (len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
                        len(m._forward_hooks_always_called))
    assert _both(torch, scenario) == ((1, 1, 1), (0, 0, 0))


def test_always_call_hook_runs_when_forward_raises(torch):
    def scenario(lib):
        class Boom(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        m, log = Boom(), []
        m.register_forward_hook(lambda mod, args, out: log.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("never"))
        m.register_forward_hook(lambda mod, args, out: 1 / 0, always_call=True)
        caught = _warnings(lambda: log.append(raised(lambda: m(lib.ones(1)))))
        return log, caught
    log, caught = _both(torch, scenario)
    assert log == [("always", None), ("ValueError", "boom")]
    assert "division by zero" in caught[0][1]


def test_global_forward_hooks_run_before_the_modules_own(torch):
    def scenario(lib):
        mod = ag_module if lib is ag else lib.nn.modules.module
        log, m = [], lib.nn.Identity()
        m.register_forward_hook(lambda mod_, args, out: log.append("local"))
        m.register_forward_pre_hook(lambda mod_, args: log.append("local pre"))
        with mod.register_module_forward_hook(lambda mod_, args, out: log.append("global")), \
                mod.register_module_forward_pre_hook(lambda m_, a: log.append("global pre")):
            m(lib.ones(1))
        m(lib.ones(1))
        return log
    assert _both(torch, scenario) == ["global pre", "local pre", "global", "local",
                                      "local pre", "local"]


def test_nested_modules_hook_order(torch):
    def scenario(lib):
        log = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh())
        for name, m in net.named_modules():
            m.register_forward_pre_hook(lambda mod, args, n=name: log.append(("pre", n)))
            m.register_forward_hook(lambda mod, args, out, n=name: log.append(("fwd", n)))
            m.register_full_backward_hook(lambda mod, gi, go, n=name: log.append(("bwd", n)))
        net(lib.ones(3, 2, requires_grad=True)).sum().backward()
        return log
    assert _both(torch, scenario)[-3:] == [("bwd", "1"), ("bwd", "0"), ("bwd", "")]


# ----------------------------------------------------------------------------- backward hooks

def test_full_backward_hooks_order_shapes_and_graph(torch):
    def scenario(lib):
        log, m = [], lib.nn.Linear(3, 2)
        m.register_full_backward_pre_hook(
            lambda mod, go: log.append(("pre", [_shape(g) for g in go])))
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(("hook", [_shape(g) for g in gi],
                                            [_shape(g) for g in go])))
        x = lib.ones(4, 3, requires_grad=True) * 1
        out = m(x)
        names = _graph_names(out)
        out.sum().backward()
        return log, names
    log, names = _both(torch, scenario)
    assert log == [("pre", [(4, 2)]), ("hook", [(4, 3)], [(4, 2)])]
    assert names[:3] == ["BackwardHookFunctionBackward", "AddmmBackward0", "AccumulateGrad"]


def test_grad_input_is_none_for_non_tensor_and_no_grad_inputs(torch):
    def scenario(lib):
        log, log_values, m = [], [], _two_input_module(lib)
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(([_shape(g) for g in gi], [_shape(g) for g in go]))
            or log_values.append((gi, go)))
        x, y = _data(lib, 2, 3).requires_grad_(), _data(lib, 2, 3)
        out, side = m(x, y, 3.0, lib.ones(2))
        names = _graph_names(out)
        flags = (side.requires_grad, side.grad_fn is None)
        out.sum().backward()
        zeros = [g.abs().sum().item() for g in ([gi for gi, _ in log_values][0][1::2])]
        return log, names, flags, x.grad.tolist(), zeros
    log, names, flags, _, zeros = _both(torch, scenario)
    # torch hands zeros (not None) for a tensor input without grad; None for a number
    assert log == [([(2, 3), (2, 3), None, (2,)], [(2, 3), None])]
    assert names[0] == "BackwardHookFunctionBackward" and flags == (False, True)


def test_hooks_replace_grad_output_and_grad_input(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        with lib.no_grad():
            m.weight.copy_(_data(lib, 2, 2))
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
        x = lib.ones(3, 2, requires_grad=True)
        m(x).sum().backward()
        return x.grad.tolist(), m.weight.grad.tolist()
    _both(torch, scenario)


def test_backward_hooks_wrong_number_of_values(torch):
    def scenario(lib):
        errors = []
        for kind in ("pre", "full"):
            m = lib.nn.Linear(2, 2)
            if kind == "pre":
                m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
            else:
                m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
            out = m(lib.ones(1, 2, requires_grad=True)).sum()
            errors.append(raised(out.backward))
        return errors
    errors = _both(torch, scenario)
    assert errors[0] == ("RuntimeError", "Backward pre hook returned an invalid number of "
                         "grad_output, got 2, but expected 1")


def test_no_input_requires_grad_warns_and_refuses_a_value(torch):
    def scenario(lib):
        log, m = [], lib.nn.Linear(2, 2)
        h = m.register_full_backward_hook(lambda mod, gi, go: log.append(gi))
        caught = _warnings(lambda: m(lib.ones(1, 2)).sum().backward())
        h.remove()
        m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(1, 2),))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            error = raised(m(lib.ones(1, 2)).sum().backward)
        return log, [c for c, _ in caught], caught[0][1][:40], error
    log, categories, _, error = _both(torch, scenario)
    assert log == [(None,)] and categories == ["UserWarning"]
    assert error[1].startswith("Backward hook for Modules where no input requires gradient")


def test_inplace_on_a_hooked_input_is_refused(torch):
    def scenario(lib):
        class InPlace(lib.nn.Module):
            def forward(self, x):
                return x.relu_()
        m = InPlace()
        m.register_full_backward_hook(lambda *a: None)
        leaf = lib.ones(2, requires_grad=True)   # a leaf input too: the same refusal
        return raised(lambda: m(leaf * 1)), raised(lambda: m(leaf))
    inner, leaf = _both(torch, scenario)
    assert inner == leaf and inner[1].startswith("Output 0 of BackwardHookFunction is a view")


def test_non_tensor_output_warns(torch):
    def scenario(lib):
        class Dict(lib.nn.Module):
            def forward(self, x):
                return {"y": x * 2}
        m = Dict()
        m.register_full_backward_hook(lambda *a: None)
        return [c for c, _ in _warnings(lambda: m(lib.ones(1, requires_grad=True)))]
    assert _both(torch, scenario) == ["UserWarning"]


def test_no_grad_call_records_no_hook_node(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda *a: None)
        with lib.no_grad():
            out = m(lib.ones(1, 2, requires_grad=True))
        return out.grad_fn is None
    assert _both(torch, scenario) is True


def test_deprecated_backward_hook(torch):
    def scenario(lib):
        log, m = [], lib.nn.Linear(2, 2)
        m.register_backward_hook(lambda mod, gi, go: log.append([_shape(g) for g in gi]))
        mixed = raised(lambda: m.register_full_backward_hook(lambda *a: None))
        x = lib.ones(3, 2, requires_grad=True)
        caught = _warnings(lambda: m(x).sum().backward())
        return log, mixed, [c for c, _ in caught]
    log, mixed, categories = _both(torch, scenario)
    assert mixed[1].startswith("Cannot use both regular backward hooks and full backward hooks")
    assert categories == ["FutureWarning"]


def test_global_full_backward_hooks(torch):
    def scenario(lib):
        mod = ag_module if lib is ag else lib.nn.modules.module
        log, m = [], lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda m_, gi, go: log.append("local"))
        with mod.register_module_full_backward_hook(lambda m_, gi, go: log.append("global")), \
                mod.register_module_full_backward_pre_hook(lambda m_, go: log.append("pre")):
            m(lib.ones(1, 2, requires_grad=True)).sum().backward()
        return log
    assert _both(torch, scenario) == ["pre", "global", "local"]


def names_of(trace) -> dict:
    return {e.node: e.name for e in trace.events if e.kind == "node_started"}


def test_hook_nodes_are_custom_function_nodes_in_the_event_stream():
    from agdebug.debug import record
    m = ag.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda *a: None)
    with record() as trace:
        m(ag.ones(1, 2, requires_grad=True)).sum().backward()
    # (custom Function nodes get no node_created event yet: autograd/function.py emits none)
    started = [e.name for e in trace.events if e.kind == "node_started"]
    assert started.count("BackwardHookFunctionBackward") == 2
    hooks = [(e.hook, names_of(trace)[e.node]) for e in trace.events if e.kind == "hook_called"]
    assert hooks == [("post", "BackwardHookFunctionBackward")] * 2


# ----------------------------------------------------------------------------- accessors

def _net(lib):
    net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    net.register_buffer("steps", lib.zeros(1), persistent=False)
    return net


@pytest.mark.parametrize("call", [
    "net.get_submodule('1')", "net.get_submodule('')", "net.get_submodule('2')",
    "net.get_submodule('0.weight')", "net.get_parameter('0.weight')",
    "net.get_parameter('1.running_mean')", "net.get_parameter('0.nope')",
    "net.get_buffer('1.running_mean')", "net.get_buffer('0.weight')", "net.get_buffer('steps')",
    "net.set_submodule('', lib.nn.ReLU())", "net.set_submodule('0', 3)",
    "net.set_submodule('new', lib.nn.ReLU(), strict=True)",
    "net.set_submodule('0.weight', lib.nn.ReLU())", "net.to(lib.int64)",
])
def test_accessor_results_and_errors(torch, call):
    def scenario(lib):
        net = _net(lib)
        error = raised(lambda: eval(call, {"net": net, "lib": lib}))
        if error is not None:
            return error
        value = eval(call, {"net": net, "lib": lib})
        return type(value).__name__, None if value is None else _shape_or_repr(value)
    _both(torch, scenario)


def _shape_or_repr(value):
    return tuple(value.shape) if hasattr(value, "shape") else repr(value)


def test_set_submodule_replaces(torch):
    def scenario(lib):
        net = _net(lib)
        net.set_submodule("1", lib.nn.ReLU())
        net.set_submodule("extra", lib.nn.Tanh())
        return repr(net), list(net.state_dict())
    _both(torch, scenario)


@pytest.mark.parametrize("convert", ["half()", "double()", "float()", "to(lib.float64)",
                                     "type(lib.float64)", "cpu()", "to('cpu', lib.float16)"])
def test_conversions_cast_floating_tensors_only(torch, convert):
    def scenario(lib):
        net = _net(lib)
        net(lib.ones(3, 2)).sum().backward()
        weight = net[0].weight
        assert eval(f"net.{convert}", {"net": net, "lib": lib}) is net
        return ([(n, str(t.dtype)) for n, t in net.state_dict().items()],
                str(net[0].weight.grad.dtype), net[0].weight is weight)
    _both(torch, scenario)


def test_apply_zero_grad_requires_grad(torch):
    def scenario(lib):
        net, seen = _net(lib), []
        net.apply(lambda m: seen.append(type(m).__name__))
        net(lib.ones(3, 2)).sum().backward()
        net.zero_grad(set_to_none=False)
        zeros = net[0].weight.grad.abs().sum().item()
        net.zero_grad()
        net.requires_grad_(False)
        return seen, zeros, net[0].weight.grad, [p.requires_grad for p in net.parameters()]
    _both(torch, scenario)


def test_named_modules_memo_prefix_and_duplicates(torch):
    def scenario(lib):
        shared = lib.nn.ReLU()
        net = lib.nn.Sequential(shared, lib.nn.Sequential(shared))
        return ([n for n, _ in net.named_modules()],
                [n for n, _ in net.named_modules(prefix="net", remove_duplicate=False)],
                [n for n, _ in net.named_modules(memo={shared})])
    _both(torch, scenario)


def test_replacing_grad_input_of_an_input_without_grad_is_ignored(torch):
    def scenario(lib):
        class Mul(lib.nn.Module):
            def forward(self, a, b):
                return a * b
        m = Mul()
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 3, lib.ones(2)))
        a = lib.ones(2, requires_grad=True)
        m(a, lib.full((2,), 2.0)).sum().backward()
        return a.grad.tolist()
    assert _both(torch, scenario) == [6.0, 6.0]


def test_hooked_module_under_create_graph(torch):
    def scenario(lib):
        log, m = [], lib.nn.Tanh()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(len(gi)) or (gi[0] * 2,))
        x = lib.tensor([0.5, -0.3], requires_grad=True)
        g, = lib.autograd.grad(m(x).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)   # reaches the input hook without the output's
        return log, np.round(g.tolist(), 5).tolist(), np.round(gg.tolist(), 5).tolist()
    assert _both(torch, scenario)[0] == [1]
