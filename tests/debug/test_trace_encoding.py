"""The trace writer's fast encoder writes exactly what ``json.dumps(event.to_dict())`` writes."""

from __future__ import annotations

import json

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
