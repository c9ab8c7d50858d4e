"""A torch backward on another Python thread while watching: its events carry that
thread's number, backwards on two threads at once do not mix, nothing changes.

torch's function modes and saved_tensors_hooks are per thread, and the watcher can enter
them only on the thread that starts watching: another thread's backward is seen through
the patched entry points and the node hooks (nodes, execution order, gradients, freeing),
without its forward's source lines, its saved-tensor releases or the hooks it registers
with ``Tensor.register_hook``."""

from __future__ import annotations

import threading

import pytest

import agdebug.watch

torch = pytest.importorskip("torch")


def _steps(seed: int, steps: int, out: list) -> None:
    numbers = torch.Generator().manual_seed(seed)   # (the default one is shared by threads)
    w = torch.randn(4, generator=numbers).requires_grad_()
    for _ in range(steps):
        x = torch.randn(4, generator=numbers)
        y = ((w * x).tanh() * 3.0).exp().sum()
        y.register_hook(lambda grad: grad * 0.5)
        y.backward()
    out.append(w.grad.tolist())


def _run_threads(count: int, steps: int) -> list:
    results = [[] for _ in range(count)]
    threads = [threading.Thread(target=_steps, args=(i, steps, results[i]))
               for i in range(count)]
    for t in threads:
        t.start()
    _steps(count, steps, main := [])
    for t in threads:
        t.join()
    return [main, *results]


def test_backwards_on_other_threads_are_told_with_their_thread():
    plain = _run_threads(2, 30)
    with agdebug.watch.torch() as trace:
        watched = _run_threads(2, 30)
    assert watched == plain and all(r for r in plain)
    by_thread: dict = {}
    for e in trace.events:
        by_thread.setdefault(e.thread, []).append(e)
    assert len(by_thread) == 3
    # (the watched thread's nodes have their source lines: the function mode is there)
    watching = {e.thread for e in trace.events if e.kind == "node_created" and e.source}
    assert len(watching) == 1
    for thread, events in by_thread.items():
        kinds = [e.kind for e in events]
        assert kinds.count("backward_started") == kinds.count("backward_finished") == 30
        # sum, exp, mul, tanh, mul and w's AccumulateGrad
        assert kinds.count("node_started") == kinds.count("node_finished") == 30 * 6
        assert kinds.count("node_freed") == kinds.count("node_created") == 30 * 5 + 1
        told = 30 if thread in watching else 0
        assert kinds.count("hook_called") == told and "error" not in kinds
        assert kinds.count("saved_released") == 3 * told
        _each_backward_runs_its_own_nodes(events)


def _each_backward_runs_its_own_nodes(events) -> None:
    planned: set = set()
    for e in events:
        if e.kind == "backward_planned":
            planned = {p.node for p in e.nodes}
        elif e.kind in ("node_started", "node_finished", "hook_called"):
            assert e.node in planned
