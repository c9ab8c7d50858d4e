"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode), with torch as oracle.

Each mode is thread-local: a thread starts with grad enabled and outside inference
mode, whatever another thread is doing.
"""

from __future__ import annotations

import threading

import pytest


def _in_thread(fn):
    """``fn()``'s result, computed in a fresh thread."""
    out = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    thread.join()
    return out[0]


def test_no_grad_and_enable_grad_nest(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        assert not (x * 2).requires_grad
        with lib.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert lib.is_grad_enabled()
    assert (x * 2).requires_grad


def test_set_grad_enabled_as_a_call_and_as_a_block(lib):
    lib.set_grad_enabled(False)
    try:
        assert not lib.is_grad_enabled()
    finally:
        lib.set_grad_enabled(True)
    with lib.set_grad_enabled(False):
        assert not lib.is_grad_enabled()
    assert lib.is_grad_enabled()


def test_no_grad_as_a_decorator(lib):
    @lib.no_grad()
    def double(t):
        return t * 2

    x = lib.ones(2, requires_grad=True)
    assert not double(x).requires_grad
    assert lib.is_grad_enabled()


def test_inference_mode_marks_the_tensors_made_inside(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.inference_mode():
        assert lib.is_inference_mode_enabled()
        assert not lib.is_grad_enabled()
        y = x * 2
        assert y.is_inference() and not y.requires_grad
    assert not lib.is_inference_mode_enabled()
    assert lib.is_grad_enabled()
    z = x * 2
    assert not z.is_inference() and z.requires_grad


def test_inference_mode_false_changes_nothing(lib):
    with lib.inference_mode(False):
        assert not lib.is_inference_mode_enabled()
        assert not (lib.ones(2) * 2).is_inference()


def test_inference_mode_as_a_decorator(lib):
    @lib.inference_mode()
    def double(t):
        return t * 2

    assert double(lib.ones(2)).is_inference()
    assert not (lib.ones(2) * 2).is_inference()


def test_modes_are_restored_after_an_exception(lib):
    with pytest.raises(ValueError):
        with lib.inference_mode():
            raise ValueError("inside")
    assert not lib.is_inference_mode_enabled()
    assert lib.is_grad_enabled()
    assert not (lib.ones(2) * 2).is_inference()


def test_modes_are_per_thread(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        assert _in_thread(lambda: (x * 2).requires_grad)
    with lib.inference_mode():
        assert not _in_thread(lambda: (x * 2).is_inference())
        assert (x * 2).is_inference()


def test_a_thread_in_inference_mode_leaves_this_one_alone(lib):
    entered, leave = threading.Event(), threading.Event()

    def hold_inference_mode():
        with lib.inference_mode():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=hold_inference_mode)
    thread.start()
    try:
        assert entered.wait(10)
        y = lib.ones(2, requires_grad=True) * 2
        assert not y.is_inference() and y.requires_grad
    finally:
        leave.set()
        thread.join()
