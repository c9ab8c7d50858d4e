"""torch's runtime settings on agdebug: set_num_threads limits NumPy's BLAS pool, and the
errors are torch's (the inter-op number is set once per process, so those run in a child)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agdebug as ag
from agdebug import threads


@pytest.fixture
def restored():
    before = threads._state.copy()
    yield
    threads._state.update(before)


@pytest.mark.parametrize("value", [0, -2, 1.5, "2", True])
def test_set_num_threads_refuses_as_torch_does(torch, value, restored):
    with pytest.raises(RuntimeError) as theirs:
        torch.set_num_threads(value)
    with pytest.raises(RuntimeError) as mine:
        ag.set_num_threads(value)
    assert str(mine.value) == str(theirs.value)


def test_set_num_threads_limits_the_blas_pool(restored):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    if not blas:
        pytest.skip("NumPy reports no BLAS thread pool here")
    before = blas[0]["num_threads"]
    try:
        ag.set_num_threads(1)
        assert ag.get_num_threads() == 1
        now = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert {p["num_threads"] for p in now} == {1}
    finally:
        threadpoolctl.threadpool_limits(limits=before, user_api="blas")


_INTEROP = """
import sys
lib = __import__(sys.argv[1])
out = []
for value in (0, 1.5, 3, 2):
    try:
        lib.set_num_interop_threads(value)
        out.append(("ok", lib.get_num_interop_threads()))
    except RuntimeError as e:
        out.append(("error", str(e)))
print(out)
"""


def test_interop_threads_are_set_once_as_in_torch(torch):
    runs = [subprocess.run([sys.executable, "-c", _INTEROP, lib], capture_output=True,
                           text=True, timeout=120, check=True).stdout for lib in ("torch",
                                                                                "agdebug")]
    assert runs[0] == runs[1]
    assert "('ok', 3)" in runs[1] and "cannot set number of interop threads" in runs[1]


# ----------------------------------------------------------------------------- other settings

def test_warn_always_is_remembered(torch):
    for lib in (torch, ag):
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        assert not lib.is_warn_always_enabled()


def test_anomaly_enabled_without_a_block(torch):
    try:
        for lib in (torch, ag):
            lib.set_anomaly_enabled(True, False)
            assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
            lib.set_anomaly_enabled(False)
            assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
    finally:
        torch.set_anomaly_enabled(False)
        ag.set_anomaly_enabled(False)


def test_default_device_is_the_cpu_and_only_the_cpu_is_accepted(torch):
    assert str(ag.get_default_device()) == str(torch.get_default_device()) == "cpu"
    ag.set_default_device("cpu")
    ag.set_default_device(None)
    with pytest.raises(RuntimeError, match="agdebug's factories make CPU tensors"):
        ag.set_default_device("cuda")
    with pytest.raises(RuntimeError) as mine:
        ag.set_default_device("tpu")
    with pytest.raises(RuntimeError) as theirs:
        torch.set_default_device("tpu")
    assert str(mine.value) == str(theirs.value)


def test_flush_denormal_is_refused_honestly():
    """NumPy cannot flush denormals: agdebug says so (False), and a denormal survives."""
    assert ag.set_flush_denormal(True) is False
    assert ag.tensor([1e-40], dtype=ag.float32).item() != 0.0
