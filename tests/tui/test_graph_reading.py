"""A graph you can read: zoom levels, fit, follow, collapsed chains, saved tensors' versions
and source files found by the path the events recorded."""

from __future__ import annotations

from agdebug_tui import AgDebugApp
from agdebug_tui.graphview import GraphView
from agdebug_tui.inspector import Inspector
from agdebug_tui.layout import LEVELS, fitting_level, layout
from agdebug_tui.sourceview import SourceView

import agdebug as ag
from agdebug.cli import run_script
from agdebug.debug import record
from agdebug.debug.chains import linear_chains
from agdebug.debug.state import NodeView
from agdebug.events.records import event_from_dict

from .helpers import load, run, until
from .test_layout import diamond, text


def long_chain(n: int) -> dict:
    """Sum <- n Sin nodes <- AccumulateGrad, and a second input to Sum (a branch)."""
    nodes = {1: NodeView(1, "AccumulateGrad")}
    for i in range(2, n + 2):
        nodes[i] = NodeView(i, "SinBackward0", edges=((i - 1, 0),))
    nodes[n + 2] = NodeView(n + 2, "SumBackward0", edges=((n + 1, 0), (1, 0)))
    return nodes


def chain_trace(n: int = 12):
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = x
        for _ in range(n):
            y = y.sin()
        (y * x).sum().backward()
    return trace


def texts(app) -> str:
    graph = app.query_one(GraphView).graph
    return "\n".join(text(graph))


# ----------------------------------------------------------------------------- layout


def test_each_level_draws_every_node_smaller_than_the_last():
    sizes = []
    for level in LEVELS:
        lay = layout(diamond(), level.name)
        assert set(lay.boxes) == set(diamond()) and lay.level == level.name
        assert all(box.h == level.height for box in lay.boxes.values())
        sizes.append((lay.width, lay.height))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[1] > sizes[2]
    assert "AddBackward0" in "\n".join(text(layout(diamond(), "compact")))
    assert text(layout(diamond(), "dot"))[0].strip() == "●"


def test_fitting_picks_the_most_detailed_level_that_fits():
    full = layout(diamond())
    assert fitting_level(diamond(), full.width, full.height) == (full, True)
    compact, fits = fitting_level(diamond(), full.width, full.height - 1)
    assert fits and compact.level == "compact"
    dots, fits = fitting_level(diamond(), 2, 2)
    assert not fits and dots.level == "dot"     # the best possible


def test_a_linear_chain_is_found_as_the_dot_renderer_defines_it_and_drawn_as_one_box():
    nodes = long_chain(12)
    chains = linear_chains(nodes)
    assert chains == [tuple(range(13, 1, -1))]  # head (nearest the output) first
    lay = layout(nodes, chains=chains)
    assert set(lay.boxes) == {1, 13, 14} and lay.chains == {13: chains[0]}
    drawn = "\n".join(text(lay))
    assert "12 nodes:" in drawn and "SinBackward0 → SinBackward0" in drawn
    assert layout(nodes, "compact", chains).height < layout(nodes, "compact").height
    assert "◆" in "\n".join(text(layout(nodes, "dot", chains)))


# ----------------------------------------------------------------------------- the app


def test_zoom_keys_change_the_level_and_fit_makes_the_graph_fit_the_view():
    async def go():
        app = AgDebugApp(trace=load("mlp"))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            graph = app.query_one(GraphView)
            assert app.zoom == "full" and graph.graph.level == "full"
            await pilot.press("minus")
            assert app.zoom == "compact" and graph.graph.level == "compact"
            await pilot.press("minus", "minus")
            assert app.zoom == "dot"                     # (no level below)
            await pilot.press("plus")
            assert app.zoom == "compact"
            await pilot.press("equals_sign")             # (+ without shift)
            assert app.zoom == "full"
            await pilot.press("z")
            await pilot.pause()
            lay, size = graph.graph, graph.size
            fits = lay.width <= size.width and lay.height <= size.height
            assert app.zoom == lay.level and (fits or lay.level == "dot")
            assert "graph (" in str(graph.border_title)
    run(go())


def test_fit_centres_a_small_graph_and_clicks_still_select_its_boxes():
    async def go():
        app = AgDebugApp(trace=load("diamond"))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("z")
            await pilot.pause()
            graph = app.query_one(GraphView)
            pad_x, pad_y = graph.padding()
            assert pad_x > 0 and abs(2 * pad_x + graph.graph.width - graph.size.width) <= 1
            box = graph.graph.boxes[min(graph.graph.boxes)]
            offset = graph.scroll_offset
            await pilot.click(GraphView, offset=(box.x - offset.x + pad_x + 1,
                                                 box.y - offset.y + pad_y + 1))
            assert app.selected == box.node
    run(go())


