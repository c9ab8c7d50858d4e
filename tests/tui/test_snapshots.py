"""SVG snapshots of every demo at its key steps, from committed traces (pinned theme): at
80x24 its first node running, its first release of saved tensors, error and cycle, and its
end; at 120x40 the release, error and cycle (its first node running when it has none).

Goldens live in ``tests/tui/goldens/``. After a deliberate change to the screen, rewrite them:

    AGDEBUG_UPDATE_GOLDENS=1 python3 -m pytest tests/tui/test_snapshots.py

and re-record the demo traces (after a demo script changed) with

    AGDEBUG_UPDATE_TRACES=1 python3 -m pytest tests/tui/test_snapshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from agdebug_tui import AgDebugApp

from agdebug.demos import SCRIPTS, demos

from .helpers import TRACES, load, run

GOLDENS = Path(__file__).resolve().parent / "goldens"
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
UPDATE = os.environ.get("AGDEBUG_UPDATE_GOLDENS") == "1"


def _record_traces() -> None:
    """Each demo recorded in a fresh process, so node and tensor ids are the same every time."""
    for demo in demos().values():
        subprocess.run([sys.executable, "-m", "agdebug.cli", "record", "--values",
                        str(demo.path), "-o", str(TRACES / f"{demo.name}.agtrace")],
                       check=False, capture_output=True)


if os.environ.get("AGDEBUG_UPDATE_TRACES") == "1":
    _record_traces()


_KEY_KINDS = {"saved_released": "release", "error": "error", "cycle_detected": "cycle"}


def key_steps(events, size: str = "80x24") -> dict:
    """Where a demo is worth a look: its first node running, first release of saved tensors,
    error and cycle, the end (at 120x40 only the release, error and cycle, else running)."""
    steps = {}
    kinds = [e.kind for e in events]
    if "node_started" in kinds:
        steps["running"] = kinds.index("node_started") + 1
    for kind, key in _KEY_KINDS.items():
        if kind in kinds:
            steps[key] = kinds.index(kind) + 1
    steps["end"] = len(events)
    if size != "80x24":
        kept = {k: v for k, v in steps.items() if k in _KEY_KINDS.values()}
        steps = kept or {"running": steps["running"]}
    return steps


CASES = [(name, size, key) for name in sorted(demos()) if (TRACES / f"{name}.agtrace").exists()
         for size in SIZES for key in key_steps(load(name).events, size)]


def screenshots(name: str, size: str) -> dict:
    async def go():
        trace = load(name)
        # The committed traces keep no absolute paths (they differ by machine): the demos'
        # scripts are found in the folder a user would pass.
        app = AgDebugApp(trace=trace, title=f"demo {name}", source_dirs=[SCRIPTS])
        shots = {}
        async with app.run_test(size=SIZES[size]) as pilot:
            app.theme = "textual-dark"
            for key, step in key_steps(trace.events, size).items():
                app.goto(step)
                shots[key] = await settled_screenshot(app, pilot, f"{name} {key}")
        return shots
    return run(go())


async def settled_screenshot(app, pilot, title: str) -> str:
    """The screen once it stops changing: on a loaded machine one pause may not let the
    layout that a step triggers finish (seen at load 9 with seven test runs at once)."""
    shot = None
    for _ in range(50):
        await pilot.pause()
        again = app.export_screenshot(title=title)
        if again == shot:
            break
        shot = again
    return shot


_CACHE: dict = {}


@pytest.mark.parametrize(("name", "size", "key"), CASES)
def test_demo_snapshot(name, size, key):
    if (name, size) not in _CACHE:
        _CACHE[name, size] = screenshots(name, size)
    svg = _CACHE[name, size][key]
    golden = GOLDENS / f"{name}-{size}-{key}.svg"
    if UPDATE or not golden.exists():
        if not UPDATE:
            pytest.fail(f"no golden {golden.name}: run with AGDEBUG_UPDATE_GOLDENS=1")
        GOLDENS.mkdir(exist_ok=True)
        golden.write_text(svg, encoding="utf-8")
    assert svg == golden.read_text(encoding="utf-8"), (
        f"{golden.name} differs; if the change is intended: AGDEBUG_UPDATE_GOLDENS=1")


def test_every_demo_has_a_committed_trace():
    missing = [n for n in demos() if not (TRACES / f"{n}.agtrace").exists()]
    assert not missing, f"record them: AGDEBUG_UPDATE_TRACES=1 (missing {missing})"
