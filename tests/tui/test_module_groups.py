"""A real model's graph in the terminal: past 60 nodes, the nodes of one module call are
one box (as in the exports), but for the call holding the node the step is about."""

from __future__ import annotations

from agdebug_tui import AgDebugApp
from agdebug_tui.graphview import GraphView
from agdebug_tui.layout import collapse, layout
from agdebug_tui.layouts import GROUP_ABOVE

import agdebug as ag
from agdebug.debug import record
from agdebug.debug.state import NodeView

from .helpers import run
from .test_layout import text


def _model_trace():
    """A 12-block MLP (Linear, Tanh each): about 80 nodes, trained one step."""
    ag.manual_seed(0)
    blocks = [layer for _ in range(12) for layer in (ag.nn.Linear(3, 3), ag.nn.Tanh())]
    model = ag.nn.Sequential(*blocks)
    with record() as trace:
        loss = model(ag.randn(2, 3)).sum()
        loss.backward()
    return trace


def test_a_group_is_drawn_as_one_box_whose_edges_are_those_leaving_it():
    # 5 <- {4, 3} <- 2 <- 1, and 5 -> 1 around the group: 4 and 3 are one group
    nodes = {1: NodeView(1, "AccumulateGrad"), 2: NodeView(2, "MulBackward0", edges=((1, 0),)),
             3: NodeView(3, "TanhBackward0", edges=((2, 0),)),
             4: NodeView(4, "AddBackward0", edges=((3, 0), (2, 0))),
             5: NodeView(5, "SumBackward0", edges=((4, 0), (3, 0), (1, 0)))}
    drawn = collapse(nodes, [(4, 3)])
    assert set(drawn) == {1, 2, 4, 5}
    assert drawn[4].edges == ((2, 0),)                     # (two members sent to 2: one edge)
    assert drawn[5].edges == ((4, 0), (1, 0))              # into the group: to its first
    lay = layout(nodes, "full", [(4, 3)], {4: "Block blocks.0 — 2 nodes"})
    assert set(lay.boxes) == {1, 2, 4, 5} and lay.chains == {4: (4, 3)}
    assert any("Block blocks.0" in row and "2 nodes" not in row for row in text(lay))
    assert any("2 nodes" in row for row in text(lay))


def test_a_model_past_60_nodes_shows_its_module_calls_as_boxes_but_the_one_stepped_in():
    trace = _model_trace()
    assert len(trace.state().nodes) > GROUP_ABOVE

    async def go():
        app = AgDebugApp(trace=trace, title="model")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            graph = app.query_one(GraphView)
            assert "groups collapsed" in str(graph.border_title)
            rows = text(graph.graph)
            assert any("Linear 22" in row for row in rows)   # (a call's box: its module,
            assert any("4 nodes" in row for row in rows)     # and how many nodes it holds)
            seen = 0
            while app.step < len(app.events):   # the node stepped on is always its own box
                app.action_next_node()
                await pilot.pause()
                current = app.state.current
                if current:
                    seen += 1
                    assert current in graph.graph.boxes, app.step
                    assert not any(current in members[1:]
                                   for members in graph.graph.chains.values())
            assert seen > GROUP_ABOVE
            await pilot.press("x")                       # every box open
            await pilot.pause()
            assert not graph.graph.chains
            assert len(graph.graph.boxes) == len(app.state.nodes)
    run(go())