def boxes_in_view(graph) -> set:
    x, y = graph.scroll_offset
    width, height = graph.size
    return {n for n, b in graph.graph.boxes.items()
            if b.x < x + width and b.x + b.w > x and b.y < y + height and b.y + b.h > y}


def test_follow_brings_the_step_node_back_into_view_and_can_be_turned_off():
    async def go():
        app = AgDebugApp(trace=load("mlp"))
        async with app.run_test(size=(80, 24)) as pilot:
            app.action_next_node()
            await pilot.pause()
            graph = app.query_one(GraphView)
            assert app.shown_node in boxes_in_view(graph)
            graph.scroll_to(0, graph.max_scroll_y, animate=False, immediate=True)
            await pilot.pause()
            assert app.shown_node not in boxes_in_view(graph)
            app.action_step()                           # (the same node: it still follows)
            await pilot.pause()
            assert app.shown_node in boxes_in_view(graph)
            await pilot.press("F")
            assert not app.follow
            graph.scroll_to(0, graph.max_scroll_y, animate=False, immediate=True)
            await pilot.pause()
            app.action_next_node()
            await pilot.pause()
            assert graph.scroll_offset.y == graph.max_scroll_y   # the view stayed
    run(go())


def test_a_long_chain_is_one_box_until_the_step_is_inside_it():
    async def go():
        app = AgDebugApp(trace=chain_trace(12))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            graph = app.query_one(GraphView)
            assert len(graph.graph.chains) == 1 and "12 nodes:" in texts(app)
            (head, members), = graph.graph.chains.items()
            assert "1 chain collapsed" in str(graph.border_title)
            while app.state.current not in members:
                app.action_next_node()
            await pilot.pause()
            assert not graph.graph.chains and set(members) <= set(graph.graph.boxes)
            app.goto(len(app.events))                   # past it: collapsed again
            await pilot.pause()
            assert graph.graph.chains
            await pilot.press("x")                      # open them all
            assert not app.collapse_chains and not graph.graph.chains
            await pilot.press("x")
            app.select(members[3])                      # a selection inside opens it
            await pilot.pause()
            assert not graph.graph.chains
    run(go())


def test_the_inplace_error_shows_the_saved_version_and_the_version_now():
    async def go():
        trace = load("inplace")
        app = AgDebugApp(trace=trace)
        async with app.run_test(size=(120, 40)) as pilot:
            error = next(i for i, e in enumerate(app.events) if e.kind == "error")
            app.goto(error + 1)
            await pilot.pause()
            node = app.events[error].node
            inspector = app.query_one(Inspector)
            shown = inspector.text.plain
            assert "result: [3] float32 12B held, version 0" in shown
            assert "modified in place: t2 is at version 1; expected version 0" in shown
            assert app.query_one(GraphView).stale[node] == [("result", 0, 1)]
            # (the layout is made in a worker thread and the view scrolls to the box after
            # its refresh: on a loaded machine that is more than one pause)
            await until(pilot, lambda: "v1, saved v0" in
                        app.export_screenshot().replace("&#160;", " "))
    run(go())


def test_a_file_outside_the_searched_folders_is_found_by_its_recorded_path(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    script = folder / "far.py"
    script.write_text("import agdebug as torch\nx = torch.ones(2, requires_grad=True)\n"
                      "y = (x * 3).sum()\ny.backward()\n", encoding="utf-8")
    trace = tmp_path / "traces" / "far.agtrace"
    trace.parent.mkdir()
    run_script(str(script), [], str(trace))

    async def go():
        app = AgDebugApp(trace_path=trace)
        async with app.run_test(size=(120, 40)) as pilot:
            while app.history is None:
                await pilot.pause()
            app.goto(next(i for i, e in enumerate(app.events) if e.kind == "node_started"))
            view = app.query_one(SourceView)
            assert view.path == script and "far.py:4" in str(view.border_title)
    run(go())


def test_records_without_the_new_fields_still_load():
    event = event_from_dict({"kind": "node_created", "seq": 1, "node": 2, "name": "MulBackward0",
                             "op": "mul", "edges": [], "inputs": [], "outputs": [],
                             "saved": [{"name": "self", "tensor": 1, "shape": [2],
                                        "dtype": "float32", "nbytes": 8}],
                             "attrs": [], "source": "a.py:1: y = x * 2"})
    assert event.source_path == "" and event.saved[0].version == -1
