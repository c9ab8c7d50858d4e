"""The training examples run (a few steps) and their loss goes down."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_example_learns(capsys):
    losses = _load("mlp").main(steps=40, log_every=20)
    assert losses[-1] < 0.5 * losses[0]
    assert "training accuracy" in capsys.readouterr().out


def test_cnn_example_learns(capsys):
    losses = _load("cnn").main(steps=45, log_every=15)
    assert min(losses[-5:]) < 0.6 * losses[0]
    assert "step   15" in capsys.readouterr().out


def test_examples_run_as_scripts():
    # This checkout's agdebug, whether or not (and wherever) the package is installed.
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent)}
    for name in ("mlp", "cnn"):
        done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--steps", "3"],
                              check=False, capture_output=True, text=True, timeout=120,
                              env=env)
        assert done.returncode == 0, done.stderr
        assert "final loss" in done.stdout
