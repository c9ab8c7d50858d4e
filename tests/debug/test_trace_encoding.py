"""The trace writer's fast encoder writes exactly what ``json.dumps(event.to_dict())`` writes."""

from __future__ import annotations

import json

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.events.records import to_json


def test_every_event_encodes_as_its_dict_does():
    with record(values=True) as trace:
        x = ag.randn(4, 3, requires_grad=True)
        w = ag.randn(3, 2, requires_grad=True)
        y = (x @ w).tanh().sum()
        x.register_hook(lambda g: g * 2)
        y.backward(retain_graph=True)
        gx, = ag.autograd.grad(y, x, create_graph=True)
        gx.sum().backward()
        del y, gx
    kinds = {e.kind for e in trace.events}
    assert {"node_created", "backward_started", "node_started", "grad_accumulated"} <= kinds
    for event in trace.events:
        assert to_json(event) == json.dumps(event.to_dict(), separators=(",", ":"))


def _dumps(record) -> str:
    return json.dumps(record.to_dict() if hasattr(record, "to_dict") else _plain(record),
                      separators=(",", ":"))


def _plain(record):
    import dataclasses
    if dataclasses.is_dataclass(record):
        return {f.name: _plain(getattr(record, f.name)) for f in dataclasses.fields(record)}
    if isinstance(record, tuple):
        return [_plain(v) for v in record]
    return record


def test_odd_values_encode_as_json_writes_them():
    from agdebug.events import records as r
    stats = r.Stats((float("nan"), float("inf"), -float("inf"), -0.0, 1e-320, 3),
                    None, float("nan"), 2.5, float("-inf"), 1, 2)
    odd = 'é "quoted" \\ back\nnew\x00nul \u2028 😀 \ud800 {braces} %s'
    t = r.TensorSummary(7, (), odd, "cuda:0", 0, stats, odd)
    events = [
        r.NodeCreated(1, 2, odd, odd, ((0, 0), (3, 1)), (None, t), (t,),
                      (r.SavedSummary(odd, 7, (2, 3), "float64", 48, 2),),
                      ((odd, odd), ("alpha", "1")), t, odd, odd, odd, odd, thread=3),
        r.BackwardStarted(2, "grad", (2,), (None, t), None, True, False, odd, odd, thread=1),
        r.BackwardStarted(3, "grad", (), (), (4, 5), False, True, "", ""),
        r.BackwardPlanned(4, (r.PlannedNode(2, odd, 1, False, ((0, 0),)),)),
        r.CycleDetected(5, 7, (odd, ""), (1, 2)),
        r.SavedReleased(6, 2, (odd,), 48),
        r.Printed(7, "stdout", odd),
        r.GradSet(8, 7, None, 0),
    ]
    for event in events:
        assert to_json(event) == _dumps(event)
        assert json.loads(to_json(event)) == json.loads(_dumps(event))
        assert to_json(event).isascii()


@pytest.mark.parametrize("values", [False, True])
def test_watched_torch_events_encode_as_their_dicts(torch, values):
    """A watcher shares a tensor's summary between events: its kept text must be its own."""
    import agdebug.watch
    with agdebug.watch.torch(values=values) as trace:
        x = torch.randn(3, requires_grad=True)
        y = x
        for _ in range(20):
            y = (y * 1.5 + 0.1).tanh()
        y.sum().backward()
        w = torch.ones(3)
        w.data = torch.zeros(5)   # the same tensor, summarised again with another shape
        (w * x.sum()).sum().backward()
    assert len(trace.events) > 100
    for event in trace.events:
        assert to_json(event) == json.dumps(event.to_dict(), separators=(",", ":"))
