"""``agdebug run``: the script's stdin, exit status, output per step, and a UI that keeps
answering however fast events come (issue 24)."""

from __future__ import annotations

import textwrap
import time

from agdebug_tui import AgDebugApp
from agdebug_tui.live import NO_STDIN

from agdebug.cli import main, run_script
from agdebug.debug import load_trace
from agdebug.demos import find

from .helpers import run, until
from .test_live import write


def output_of(app) -> str:
    return "\n".join(app.query_one("#output").lines)


def test_input_in_the_script_ends_its_input_with_a_clear_eof_error(tmp_path):
    script = write(tmp_path, 'import agdebug\nname = input("name? ")\nprint("never")\n')

    async def go():
        app = AgDebugApp(script=script)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.outcome is not None)
            await until(pilot, lambda: "EOFError" in output_of(app))
            assert app.outcome.error == f"EOFError: {NO_STDIN}"
            assert "name? " in output_of(app) and "never" not in output_of(app)
            assert app.live.exit_code == 1
            await pilot.press("q")
    run(go())


def test_sys_exit_keeps_its_status(tmp_path):
    script = write(tmp_path, "import sys\nimport agdebug\nsys.exit(3)\n")

    async def go():
        app = AgDebugApp(script=script)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.outcome is not None)
            await pilot.pause()
            assert app.outcome.ok and app.live.exit_code == 3
            assert "finished (exit status 3)" in str(app.query_one("#status").render())
    run(go())


def test_a_syntax_error_is_pythons_report_without_the_debugger(tmp_path, capsys):
    script = write(tmp_path, "x = 1\ndef (\n")
    assert main(["run", script]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [f'  File "{script}", line 2', "    def (", "        ^",
                                "SyntaxError: invalid syntax"]


def test_the_output_tab_shows_what_was_printed_up_to_the_step(tmp_path):
    trace, _ = run_script(str(find("retain-graph").path), [])
    path = tmp_path / "demo.agtrace"
    trace.save(path)
    loaded = load_trace(path)                     # printed events survive a trace file
    prints = [e for e in loaded.events if e.kind == "printed"]
    assert prints and prints[0].text.startswith("Step 1")

    async def go():
        app = AgDebugApp(trace=loaded, output="ignored: the trace has its output\n")
        async with app.run_test(size=(100, 32)) as pilot:
            first = app.index.backwards[0]
            before = "".join(e.text for e in app.events[:first] if e.kind == "printed")
            await pilot.pause()
            assert output_of(app).rstrip("\n") == before.rstrip("\n") and "Step 5" not in before
            await pilot.press("G")
            assert "Step 5" in output_of(app) and "ignored" not in output_of(app)
            await pilot.press("g")
            assert output_of(app) == ""
    run(go())


LOOP = textwrap.dedent("""
    import agdebug as torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for i in range(10 ** 7):
        (x * x).sum().backward()
        print("step", i)
""")


def test_quit_is_answered_quickly_while_a_long_loop_runs(tmp_path):
    async def go():
        app = AgDebugApp(script=write(tmp_path, LOOP))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused)
            await pilot.press("c")
            await pilot.pause(2.0)                   # events pour in
            assert len(app.events) > 100
            start = time.monotonic()
            await pilot.press("q")
        assert time.monotonic() - start < 5
        app.live.thread.join(5)
        assert not app.live.thread.is_alive() and app.live.stepper.outcome.stopped
    run(go())
