"""The player's per-step styles: restyling only what an event changed gives, step by step,
exactly what restyling the whole graph gives (``html.step_styles`` on every element)."""

from __future__ import annotations

import contextlib
import functools
import io

import pytest

from agdebug.cli import run_script
from agdebug.demos import SCRIPTS
from agdebug.render import export as ex
from agdebug.render.dot import DotOptions
from agdebug.render.html import _frames, step_styles

from .test_safety import _evil_trace

DEMOS = sorted(p.stem for p in SCRIPTS.glob("*.py") if p.stem != "__init__")


@functools.lru_cache(maxsize=None)
def _demo(name: str):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        trace, _ = run_script(str(SCRIPTS / f"{name}.py"), [], None, values=True)
    return trace.timeline()


def _replayed(frames) -> list[dict]:
    """The styles a page shows at each frame: the diffs applied in order."""
    shown, out = {}, []
    for frame in frames:
        shown = {**shown, **frame["d"]}
        out.append(shown)
    return out


def _check_every_step(timeline, values: bool, every: int = 1) -> None:
    """Frames for every step; the page's styles checked at every ``every``-th step (the
    diffs between are applied all the same)."""
    options = ex.layout_options(timeline, DotOptions(values=values))
    steps = list(range(len(timeline) + 1))
    frames = _frames(timeline, steps, options)
    for step, shown in zip(steps, _replayed(frames)):
        if step % every == 0 or step == steps[-1]:
            assert shown == step_styles(timeline.state(step), options), f"step {step}"
    assert [f["s"] for f in frames] == steps


@pytest.mark.parametrize("name", DEMOS)
def test_diffs_equal_whole_graph_restyles(name):
    _check_every_step(_demo(name), values=True, every=13 if name == "mlp" else 1)


def test_diffs_equal_whole_graph_restyles_without_values():
    _check_every_step(_demo("create_graph_cycle"), values=False)
    _check_every_step(_evil_trace().timeline(), values=False)


def test_a_step_sends_only_what_changed():
    timeline = _demo("mlp")
    frames = _frames(timeline, list(range(len(timeline) + 1)),
                     ex.layout_options(timeline, DotOptions()))
    everything = len(frames[0]["d"])
    assert max(len(f["d"]) for f in frames[1:]) < everything / 2
    assert any(f["c"].startswith("n") for f in frames if "c" in f)   # the node it is about
