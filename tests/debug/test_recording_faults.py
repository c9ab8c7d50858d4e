"""Recording faults: threads, forked children, Ctrl-C, ``sys.exit`` and where the trace goes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import pytest

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


# ----------------------------------------------------------------------------- agdebug record

AGDEBUG = [sys.executable, "-m", "agdebug.cli"]
SCRIPT = ("import agdebug as ag\n"
          "x = ag.tensor([1.0, 2.0], requires_grad=True)\n"
          "(x.exp() * x).sum().backward()\n")


def _record(*args, cwd):
    return subprocess.run([*AGDEBUG, "record", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def test_record_refuses_to_overwrite_the_script_or_a_file_that_is_not_a_trace(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    for force in ([], ["--force"]):
        done = _record(script, "-o", script, *force, cwd=tmp_path)
        assert done.returncode == 2 and script.read_text() == SCRIPT
        assert done.stderr.splitlines() == [
            f"agdebug: the trace would overwrite the script {script}: choose another -o"]
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    done = _record(script, "-o", notes, cwd=tmp_path)
    assert done.returncode == 2 and notes.read_text() == "my notes\n"
    assert done.stderr.splitlines() == [
        f"agdebug: {notes} exists and is not an agdebug trace: use --force to overwrite it"]
    assert _record(script, "-o", notes, "--force", cwd=tmp_path).returncode == 0
    assert load_trace(notes).events                            # now a trace:
    assert _record(script, "-o", notes, cwd=tmp_path).returncode == 0   # overwritten freely


def test_record_into_a_missing_folder_is_one_line(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    done = _record(script, "-o", tmp_path / "nowhere" / "t.agtrace", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"agdebug: cannot write {tmp_path}/nowhere/t.agtrace: "
                                        f"no such folder {tmp_path}/nowhere"]


def test_sys_exit_with_a_message_prints_it_and_exits_1(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT + "import sys\nsys.exit('stopped: bad data')\n")
    done = _record(script, "-o", tmp_path / "t.agtrace", cwd=tmp_path)
    python = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120, check=False)
    assert done.returncode == python.returncode == 1
    assert done.stderr.splitlines()[0] == python.stderr.strip() == "stopped: bad data"


def test_ctrl_c_leaves_whole_events_counted_and_exits_130(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("import agdebug as ag\nx = ag.ones(4, requires_grad=True)\n"
                      "while True:\n    (x * 2).exp().sum().backward()\n")
    trace = tmp_path / "loop.agtrace"
    proc = subprocess.Popen([*AGDEBUG, "record", str(script), "-o", str(trace)], cwd=tmp_path,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not trace.exists() or trace.stat().st_size < 20_000):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "KeyboardInterrupt" in err
    events = load_trace(trace).events   # no truncated last line
    assert err.splitlines()[-1] == f"agdebug: wrote {len(events)} events to {trace}"
    assert events[-1].kind in ("error", "node_freed", "backward_finished")


FORKS = """
import os, multiprocessing, agdebug as ag
def child_work(_=None):
    y = ag.ones(3, requires_grad=True)
    (y.cos() * 2).sum().backward()      # CosBackward0 only ever runs in children
    return 0
x = ag.ones(3, requires_grad=True)
(x.exp() * 2).sum().backward()
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0)
os.waitpid(pid, 0)
with multiprocessing.get_context("fork").Pool(2) as pool:
    pool.map(child_work, range(4))
(x.exp() * 3).sum().backward()
"""


def test_forked_children_do_not_write_into_the_parents_trace(tmp_path):
    script = tmp_path / "forks.py"
    script.write_text(FORKS)
    trace = tmp_path / "forks.agtrace"
    done = _record(script, "-o", trace, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = load_trace(trace).events   # no repeated sequence numbers
    names = {e.name for e in events if e.kind == "node_created"}
    assert "ExpBackward0" in names and "CosBackward0" not in names
    assert [e.kind for e in events].count("backward_finished") == 2
    assert done.stderr.splitlines() == [f"agdebug: wrote {len(events)} events to {trace}"]


def test_a_forked_child_that_runs_on_says_nothing(tmp_path):
    script = tmp_path / "fork.py"
    script.write_text(SCRIPT + "import os\nif os.fork():\n    os.wait()\n"
                      "else:\n    (ag.ones(2, requires_grad=True).cos()).sum().backward()\n")
    trace = tmp_path / "fork.agtrace"
    done = _record(script, "-o", trace, cwd=tmp_path)
    events = load_trace(trace).events
    assert done.returncode == 0 and "CosBackward0" not in {getattr(e, "name", "") for e in events}
    assert done.stderr.splitlines() == [f"agdebug: wrote {len(events)} events to {trace}"]


def test_record_puts_back_python_s_sigint_handler_unless_the_script_set_its_own(tmp_path):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with record(tmp_path / "a.agtrace"):
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        with record(tmp_path / "b.agtrace"):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def test_ctrl_c_inside_a_probe_callback_waits_for_the_next_event(monkeypatch):
    """A KeyboardInterrupt raised in a weakref or GC callback is printed and dropped by the
    interpreter: Ctrl-C there must wait (and be raised by the next event outside one)."""
    from agdebug.debug import recorder

    def callback(interrupts):   # stands for probe._node_freed, run by a weakref
        interrupts._handler(signal.SIGINT, sys._getframe())

    monkeypatch.setattr(recorder, "CALLBACK_CODES", frozenset({callback.__code__}))
    interrupts = recorder._Interrupts()
    callback(interrupts)                       # no raise inside the callback...
    assert interrupts.pending
    with pytest.raises(KeyboardInterrupt):     # ...but once the block is left
        with interrupts.deferred(True):
            pass
    with pytest.raises(KeyboardInterrupt):     # outside a callback it raises at once
        interrupts._handler(signal.SIGINT, sys._getframe())
