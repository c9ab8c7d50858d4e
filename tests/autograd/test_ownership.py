"""The create_graph reference cycle: leaf -> .grad -> grad_fn -> ... -> AccumulateGrad -> leaf.

torch's cycle crosses C++, so Python's cyclic GC cannot free it; agdebug reproduces that
on purpose (ARCHITECTURE "Ownership"). Each check runs for agdebug and, where installed,
for torch with the same code, and both must agree.
"""

from __future__ import annotations

import gc
import warnings
import weakref

import pytest

import agdebug as ag


def _backward_create_graph(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x ** 3).sum().backward(create_graph=True)
    return x


def cycle_survives_collect(lib) -> bool:
    x = _backward_create_graph(lib)
    ref = weakref.ref(x)
    del x
    gc.collect()
    gc.collect()
    return ref() is not None


def grad_none_releases(lib) -> bool:
    x = _backward_create_graph(lib)
    x.grad = None
    ref = weakref.ref(x)
    gc.disable()
    try:
        del x
        return ref() is None
    finally:
        gc.enable()


def grad_forms_no_cycle(lib) -> bool:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    g, = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x, create_graph=True)
    ref = weakref.ref(x)
    gc.disable()
    try:
        del x, g, gg
        return ref() is None
    finally:
        gc.enable()


def plain_backward_forms_no_cycle(lib) -> bool:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x ** 3).sum().backward()
    ref = weakref.ref(x)
    gc.disable()
    try:
        del x
        return ref() is None
    finally:
        gc.enable()


CHECKS = [cycle_survives_collect, grad_none_releases, grad_forms_no_cycle,
          plain_backward_forms_no_cycle]


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_agdebug(check):
    assert check(ag) is True


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_agrees_with_torch(torch, check):
    assert check(ag) == check(torch) is True


def test_cycle_path_is_the_documented_one():
    x = _backward_create_graph(ag)
    node = x.grad.grad_fn
    assert node.name() == "torch::autograd::CopyBackwards"   # as torch names it
    # walk next_functions from x.grad's grad_fn until the accumulator of x itself
    seen, stack, found = set(), [node], False
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if n.name().endswith("AccumulateGrad") and n.variable is x:
            found = True
        stack.extend(m for m, _ in n.next_functions)
    assert found


def test_second_create_graph_keeps_cycle_and_grad_none_still_ends_it():
    x = _backward_create_graph(ag)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x ** 2).sum().backward(create_graph=True)
    assert x.grad.tolist() == [5.0, 16.0]
    ref = weakref.ref(x)
    x.grad = None
    gc.disable()
    try:
        del x
        assert ref() is None
    finally:
        gc.enable()


def test_leaked_leaf_is_still_usable():
    x = _backward_create_graph(ag)
    ref = weakref.ref(x)
    del x
    gc.collect()
    leaked = ref()
    assert leaked.grad.tolist() == [3.0, 12.0]
    leaked.grad = None          # end the leak for the rest of the session
    del leaked
    gc.collect()
    assert ref() is None
