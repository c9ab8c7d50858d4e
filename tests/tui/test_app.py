"""Pilot tests: every binding and panel of the debugger, on committed demo traces."""

from __future__ import annotations

from agdebug_tui import AgDebugApp
from agdebug_tui import stepping
from agdebug_tui.graphview import GraphView
from agdebug_tui.inspector import Inspector
from agdebug_tui.lines import LineList
from agdebug_tui.timeline import EventList, EventsTab
from textual.widgets import Input, TabbedContent

from .helpers import load, run, until

SIZE = (100, 32)


def app_for(name="retain-graph", **kwargs):
    return AgDebugApp(trace=load(name), title=name, **kwargs)


def inspector_text(app) -> str:
    return app.query_one(Inspector).text.plain


def test_opens_at_the_first_backward_and_steps_both_ways():
    async def go():
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            first = app.index.backwards[0]
            assert app.step == first
            await pilot.press("space")
            assert app.step == first + 1 and app.events[app.step - 1].kind == "backward_started"
            await pilot.press("n")
            await pilot.press("p")
            assert app.step == first + 1
            await pilot.press("backspace")
            assert app.step == first
            await pilot.press("G")
            assert app.step == len(app.events)
            await pilot.press("space")          # at the end: a notice, no move
            assert app.step == len(app.events)
            await pilot.press("g")
            assert app.step == 0
    run(go())


def test_next_node_goes_to_each_node_started_and_the_graph_follows():
    async def go():
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("N")
            event = app.events[app.step - 1]
            assert event.kind == "node_started" and app.state.current == event.node
            assert app.query_one(GraphView).state.nodes[event.node].status == "running"
            assert "SumBackward0" in inspector_text(app)
            await pilot.press("N")
            assert "MulBackward0" in inspector_text(app) and "saved" in inspector_text(app)
            assert "retain_graph.py:" in inspector_text(app)   # the forward source line
    run(go())


def test_continue_stops_at_breakpoints_on_nodes_ops_and_errors():
    async def go():
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("N", "N")             # at MulBackward0
            mul = app.state.current
            await pilot.press("g")
            app.select(mul)
            await pilot.press("b")
            assert mul in app.breakpoints.nodes
            await pilot.press("c")
            assert app.events[app.step - 1].kind == "node_started" and app.state.current == mul
            await pilot.press("b")                    # toggles it off
            assert not app.breakpoints.nodes
            assert app.breakpoints.errors             # on from the start, as in pdb
            await pilot.press("c")
            assert app.events[app.step - 1].kind == "error"
            assert "Trying to backward" in app.state.last_error.message
            stepping.clear_breakpoints(app)
            stepping.break_on_op(app, "sum")
            await pilot.press("c")
            assert app.events[app.step - 1].op == "sum"
            stepping.clear_breakpoints(app)
            await pilot.press("c")
            assert app.step == len(app.events)
    run(go())


def test_selecting_nodes_by_keys_and_mouse_and_escape():
    async def go():
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            graph = app.query_one(GraphView)
            await pilot.press("right_square_bracket")
            first = app.selected
            assert first in graph.graph.boxes
            await pilot.press("right_square_bracket")
            assert app.selected != first
            await pilot.press("left_square_bracket")
            assert app.selected == first
            await pilot.press("escape")
            assert app.selected == 0
            box = graph.graph.boxes[min(graph.graph.boxes)]
            graph.reveal(box.node)                    # (below the fold at this size)
            await pilot.pause()
            offset, (pad_x, pad_y) = graph.scroll_offset, graph.padding()   # (centred)
            await pilot.click(GraphView, offset=(box.x - offset.x + pad_x + 1,
                                                 box.y - offset.y + pad_y + 1))
            assert app.selected == box.node
    run(go())


