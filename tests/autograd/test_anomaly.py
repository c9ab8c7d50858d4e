"""Anomaly mode: warnings, NaN errors and the forward traceback, checked against torch."""

from __future__ import annotations

import re
import warnings

import pytest

import agdebug as ag

from .torch_texts import FREED

ENABLED = ("Anomaly Detection has been enabled. This mode will increase the runtime and should "
           "only be enabled for debugging.")


@pytest.fixture(autouse=True)
def _anomaly_off(lib):
    yield
    lib.autograd.set_detect_anomaly(False)


def enabled(lib) -> bool:
    # torch has it at top level only; agdebug (so far) in agdebug.autograd
    return lib.autograd.is_anomaly_enabled() if lib is ag else lib.is_anomaly_enabled()


def run(lib, body):
    """Run ``body`` inside detect_anomaly; return (warning texts, exception text or None)."""
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            try:
                body()
            except RuntimeError as exc:
                error = str(exc)
    # Only UserWarnings: NumPy's RuntimeWarnings (invalid value in sqrt...) are not torch's.
    return [(w.category, str(w.message)) for w in caught if w.category is UserWarning], error


def test_enter_warning_and_state(lib):
    caught, error = run(lib, lambda: None)
    assert caught == [(UserWarning, ENABLED)] and error is None
    assert enabled(lib) is False


def test_detect_anomaly_restores_the_previous_state(lib):
    lib.autograd.set_detect_anomaly(True)
    run(lib, lambda: None)
    assert enabled(lib) is True


def test_set_detect_anomaly(lib):
    lib.autograd.set_detect_anomaly(True)
    assert enabled(lib)
    lib.autograd.set_detect_anomaly(False)
    assert not enabled(lib)
    with lib.autograd.set_detect_anomaly(True):
        assert enabled(lib)
    assert not enabled(lib)


@pytest.mark.parametrize("make, node, index", [
    (lambda x: x.sqrt() * 0, "SqrtBackward0", 0),
    (lambda x: (x * 0).log(), "MulBackward0", 0),
    (lambda x: x / x, "DivBackward0", 1),
])
def test_nan_in_backward(lib, make, node, index):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    caught, error = run(lib, lambda: make(x).sum().backward())
    assert error == f"Function '{node}' returned nan values in its {index}th output."
    assert caught[0] == (UserWarning, ENABLED)
    category, trace = caught[1]
    assert category is UserWarning
    assert trace.startswith(f"Error detected in {node}. Traceback of forward call that caused "
                            "the error:\n")
    assert "test_anomaly.py" in trace and "make(x).sum().backward()" in trace


def test_nan_without_anomaly_mode_is_silent(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert str(x.grad.tolist()) == "[nan, 0.0]"


def test_check_nan_false(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly(check_nan=False):
            (x.sqrt() * 0).sum().backward()
            assert enabled(lib)
    assert str(x.grad.tolist()) == "[nan, 0.0]"
    lib.autograd.set_detect_anomaly(True, check_nan=False)
    x.grad = None
    (x.sqrt() * 0).sum().backward()
    assert str(x.grad.tolist()) == "[nan, 0.0]"


def test_nan_in_forward_is_not_an_error(lib):
    x = lib.tensor([-1.0], requires_grad=True)
    caught, error = run(lib, lambda: x.sqrt())
    assert error is None and caught == [(UserWarning, ENABLED)]


def test_second_backward_shows_the_forward_trace(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)

    def body():
        y = (x * x).sum()
        y.backward()
        y.backward()
    caught, error = run(lib, body)
    assert error == FREED
    assert caught[1][1].startswith("Error detected in MulBackward0. Traceback of forward call "
                                   "that caused the error:\n")
    assert "y = (x * x).sum()" in caught[1][1]


def test_forward_trace_lives_in_the_node_metadata(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    plain = x * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            traced = x * 3   # the line the trace must end on
    assert plain.grad_fn.metadata == {}
    trace = traced.grad_fn.metadata["traceback_"]
    assert isinstance(trace, list) and "traced = x * 3" in trace[-1]


def test_inplace_hint_changes_under_anomaly_mode(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def body():
        b = a * 1
        c = b * b
        b.add_(1)
        c.sum().backward()
    _, error = run(lib, body)
    assert error.endswith("Hint: the backtrace further above shows the operation that failed "
                          "to compute its gradient. The variable in question was changed in "
                          "there or anywhere later. Good luck!")
    assert re.match(r"one of the variables needed for gradient computation has been modified "
                    r"by an inplace operation: \[torch.FloatTensor \[3\]\], which is output 0 "
                    r"of AddBackward0", error) or "which is output 0 of Add," in error


def test_a_nan_is_reported_after_the_node_released_and_ran_its_post_hooks(torch):
    # torch's evaluate_function: apply, post hooks, release the saved tensors, then the
    # NaN check: after the error the node's saved tensors are gone and its post hook ran.
    def run(lib):
        x = lib.tensor([0.0, 4.0], requires_grad=True)
        root = lib.sqrt(x)
        y = (root * lib.tensor([0.0, 1.0])).sum()
        sqrt_node = root.grad_fn
        calls = []
        sqrt_node.register_hook(lambda grad_inputs, grad_outputs: calls.append("post"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan"):
                    y.backward()
        with pytest.raises(RuntimeError) as released:
            sqrt_node._saved_result
        return calls, str(released.value).splitlines()[0]
    assert run(ag) == run(torch)
