"""What the panels show: the current row in view, text inside the visible area, box lines
and titles that match the state (issue 24's display bugs)."""

from __future__ import annotations

import pytest
from agdebug_tui import AgDebugApp
from agdebug_tui.graphview import GraphView, live_text
from agdebug_tui.inspector import Inspector
from agdebug_tui.lines import LineList

from .helpers import load, run


def visible(view) -> range:
    top = int(view.scroll_offset.y)
    return range(top, top + view.scrollable_content_region.height)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_current_event_never_hides_under_a_scrollbar(size):
    async def go():
        app = AgDebugApp(trace=load("mlp"), title="mlp")
        async with app.run_test(size=size) as pilot:
            await pilot.press("g")
            view = app.query_one("#events", LineList)
            for _ in range(16):
                await pilot.press("space")
                await pilot.pause()
                assert view.mark == app.step - 1 and view.mark in visible(view)
            assert not view.show_horizontal_scrollbar
    run(go())


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_inspector_wraps_inside_its_scrollbar(size):
    async def go():
        app = AgDebugApp(trace=load("retain-graph"), title="retain-graph")
        async with app.run_test(size=size) as pilot:
            await pilot.press("N", "N")
            await pilot.pause()
            inspector = app.query_one(Inspector)
            assert inspector.show_vertical_scrollbar      # the case: text longer than the pane
            width = inspector.scrollable_content_region.width
            assert max(s.cell_length for s in inspector._strips) <= width
            assert not inspector.show_horizontal_scrollbar
    run(go())


def _scalar_saving_trace():
    import agdebug as ag
    from agdebug.debug import record
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
    return trace


def test_a_node_that_saved_only_a_number_is_not_freed_before_the_backward():
    trace = _scalar_saving_trace()
    first = next(i for i, e in enumerate(trace.events) if e.kind == "backward_started")
    state = trace.timeline().state(first)
    mul = next(n for n in state.nodes.values() if n.name == "MulBackward0")
    assert mul.saved and all(s.nbytes == 0 for s in mul.saved)
    assert live_text(mul, state) == "saved 0B"
    end = trace.timeline().state(len(trace.events))
    assert live_text(end.nodes[mul.id], end) == "saved: freed"


def test_the_graph_title_counts_the_boxes_of_a_reused_layout():
    async def go():
        app = AgDebugApp(trace=load("retain-graph"), title="retain-graph")
        async with app.run_test(size=(100, 32)) as pilot:
            graph = app.query_one(GraphView)
            created = [i + 1 for i, e in enumerate(app.events) if e.kind == "node_created"]
            for step in (created[1], created[2], created[1]):   # back to a cached layout
                app.goto(step)
                await pilot.pause()
                assert graph.border_title == f"graph ({len(graph.graph.boxes)} nodes)"
    run(go())


def test_the_view_follows_the_node_a_freeing_event_is_about():
    """At ``AccumulateGrad of leaf x is freed`` (no backward running) the inspector shows that
    node and the graph scrolls to its box, instead of keeping the last view."""
    async def go():
        app = AgDebugApp(trace=load("retain-graph"), title="retain-graph")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("end")
            await pilot.pause()
            event = app.events[app.step - 1]
            assert event.kind == "node_freed"
            assert app.shown_node == event.node
            text = "".join(s.text for s in app.query_one(Inspector)._strips)
            assert text.startswith("AccumulateGrad")
    run(go())
