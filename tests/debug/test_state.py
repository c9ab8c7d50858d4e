"""GraphState: the reducer, statuses, and seeking a long trace."""

from __future__ import annotations

import random

import agdebug as ag
from agdebug.debug.state import EMPTY, Timeline, reduce
from agdebug.events import records as r

from .scenarios import run


def test_statuses_through_a_backward():
    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()

    trace = run(scenario)
    tl = trace.timeline()
    seen = set()
    for step in range(len(tl) + 1):
        seen.update(n.status for n in tl.state(step).nodes.values())
    assert {"created", "waiting", "ready", "running", "done", "released"} <= seen
    final = tl.state(len(tl))
    assert final.saved_bytes == 0 and final.backward.ok is True
    leaf = next(iter(final.leaves.values()))
    assert leaf.grad.shape == (2,) and leaf.accumulations == 1


def test_reduce_is_pure():
    event = r.NodeCreated(seq=1, node=5, name="ExpBackward0", op="exp", edges=(), inputs=(),
                          outputs=(), saved=(r.SavedSummary("result", 3, (2,), "float32", 8),),
                          attrs=())
    after = reduce(EMPTY, event)
    assert EMPTY.nodes == {} and after.nodes[5].status == "created"
    assert after.saved_bytes == 8
    freed = reduce(after, r.NodeFreed(seq=2, node=5, by="gc"))
    assert after.nodes[5].status == "created" and freed.nodes[5].status == "freed"
    assert freed.saved_bytes == 0


def test_error_and_cycles_in_state():
    import gc

    def scenario():
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        gc.collect()
        x.grad = None

    trace = run(scenario)
    tl = trace.timeline()
    detected = tl.steps_of("cycle_detected")[0]
    assert len(tl.state(detected).cycles) == 1
    assert len(tl.state(len(tl)).cycles) == 0


def _synthetic(n_nodes: int) -> list:
    """A chain of ``n_nodes`` and its backward: about five events per node."""
    t = lambda i: r.TensorSummary(i, (4,), "float32", "cpu", 16)
    events, seq = [], 0

    def add(cls, **kw):
        nonlocal seq
        seq += 1
        events.append(cls(seq=seq, **kw))

    for i in range(1, n_nodes + 1):
        add(r.NodeCreated, node=i, name="MulBackward0", op="mul",
            edges=((i - 1, 0),) if i > 1 else (), inputs=(t(i - 1),), outputs=(t(i),),
            saved=(r.SavedSummary("x", i - 1, (4,), "float32", 16),), attrs=())
    add(r.BackwardStarted, api="backward", roots=(n_nodes,), grads=(t(0),), inputs=None,
        retain_graph=False, create_graph=False)
    add(r.BackwardPlanned, nodes=tuple(r.PlannedNode(i, "MulBackward0", 1, True,
                                                     ((i - 1, 0),) if i > 1 else ())
                                       for i in range(n_nodes, 0, -1)))
    for i in range(n_nodes, 0, -1):
        add(r.BufferAccumulated, node=i, slot=0, source=i + 1, grad=t(i), contributions=1,
            remaining=0)
        add(r.NodeStarted, node=i, name="MulBackward0", grads=(t(i),), runs=True)
        add(r.SavedReleased, node=i, names=("x",), nbytes=16)
        add(r.NodeFinished, node=i, grads=(t(i - 1),))
    add(r.BackwardFinished, api="backward", ok=True)
    return events


def test_seeking_a_100k_event_trace_in_any_order():
    # How fast a seek is, benchmarks/ measures (the seek row); it is never asserted here.
    events = _synthetic(20_000)
    assert len(events) >= 100_000
    tl = Timeline(events)
    steps = random.Random(0).sample(range(len(events) + 1), 40)
    states = [tl.state(s) for s in steps]           # random order: forwards and backwards
    middle = 20_000 + 2 + 4 * 10_000                 # half of the backward done
    state = tl.state(middle)
    assert state.count("released") == 10_000 and state.count("waiting") == 10_000
    assert state.saved_bytes == 10_000 * 16
    assert all(s.step == step for s, step in zip(states, steps))
    assert tl.state(len(events)).count("released") == 20_000