def test_timeline_search_filter_and_jump_by_click():
    async def go():
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("slash")
            search = app.query_one("#search", Input)
            assert search.has_focus
            await pilot.press(*"kind:error")
            assert [app.events[i].kind for i in app.query_one(EventList).shown] == ["error"]
            await pilot.press("enter")
            assert app.events[app.step - 1].kind == "error"
            await pilot.press("escape")
            assert not search.has_class("shown")
            app.query_one(EventsTab).set_filter("saved_released")
            events = app.query_one("#events", LineList)
            await pilot.pause()
            await pilot.click("#events", offset=(5, 0))
            assert app.step == events.shown[0] + 1
            assert events.count == len(events.shown) == 2
    run(go())


def test_order_memory_and_output_panels():
    async def go():
        app = app_for("retain-graph", output="Step 1: y = (x * w).sum()\n")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("N", "N", "N")
            tabs = app.query_one("#bottom", TabbedContent)
            tabs.active = "tab-order"
            await pilot.pause()
            order = app.query_one("#order", LineList)
            rows = [order.line(i)[0] for i in range(order.count)]
            assert rows[0].strip().startswith("1. SumBackward0") and "MulBackward0" in rows[1]
            tabs.active = "tab-memory"
            await pilot.pause()
            memory = str(app.query_one("#memory-text").render())
            assert "saved tensors held" in memory and "GC passes" in memory
            tabs.active = "tab-output"
            await pilot.pause()
            assert "Step 1" in "\n".join(app.query_one("#output").lines)
    run(go())


def test_memory_panel_shows_a_live_cycle_with_its_path():
    async def go():
        app = app_for("create-graph-cycle")
        async with app.run_test(size=SIZE) as pilot:
            step = next(i for i, e in enumerate(app.events) if e.kind == "cycle_detected")
            app.goto(step + 1)
            app.query_one("#bottom", TabbedContent).active = "tab-memory"
            await pilot.pause()
            assert "cycle: t" in str(app.query_one("#memory-text").render())
    run(go())


def test_export_help_focus_palette_and_quit(tmp_path):
    async def go():
        app = app_for(export_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            app.export_format = "dot"
            await pilot.press("e")
            await app.workers.wait_for_complete()
            written = list(tmp_path.glob("*.dot"))
            assert written and "digraph" in written[0].read_text()
            await pilot.press("question_mark")
            assert app.screen.__class__.__name__ == "HelpScreen"
            await pilot.press("escape")
            assert app.screen.__class__.__name__ != "HelpScreen"
            await pilot.press("N", "N", "f")
            assert app.focus_mode
            focused = set(app.query_one(GraphView).graph.boxes)
            assert app.state.current in focused
            await pilot.press("f")
            assert not app.focus_mode
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert {"Break on NaN/Inf", "Break on op: mul", "Export as svg"} <= set(titles)
            await pilot.press("ctrl+p")
            assert app.screen.__class__.__name__ == "CommandPalette"
            await pilot.press("escape")
            await pilot.press("q")
        assert app.return_code == 0
    run(go())


def test_a_terminal_too_small_says_so_and_80x24_works():
    async def go():
        app = app_for()
        async with app.run_test(size=(50, 12)) as pilot:
            await pilot.pause()
            assert app.screen.has_class("small")
            assert "too small" in str(app.query_one("#too-small").render())
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert not app.screen.has_class("small")
            assert app.query_one(GraphView).size.height >= 8
    run(go())


def test_a_corrupt_trace_ends_the_app_with_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.agtrace"
    bad.write_text('{"format":"agdebug-trace","version":1}\n{"kind": "nope"}\n')

    async def go():
        app = AgDebugApp(trace_path=bad)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.error)
        assert app.return_code == 2 and "bad.agtrace:2" in app.error

    run(go())


def test_a_trace_file_loads_off_the_ui_thread():
    from .helpers import TRACES

    async def go():
        app = AgDebugApp(trace_path=TRACES / "diamond.agtrace")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.history is not None)
            await pilot.press("N")
            assert app.events[app.step - 1].kind == "node_started"
    run(go())
