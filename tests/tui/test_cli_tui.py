"""The debugger's commands: ``agdebug demo``, ``run`` and ``replay``, and a real terminal."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agdebug.cli import main
from agdebug.demos import demos, find

ROOT = Path(__file__).resolve().parents[2]


def test_demo_lists_every_demo_with_its_title(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "retain-graph" in out and find("retain-graph").title in out
    assert all(name in out for name in demos())


def test_demo_names_take_hyphens_or_underscores():
    assert find("retain_graph").path == find("retain-graph").path
    with pytest.raises(KeyError, match="retain-graph"):
        find("nope")


def test_bad_input_gets_one_clear_line(capsys, tmp_path):
    assert main(["demo", "no-such-demo"]) == 2
    assert main(["run", str(tmp_path / "missing.py")]) == 2
    assert main(["replay", str(tmp_path / "missing.agtrace")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "agdebug: no demo called 'no-such-demo'; the demos are: " + ", ".join(demos()),
        f"agdebug: no such script: {tmp_path / 'missing.py'}",
        f"agdebug: no such trace file: {tmp_path / 'missing.agtrace'}",
    ]


def _tmux(*args) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=20,
                          check=False).stdout


def _wait_for(session: str, *texts: str, timeout: float = 30) -> str:
    """The screen once every one of ``texts`` is on it: a terminal paints in
    pieces, so the header can show before the graph beneath it."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if all(text in screen for text in texts):
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{texts!r} never all appeared; the screen was:\n{screen}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_retain_graph_in_a_real_terminal_steps_and_quits_cleanly():
    session = f"agdebug-{uuid.uuid4().hex[:8]}"
    command = (f"cd {ROOT} && {sys.executable} -m agdebug.cli demo retain-graph; "
               "echo EXIT=$?; sleep 30")
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "32", command)
    try:
        screen = _wait_for(session, "replay demo retain-graph", "MulBackward0", "SumBackward0")
        step = screen.split("step ")[1].split("/")[0]
        _tmux("send-keys", "-t", session, "space")
        _wait_for(session, f"step {int(step) + 1}/")
        _tmux("send-keys", "-t", session, "N")
        _wait_for(session, "node_started")
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "EXIT=")
        assert "EXIT=0" in screen
        assert "replay demo" not in screen and "MulBackward0" not in screen   # screen restored
    finally:
        _tmux("kill-session", "-t", session)


LOOP = "import agdebug as torch\nx = torch.ones(2, requires_grad=True)\n" \
       "for i in range(10 ** 7):\n    (x * x).sum().backward()\n    print('step', i)\n"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("key", ["q", "C-c"])
def test_run_quits_at_once_after_continue_on_a_long_loop(tmp_path, key):
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    session = f"agdebug-{uuid.uuid4().hex[:8]}"
    command = (f"cd {ROOT} && {sys.executable} -m agdebug.cli run {script} > /dev/null; "
               "echo EXIT=$?; sleep 30")
    _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
    try:
        _wait_for(session, "step 1/1")
        _tmux("send-keys", "-t", session, "c")
        time.sleep(3)                              # events pour in
        _tmux("send-keys", "-t", session, key)
        assert "EXIT=0" in _wait_for(session, "EXIT=", timeout=10)
    finally:
        _tmux("kill-session", "-t", session)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_run_exits_with_the_scripts_status_and_message(tmp_path):
    script = tmp_path / "bye.py"
    script.write_text("import sys\nimport agdebug\nprint('out')\nsys.exit('bye now')\n")
    session = f"agdebug-{uuid.uuid4().hex[:8]}"
    command = (f"cd {ROOT} && {sys.executable} -m agdebug.cli run {script}; "
               "echo EXIT=$?; sleep 30")
    _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
    try:
        _wait_for(session, "step 1/")
        _tmux("send-keys", "-t", session, "c")
        _wait_for(session, "finished")
        _tmux("send-keys", "-t", session, "q")
        screen = _wait_for(session, "EXIT=").split("\n")
        assert [line for line in screen if line.strip()] == ["out", "bye now", "EXIT=1"]
    finally:
        _tmux("kill-session", "-t", session)
