"""Live mode end to end: the script's thread pauses, steps, finishes, reports its exception."""

from __future__ import annotations

import textwrap

from agdebug_tui import AgDebugApp
from agdebug_tui import stepping
from textual.widgets import TabbedContent

from .helpers import run, until

SCRIPT = textwrap.dedent("""
    import agdebug as torch
    print("hello from the script")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    print("grad", x.grad)
""")


def write(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_live_script_pauses_steps_goes_back_and_finishes(tmp_path):
    async def go():
        app = AgDebugApp(script=write(tmp_path, SCRIPT))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused and len(app.events) == 1)
            assert app.step == 1 and app.outcome is None
            await pilot.press("space")
            await until(pilot, lambda: app.step == 2)
            await pilot.press("N")
            await until(pilot, lambda: app.step and app.events[app.step - 1].kind ==
                        "node_started")
            head = app.step
            await pilot.press("p")                  # back in time while the script waits
            assert app.step == head - 1 and app.live.stepper.paused
            await pilot.press("space")              # forward through what is known...
            assert app.step == head
            await pilot.press("c")                  # ...then let it run to the end
            await until(pilot, lambda: app.outcome is not None)
            assert app.outcome.ok and app.step == len(app.events)
            assert app.events[-1].kind in ("node_freed", "backward_finished", "gc_pass")
            output = "".join(text for _, text in app.live.output)
            assert "hello from the script" in output and "grad tensor" in output
            assert "hello" in "\n".join(app.query_one("#output").lines)
            await pilot.press("q")
        assert app.return_value.ok
    run(go())


def test_live_breakpoint_on_an_op_set_before_running(tmp_path):
    async def go():
        app = AgDebugApp(script=write(tmp_path, SCRIPT))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused)
            stepping.break_on_op(app, "exp")
            await pilot.press("c")
            await until(pilot, lambda: app.live.stepper.paused and app.step > 1)
            event = app.events[app.step - 1]
            assert event.kind == "node_created" and event.op == "exp"
            stepping.clear_breakpoints(app)
            await pilot.press("c")
            await until(pilot, lambda: app.outcome is not None)
    run(go())


def test_a_script_that_raises_on_import_is_reported_not_lost(tmp_path):
    bad = write(tmp_path, "import agdebug\nraise ValueError('boom at import')\n", "bad.py")

    async def go():
        app = AgDebugApp(script=bad)
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.outcome is not None)
            assert app.outcome.error == "ValueError: boom at import"
            # the UI shows the outcome a moment later (a posted message): wait for it
            await until(pilot, lambda: app.query_one("#bottom", TabbedContent).active
                        == "tab-output" and "boom at import" in "\n".join(
                            app.query_one("#output").lines))
            shown = "\n".join(app.query_one("#output").lines)
            assert "bad.py" in shown and "boom at import" in shown
            assert "stepping.py" not in shown          # the runner's frames are dropped
    run(go())


def test_an_app_ending_any_other_way_lets_a_paused_script_go(tmp_path):
    # a paused script holds the event stream: left paused, it would hold it for every
    # later session in the process
    async def go():
        app = AgDebugApp(script=write(tmp_path, SCRIPT))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused)
            app.exit()
        app.live.thread.join(5)
        assert not app.live.thread.is_alive() and app.live.stepper.outcome.stopped
    run(go())


def test_quitting_while_paused_stops_the_script(tmp_path):
    async def go():
        app = AgDebugApp(script=write(tmp_path, SCRIPT))
        async with app.run_test(size=(100, 32)) as pilot:
            await until(pilot, lambda: app.live.stepper.paused)
            await pilot.press("q")
        app.live.thread.join(5)
        assert not app.live.thread.is_alive() and app.live.stepper.outcome.stopped
    run(go())
