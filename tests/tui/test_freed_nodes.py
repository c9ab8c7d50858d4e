"""Pilot tests: hiding freed nodes (h), and the mlp demo's end screen showing its graph."""

from __future__ import annotations

from agdebug_tui import AgDebugApp
from agdebug_tui.commands import agdebug_commands
from agdebug_tui.graphview import GraphView
from agdebug_tui.layout import BOX_HEIGHT

from .helpers import load, run


def boxes_in_view(graph: GraphView) -> list[int]:
    x, y = int(graph.scroll_offset.x), int(graph.scroll_offset.y)
    width, height = graph.scrollable_content_region.size
    return [n for n, b in graph.graph.boxes.items()
            if b.x < x + width and b.x + b.w > x and b.y < y + height and b.y + BOX_HEIGHT > y]


def test_the_mlp_demos_end_screen_shows_the_graph():
    async def go():
        app = AgDebugApp(trace=load("mlp"), title="mlp")
        async with app.run_test(size=(80, 24)) as pilot:
            graph = app.query_one(GraphView)
            app.goto(len(app.events) // 2)             # scrolled somewhere mid-way first
            await pilot.pause()
            await pilot.press("G")
            await pilot.pause()
            assert app.shown_node not in graph.graph.boxes   # it follows a node with no box
            assert boxes_in_view(graph)
            assert max(graph.graph.boxes) in boxes_in_view(graph)   # the newest one
    run(go())


def test_h_hides_freed_nodes_and_the_title_counts_them():
    async def go():
        app = AgDebugApp(trace=load("mlp"), title="mlp")
        async with app.run_test(size=(120, 40)) as pilot:
            graph = app.query_one(GraphView)
            app.goto(app.index.backwards[-1])          # the last iteration, about to run
            await pilot.pause()
            state = app.state
            freed = {i for i, n in state.nodes.items() if n.status == "freed"}
            assert freed & set(graph.graph.boxes)       # shown: the most recent freed ones
            await pilot.press("h")
            await pilot.pause()
            assert not freed & set(graph.graph.boxes) and graph.graph.boxes
            assert set(graph.graph.boxes) == set(state.nodes) - freed
            assert graph.border_title == (f"graph ({len(state.nodes) - len(freed)} nodes, "
                                          f"{len(freed)} freed hidden)")
            await pilot.press("h")
            await pilot.pause()
            assert freed & set(graph.graph.boxes)
            assert "freed hidden" in graph.border_title         # past the 64 kept
            titles = [c.title for c in agdebug_commands(app)]
            assert "Hide freed nodes" in titles
    run(go())
