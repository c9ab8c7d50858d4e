"""Shared fixtures: devices to run on, a torch oracle when torch is installed."""

from __future__ import annotations

import pytest

import agdebug as ag

DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.real_cuda, pytest.mark.skipif(
    not ag.cuda.is_available(),
    reason="no CUDA GPU (or CuPy) on this machine: `pip install agdebug[gpu]` on a GPU host")])]


def pytest_configure(config):
    config.addinivalue_line("markers", "real_cuda: runs on a real CUDA GPU (device fixture)")


@pytest.fixture(params=DEVICES)
def device(request):
    """Run a test once per device: "cpu", and "cuda" where CuPy sees a real GPU."""
    return request.param


@pytest.fixture
def fake_cuda(monkeypatch):
    """CuPy's test double (tests/fake_cupy.py) as ``cupy``, with two "GPUs", for one test."""
    from .fake_cupy import install
    return install(monkeypatch, device_count=2)


@pytest.fixture(params=["agdebug", "torch"])
def lib(request):
    """Run a test once with agdebug and once with torch (skipped where torch is absent)."""
    if request.param == "torch":
        return pytest.importorskip("torch")
    return ag


@pytest.fixture
def torch():
    """The torch oracle; tests using it skip cleanly where torch is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _seed():
    ag.manual_seed(0)
