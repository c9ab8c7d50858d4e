"""A small transformer training step on real torch, watched: the same numbers, a sane
replay, an export, and agdebug's graph wherever torch's kernels are agdebug's."""

from __future__ import annotations

import difflib
import xml.etree.ElementTree as ET

import pytest

import agdebug as ag
import agdebug.watch
from agdebug.debug.recorder import load_trace
from agdebug.render import export as ex

from . import scenarios
from .compare import outline

torch = pytest.importorskip("torch")

ACC = "torch::autograd::AccumulateGrad"
# Where the graphs differ, and why. The input projection: torch's F.linear on the
# transposed (non-contiguous) 3-d input runs matmul then add; agdebug's runs addmm over a
# view. The attention is torch's fused kernel on both (one node, its output laid out as
# the query, so the heads' permute back needs no copy).
DIFFERENCES = [
    ([], ["MmBackward0", "UnsafeViewBackward0"]),
    (["AddmmBackward0", "ViewBackward0"], ["AddBackward0"]),
]


def _recorded(lib):
    return scenarios.recorded(scenarios.transformer_step, lib)


def test_a_watched_transformer_step_is_bitwise_the_unwatched_one():
    plain = scenarios.transformer_step(torch)
    with agdebug.watch.torch():
        watched = scenarios.transformer_step(torch)
    assert watched == plain


def test_its_trace_replays_sanely_and_exports(tmp_path):
    with agdebug.watch.torch(tmp_path / "step.agtrace") as trace:
        scenarios.transformer_step(torch)
    loaded = load_trace(tmp_path / "step.agtrace")
    assert len(loaded) == len(trace)
    timeline = loaded.timeline()
    final = timeline.final
    freed = {e.node for e in loaded.events if e.kind == "node_freed"}
    made = {e.node for e in loaded.events if e.kind == "node_created"}
    # the step's graph is gone once its loss is: every node freed, nothing saved any more
    assert made == freed == {n.id for n in final.nodes.values() if n.status == "freed"}
    assert final.saved_bytes == 0 and final.backward.ok
    assert any(n.name.startswith("ScaledDotProduct") for n in final.nodes.values())
    if ex.find_dot() is None:
        pytest.skip("no Graphviz program (dot or graphviz-pure) on this machine")
    path = ex.export(timeline, "svg", tmp_path / "step.svg")[0]
    assert ET.fromstring(path.read_bytes()).tag.endswith("svg")


def _aligned(ours: list, theirs: list) -> tuple[dict, list]:
    """agdebug's node index -> torch's, where the names line up; and the differing runs."""
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    mapping, differences = {}, []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            mapping.update(zip(range(i1, i2), range(j1, j2)))
        else:
            differences.append((ours[i1:i2], theirs[j1:j2]))
    return mapping, differences


def test_a_transformer_step_is_agdebugs_outside_torchs_fused_kernels():
    ours, theirs = outline(_recorded(ag)), outline(_recorded(torch))
    mapping, differences = _aligned([n for n, _ in ours["nodes"]],
                                    [n for n, _ in theirs["nodes"]])
    assert differences == DIFFERENCES
    assert len(mapping) > 40
    for i, j in mapping.items():   # the same edges between the nodes both have
        for (a, nr), (b, their_nr) in zip(ours["nodes"][i][1], theirs["nodes"][j][1]):
            if a in mapping:
                assert (mapping[a], nr) == (b, their_nr), ours["nodes"][i][0]
    ran = [mapping[i] for i, _ in ours["runs"] if i in mapping]
    assert ran == [j for j, _ in theirs["runs"] if j in mapping.values()]
    assert [g[1:3] for g in ours["grads"]] == [g[1:3] for g in theirs["grads"]]
    assert [mapping[i] for i in ours["released"] if i in mapping] == \
        [j for j in theirs["released"] if j in mapping.values()]
    names = {mapping[i]: n for i, n in enumerate(ours["names"]) if i in mapping}
    assert names == {j: n for j, n in enumerate(theirs["names"]) if j in mapping.values()}
