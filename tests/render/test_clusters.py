"""Big graphs summarised: groups of one module call or one source line drawn as one box."""

from __future__ import annotations

import re

import pytest

import agdebug as ag
from agdebug import nn
from agdebug.debug import record
from agdebug.events import records as r
from agdebug.events.records import event_from_dict
from agdebug.render.dot import DotOptions, to_dot
from agdebug.render.summary import MAX_DRAWN, TooLarge


def transformer_trace():
    ag.manual_seed(0)
    layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0)
    model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    with record() as trace:
        out = model(ag.randn(5, 3, 32))
        out.pow(2).mean().backward()
    return trace


def mlp_trace(layers: int):
    model = nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(4, 4), nn.Tanh())])
    with record() as trace:
        model(ag.randn(2, 4)).sum().backward()
    return trace


def drawn_nodes(text: str) -> list[str]:
    """The node statements of DOT ``text`` (not edges, defaults or the legend)."""
    return re.findall(r"^  ([nctog]\d+) \[", text, re.M)


def boxes(text: str) -> dict[str, str]:
    return dict(re.findall(r'^  (g\d+) \[label="([^"]*)", shape=box3d', text, re.M))


def test_a_transformer_overview_fits_in_a_few_boxes():
    trace = transformer_trace()
    state = trace.state()
    text = to_dot(state)
    assert len(drawn_nodes(text)) <= 25 < len(state.nodes)
    labels = set(boxes(text).values())
    # (torch's fused attention node: 30 nodes, as torch's own graph of this model has)
    assert "MultiheadAttention layers.0.self_attn — 30 nodes" in labels
    assert "Linear layers.1.linear2 — 6 nodes" in labels


def test_collapsed_counts_add_up():
    state = transformer_trace().state()
    text = to_dot(state)
    counted = sum(int(label.rsplit("— ", 1)[1].split()[0]) for label in boxes(text).values())
    singles = [k for k in drawn_nodes(text) if k.startswith("n")]
    assert counted + len(singles) == len(state.nodes)


def test_edges_into_a_box_are_merged_and_counted():
    with record() as trace:
        x = ag.ones(3, requires_grad=True)
        y = x
        for _ in range(40):
            y = y * 1.5 + y * 0.5
        (y * y).sum().backward()
    text = to_dot(trace.state(), DotOptions(max_nodes=10))
    found = {label.split(" — ")[1]: key for key, label in boxes(text).items()}
    assert set(found) == {"121 nodes", "2 nodes"}   # the loop's line with x's AccumulateGrad
    # y * y: two edges from the last line's box into the loop's, drawn as one, counted
    assert f'{found["2 nodes"]} -> {found["121 nodes"]} [label="[3] ×2"]' in text


def test_expand_draws_the_inside():
    state = transformer_trace().state()
    closed = to_dot(state)
    opened = to_dot(state, DotOptions(expand=("layers.0.self_attn",)))
    assert "layers.0.self_attn — 30" in closed and "layers.0.self_attn — 30" not in opened
    assert any("layers.1" in label for label in boxes(opened).values())   # still summarised
    flash = "ScaledDotProductFlashAttentionForCpuBackward0"   # (torch's fused attention node)
    assert flash in opened and flash not in closed


def test_expand_by_source_line():
    with record() as trace:
        x = ag.ones(2, requires_grad=True)
        a = x
        for _ in range(40):
            a = a * 1.1
        b = x
        for _ in range(40):
            b = b + 1
        (a * b).sum().backward()
    line = int(re.search(r"line (\d+): b = b \+ 1", to_dot(trace.state())).group(1))
    opened = to_dot(trace.state(), DotOptions(expand=(str(line),)))
    assert opened.count("label=\"AddBackward0") == 40 and "a = a * 1.1 — 40 nodes" in opened


def test_frames_share_the_boxes_and_colour_them_by_status():
    trace = transformer_trace()
    timeline = trace.timeline()
    layout = DotOptions(layout=timeline.final)
    first = to_dot(timeline.state(timeline.steps_of("backward_started")[0]), layout)
    last = to_dot(timeline.final, layout)
    assert drawn_nodes(first) == drawn_nodes(last)
    box = next(iter(boxes(last)))
    fills = [re.search(rf"^  {box} \[.*fillcolor=\"(#\w+)\"", t, re.M).group(1)
             for t in (first, last)]
    assert fills == ["#ffffff", "#b7e4c7"]   # created, then done


def test_an_export_over_the_cap_refuses_in_one_line():
    state = mlp_trace(80).state()
    assert len(drawn_nodes(to_dot(state))) <= 45
    with pytest.raises(TooLarge) as info:
        to_dot(state, DotOptions(expand=("all",)))
    message = str(info.value)
    assert "\n" not in message and "--focus" in message and "--expand" in message
    assert f"at most {MAX_DRAWN}" in message


def test_the_cli_refuses_in_one_line(tmp_path, capsys):
    from agdebug.cli import main
    path = tmp_path / "t.agtrace"
    mlp_trace(80).save(path)
    assert main(["export", str(path), "-f", "dot", "-o", str(tmp_path / "g.dot"),
                 "--expand", "all"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("agdebug: the diagram would draw") and "\n" not in err
    assert main(["export", str(path), "-f", "dot", "-o", str(tmp_path / "g.dot"),
                 "--expand", "5"]) == 0


def test_old_traces_without_module_fields_load():
    event = r.NodeCreated(seq=1, node=1, name="MulBackward0", op="mul", edges=(), inputs=(),
                          outputs=(), saved=(), attrs=(), source="a.py:1: y = x * 2")
    data = event.to_dict()
    del data["module"], data["module_type"]
    old = event_from_dict(data)
    assert old == event and old.module == "" and old.module_type == ""
