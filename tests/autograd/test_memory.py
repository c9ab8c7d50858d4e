"""Freeing: saved arrays are released after backward (unless retained), graphs die by refcount.

Every check runs with the cyclic GC disabled, so "freed" means freed by reference counting
alone, as in torch where the graph lives in C++.
"""

from __future__ import annotations

import contextlib
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import agdebug as ag


@contextlib.contextmanager
def no_cyclic_gc():
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _saved_intermediate():
    """(x, y, weakref to an array only y's graph holds)."""
    x = ag.randn(1000, requires_grad=True)
    h = x * 2
    ref = weakref.ref(h._data)
    y = h.sin().sum()          # SinBackward0 saves h
    del h
    return x, y, ref


def test_saved_array_alive_until_backward():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        assert ref() is not None


def test_saved_array_freed_after_backward():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        y.backward()
        assert ref() is None
        assert x.grad.shape == (1000,)


def test_saved_array_freed_after_grad():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        ag.autograd.grad(y, x)
        assert ref() is None


def test_retain_graph_keeps_saved_array():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        y.backward(retain_graph=True)
        assert ref() is not None
        y.backward()
        assert ref() is None


def test_dropping_retained_graph_frees_by_refcount():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        y.backward(retain_graph=True)
        node_ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None
        assert node_ref() is None


def test_dropping_unused_graph_frees_by_refcount():
    with no_cyclic_gc():
        x, y, ref = _saved_intermediate()
        del y
        assert ref() is None


def test_saved_output_forms_no_cycle():
    # exp saves its own output: the saved copy must not hold y's grad_fn strongly
    with no_cyclic_gc():
        x = ag.randn(100, requires_grad=True)
        y = x.exp()
        array_ref = weakref.ref(y._data)
        node_ref = weakref.ref(y.grad_fn)
        tensor_ref = weakref.ref(y)
        del y
        assert tensor_ref() is None
        assert node_ref() is None
        assert array_ref() is None


def test_saved_output_freed_after_backward_while_output_lives_on():
    with no_cyclic_gc():
        x = ag.randn(100, requires_grad=True)
        y = x.exp()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="^Trying to backward through the graph"):
            y.grad_fn._saved_result
        np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_deleted_leaf_kept_alive_by_graph():
    with no_cyclic_gc():
        x = ag.randn(50, requires_grad=True)
        y = (x * x).sum()
        ref = weakref.ref(x)
        del x
        assert ref() is not None           # MulBackward0 saved it, AccumulateGrad holds it
        del y
        assert ref() is None


def test_deleted_leaf_without_saved_use_kept_by_accumulator():
    with no_cyclic_gc():
        x = ag.randn(50, requires_grad=True)
        y = (x + 1).sum()                  # nothing saved: only AccumulateGrad holds x
        ref = weakref.ref(x)
        del x
        assert ref() is not None
        leaf = y.grad_fn.next_functions[0][0].next_functions[0][0].variable
        assert leaf is ref()
        del leaf
        y.backward()
        assert ref().grad.tolist() == [1.0] * 50
        del y
        assert ref() is None


def test_leaf_does_not_keep_its_accumulator_alive():
    with no_cyclic_gc():
        x = ag.randn(3, requires_grad=True)
        y = x * 2
        acc_ref = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        assert acc_ref() is None
        assert x.is_leaf


def test_accumulator_identity_shared_while_alive():
    x = ag.randn(3, requires_grad=True)
    a = x * 2
    b = x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    assert a.grad_fn.next_functions[0][0].variable is x


def test_deleted_leaf_matches_torch(torch):
    alive = []
    for lib in (ag, torch):
        with no_cyclic_gc():
            x = lib.randn(50, requires_grad=True)
            y = (x * x).sum()
            ref = weakref.ref(x)
            del x
            row = [ref() is not None]
            y.backward()
            row.append(ref() is not None)
            del y
            row.append(ref() is not None)
            alive.append(row)
    assert alive[0] == alive[1] == [True, True, False]


def test_tracemalloc_sees_memory_returned():
    n = 2_000_000                          # 8 MB per float32 array
    x = ag.zeros(n, requires_grad=True)
    with no_cyclic_gc():
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            y = ((x * 2).sin() * 3).cos().sum()
            held = tracemalloc.get_traced_memory()[0] - base
            y.backward()
            del y
            after_backward = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    # sin and cos each save their input; x * 2 and * 3 save no tensor (torch saves a tensor
    # input only when the other input's gradient needs it): two saved float32 arrays.
    assert held >= 2 * 4 * n
    assert after_backward < 4 * n * 3 // 2  # x.grad (4n bytes) and nothing else of size
    assert x.grad.shape == (n,)


def test_many_graphs_do_not_accumulate_memory():
    x = ag.zeros(100_000, requires_grad=True)
    with no_cyclic_gc():
        tracemalloc.start()
        try:
            for _ in range(5):                   # x.grad and numpy's caches settle
                (x.exp() * x).sin().sum().backward()
            base = tracemalloc.get_traced_memory()[0]
            for _ in range(20):                  # each pass saves ~1.2 MB
                (x.exp() * x).sin().sum().backward()
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    assert grown < 100_000


def _tracked_from(root) -> int:
    """How many GC-tracked objects ``root`` reaches (classes aside)."""
    seen, stack = set(), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return len(seen)


def test_a_graph_costs_two_gc_tracked_objects_per_node():
    """A node and its tuple of next nodes, nothing else (no ``(node, nr)`` pair per edge),
    and the node fits CPython's 112-byte allocator class: a million-node graph is scanned
    by every full GC pass, so each extra object or size class slows the whole forward."""
    import sys

    def chain(ops: int):
        y = ag.ones(4, requires_grad=True)
        for _ in range(ops // 2):
            y = (y * 1.5) + 0.5
        return y
    short, long = chain(200), chain(400)
    gc.collect()   # untracks what holds no tracked object (tuples of ints...)
    assert _tracked_from(long.grad_fn) - _tracked_from(short.grad_fn) == 2 * 200
    assert sys.getsizeof(long.grad_fn) <= 112
