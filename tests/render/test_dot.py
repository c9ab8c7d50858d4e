"""DOT text: golden output, determinism, styles for cycles, saved tensors, focus, collapse."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agdebug.debug.state import EMPTY, reduce
from agdebug.events import records as r
from agdebug.render.dot import DotOptions, dot_elements, to_dot

GOLDEN = Path(__file__).parent / "golden"


def _t(i, shape=(2,)):
    return r.TensorSummary(i, shape, "float32", "cpu", 8)


def _small_events() -> list:
    """x (leaf t1) -> exp -> mul(., x) -> sum, then the backward up to Mul."""
    return [
        r.NodeCreated(seq=1, node=1, name="AccumulateGrad", op="", edges=(), inputs=(),
                      outputs=(), saved=(), attrs=(), leaf=_t(1)),
        r.NodeCreated(seq=2, node=2, name="ExpBackward0", op="exp", edges=((1, 0),),
                      inputs=(_t(1),), outputs=(_t(2),),
                      saved=(r.SavedSummary("result", 2, (2,), "float32", 8),), attrs=()),
        r.NodeCreated(seq=3, node=3, name="MulBackward0", op="mul", edges=((2, 0), (1, 0)),
                      inputs=(_t(2), _t(1)), outputs=(_t(3),),
                      saved=(r.SavedSummary("self", 2, (2,), "float32", 8),
                             r.SavedSummary("other", 1, (2,), "float32", 8)), attrs=()),
        r.NodeCreated(seq=4, node=4, name="SumBackward0", op="sum", edges=((3, 0),),
                      inputs=(_t(3),), outputs=(_t(4, ()),), saved=(),
                      attrs=(("dim", "None"),)),
        r.BackwardStarted(seq=5, api="backward", roots=(4,), grads=(_t(5, ()),), inputs=None,
                          retain_graph=False, create_graph=False),
        r.BackwardPlanned(seq=6, nodes=(r.PlannedNode(4, "SumBackward0", 1, True, ((3, 0),)),
                                        r.PlannedNode(3, "MulBackward0", 1, True,
                                                      ((2, 0), (1, 0))),
                                        r.PlannedNode(2, "ExpBackward0", 1, True, ((1, 0),)),
                                        r.PlannedNode(1, "AccumulateGrad", 2, True, ()))),
        r.BufferAccumulated(seq=7, node=4, slot=0, source=0, grad=_t(5, ()), contributions=1,
                            remaining=0),
        r.NodeStarted(seq=8, node=4, name="SumBackward0", grads=(_t(5, ()),), runs=True),
        r.NodeFinished(seq=9, node=4, grads=(_t(6),)),
        r.BufferAccumulated(seq=10, node=3, slot=0, source=4, grad=_t(6), contributions=1,
                            remaining=0),
        r.NodeStarted(seq=11, node=3, name="MulBackward0", grads=(_t(6),), runs=True),
        r.SavedReleased(seq=12, node=3, names=("self", "other"), nbytes=16),
    ]


def _state(events):
    state = EMPTY
    for e in events:
        state = reduce(state, e)
    return state


def test_golden_dot():
    text = to_dot(_state(_small_events()))
    assert text == (GOLDEN / "small.dot").read_text()


def test_deterministic_and_styles():
    state = _state(_small_events())
    text = to_dot(state)
    assert text == to_dot(_state(_small_events()))
    assert 'n3 [label=<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1"><TR>' \
        '<TD>MulBackward0</TD></TR><TR><TD>[2] float32</TD></TR>' in text   # saved: rows inside
    assert 'n4 [label="SumBackward0\\n[] float32"' in text   # nothing saved: a plain label
    assert 'color="#d00000", penwidth=3' in text.split("\n  n3 ")[1].split("\n")[0]  # current
    assert "<S>self: [2] float32</S>" in text             # released saved tensor struck out
    assert '"#7a5c00">result: [2] float32<' in text         # live one is not
    assert "s2_0" not in text                                # no box beside the node
    assert 'n4 -> n3 [label="[2]"]' in text                 # edge labelled with grad shape
    assert "output t4" in text


@pytest.mark.parametrize("name, shown", [("loss", "output loss"), ("", "output t4"),
                                         ('a"b\n<c>', 'output a\\"b\\n<c>')])   # (quoted: no DOT)
def test_an_output_is_labelled_with_the_users_name(name, shown):
    events = _small_events()
    sums = events[3]
    events[3] = dataclasses.replace(sums, outputs=(dataclasses.replace(_t(4, ()), name=name),))
    assert f'o4 [label="{shown}\\n[] float32"' in to_dot(_state(events))


def test_a_freed_nodes_output_is_not_drawn():
    """A freed node stays in the picture, greyed, until the next backward; the tensor it
    made is gone (nothing held the node), so no output oval says it is there."""
    events = _small_events()[:4]
    assert 'o4 [label="output t4' in to_dot(_state(events))
    freed = to_dot(_state(events + [r.NodeFreed(seq=5, node=4, by="refcount")]))
    assert 'o4 [label="output t4\\n[] float32", shape=oval, style=invis]' in freed


def test_cycle_edges_are_red():
    events = _small_events()[:4] + [
        r.GradAccumulated(seq=20, node=1, tensor=1, mode="new", grad=_t(9), grad_fn=3),
        r.CycleDetected(seq=21, leaf=1, path=("t1", "t9", "n3", "n1", "t1"), nodes=(3, 1))]
    text = to_dot(_state(events))
    assert 'n3 -> n1 [label="[2]", color="#d00000", penwidth=2]' in text
    assert 't1 -> n3 [label=".grad", style=dashed, constraint=false, color="#d00000"' in text
    broken = to_dot(_state(events + [r.CycleBroken(seq=22, leaf=1, reason="grad_cleared")]))
    assert "#d00000" not in broken.split("n3 -> n1")[1].split("\n")[0]


def _chain(n):
    events = [r.NodeCreated(seq=1, node=1, name="AccumulateGrad", op="", edges=(), inputs=(),
                            outputs=(), saved=(), attrs=(), leaf=_t(1))]
    for i in range(2, n + 1):
        events.append(r.NodeCreated(seq=i, node=i, name="MulBackward0", op="mul",
                                    edges=((i - 1, 0),), inputs=(_t(i - 1),),
                                    outputs=(_t(i),), saved=(), attrs=()))
    return _state(events)


def test_large_graphs_collapse_or_focus():
    state = _chain(300)
    collapsed = to_dot(state, DotOptions(max_nodes=50))
    assert "nodes\\nMulBackward0 ... MulBackward0" in collapsed
    assert collapsed.count("[label=") < 20
    focused = to_dot(state, DotOptions(focus=150, radius=2))
    drawn = {line.split()[0] for line in focused.splitlines()
             if line.startswith("  n") and "->" not in line and not line.startswith("  node")}
    assert drawn == {"n148", "n149", "n150", "n151", "n152"}


def test_elements_match_the_text():
    """dot_elements splits each ``key=value`` at its first ``=``: values may hold more."""
    state = _state(_small_events())
    opts = DotOptions(attrs=True, values=True)   # SumBackward0's label holds "dim=None"
    text = to_dot(state, opts)
    assert "dim=None" in text
    lines = text.splitlines()
    for key, attrs in dot_elements(state, opts):
        pairs = ", ".join(f"{k}={v}" for k, v in attrs.items())
        assert (f"  {key} [{pairs}]" if attrs else f"  {key}") in lines
    assert dot_elements(state, opts)[0][1]["shape"] == "ellipse"


def test_tensor_text_depends_only_on_shape_dtype_device():
    """to_dot caches ``describe()`` on (shape, dtype, device); the rest must not change it."""
    stats = r.Stats((1.0,), 1.0, 2.0, 1.5, 2.2, 0, 0)
    assert _t(1).describe() == r.TensorSummary(9, (2,), "float32", "cpu", 64, stats).describe()
    cpu = _small_events()[:2]
    gpu = [r.NodeCreated(seq=1, node=1, name="AccumulateGrad", op="", edges=(), inputs=(),
                         outputs=(), saved=(), attrs=(),
                         leaf=r.TensorSummary(1, (2,), "float32", "cuda:0", 8)), cpu[1]]
    assert 'n1 [label="AccumulateGrad\\n[2] float32", ' in to_dot(_state(cpu))
    assert 'n1 [label="AccumulateGrad\\n[2] float32 cuda:0", ' in to_dot(_state(gpu))


def test_a_losss_saved_reduction_number_reads_with_its_word():
    """torch saves ``reduction='mean'`` as 1: shown with ``--attrs`` as ``reduction=1 (mean)``."""
    events = _small_events()
    events[3] = dataclasses.replace(events[3], attrs=(("reduction", "1"), ("dim", "None")))
    text = to_dot(_state(events), DotOptions(attrs=True))
    assert "reduction=1 (mean)" in text and "dim=None" in text
