"""Shared helpers: record a scenario, normalise ids so event sequences can be golden."""

from __future__ import annotations

import warnings

from agdebug.debug import record

NOISE = {"gc_pass", "node_freed"}


def run(fn, values: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with record(values=values) as trace:
            fn()
    return trace


def kinds(trace, drop=NOISE) -> list[str]:
    return [e.kind for e in trace.events if e.kind not in drop]


def names(trace) -> dict:
    """node id -> node name, from node_created events."""
    return {e.node: e.name.rpartition("::")[2] for e in trace.events if e.kind == "node_created"}
