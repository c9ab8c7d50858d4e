"""The classroom demos: each runs, prints what it teaches, and prints the same under torch."""

from __future__ import annotations

import importlib.util
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "agdebug" / "demos" / "scripts"
README = ROOT / "examples" / "demos" / "README.md"

# Lines (or parts of lines) a student is told to look at: if one changes, the lesson changed.
KEY_LINES = {
    "retain_graph": [
        "  graph: SumBackward0 -> MulBackward0",
        "  mul._saved_self is x: True",
        "  mul's saved tensors: freed (",
        "    Trying to backward through the graph a second time (or directly access saved tensors",
        "  mul's saved tensors: available",
        "x.grad accumulated twice = tensor([ 8., 10., 12.])",
    ],
    "create_graph_cycle": [
        "  UserWarning: Using backward() with create_graph=True will create a reference cycle",
        "  x.grad's graph reaches the AccumulateGrad whose .variable is x: True",
        "  x is still alive (the leak): True",
        "  x is freed, no gc.collect() needed: True",
        "  x.grad is None: True",
        "  after del gx, x is freed, no gc.collect() needed: True",
    ],
    "grad_vs_backward": [
        "Step 1: x = tensor([ 1., -2.,  3.])   x.grad = None",
        "x.grad = tensor([ 4., -8., 12.])  (2 * 2x: summed)",
        "  gx = tensor([ 2., -4.,  6.])",
        "  x.grad = tensor([ 4., -8., 12.])  (unchanged)",
        "  w.grad = None",
    ],
    "diamond": [
        ("  b's node ran: its contribution to dy/dh = tensor([5., 5.])\n"
         "  a's node ran: its contribution to dy/dh = tensor([4., 4.])\n"
         "  tensor hook on h fired with dy/dh = tensor([9., 9.])\n"
         "  h's node MulBackward0 starts with tensor([9., 9.])\n"),
        "  x.grad = tensor([27., 27.])",
    ],
    "inputs": [
        ("  nodes that ran: ['SumBackward0', 'MulBackward0', 'SinBackward0', 'AccumulateGrad(w)',"
         " 'ExpBackward0', 'AccumulateGrad(x)']"),
        ("  nodes that ran: ['SumBackward0', 'MulBackward0', 'ExpBackward0', 'AccumulateGrad(x)']\n"
         "  x.grad is None: False   w.grad is None: True"),
        "  nodes that ran: ['SumBackward0', 'MulBackward0', 'ExpBackward0']\n",
        "x.grad is None: True",
    ],
    "hooks": [
        ("  [1] tensor hook on h, grad = tensor([4., 8.]) -> returns grad * 10\n"
         "  [2] pre-hook of h's node, grad_outputs[0] = tensor([40., 80.])\n"
         "  [3] post-hook of h's node, grad_inputs[0] = tensor([ 80., 160.])\n"
         "  [4] tensor hook on x, grad = tensor([ 80., 160.])\n"
         "  [5] pre-hook of x's AccumulateGrad\n"
         "  [7] post-accumulate-grad hook, x.grad = tensor([ 80., 160.])\n"
         "  [6] post-hook of x's AccumulateGrad\n"
         "  h.grad = tensor([40., 80.])"),
    ],
    "inplace": [
        "b._version = 0   b.grad_fn: ExpBackward0",
        "b._version = 1   b.grad_fn: AddBackward0",
        "    one of the variables needed for gradient computation has been modified by an inplace",
        "which is output 0 of Exp, is at version 1;",
        "  error names: output 0 of Add - version 1 instead of 0",
        "  anomaly mode: Error detected in SinBackward0.",
        "of this demo: z = w.sin()",
        "s._version = 1",
    ],
    "higher_order": [
        "  f'''    [6.0, 6.0, 6.0]",
        "  f'' has a grad_fn, so it can be differentiated again: True",
        "  f'''    [0.621627, -0.565209, 0.252654]",
        "  g.requires_grad: False   g.grad_fn: None",
    ],
    "anomaly": [
        "x.grad = tensor([   nan, 0.2500])   <- NaN, and no error",
        "  RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.",
        "  x.grad = None  (backward stopped before reaching x)",
        "  Error detected in SqrtBackward0.",
        "of this demo: y = (x.sqrt() * mask).sum()",
        "  x.grad = tensor([0.0000, 0.2500])",
    ],
    "mlp": [
        "Step 1: (96, 2) points, 3 classes; 371 parameters",
        "a graph of 16 nodes:",
        "'AddmmBackward0': 3",
        "Step 3: backward: every parameter has a .grad: True",
        "  final loss ",
    ],
}
NAMES = sorted(KEY_LINES)


# torch gives the create_graph=True warning once per process (TORCH_WARN_ONCE): compare this
# demo in fresh processes, where the warning is certain to be shown.
FRESH_PROCESS = {"create_graph_cycle"}


def run_demo(path: Path, capsys) -> str:
    capsys.readouterr()
    runpy.run_path(str(path), run_name="__main__")
    return capsys.readouterr().out


def run_demo_in_new_process(path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def as_torch_script(source: str) -> str:
    """The same demo written for torch: only the two import lines differ."""
    source = re.sub(r"^import agdebug as torch$", "import torch", source, flags=re.MULTILINE)
    return re.sub(r"^from agdebug import ", "from torch import ", source, flags=re.MULTILINE)


def without_addresses(text: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "0x…", text)


def test_every_script_is_covered():
    scripts = {p.stem for p in SCRIPTS.glob("*.py") if p.stem != "__init__"}
    assert scripts == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_demo_prints_its_lesson(name, capsys):
    out = run_demo(SCRIPTS / f"{name}.py", capsys)
    for line in KEY_LINES[name]:
        assert line in out, f"{name}: missing {line!r} in:\n{out}"
    assert re.search(r"^Step 1:", out, re.MULTILINE), "demos speak in numbered steps"


@pytest.mark.parametrize("name", NAMES)
def test_demo_prints_the_same_under_torch(name, capsys, tmp_path, torch):
    source = (SCRIPTS / f"{name}.py").read_text()
    torch_source = as_torch_script(source)
    assert "agdebug" not in torch_source.split('"""', 2)[2], "torch spellings only"
    torch_path = tmp_path / f"{name}.py"   # same file name: tracebacks print it
    torch_path.write_text(torch_source)
    if name in FRESH_PROCESS:
        ours = run_demo_in_new_process(SCRIPTS / f"{name}.py")
        theirs = run_demo_in_new_process(torch_path)
    else:
        ours = run_demo(SCRIPTS / f"{name}.py", capsys)
        theirs = run_demo(torch_path, capsys)
    assert without_addresses(ours) == without_addresses(theirs)


@pytest.mark.parametrize("name", NAMES)
def test_importing_a_demo_has_no_side_effects(name, capsys):
    spec = importlib.util.spec_from_file_location(f"_demo_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert capsys.readouterr().out == ""
    assert callable(module.main)
    assert module.__doc__.startswith(f"Demo: {name.replace('_', '-')}.")


def test_readme_lists_every_demo_with_both_ways_to_run_it():
    text = README.read_text()
    for name in NAMES:
        assert f"`{name.replace('_', '-')}`" in text
        assert f"python -m agdebug.demos.scripts.{name}" in text
        assert f"python agdebug/demos/scripts/{name}.py" in text


@pytest.mark.parametrize("how", ["module", "file"])
def test_runs_with_plain_python(how):
    args = (["-m", "agdebug.demos.scripts.retain_graph"] if how == "module"
            else [str(SCRIPTS / "retain_graph.py")])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "mul's saved tensors: available" in result.stdout
