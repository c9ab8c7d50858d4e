"""Layout: diagrams stay upright at any length (saved tensors inside their node)."""

from __future__ import annotations

import re

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex
from agdebug.render.dot import DotOptions

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")


def chain_timeline(ops: int):
    """``ops`` ops in one chain (sin saves its input, ``self`` as torch names it), backward."""
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x
        for _ in range(ops // 2):
            y = y.sin() * 1.01
        y.sum().backward()
    return trace.timeline()


def _svg_width(path) -> float:
    head = path.read_text(encoding="utf-8")[:2000]
    return float(re.search(r'<svg width="([\d.]+)pt"', head).group(1))


@needs_dot
def test_saved_tensors_keep_a_chain_upright(tmp_path):
    timeline = chain_timeline(100)
    every = DotOptions(expand=("all",))   # drawn whole, not summarised into one box
    with_saved = ex.export(timeline, "svg", tmp_path / "a.svg", options=every)[0]
    without = ex.export(timeline, "svg", tmp_path / "b.svg",
                        options=DotOptions(saved=False, expand=("all",)))[0]
    assert with_saved.read_text(encoding="utf-8").count(">self: [2] float32<") == 50   # drawn
    assert _svg_width(with_saved) <= 2 * _svg_width(without)


def test_player_strikes_released_rows():
    from agdebug.render.html import step_styles

    from .test_dot import _small_events, _state
    styles = step_styles(_state(_small_events()), DotOptions())
    assert styles["n3"][5] == [1, 1] and styles["n2"][5] == [0]   # released self, other
    assert styles["n4"][5] == []                                     # nothing saved
