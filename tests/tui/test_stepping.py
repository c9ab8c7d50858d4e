"""The live stepping controller: pauses, steps, breakpoints, stop, and other threads."""

from __future__ import annotations

import threading

import pytest

import agdebug as ag
from agdebug.debug.stepping import Stepper

STARTED: list = []


@pytest.fixture(autouse=True)
def _stop_leftovers():
    """A paused program holds the event bus: never leave one behind for the next test."""
    yield
    while STARTED:
        stepper, worker = STARTED.pop()
        stepper.stop()
        worker.join(5)


def program():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    (x.exp() * x).sum().backward()


def start(target=program, **kwargs):
    batches = []
    stepper = Stepper(lambda batch, paused: batches.append((list(batch), paused)), **kwargs)
    worker = threading.Thread(target=stepper.run, args=(target,), daemon=True)
    worker.start()
    STARTED.append((stepper, worker))
    return stepper, worker, batches


def kinds(batches):
    return [e.kind for batch, _ in batches for e in batch]


def test_pauses_after_every_event_and_steps_one_at_a_time():
    stepper, worker, batches = start()
    assert stepper.wait_paused(5) and kinds(batches) == ["node_created"]
    stepper.step()
    assert stepper.wait_paused(5)
    assert len([e for e in kinds(batches) if e == "node_created"]) == 2
    stepper.resume()
    worker.join(5)
    assert stepper.outcome.ok and "backward_finished" in kinds(batches)


def test_step_node_runs_to_the_next_node_started():
    stepper, worker, batches = start()
    stepper.wait_paused(5)
    stepper.step_node()
    assert stepper.wait_paused(5)
    assert kinds(batches)[-1] == "node_started" and stepper.reason == "step to node"
    stepper.resume()
    worker.join(5)


def test_breakpoints_on_op_node_and_error_stop_a_free_run():
    stepper, worker, batches = start()
    stepper.wait_paused(5)
    stepper.breakpoints.ops = {"exp"}
    stepper.resume()
    assert stepper.wait_paused(5) and stepper.reason == "breakpoint on exp"
    created = batches[-1][0][-1]
    assert created.kind == "node_created" and created.op == "exp"
    stepper.breakpoints.ops = set()
    stepper.breakpoints.nodes = {created.node}
    stepper.resume()
    assert stepper.wait_paused(5) and stepper.reason == f"breakpoint on node n{created.node}"
    stepper.breakpoints.nodes = set()
    stepper.resume()
    worker.join(5)

    def failing():
        x = ag.tensor([1.0], requires_grad=True)
        y = x * x
        y.backward()
        y.backward()

    stepper, worker, batches = start(failing)
    stepper.wait_paused(5)
    stepper.breakpoints.errors = True
    stepper.resume()
    assert stepper.wait_paused(5) and stepper.reason == "error: RuntimeError"
    stepper.resume()
    worker.join(5)
    assert not stepper.outcome.ok and "second time" in stepper.outcome.error


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_breakpoint_needs_values_and_finds_the_gradient():
    def nan_grad():
        x = ag.tensor([0.0, 1.0], requires_grad=True)
        (x.sqrt() * 0).sum().backward()   # d sqrt at 0 is inf, times 0 is nan

    stepper, worker, _ = start(nan_grad)
    stepper.wait_paused(5)
    stepper.breakpoints.nan = True
    stepper.resume()
    assert stepper.wait_paused(5) and stepper.reason == "NaN/Inf"
    stepper.breakpoints.nan = False
    stepper.resume()
    worker.join(5)


def test_stop_ends_a_paused_program_and_exceptions_are_reported():
    stepper, worker, _ = start()
    stepper.wait_paused(5)
    stepper.stop()
    worker.join(5)
    assert stepper.outcome.stopped and not worker.is_alive()

    def raising():
        raise ValueError("from the script")

    stepper, worker, _ = start(raising)
    worker.join(5)
    assert stepper.outcome.error == "ValueError: from the script"
    assert "raise ValueError" in stepper.outcome.traceback


def test_stopped_at_a_gc_pass_the_program_stops_at_its_next_event():
    # a GC callback swallows exceptions, so the stop takes effect at the next event
    def collecting():
        from agdebug.events import probe, records
        probe._emit(records.GcPass, generation=2, collected=0, uncollectable=0)
        program()

    stepper, worker, batches = start(collecting)
    assert stepper.wait_paused(5) and kinds(batches) == ["gc_pass"]
    stepper.stop()
    worker.join(5)
    assert stepper.outcome.stopped and not worker.is_alive()
    assert "backward_started" not in kinds(batches)


def test_another_thread_is_never_blocked_by_a_paused_program():
    stepper, worker, batches = start()
    assert stepper.wait_paused(5)
    done = threading.Event()

    def elsewhere():   # e.g. a GC pass or a finalizer on the UI thread
        with ag.no_grad():
            pass
        from agdebug.events import probe, records
        probe._emit(records.GcPass, generation=7, collected=0, uncollectable=0)
        done.set()

    threading.Thread(target=elsewhere, daemon=True).start()
    assert done.wait(5)
    stepper.resume()
    worker.join(5)
    foreign = [e for batch, _ in batches for e in batch
               if e.kind == "gc_pass" and e.generation == 7]
    assert not foreign   # the other thread's GC pass is not the program's


def test_grad_mode_is_set_inside_the_worker():
    seen = []

    def check():
        seen.append(ag.is_grad_enabled())

    with ag.no_grad():
        stepper, worker, _ = start(check, start_paused=False)
        worker.join(5)
    assert seen == [True] and stepper.outcome.ok
