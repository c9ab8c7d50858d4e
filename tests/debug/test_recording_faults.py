"""Recording faults: threads, forked children, Ctrl-C, ``sys.exit`` and where the trace goes."""

from __future__ import annotations

import json
import threading

import agdebug as ag
from agdebug.debug import load_trace, record
from agdebug.debug.recorder import FORMAT_VERSION


def _two_threads_backward(path):
    """Thread A's backward waits inside a hook while thread B runs a whole backward."""
    a_waiting, b_done = threading.Event(), threading.Event()

    def hook(grad):
        a_waiting.set()
        b_done.wait(30)

    def backward(hooked: bool) -> None:
        x = ag.ones(3, requires_grad=True)
        y = (x * 2).exp()
        if hooked:
            y.register_hook(hook)
        (y * 3).sin().sum().backward()

    with record(path):
        a = threading.Thread(target=backward, args=(True,))
        a.start()
        assert a_waiting.wait(30)
        b = threading.Thread(target=backward, args=(False,))
        b.start()
        b.join(30)
        b_done.set()
        a.join(30)


def test_every_event_names_its_thread_and_backwards_stay_apart(tmp_path):
    path = tmp_path / "threads.agtrace"
    _two_threads_backward(path)
    events = load_trace(path).events
    starts = [e for e in events if e.kind == "backward_started"]
    thread_a, thread_b = (e.thread for e in starts)
    assert thread_a != thread_b and all(e.thread in (thread_a, thread_b) for e in events
                                        if e.kind != "node_freed")
    finish_b = next(i for i, e in enumerate(events)
                    if e.kind == "backward_finished" and e.thread == thread_b)
    plan_a = next(e for e in events if e.kind == "backward_planned" and e.thread == thread_a)
    state = load_trace(path).state(finish_b + 1)
    a_nodes = [state.nodes[p.node].status for p in plan_a.nodes]
    assert "created" not in a_nodes, a_nodes   # A's backward is still running
    assert state.running[thread_a][-1].nodes == tuple(p.node for p in plan_a.nodes)
    final = load_trace(path).state()
    assert {final.nodes[p.node].status for p in plan_a.nodes} <= {"done", "released", "freed"}


def test_traces_of_format_version_1_still_load(tmp_path):
    path = tmp_path / "t.agtrace"
    with record(path):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
    header, *lines = path.read_text().splitlines()
    assert json.loads(header)["version"] == FORMAT_VERSION == 2
    old = [json.loads(line) for line in lines]
    for event in old:
        del event["thread"]
    path.write_text(json.dumps(dict(json.loads(header), version=1)) + "\n"
                    + "".join(json.dumps(e) + "\n" for e in old))
    trace = load_trace(path)
    assert {e.thread for e in trace.events} == {0}
    assert {n.status for n in trace.state().nodes.values()} <= {"done", "released", "freed"}
