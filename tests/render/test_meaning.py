"""Meaning on the page: the telling step, frames to the end, one edge per input, a legend,
``--dpi``."""

from __future__ import annotations

import io

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex
from agdebug.render.dot import DotOptions, dot_elements, to_dot

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")


def _inplace_error():
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError):
            y.sum().backward()
        del y   # the graph is freed after the error: the end is not the telling step
    return trace.timeline()


def _cycle():
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="reference cycle"):   # as torch warns
            (x * x).sum().backward(create_graph=True)
        x.grad = None   # breaks the cycle
    return trace.timeline()


def _kinds(timeline):
    return [e.kind for e in timeline.events]


def test_default_diagram_is_the_error(tmp_path):
    timeline = _inplace_error()
    step = _kinds(timeline).index("error") + 1
    assert ex.telling_step(timeline) == step < len(timeline)
    path = ex.export(timeline, "dot", tmp_path / "g.dot")[0]
    assert path.read_text() == to_dot(timeline.state(step))
    assert path.read_text() != to_dot(timeline.final)


def test_default_diagram_is_the_cycle_and_frames_run_to_its_break():
    timeline = _cycle()
    kinds = _kinds(timeline)
    assert ex.telling_step(timeline) == kinds.index("cycle_detected") + 1
    steps = ex.frame_steps(timeline)
    assert steps[-1] == len(timeline) and kinds.index("cycle_broken") + 1 in steps


def test_a_tensor_used_twice_is_two_edges():
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        (h * h).sum()
    state = trace.state()
    mul = next(n.id for n in state.nodes.values() if n.name == "MulBackward0")
    exp = next(n.id for n in state.nodes.values() if n.name == "ExpBackward0")
    keys = [key for key, _ in dot_elements(state)]
    assert keys.count(f"n{mul} -> n{exp}") == 2


def test_every_diagram_has_a_legend():
    text = to_dot(_cycle().final)
    legend = next(line for line in text.splitlines() if line.startswith("  legend ["))
    for word in ("running", "released", "freed", "errored", "reference cycle", "<S>released"):
        assert word in legend


@needs_dot
def test_dpi_scales_the_png():
    pytest.importorskip("PIL")
    from PIL import Image
    state = _cycle().final
    sizes = [Image.open(io.BytesIO(ex.render(to_dot(state, DotOptions(dpi=dpi)), "png"))).size
             for dpi in (None, 192)]
    assert 1.8 < sizes[1][0] / sizes[0][0] < 2.2
