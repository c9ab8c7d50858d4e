"""Shared fixtures: devices to run on, a torch oracle when torch is installed."""

from __future__ import annotations

import pytest

import agdebug as ag


def _cuda_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not _cuda_available(), reason="no CUDA GPU (or CuPy) on this machine"))]


@pytest.fixture(params=DEVICES)
def device(request):
    """Run a test once per available device; CUDA is skipped with a reason elsewhere."""
    return request.param


@pytest.fixture
def torch():
    """The torch oracle; tests using it skip cleanly where torch is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _seed():
    ag.manual_seed(0)
