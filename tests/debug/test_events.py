"""Golden event sequences for the canonical scenarios."""

from __future__ import annotations

import gc

import pytest

import agdebug as ag
from agdebug.events import WATCH, subscribe

from .scenarios import kinds, names, run

FORWARD2 = ["node_created"] * 3   # AccumulateGrad, MulBackward0, SumBackward0


def test_nobody_listening_means_flag_off():
    assert WATCH.on is False
    with subscribe(lambda e: None):
        assert WATCH.on is True
    assert WATCH.on is False


def test_second_backward_without_retain_graph():
    state = {}

    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        state["y"] = y
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()

    trace = run(scenario)
    backward = ["backward_started", "backward_planned",
                "buffer_accumulated", "node_started", "node_finished",          # SumBackward0
                "buffer_accumulated", "node_started", "saved_released", "node_finished",  # Mul
                "buffer_accumulated", "buffer_accumulated",                     # two edges to x
                "node_started", "grad_accumulated", "node_finished", "backward_finished"]
    assert kinds(trace) == FORWARD2 + backward + ["backward_started", "error",
                                                  "backward_finished"]
    error = next(e for e in trace.events if e.kind == "error")
    assert names(trace)[error.node] == "MulBackward0"
    assert trace.events[-1].ok is False
    acc = [e for e in trace.events if e.kind == "buffer_accumulated"][-1]
    assert (acc.contributions, acc.remaining) == (2, 0)


def test_create_graph_cycle_detected_and_broken():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(create_graph=True)
        gc.collect()
        x.grad = None
        gc.collect()

    trace = run(scenario)
    ks = [e.kind for e in trace.events]
    cyc = next(e for e in trace.events if e.kind == "cycle_detected")
    leaf = cyc.leaf
    assert cyc.path[0] == cyc.path[-1] == f"t{leaf}"
    nm = names(trace)
    assert nm[cyc.nodes[0]] == "CopyBackwards" and nm[cyc.nodes[-1]] == "AccumulateGrad"
    broken = ks.index("cycle_broken")
    assert trace.events[broken].leaf == leaf and trace.events[broken].reason == "grad_cleared"
    # the cyclic GC pass between cannot free the cycle (torch's leak); clearing .grad does,
    # by reference counting.
    freed = {e.node: e.by for e in trace.events[broken:] if e.kind == "node_freed"}
    assert set(cyc.nodes[:-1]) <= set(freed)
    assert all(freed[n] == "refcount" for n in cyc.nodes[:-1])
    assert not any(e.kind == "node_freed" and e.node in cyc.nodes
                   for e in trace.events[:broken])


def test_diamond_sums_two_contributions():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        a = x.exp()
        (a * 2 + a * 3).sum().backward()

    trace = run(scenario)
    nm = names(trace)
    exp_id = next(n for n, name in nm.items() if name == "ExpBackward0")
    into_exp = [e for e in trace.events if e.kind == "buffer_accumulated" and e.node == exp_id]
    assert [(e.contributions, e.remaining) for e in into_exp] == [(1, 1), (2, 0)]
    plan = next(e for e in trace.events if e.kind == "backward_planned")
    assert {p.node: p.deps for p in plan.nodes}[exp_id] == 2


def test_inputs_prune_the_plan():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        w = ag.tensor([3.0, 4.0], requires_grad=True)
        (x.exp() * w.exp()).sum().backward(inputs=[x])

    trace = run(scenario)
    nm = names(trace)
    plan = next(e for e in trace.events if e.kind == "backward_planned")
    planned = sorted(nm[p.node] for p in plan.nodes)
    assert planned == ["AccumulateGrad", "ExpBackward0", "MulBackward0", "SumBackward0"]
    started = [nm[e.node] for e in trace.events if e.kind == "node_started"]
    assert started == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad"]
    assert sum(e.kind == "grad_accumulated" for e in trace.events) == 1


def test_hooks_are_reported():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 10)
        y = x * 2
        y.grad_fn.register_prehook(lambda grads: None)
        y.sum().backward()

    trace = run(scenario)
    hooks = [(e.hook, e.replaced, names(trace)[e.node]) for e in trace.events
             if e.kind == "hook_called"]
    assert hooks == [("pre", False, "MulBackward0"), ("tensor", True, "AccumulateGrad")]


def test_inplace_error_names_the_node():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()

    trace = run(scenario)
    assert kinds(trace)[-3:] == ["backward_started", "error", "backward_finished"]
    error = next(e for e in trace.events if e.kind == "error")
    assert names(trace)[error.node] == "ExpBackward0"
    assert "inplace" in error.message


def test_values_only_when_asked():
    def scenario():
        x = ag.tensor([1.0, float("nan")], requires_grad=True)
        (x * 2).sum().backward()

    plain = run(scenario)
    rich = run(scenario, values=True)
    assert all(s.stats is None for e in plain.events if e.kind == "node_created"
               for s in e.outputs)
    made = next(e for e in rich.events if e.kind == "node_created" and e.name == "MulBackward0")
    stats = made.outputs[0].stats
    assert stats.preview[0] == 2.0 and stats.nan == 1


def test_sequence_numbers_increase():
    trace = run(lambda: (ag.ones(3, requires_grad=True) * 2).sum().backward())
    seqs = [e.seq for e in trace.events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
