"""Text from a program or a trace is shown as plain text: never markup, no control codes
reaching the terminal (issue 24). Screenshots land next to the trace and say where."""

from __future__ import annotations

import dataclasses
import io
import shutil

from agdebug.debug.recorder import Trace
from agdebug_tui import AgDebugApp
from agdebug_tui import stepping
from agdebug_tui.text import printable
from rich.console import Console
from textual.widgets import TabbedContent

from .helpers import TRACES, load, run

EVIL = "[/data/x] [link=https://x.example]l[/link] [@click=app.quit]q[/] \x1b]0;pwned\x07\x1b[2J"


def evil_trace() -> Trace:
    """retain-graph with every name, op, file name and message replaced by ``EVIL``."""
    events = []
    for e in load("retain-graph").events:
        changes = {f: EVIL + getattr(e, f) for f in ("name", "op", "source", "message", "text")
                   if hasattr(e, f) and isinstance(getattr(e, f), str)}
        events.append(dataclasses.replace(e, **changes))
    return Trace(events)


def shown(app) -> str:
    """The screen as the terminal gets it, styles left out (what ``export_screenshot``
    draws, as text)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


def test_names_messages_and_files_from_a_trace_are_plain_text():
    async def go():
        app = AgDebugApp(trace=evil_trace(), title="evil", output=EVIL + "\n")
        async with app.run_test(size=(120, 40)) as pilot:
            errors = [i + 1 for i, e in enumerate(app.events) if e.kind == "error"]
            seen = []
            for step in (0, 1, app.index.backwards[0] + 2, errors[0], len(app.events)):
                app.goto(step)
                await pilot.press("right_square_bracket")   # the inspector shows a node
                await pilot.pause()
                screen = shown(app)
                assert "\x1b" not in screen and "\x07" not in screen
                assert "[/data/x]" in screen and "[link=" in screen
                seen.append(screen)
            assert "[@click=app.quit]q[/]" in "".join(seen).replace("\n", "")
            assert "\\x1b]0;pwned\\x07\\x1b[2J" in "".join(seen).replace("\n", "")
            app.query_one("#bottom", TabbedContent).active = "tab-output"
            await pilot.pause()
            assert printable(EVIL) in "\n".join(app.query_one("#output").lines)
            await pilot.press("c")                           # notices quote op names
            stepping.break_on_op(app, EVIL)
            await pilot.pause()
            assert all(not n.markup for n in app._notifications)
        assert app.return_code is None or app.return_code == 0
    run(go())


def test_the_breakpoint_hint_keeps_its_brackets():
    async def go():
        app = AgDebugApp(trace=load("retain-graph"), title="retain-graph")
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.press("g", "b")
            await pilot.pause()
            assert [(n.message, n.markup) for n in app._notifications] == [
                ("select a node first (click it, or [ and ])", False)]
    run(go())


def test_a_screenshot_is_saved_next_to_the_trace_and_the_notice_says_where(
        tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "no-home"))      # no ~/Downloads
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path / "no-home" / "Downloads"))
    trace = tmp_path / "traces" / "diamond.agtrace"
    trace.parent.mkdir()
    shutil.copy(TRACES / "diamond.agtrace", trace)

    async def go():
        app = AgDebugApp(trace_path=trace)
        async with app.run_test(size=(100, 32)) as pilot:
            await pilot.pause(0.5)
            app.deliver_screenshot()
            await pilot.pause()
            written = list(trace.parent.glob("*.svg"))
            assert len(written) == 1 and "<svg" in written[0].read_text()
            assert [n.message for n in app._notifications][-1] == (
                f"saved the screenshot to {written[0]}")
    run(go())
