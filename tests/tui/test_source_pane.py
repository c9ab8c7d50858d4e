"""Pilot tests of the source pane: the step's line in the user's file, from a replayed trace."""

from __future__ import annotations

from dataclasses import replace

from agdebug_tui import AgDebugApp
from agdebug_tui.graphview import GraphView
from agdebug_tui.sourceview import MAX_BYTES, SourceView, read_source

from agdebug.cli import run_script
from agdebug.debug import Trace
from agdebug.demos import SCRIPTS

from .helpers import load, run

SCRIPT = """\
import agdebug as torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
def hook(grad):
    return grad * 2
x.register_hook(hook)
y = (x * x).sum()   # [red]not markup[/red] [@click=app.quit] \x1b]0;title\x07
y.backward()
y.backward()
"""
FORWARD, HOOK, BACKWARD, SECOND = 6, 3, 7, 8    # line numbers in SCRIPT


def recorded(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT, encoding="utf-8")
    trace = tmp_path / "prog.agtrace"
    run_script(str(script), [], str(trace))
    return script, trace


def step_after(app, kind: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(app.events) if e.kind == kind][nth] + 1


def marked(app) -> int:
    """The line number the pane marks (1-based), after checking the row says so."""
    view = app.query_one(SourceView)
    text, _ = view.line(view.mark)
    assert text.split()[0] == f"{view.mark + 1}▶"
    return view.mark + 1


def test_the_line_follows_forward_backward_hook_and_error_steps_and_back(tmp_path):
    script, trace = recorded(tmp_path)

    async def go():
        app = AgDebugApp(trace_path=trace)
        async with app.run_test(size=(120, 40)) as pilot:
            while app.history is None:
                await pilot.pause()
            view = app.query_one(SourceView)
            assert view.display and app.query_one(GraphView).display   # both at 120x40
            app.goto(step_after(app, "node_created", 1))          # MulBackward0
            assert view.path == script and marked(app) == FORWARD
            app.goto(step_after(app, "node_started"))
            assert marked(app) == BACKWARD
            app.goto(step_after(app, "hook_called"))
            assert marked(app) == HOOK
            app.goto(step_after(app, "error"))                     # the second backward
            assert marked(app) == SECOND
            app.goto(step_after(app, "backward_started"))
            await pilot.press("p")                                 # back into the forward
            assert app.events[app.step - 1].kind == "node_created" and marked(app) == FORWARD
            await pilot.pause()
            top = int(view.scroll_offset.y)
            assert top <= FORWARD - 1 < top + view.scrollable_content_region.height
    run(go())


def test_source_text_is_shown_plainly_markup_and_control_characters_escaped(tmp_path):
    _, trace = recorded(tmp_path)

    async def go():
        app = AgDebugApp(trace_path=trace)
        async with app.run_test(size=(120, 40)) as pilot:
            while app.history is None:
                await pilot.pause()
            app.goto(step_after(app, "node_created", 1))
            await pilot.pause()
            text, _ = app.query_one(SourceView).line(FORWARD - 1)
            assert "[red]not markup[/red] [@click=app.quit]" in text
            assert "\\x1b]0;title\\x07" in text and "\x1b" not in text
            svg = app.export_screenshot()
            assert "not&#160;markup" in svg and app.is_running   # drawn, and no action ran
    run(go())


def test_a_missing_file_says_so_in_one_line(tmp_path):
    script, trace = recorded(tmp_path)
    script.unlink()

    async def go():
        app = AgDebugApp(trace_path=trace)
        async with app.run_test(size=(120, 40)) as pilot:
            while app.history is None:
                await pilot.pause()
            app.goto(step_after(app, "node_started"))
            view = app.query_one(SourceView)
            assert view.count == 1 and view.path is None
            assert "prog.py is not on this machine" in view.line(0)[0]
    run(go())


def test_a_huge_or_binary_file_is_a_one_line_note(tmp_path):
    binary, huge = tmp_path / "b.py", tmp_path / "h.py"
    binary.write_bytes(b"x = 1\n\0\0")
    huge.write_bytes(b"#" * (MAX_BYTES + 1))
    assert "not a UTF-8 text file" in read_source(binary)
    assert "not shown (1.0 MB" in read_source(huge)
    assert read_source(tmp_path / "none.py").startswith("none.py: cannot be read")


def _without_backward_lines(trace):
    """``trace`` as a recorder older than backward lines wrote it."""
    return Trace([replace(e, source="", source_path="") if e.kind == "backward_started" else e
                  for e in trace.events])


def test_an_old_trace_without_the_backward_line_shows_the_running_nodes_line():
    async def go():
        app = AgDebugApp(trace=_without_backward_lines(load("retain-graph")),
                         source_dirs=[SCRIPTS])
        async with app.run_test(size=(120, 40)):
            app.goto(step_after(app, "node_started"))
            view = app.query_one(SourceView)
            assert view.path.name == "retain_graph.py"          # found among the demos
            line = app.index.sources[app.state.current]
            assert line.startswith(f"retain_graph.py:{marked(app)}:")
    run(go())


def test_s_shows_the_source_in_the_graphs_place_at_80x24_and_hides_it_at_120x40():
    async def go():
        app = AgDebugApp(trace=load("retain-graph"), source_dirs=[SCRIPTS])
        async with app.run_test(size=(80, 24)) as pilot:
            view, graph = app.query_one(SourceView), app.query_one(GraphView)
            assert not view.display and graph.display
            await pilot.press("s")                      # hidden since the app opened
            await pilot.pause()
            assert view.display and not graph.display and view.size.height >= 8
            top = int(view.scroll_offset.y)             # the line scrolled into view
            assert top < view.mark < top + view.scrollable_content_region.height - 1
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not view.display and graph.display       # toggled: hidden on a tall one
            await pilot.press("s")
            assert view.display and graph.display
    run(go())
