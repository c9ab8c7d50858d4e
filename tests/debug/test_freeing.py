"""Recording must not change what it records: the same objects die at the same moments."""

from __future__ import annotations

import gc
import warnings
import weakref

import agdebug as ag
from agdebug.debug import record


def _program(log: list) -> None:
    """Runs scenarios and logs, at fixed points, which watched nodes/arrays are still alive."""
    watched = []

    def watch(label, obj):
        watched.append((label, weakref.ref(obj)))

    def checkpoint(name):
        log.append((name, tuple(label for label, ref in watched if ref() is not None)))

    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    z = (y * x).sum()
    watch("exp", y.grad_fn)
    watch("mul", z.grad_fn.next_functions[0][0])
    watch("saved_result", y.grad_fn._saved["result"]._data)
    del y
    checkpoint("forward")
    z.backward()
    checkpoint("after backward")
    del z
    checkpoint("graph dropped")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = (x * x * x).sum()
        w.backward(create_graph=True)
    watch("grad_fn_of_grad", x.grad.grad_fn)
    del w
    gc.collect()
    checkpoint("cycle after gc")
    x.grad = None
    checkpoint("grad cleared")
    gc.collect()
    checkpoint("end")


def test_recording_does_not_change_freeing():
    plain, recorded = [], []
    _program(plain)
    with record(values=True) as trace:
        _program(recorded)
    assert recorded == plain
    assert plain[1][1] == ("exp", "mul")          # saved array released by backward
    assert plain[2][1] == ()                      # dropping the output frees the graph
    assert "grad_fn_of_grad" in plain[3][1]       # the create_graph cycle survives gc
    assert "grad_fn_of_grad" not in plain[4][1]   # and dies when .grad is cleared
    assert any(e.kind == "node_freed" for e in trace.events)
