"""A long trace opens from its file's index: the same screens as a short one, no full pass."""

from __future__ import annotations

import shutil

import pytest
from agdebug_tui import AgDebugApp, stepping
from agdebug_tui.memory import memory_text
from textual.widgets import TabbedContent

from .helpers import TRACES, run, until
from .test_app import SIZE, inspector_text


@pytest.fixture
def lazy(tmp_path, monkeypatch):
    """Every trace file opens lazily, with its index kept in ``tmp_path / "cache"``."""
    from agdebug.debug import index
    monkeypatch.setattr(index, "LAZY_BYTES", 0)
    monkeypatch.setenv("AGDEBUG_CACHE", str(tmp_path / "cache"))
    return index


def _screens(app, pilot):
    """What the app shows at its first step, then at the end and after stepping back."""
    async def go():
        await until(pilot, lambda: app.history is not None)
        seen = []
        for keys in ((), ("G",), ("backspace", "backspace")):
            for key in keys:
                await pilot.press(key)
            app.query_one("#bottom", TabbedContent).active = "tab-memory"
            await pilot.pause()
            state = app.state
            seen.append((app.step, state, inspector_text(app),
                         app.narrator.sentence(app.step - 1),
                         memory_text(state, app.series, app.events, app.step).plain,
                         app.series.saved_bytes[:app.step + 1],
                         app.series.live_nodes[:app.step + 1]))
        return seen
    return go()


def _opened(path, check=None):
    async def go():
        app = AgDebugApp(trace_path=path)
        async with app.run_test(size=SIZE) as pilot:
            # (a first opening shows its first events while the pass runs: after it ends)
            await until(pilot, lambda: app.history is not None and app.indexing is None)
            if check is not None:
                check(app)
            index = app.index
            seen = (await _screens(app, pilot), index.starts, index.backwards, index.prints,
                    sorted(index.kinds))
            ops = sorted({op for op in index.ops.values() if op})
            await pilot.press("g")
            stops = []
            for op in ops:                      # a breakpoint on each op: where c stops
                stepping.break_on_op(app, op)
                await pilot.press("c")
                stops.append(app.step)
            return seen, ops, stops
    return run(go())


def test_a_long_trace_shows_what_a_short_one_shows(tmp_path, lazy, monkeypatch):
    path = tmp_path / "mlp.agtrace"
    shutil.copy(TRACES / "mlp.agtrace", path)
    with monkeypatch.context() as patched:
        patched.setattr(lazy, "LAZY_BYTES", 10**12)
        eager = _opened(path)
    first = _opened(path)                                     # the pass: it indexes the trace

    def nothing_walked(app):   # the first screen read no event past the first backward's
        assert app.narrator._indexed <= app.step and len(app.series.saved_bytes) <= 1
        assert isinstance(app.events, lazy.EventFile)
    indexed = _opened(path, nothing_walked)
    assert eager[1] and len(set(eager[2])) > 1          # ops, and c stops at each of them
    assert first == eager and indexed == eager


def test_the_palettes_ops_come_from_the_index_with_no_state_decoded(tmp_path, lazy):
    from agdebug.debug import load_trace
    from agdebug_tui.sources import EventIndex
    path = tmp_path / "mlp.agtrace"
    shutil.copy(TRACES / "mlp.agtrace", path)
    load_trace(path)                                          # the pass: it indexes the trace
    timeline = load_trace(path).timeline()
    index = EventIndex.of_file(timeline, lambda: timeline.state(0))
    ops = sorted({op for op in index.ops.values() if op})
    eager = {e.op for e in timeline.events if e.kind == "node_created" and e.op}
    assert ops == sorted(eager) and ops
    stored = timeline._checkpoints
    assert not stored._nodes and not stored._pages           # no checkpoint was read


def test_a_first_opening_shows_its_first_events_while_the_pass_runs(tmp_path, lazy,
                                                                    monkeypatch):
    """The first screen comes before the pass over the whole file (a first opening of a
    long trace takes a while); the step the user goes to meanwhile stays when it ends."""
    import threading

    from agdebug.debug import load_trace
    from agdebug_tui import session
    from agdebug_tui.sources import LiveHistory
    path = tmp_path / "mlp.agtrace"
    shutil.copy(TRACES / "mlp.agtrace", path)
    release = threading.Event()

    def held(*args, **kwargs):   # the pass, held until the first screen was looked at
        release.wait(10)
        return load_trace(*args, **kwargs)
    monkeypatch.setattr(session, "load_trace", held)

    async def go():
        app = AgDebugApp(trace_path=path)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.history is not None)
            assert isinstance(app.history, LiveHistory) and app.indexing == 0
            first = app.index.backwards[0]
            assert app.step == first and app.events[-1].kind == "backward_finished"
            assert "reading the rest" in str(app.query_one("#status").render())
            await pilot.press("space", "space")
            assert app.step == first + 2
            stepped = (app.state, app.narrator.sentence(app.step - 1), inspector_text(app))
            release.set()
            await until(pilot, lambda: app.indexing is None)
            assert not isinstance(app.history, LiveHistory) and app.step == first + 2
            assert (app.state, app.narrator.sentence(app.step - 1),
                    inspector_text(app)) == stepped
            assert "reading the rest" not in str(app.query_one("#status").render())
            await pilot.press("G")
            assert app.step == len(load_trace(path).events)
    run(go())
