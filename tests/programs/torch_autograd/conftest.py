"""The ``torch`` these tests see: real PyTorch, or agdebug's engine under that name.

Each test runs twice. On "torch" it gets PyTorch (skipped where torch is not installed); on
"agdebug" it runs inside ``torch_on_agdebug()``, the mapping ``--engine agdebug`` uses, so the
test's ``torch.`` (and any ``import torch`` it does) resolves to agdebug.

``@pytest.mark.agdebug_xfail("what agdebug lacks")`` makes the agdebug run a strict xfail (an
XPASS fails, so the reason stays true); the torch run stays an ordinary test.
"""

from __future__ import annotations

import pytest

from agdebug.engines import torch_on_agdebug


def pytest_configure(config):
    config.addinivalue_line("markers", "agdebug_xfail(reason): strict xfail on agdebug's engine")


def pytest_collection_modifyitems(items):
    for item in items:
        marker = item.get_closest_marker("agdebug_xfail")
        callspec = getattr(item, "callspec", None)
        if marker and callspec and callspec.params.get("torch") == "agdebug":
            item.add_marker(pytest.mark.xfail(strict=True, reason=marker.args[0]))


@pytest.fixture(params=["torch", "agdebug"])
def torch(request):
    if request.param == "torch":
        yield pytest.importorskip("torch")
        return
    with torch_on_agdebug():
        import torch as mapped
        yield mapped
