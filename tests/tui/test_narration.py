"""The debugger explains: the step's sentence on screen, sentences in the events list (raw
fields one key away), errors that stop ``c``, and the legend of the graph's colours."""

from __future__ import annotations

import textwrap

import pytest
from agdebug_tui import AgDebugApp
from agdebug_tui.graphview import STATUS_STYLES, GraphView
from agdebug_tui.inspector import Inspector
from agdebug_tui.lines import LineList
from agdebug_tui.narration import NarrationBar
from agdebug_tui.screens import HelpScreen
from agdebug_tui.timeline import EventsTab
from textual.widgets._footer import FooterKey

from agdebug.debug.narration import Narrator
from agdebug.events.records import describe

from .helpers import load, run, until


def app_for(name="retain-graph"):
    return AgDebugApp(trace=load(name), title=name)


def bar_text(app) -> str:
    return app.query_one(NarrationBar).text.plain


def shown_lines(app) -> list:
    """The text of the narration bar's rows as drawn (wrapped to its width)."""
    bar = app.query_one(NarrationBar)
    return ["".join(s.text for s in strip) for strip in bar._strips]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_steps_sentence_is_on_screen_wrapped(size):
    async def go():
        app = app_for()
        narrator = Narrator(app.trace.events)
        async with app.run_test(size=size) as pilot:
            await pilot.press("N", "N")                       # MulBackward0 runs
            said = narrator.sentence(app.step - 1)
            assert said.startswith("MulBackward0 (`y = (x * w).sum()`, line 28) runs")
            assert bar_text(app) == f"▶ {said}"
            bar = app.query_one(NarrationBar)
            assert bar.region.height == 3 and bar.region.bottom <= size[1]
            lines = shown_lines(app)
            assert " ".join(line.strip() for line in lines) == f"▶ {said}"
            assert len(lines) <= 3 and all(len(line) <= size[0] for line in lines)
            await pilot.press("p")
            assert bar_text(app) == f"▶ {narrator.sentence(app.step - 1)}"
    run(go())


def test_the_events_list_shows_sentences_and_r_shows_the_raw_fields():
    async def go():
        app = app_for()
        narrator = Narrator(app.trace.events)
        async with app.run_test(size=(120, 40)) as pilot:
            events = app.query_one("#events", LineList)
            index = events.shown[12]
            assert events.line(12)[0] == f"{index + 1:>6} {narrator.sentence(index)}"
            await pilot.press("r")
            assert events.line(12)[0] == f"{index + 1:>6} {describe(app.events[index])}"
            await pilot.press("r")
            assert events.line(12)[0].endswith(narrator.sentence(index))
            tab = app.query_one(EventsTab)
            tab.set_filter("releases")             # a search finds words of the sentences...
            assert {app.events[i].kind for i in events.shown} == {"saved_released"}
            tab.set_filter("saved_released")       # ...and of the raw fields
            assert {app.events[i].kind for i in events.shown} == {"saved_released"}
    run(go())


def test_c_stops_at_an_error_with_its_node_selected_in_view_and_the_whole_message():
    async def go():
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("c")
            await pilot.pause()
            error = app.events[app.step - 1]
            assert error.kind == "error" and len(error.message) > 300
            graph = app.query_one(GraphView)
            assert graph.selected == error.node
            box = graph.graph.boxes[error.node]
            top, left = int(graph.scroll_offset.y), int(graph.scroll_offset.x)
            assert top <= box.y and box.y + 5 <= top + graph.size.height
            assert left <= box.x and box.x + box.w <= left + graph.size.width
            lines = app.query_one(Inspector).text.plain.splitlines()
            assert lines[0].startswith("MulBackward0")
            assert lines[1] == f"error: RuntimeError: {error.message}"
            assert bar_text(app).endswith(f"RuntimeError: {error.message}")
            await pilot.press("space")                       # past the error: deselected
            assert graph.selected == 0
    run(go())


def test_l_shows_the_legend_of_every_status_and_mark():
    async def go():
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            inspector = app.query_one(Inspector)
            await pilot.press("l")
            text = inspector.text.plain
            assert inspector.border_title == "legend"
            for status in STATUS_STYLES:
                assert f" {status} " in text
            assert "double red border: the current node" in text
            await pilot.press("space")                       # it stays while stepping
            assert inspector.text.plain == text
            await pilot.press("l")
            assert inspector.border_title == "inspector" and inspector.text.plain != text
    run(go())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_footer_shows_legend_raw_and_help_at_every_size(size):
    async def go():
        app = app_for()
        async with app.run_test(size=size) as pilot:
            for _ in range(50):   # (under load the footer is laid out a few frames late)
                await pilot.pause()
                keys = {k.description: k for k in app.query(FooterKey)}
                if all(name in keys and keys[name].region.width for name in ("legend", "help")):
                    break
            for name in ("legend", "raw", "help", "step", "continue"):
                region = keys[name].region
                assert region.width > 0 and region.right <= size[0], name
            await pilot.press("question_mark")
            help_text = app.screen.query_one("#help-text").render().plain
            assert isinstance(app.screen, HelpScreen)
            assert "legend" in help_text and "raw fields" in help_text
    run(go())


SCRIPT = textwrap.dedent("""
    import agdebug as torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    try:
        y.backward()
    except RuntimeError:
        pass
    raise ValueError("the script's own error, " + "long " * 20 + "end")
""")


def test_live_an_error_in_backward_pauses_c_and_the_scripts_error_is_said_whole(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)

    async def go():
        app = AgDebugApp(script=str(path))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused)
            await pilot.press("c")
            await until(pilot, lambda: app.live.stepper.paused and app.step > 1
                        and app.events[app.step - 1].kind == "error")
            assert "Trying to backward through the graph a second time" in bar_text(app)
            await pilot.press("c")
            await until(pilot, lambda: app.outcome is not None)
            await until(pilot, lambda: "ValueError" in bar_text(app))
            assert bar_text(app) == ("▶ The script stopped with an error: ValueError: the "
                                     "script's own error, " + "long " * 20 + "end")
    run(go())
