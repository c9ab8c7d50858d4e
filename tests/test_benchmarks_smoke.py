"""The benchmark harness runs end to end (``--smoke``: tiny sizes) and its pieces behave.

No timing is asserted: only that every workload produces its rows, with numbers where
a library took part, and that the table, targets and JSON say what they measured.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import report
from benchmarks.harness import Config, Row, interleave, within, within_extra
from benchmarks.run import groups_for, parse
from benchmarks.workloads import MODULES, group
from benchmarks.workloads.recorder import count_flag_reads

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "run.py"),
                           "--smoke", "--threads", "1,2", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout


def test_every_group_reports_rows(smoke):
    data, _ = smoke
    first = data["runs"][0]
    assert first["threads"] == 1 and first["errors"] == 0
    assert {row["group"] for row in first["rows"]} == set(MODULES)


def test_numbers_where_a_library_ran(smoke):
    data, _ = smoke
    rows = data["runs"][0]["rows"]
    for row in rows:
        if row["group"] == "TUI" and row["note"]:
            assert row["note"].startswith("n/a") and row["values"] == {}
            continue
        assert row["values"]["agdebug"] is not None, row["name"]
        if row["group"] in ("W1", "W2", "W3", "W4", "W5", "W6"):
            expected = {"agdebug", "numpy", "torch"} if HAS_TORCH else {"agdebug", "numpy"}
            assert set(row["values"]) == expected, row["name"]
    timed = [r for r in rows if r["unit"] in ("us/op", "ms", "s") and r["group"] != "TUI"]
    assert all(v > 0 for r in timed for v in r["values"].values())


def test_targets_are_judged(smoke):
    data, _ = smoke
    judged = {row["name"]: row for row in data["runs"][0]["rows"] if row["target"]}
    w2 = next(row for name, row in judged.items() if name.startswith("MLP train step"))
    assert w2["target"] == "<= 1.1x numpy"
    assert w2["met"] == (w2["values"]["agdebug"] <= 1.1 * w2["values"]["numpy"])
    assert w2["observed"] == f"{w2['values']['agdebug'] / w2['values']['numpy']:.2f}x"
    seek = next(row for name, row in judged.items() if name.startswith("seek"))
    assert seek["met"] == (seek["values"]["agdebug"] <= 20)


def test_second_thread_count_runs_only_blas_bound_groups(smoke):
    data, stdout = smoke
    second = data["runs"][1]
    assert second["threads"] == 2
    assert {row["group"] for row in second["rows"]} == {"W2", "W5"}
    assert any("threads=2" in line for line in second["blas"])
    assert "== 1 thread(s), smoke mode" in stdout and "== 2 thread(s), smoke mode" in stdout
    assert "agdebug      numpy      torch ag/torch ag/numpy target" in stdout


def test_interleave_rotates_and_takes_the_median():
    calls = []
    values = iter([5.0, 1.0, 3.0, 2.0, 4.0])

    def a():
        calls.append("a")
        return {"t": next(values)}

    def b():
        calls.append("b")
        return {"t": 1.0}
    medians = interleave({"a": a, "b": b}, Config("quick", 1), warmup=0)
    assert medians == {"a": {"t": 3.0}, "b": {"t": 1.0}}
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a", "a", "b"]


def test_row_verdicts_and_table():
    slow = Row("W1", "chain", "us/op", {"agdebug": 4.0, "torch": 2.0}, within("torch", 1.5))
    assert slow.verdict() == (False, "2.00x")
    rec = Row("REC", "attached", "ms", {"agdebug": 2.5}, within_extra("detached", 3.0, "t"),
              extra={"detached": 1.0})
    assert rec.verdict() == (True, "2.50x")
    missing = Row("W7", "dot", "s", {"agdebug": 1.0}, within("torch", 1.0))
    assert missing.verdict() == (None, "n/a")
    text = report.table([slow, rec, missing])
    assert "NO (2.00x)" in text and "yes (2.50x)" in text and "2.00x" in text


def test_stopwatch_reads_the_chosen_clock(monkeypatch):
    from benchmarks import harness
    ticks = iter([10.0, 10.5, 12.0])
    monkeypatch.setitem(harness.CLOCKS, "cpu", lambda: next(ticks))
    try:
        harness.use_clock("cpu")
        lap = harness.stopwatch()
        assert (lap(), lap()) == (0.5, 1.5)
    finally:
        harness.use_clock("wall")
    assert harness._clock[0] is harness.CLOCKS["wall"]


def test_flag_reads_are_counted_and_the_flag_restored():
    import agdebug as ag
    from agdebug.events.bus import WATCH
    kind = type(WATCH)

    def work():
        x = ag.ones(3, requires_grad=True)
        (x * 2).sum().backward()
    assert count_flag_reads(work) > 0
    assert type(WATCH) is kind and WATCH.on is False


def test_arguments():
    args = parse(["--quick", "--threads", "1,2", "--only", "w1,W5"])
    assert (args.mode, args.threads, args.only) == ("quick", [1, 2], ["W1", "W5"])
    assert groups_for(args, 1) == ["W5"]
    assert groups_for(parse(["--only", "W1"]), 1) == ["W1"]      # full mode: every count
    assert (parse([]).clock, parse(["--clock", "cpu"]).clock) == ("wall", "cpu")
    with pytest.raises(SystemExit):
        parse(["--only", "W9"])
    assert all(hasattr(group(name), "rows") for name in MODULES)


def test_probe_costs_names_each_probe_and_puts_the_probe_back():
    from agdebug.events import probe
    from benchmarks.bench_recorder import PROBES, probe_costs
    before = {name: getattr(probe, name) for name in PROBES}
    costs = probe_costs(ops=20, runs=1)
    assert {name: getattr(probe, name) for name in PROBES} == before
    assert {"node_created", "node_started", "node_finished", "_node_freed"} <= set(costs)
    assert all(us > 0 for us in costs.values())


def test_bench_gpu_runs_on_cupys_test_double(fake_cuda, capsys, monkeypatch):
    # The GPU comparison runs only where a GPU is; here CuPy's test double stands in, so the
    # script's own code (variants, synchronization, report) is run in CI too, with the
    # fewest repeats.
    from benchmarks import bench_gpu
    from benchmarks.harness import Config
    monkeypatch.setattr(bench_gpu, "CONFIG", Config("smoke", threads=1))
    bench_gpu.main()
    out = capsys.readouterr().out
    assert "W1 chain of 1,000 ops" in out and "agdebug / cupy = " in out


def _floor_against(lib):
    """One floor step and the same step in ``lib`` (agdebug or torch) from the same weights:
    (floor's loss, gradients, weights after; lib's, laid out (in, out) as the floor's)."""
    from benchmarks.workloads import mlp
    start = mlp.numpy_params()
    params = [p.copy() for p in start]
    step = mlp.numpy_model(params=params)
    loss = float(step())
    tensors = [lib.tensor(p.T.copy() if p.ndim == 2 else p, requires_grad=True) for p in start]
    x, y = (lib.tensor(a) for a in mlp.batch())
    h = x
    for i in range(0, 6, 2):
        h = lib.nn.functional.linear(h, tensors[i], tensors[i + 1])
        h = lib.relu(h) if i < 4 else h
    want = lib.nn.functional.cross_entropy(h, y)
    want.backward()
    grads = [t.grad.numpy().T if t.ndim == 2 else t.grad.numpy() for t in tensors]
    after = [p - np.float32(mlp.LR) * g for p, g in zip(start, grads)]
    return (loss, step.grads, params), (float(want.detach()), grads, after)


@pytest.mark.parametrize("name", ["agdebug", "torch"])
def test_numpy_floor_computes_the_step_of_the_libraries(name, request):
    # The floor is only a floor if it does the same work: the same loss, gradients and SGD
    # update as nn.Linear/ReLU/cross_entropy/SGD (within float32 rounding: its products
    # add in another order).
    import agdebug as ag
    lib = ag if name == "agdebug" else request.getfixturevalue("torch")
    (loss, grads, params), (want_loss, want_grads, want_params) = _floor_against(lib)
    assert loss == pytest.approx(want_loss, rel=1e-5)
    for got, want in zip(grads, want_grads):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    for got, want in zip(params, want_params):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_the_watch_benchmark_measures_every_variant_and_leaves_torch_as_it_was(tmp_path):
    torch = pytest.importorskip("torch")
    from benchmarks import bench_watch
    backward = torch.autograd.backward
    module_hooks = dict(torch.nn.modules.module._global_forward_hooks)
    rows = bench_watch.measure(torch, Config("smoke", threads=1, torch=torch), str(tmp_path))
    assert [row[0] for row in rows] == ["W1 chain", "W2 MLP step"]
    for name, unit, off, on, memory, again, floor, target in rows:
        assert min(off, on, memory, again, floor) > 0, name
    # the floor's hooks are gone again: nothing of it stays installed
    assert torch.autograd.backward is backward
    assert dict(torch.nn.modules.module._global_forward_hooks) == module_hooks
    assert not torch.overrides._get_current_function_mode_stack()
