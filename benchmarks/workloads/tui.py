"""TUI: step latency on a 2,000-node graph (the TUI lives in ``tui/``, package ``agdebug_tui``).

``agdebug_tui.step_latency(trace, steps)`` times single steps in a headless app showing
``trace`` (here a recorded W1 chain of 2,000 ops, forward and backward; see tui/bench.py for
what one step includes). The package is found installed or, from a source checkout, in
``tui/`` (``agdebug.cli._tui``); when it cannot be imported the row says "n/a".
"""

from __future__ import annotations

import statistics

from ..harness import Row, at_most
from . import chain

THREAD_SENSITIVE = False
NODES = 2_000


def load_tui():
    """``(agdebug_tui, "")``, or ``(None, why not)``."""
    from agdebug.cli import _tui
    try:
        tui = _tui()
    except ImportError:
        return None, "n/a (TUI not installed)"
    if not callable(getattr(tui, "step_latency", None)):
        return None, "n/a (agdebug_tui has no step_latency(trace, steps))"
    return tui, ""


def rows(cfg) -> list:
    nodes = cfg.size(NODES, NODES, 100)
    name = f"TUI step, {nodes:,}-node graph (median)"
    tui, reason = load_tui()
    if tui is None:
        return [Row("TUI", name, "ms", {}, at_most(50.0, "ms"), note=reason)]
    import agdebug as ag
    from agdebug.debug import record
    x = ag.tensor(chain.start(), requires_grad=True)
    with record() as trace:
        chain.tensor_chain(x, nodes).sum().backward()
    times = tui.step_latency(trace, cfg.size(50, 20, 3))
    return [Row("TUI", name, "ms", {"agdebug": statistics.median(times) * 1e3},
                at_most(50.0, "ms"), extra={"worst_ms": max(times) * 1e3}),
            Row("TUI", f"TUI step, {nodes:,}-node graph (worst of {len(times)})", "ms",
                {"agdebug": max(times) * 1e3})]
