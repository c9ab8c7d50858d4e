"""``--engine torch|agdebug`` on ``agdebug record`` and ``export``."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from agdebug.cli import choose_engine, main
from agdebug.debug import load_trace

torch = pytest.importorskip("torch")

TORCH_SCRIPT = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print(x.grad.tolist())
"""


def write(tmp_path, text: str, name: str = "script.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_a_torch_script_is_recorded_on_real_torch_by_default(tmp_path, capfd):
    script = write(tmp_path, TORCH_SCRIPT)
    out = str(tmp_path / "run.agtrace")
    assert main(["record", script, "-o", out]) == 0
    assert "[2.0, 4.0]" in capfd.readouterr().out
    created = [e for e in load_trace(out).events if e.kind == "node_created"]
    assert [e.name for e in created] == ["torch::autograd::AccumulateGrad", "MulBackward0",
                                         "SumBackward0"]
    assert created[1].source == "script.py:3: y = (x * x).sum()"
    assert created[1].saved[0].name in ("self", "other")   # torch's own names


def test_engine_agdebug_runs_an_agdebug_script_on_agdebug(tmp_path):
    script = write(tmp_path, TORCH_SCRIPT.replace("import torch", "import agdebug as torch"))
    out = str(tmp_path / "run.agtrace")
    assert main(["record", "--engine", "agdebug", script, "-o", out]) == 0
    saved = [e.saved for e in load_trace(out).events if e.kind == "node_created"][1]
    assert [s.name for s in saved] == ["self", "other"]   # agdebug's engine names them as torch


def test_default_engine(tmp_path):
    assert choose_engine(write(tmp_path, TORCH_SCRIPT), None) == ("torch", "")
    plain = write(tmp_path, "import agdebug\n", "plain.py")
    assert choose_engine(plain, None) == ("agdebug", "")
    assert choose_engine(plain, "torch") == ("torch", "")


def test_a_torch_script_without_torch_installed_runs_on_agdebug(tmp_path, monkeypatch, capfd):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    script = write(tmp_path, TORCH_SCRIPT + "print(type(x).__module__)\n")
    out = str(tmp_path / "run.agtrace")
    assert main(["record", script, "-o", out]) == 0
    printed = capfd.readouterr()
    assert printed.out == "[2.0, 4.0]\nagdebug.tensor\n"
    assert printed.err.splitlines()[0] == (
        f"agdebug: torch is not installed here, so {script} runs on agdebug's engine (its "
        "`import torch` gives agdebug)")
    assert main(["record", "--engine", "torch", script, "-o", out]) == 2
    assert capfd.readouterr().err == "agdebug: --engine torch needs PyTorch (pip install torch)\n"


def test_a_failing_torch_script_keeps_its_trace_and_status(tmp_path, capfd):
    script = write(tmp_path, TORCH_SCRIPT + "raise ValueError('after the backward')\n")
    out = str(tmp_path / "run.agtrace")
    assert main(["record", script, "-o", out]) == 1
    assert "ValueError: after the backward" in capfd.readouterr().err
    events = load_trace(out).events
    assert [e.kind for e in events].count("backward_finished") == 1
    assert [e.message for e in events if e.kind == "error"] == ["after the backward"]
    assert torch.autograd.backward.__module__ == "torch.autograd"   # restored


def test_export_a_torch_script(tmp_path):
    script = write(tmp_path, TORCH_SCRIPT)
    out = str(tmp_path / "graph.dot")
    assert main(["export", script, "--engine", "torch", "--format", "dot", "-o", out]) == 0
    text = open(out).read()
    assert "MulBackward0" in text and "SumBackward0" in text


def test_run_steps_a_torch_script_live(tmp_path):
    pytest.importorskip("textual")
    from agdebug_tui import AgDebugApp

    from ..tui.helpers import run, until
    script = write(tmp_path, TORCH_SCRIPT)

    async def go():
        app = AgDebugApp(script=script, engine="torch")
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.events)   # paused at the first event
            assert app.outcome is None and app.events[0].kind == "node_created"
            await pilot.press("c")
            await until(pilot, lambda: app.outcome is not None)
            names = [e.name for e in app.events if e.kind == "node_started"]
            assert names == ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
            assert app.live.exit_code == 0
            await pilot.press("q")
    run(go())
