"""Shared helpers for the debugger's tests."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

TRACES = Path(__file__).resolve().parent / "traces"


def load(name: str):
    """A committed demo trace (``tests/tui/traces/<name>.agtrace``)."""
    from agdebug.debug import load_trace
    return load_trace(TRACES / f"{name}.agtrace")


async def until(pilot, condition, timeout: float = 10.0) -> None:
    """Let the app run until ``condition()`` holds (a live script's thread posts to it)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


def run(coro):
    return asyncio.run(coro)
