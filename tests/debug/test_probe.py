"""The probe's shortcuts (shared summaries, record builders, the delivery turn) record
exactly what building everything afresh would."""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle

import pytest

import agdebug as ag
import agdebug.nn.functional as F
from agdebug.events import records as r
from agdebug.debug import record
from agdebug.events import subscribe

from .scenarios import run


def test_builder_makes_the_frozen_record():
    fields = (7, 3, "MulBackward0", "mul", ((1, 0), (0, 0)), (), (), (), (("alpha", "2"),))
    built = r.builder(r.NodeCreated)(*fields)
    plain = r.NodeCreated(*fields)
    assert type(built) is r.NodeCreated and type(plain) is r.NodeCreated
    assert built == plain and hash(built) == hash(plain)
    assert (built.leaf, built.source) == (None, "")   # defaults, as the dataclass declares
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.node = 4
    assert pickle.loads(pickle.dumps(built)) == built and copy.copy(built) == built
    assert r.event_from_dict(built.to_dict()) == built
    assert r.GcPass(seq=1, generation=0, collected=2, uncollectable=0).collected == 2


def _summaries(trace):
    for e in trace.events:
        for field in ("inputs", "outputs", "grads"):
            yield from (s for s in getattr(e, field, None) or () if isinstance(s, r.TensorSummary))
        if getattr(e, "grad", None) is not None:
            yield e.grad


def test_a_summary_is_shared_while_it_holds():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        (y * 3).sum().backward()

    trace = run(scenario)
    by_id = {}
    for s in _summaries(trace):
        by_id.setdefault(s.id, []).append(s)
    reused = [same for same in by_id.values() if len(same) > 1]
    assert reused and all(s is same[0] for same in reused for s in same)


def test_a_tensor_whose_data_changed_gets_a_new_summary():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.data = ag.tensor([[1.0, 2.0]])                   # another shape, as many bytes
        y * 3
        y.data = ag.tensor([[1.0, 2.0]], dtype=ag.int32)   # another dtype, as many bytes
        y * 3

    made = [e for e in run(scenario).events if e.kind == "node_created" and e.op == "mul"]
    seen = [made[0].outputs[0], made[1].inputs[0], made[2].inputs[0]]
    assert len({s.id for s in seen}) == 1
    assert [(s.shape, s.dtype, s.nbytes) for s in seen] == [
        ((2,), "float32", 8), ((1, 2), "float32", 8), ((1, 2), "int32", 8)]


def test_values_are_summarized_afresh_each_time():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        with ag.no_grad():
            y.mul_(10)
        y * 3

    made = [e for e in run(scenario, values=True).events
            if e.kind == "node_created" and e.op == "mul"]
    assert made[0].outputs[0].stats.preview == (2.0, 4.0)
    assert made[1].inputs[0].stats.preview == (20.0, 40.0)


def test_a_node_is_shown_finishing_with_its_gradients_fitted_to_its_inputs():
    # The events show what the engine passes on: a broadcast gradient summed back to the
    # input's shape and cast to its dtype, never the derivative's raw output.
    def scenario():
        a = ag.ones(2, 3, requires_grad=True)
        b = ag.ones(3, dtype=ag.float64, requires_grad=True)
        (a * b).sum().backward()

    events = run(scenario).events
    finished = {e.node: e for e in events if e.kind == "node_finished"}
    created = next(e for e in events if e.kind == "node_created" and e.op == "mul")
    grads = finished[created.node].grads
    assert [(g.shape, g.dtype) for g in grads] == [((2, 3), "float32"), ((3,), "float64")]


_SOURCE = "return t.exp()   # the source line recorded for this op"


def _helper(t):
    return t.exp()   # the source line recorded for this op


def test_source_is_the_first_line_outside_the_library():
    trace = run(lambda: _helper(ag.tensor([1.0], requires_grad=True)))
    made = next(e for e in trace.events if e.kind == "node_created" and e.op == "exp")
    line = _helper.__code__.co_firstlineno + 1
    assert made.source == f"test_probe.py:{line}: {_SOURCE}"


def test_source_of_each_way_to_call_an_op():
    # Operators, methods, the op itself (``ag.tanh`` is one) and wrappers around it all name
    # the caller's line: the probe skips the registry's frames without reading them.
    calls = {
        "y = x * 2": lambda x: x * 2,
        "y = ag.tanh(x)": lambda x: ag.tanh(x),
        "y = x.sum(0)": lambda x: x.sum(0),
        "y = F.relu(x)": lambda x: F.relu(x),
        "y = ag.add(x, x, alpha=2)": lambda x: ag.add(x, x, alpha=2),
    }
    for text, call in calls.items():
        trace = run(lambda call=call: call(ag.ones(2, requires_grad=True)))
        made = [e for e in trace.events if e.kind == "node_created" and e.op]
        assert [e.source.split(": ", 1)[1] for e in made] == [
            f'"{text}": lambda x: {text[4:]},'], text


def test_saved_tensors_and_saved_values_are_summarized():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        w = ag.tensor([3.0, 4.0], requires_grad=True)
        (x * w * 2.0).sum().backward()

    trace = run(scenario)
    made = [e for e in trace.events if e.kind == "node_created" and e.op == "mul"]
    by_tensors, by_value = made[0], made[1]
    # torch's names, the ones grad_fn._saved_self and _saved_other read
    assert [(s.name, s.shape, s.dtype, s.nbytes) for s in by_tensors.saved] == [
        ("self", (2,), "float32", 8), ("other", (2,), "float32", 8)]
    assert [s.tensor for s in by_tensors.saved] == [i.id for i in by_tensors.inputs]
    assert [(s.name, s.tensor, s.shape, s.dtype, s.nbytes) for s in by_value.saved] == [
        ("other", 0, (), "float", 0)]
    released = {e.node: e.names for e in trace.events if e.kind == "saved_released"}
    assert released[by_tensors.node] == ("self", "other")
    assert released[by_value.node] == ("other",)


