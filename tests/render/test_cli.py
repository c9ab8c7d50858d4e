"""The agdebug command line."""

from __future__ import annotations

import subprocess
import sys

from agdebug.debug import load_trace

SCRIPT = """\
import sys
import agdebug as ag
x = ag.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print("args:", sys.argv[1:])
def second_backward():
    y.backward()
second_backward()
"""


def _agdebug(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "agdebug.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, check=False)


def test_version_and_help():
    assert _agdebug("--version").stdout.startswith("agdebug ")
    out = _agdebug("--help").stdout
    assert "record" in out and "export" in out


def test_record_keeps_trace_and_shows_users_traceback(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    trace_path = tmp_path / "run.agtrace"
    done = _agdebug("record", script, "a", "-v", "-o", trace_path)
    assert done.returncode == 1
    assert "args: ['a', '-v']" in done.stdout
    assert 'train.py", line 9, in <module>' in done.stderr
    assert "runpy" not in done.stderr and "agdebug/cli.py" not in done.stderr
    trace = load_trace(trace_path)
    # GC passes and frees may follow at any time (at exit, say): look at the engine's events.
    kinds = [e.kind for e in trace.events if e.kind not in ("gc_pass", "node_freed", "printed")]
    assert kinds.count("backward_started") == 2 and kinds[-1] == "error"
    printed = "".join(e.text for e in trace.events if e.kind == "printed")
    assert "args: ['a', '-v']" in printed and 'train.py", line 9' in printed


def test_export_and_one_line_errors(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.replace("second_backward()\n", ""))
    trace_path = tmp_path / "run.agtrace"
    assert _agdebug("record", script, "-o", trace_path).returncode == 0
    out = tmp_path / "g.dot"
    done = _agdebug("export", trace_path, "--format", "dot", "--step", "3", "-o", out)
    assert done.returncode == 0 and out.read_text().count("[label=") >= 2
    assert _agdebug("export", script, "--format", "dot", "-o", tmp_path / "s.dot").returncode == 0
    bad = tmp_path / "bad.agtrace"
    bad.write_text(trace_path.read_text()[:-10])
    done = _agdebug("export", bad, "--format", "svg", "-o", tmp_path / "x.svg")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "bad.agtrace:" in done.stderr
    assert "Traceback" not in done.stderr
