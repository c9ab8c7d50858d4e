"""Version counters where they matter: a saved tensor changed in place after it was saved.

torch refuses to backward through such a node ("... is at version 1; expected version
0 instead"). Each saved tensor's view keeps its version when saved (``SavedView.version``,
from the events' ``SavedSummary.version``) and, at the error, torch's message says the
version the tensor is at. An in-place op is recorded before it bumps the counter, so the
version "now" is known from the error on (older traces carry no versions: -1, nothing is
shown).

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     a = ag.ones(3, requires_grad=True)
...     b = a.exp()
...     _ = b.add_(1)
>>> state = trace.timeline().state(len(trace.events))
>>> exp = next(v for v in state.nodes.values() if v.name == "ExpBackward0")
>>> [(s.name, s.version) for s in exp.saved]
[('result', 0)]
>>> stale_saved(exp._replace(error="... is at version 1; expected version 0 instead."))
[('result', 0, 1)]
"""

from __future__ import annotations

import re

__all__ = ["error_versions", "stale_nodes", "stale_saved"]

_AT = re.compile(r"is at version (\d+); expected version (\d+)")


def error_versions(message: str) -> tuple[int, int] | None:
    """``(now, expected)`` from torch's "is at version 2; expected version 1" message."""
    match = _AT.search(message or "")
    return (int(match[1]), int(match[2])) if match else None


def stale_saved(view) -> list[tuple[str, int, int]]:
    """``(name, version when saved, version now)`` of the node ``view``'s saved tensors that
    its error (torch's words) says changed since."""
    told = error_versions(view.error)
    if told is None:
        return []
    now, expected = told
    return [(s.name, s.version, now) for s in view.saved if s.version == expected]


def stale_nodes(state) -> dict[int, list]:
    """The node of ``state``'s last error, when a saved tensor of it is stale."""
    error = state.last_error
    view = state.nodes.get(error.node) if error is not None else None
    found = stale_saved(view) if view is not None else []
    return {view.id: found} if found else {}