def test_tensor_attributes_are_summarized_by_shape_and_dtype_not_values():
    def scenario():
        x = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        F.nll_loss(x, ag.tensor([2, 0]), weight=ag.tensor([7.0, 8.0, 9.0])).backward()

    trace = run(scenario)
    (made,) = [e for e in trace.events if e.kind == "node_created" and e.op == "nll_loss"]
    attrs = dict(made.attrs)
    assert attrs["target"] == "tensor [2] int64"
    assert attrs["weight"] == "tensor [3] float32"
    assert attrs["reduction"] == "'mean'" and attrs["ignore_index"] == "-100"


def test_an_event_published_during_delivery_comes_next():
    seen = []

    def subscriber(event):
        seen.append(event)
        if event.kind == "node_created" and event.op == "exp":
            gc.collect()   # its gc_pass event is published while this one is delivered

    with subscribe(subscriber):
        ag.tensor([1.0], requires_grad=True).exp()
    exp = next(i for i, e in enumerate(seen) if e.kind == "node_created" and e.op == "exp")
    assert seen[exp + 1].kind == "gc_pass"
    assert [e.seq for e in seen] == sorted({e.seq for e in seen})


def test_gc_passes_are_published_when_they_free_graph_nodes_or_are_full_while_nodes_live():
    seen = []
    x = ag.tensor([1.0], requires_grad=True)
    with subscribe(seen.append):
        gc.collect()                       # no node yet: not about the graph (imports run many)
        gc.collect(0)                      # frees none of the graph: nothing to show
        y = x * 2
        y.grad_fn.metadata["keep"] = y     # a cycle through the node: only the GC frees it
        node_id = y.grad_fn._id
        kept = x * 3                       # a graph that lives on
        del y
        gc.collect(0)                      # frees y's node: shown
        gc.collect()                       # full, while kept's graph lives: shown, freeing none
        del kept
        gc.collect()                       # full, with no node alive: not shown
    kinds = [(e.kind, getattr(e, "generation", None), getattr(e, "node", None)) for e in seen
             if e.kind in ("gc_pass", "node_freed")]
    freed = next(e for e in seen if e.kind == "node_freed" and e.node == node_id)
    assert freed.by == "gc"
    assert [k[:2] for k in kinds if k[0] == "gc_pass"] == [("gc_pass", 0), ("gc_pass", 2)]
    assert kinds.index(("node_freed", None, node_id)) < kinds.index(("gc_pass", 0, None))


class _Square(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @ag.autograd.function.once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


class _DoubleInPlace(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return 2 * grad


def test_every_node_of_the_graph_is_announced_when_it_is_made():
    """Custom Function nodes, the CopySlices of an in-place write through a view (from an
    op or a custom Function) and once_differentiable's Error node appear when made, not
    first when a backward reaches them, and their freeing is seen too."""
    def scenario():
        x = ag.ones(3, requires_grad=True)
        y = _Square.apply(x * 1)
        y[:2].mul_(3)
        _DoubleInPlace.apply(y[1:])
        (g,) = ag.autograd.grad(y, x, ag.ones(3, requires_grad=True), create_graph=True)
        del y, g

    trace = run(scenario)
    created = {e.node: e for e in trace.events if e.kind == "node_created"}
    started = {e.node for e in trace.events if e.kind == "node_started"}
    freed = {e.node for e in trace.events if e.kind == "node_freed"}
    start = next(i for i, e in enumerate(trace.events) if e.kind == "backward_started")
    forward = [e.name.rpartition("::")[2] for e in trace.events[:start]
               if e.kind == "node_created"]
    assert forward.count("CopySlices") == 2 and forward.count("_SquareBackward") == 1
    assert forward.count("_DoubleInPlaceBackward") == 1
    assert "torch::autograd::Error" in [e.name for e in created.values()]   # by the backward
    assert started <= set(created), "a node ran that was never announced"
    custom = next(e for e in created.values() if e.name == "_SquareBackward")
    assert [s.name for s in custom.saved] == ["0"] and custom.outputs[0].shape == (3,)
    made_before = {e.node for e in trace.events[:start] if e.kind == "node_created"}
    assert made_before <= freed, "the forward graph outlived the program (a reference cycle?)"
    assert {e.by for e in trace.events if e.kind == "node_freed"} == {"refcount"}


def test_backward_hooks_and_errors_name_the_users_line():
    x = ag.tensor([1.0, 2.0], requires_grad=True)

    def double(grad):
        return grad * 2

    x.register_hook(double)
    with record() as trace:
        y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError):
            y.backward()
    started = [e for e in trace.events if e.kind == "backward_started"]
    hook = next(e for e in trace.events if e.kind == "hook_called")
    error = next(e for e in trace.events if e.kind == "error")
    assert [e.source.split(": ", 1)[1] for e in started] == ["y.backward()"] * 2
    assert started[0].source != started[1].source and error.source == started[1].source
    assert hook.source.startswith("test_probe.py:") and "def double(grad):" in hook.source
    old = started[0].to_dict()
    del old["source"]                       # a trace from before the field still loads
    assert r.event_from_dict(old).source == ""
