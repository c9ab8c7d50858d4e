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
            # The last step frees the last iteration's AccumulateGrad: the view follows it
            # among that iteration's graph (the earlier ones left when their next backward
            # started).
            assert app.shown_node in boxes_in_view(graph)
            assert app.state.nodes[app.shown_node].status == "freed"
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
            assert set(graph.graph.boxes) == set(state.nodes)   # (fewer than the 64 kept)
            assert graph.border_title == f"graph ({len(state.nodes)} nodes)"
            titles = [c.title for c in agdebug_commands(app)]
            assert "Hide freed nodes" in titles
    run(go())


def test_past_64_freed_nodes_only_the_newest_are_drawn():
    """Graphs freed with no backward after them (forward passes only) stay in the state:
    the view draws the 64 freed most recently made, and the title counts the rest."""
    import agdebug as ag
    from agdebug.debug import record
    from agdebug_tui.layouts import FREED_SHOWN

    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(50):
            (x * 2).sum()   # two nodes, freed at once: 100 freed, no backward
    state = trace.timeline().final
    freed = [n for n in state.nodes.values() if n.status == "freed"]
    assert len(freed) > FREED_SHOWN

    async def go():
        app = AgDebugApp(trace=trace, title="forward only")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("G")
            await pilot.pause()
            graph = app.query_one(GraphView)
            newest = sorted(freed, key=lambda n: n.created_step)[-FREED_SHOWN:]
            # (drawn as a box, or inside a group's box: past 60 nodes, one line's are one)
            drawn = set(graph.graph.boxes).union(*graph.graph.chains.values())
            assert {n.id for n in newest} <= drawn
            hidden = len(state.nodes) - len(drawn)
            assert hidden > 0 and f"{hidden} freed hidden" in graph.border_title
    run(go())


def _fully_in_view(graph: GraphView, node: int) -> bool:
    box = graph.graph.boxes[node]
    x, y = int(graph.scroll_offset.x), int(graph.scroll_offset.y)
    width, height = graph.scrollable_content_region.size
    return x <= box.x and box.x + box.w <= x + width and y <= box.y and \
        box.y + box.h <= y + height


def test_the_followed_box_is_whole_in_view_beside_the_scrollbars():
    """Stepping at 80x24, the box followed is never left with an edge under a scrollbar."""
    async def go():
        app = AgDebugApp(trace=load("mlp"), title="mlp")
        async with app.run_test(size=(80, 24)) as pilot:
            graph = app.query_one(GraphView)
            await pilot.pause()
            for _ in range(12):
                await pilot.pause()
                if app.shown_node in graph.graph.boxes:
                    assert _fully_in_view(graph, app.shown_node), app.step
                await pilot.press("space")
    run(go())


def test_a_box_revealed_in_a_new_larger_layout_clears_the_scrollbars_it_brings():
    """Scrollbars appear on the refresh after a layout outgrows the view: a box revealed
    at once (here the rightmost, flush with the edge they then cover) is scrolled again."""
    from agdebug_tui.layout import layout

    async def go():
        trace = load("mlp")
        app = AgDebugApp(trace=trace, title="mlp", start=1)     # a graph that fits
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            graph = app.query_one(GraphView)
            assert not graph.show_vertical_scrollbar and not graph.show_horizontal_scrollbar
            big = layout(trace.timeline().state(len(trace.events) // 2).nodes)
            graph.set_layout(big)
            right = max(big.boxes, key=lambda n: big.boxes[n].x + big.boxes[n].w)
            # The reveal ``reveal`` asks for, run before the scrollbars came (a terminal's
            # timing: the pilot's own refreshes would run it after them).
            graph._wanted = right
            graph._reveal(right)
            await pilot.pause()
            await pilot.pause()              # (they come, then the box is scrolled again)
            assert graph.show_vertical_scrollbar and graph.show_horizontal_scrollbar
            assert _fully_in_view(graph, right)
    run(go())
