"""Version counters where they matter: a saved tensor changed in place after it was saved.

torch refuses to backward through such a node ("... is at version 1; expected version
0 instead"). The events carry each saved tensor's version when saved
(``SavedSummary.version``) and, at the error, torch's message with the version the tensor
is at. An in-place op is recorded before it bumps the counter, so the version "now" is
known from the error on (older traces carry no versions: -1, nothing is shown).

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     a = ag.ones(3, requires_grad=True)
...     b = a.exp()
...     _ = b.add_(1)
>>> versions = Versions()
>>> versions.extend(trace.events, 0)
>>> exp = next(e.node for e in trace.events if getattr(e, "name", "") == "ExpBackward0")
>>> versions.saved[exp]
{'result': (2, 0)}
>>> versions.stale(exp, "... is at version 1; expected version 0 instead.")
[('result', 0, 1)]
"""

from __future__ import annotations

import re

__all__ = ["Versions", "error_versions"]

_AT = re.compile(r"is at version (\d+); expected version (\d+)")


def error_versions(message: str) -> tuple[int, int] | None:
    """``(now, expected)`` from torch's "is at version 2; expected version 1" message."""
    match = _AT.search(message or "")
    return (int(match[1]), int(match[2])) if match else None


class Versions:
    """Each node's saved tensors' versions when saved: node -> name -> (tensor, version)."""

    def __init__(self):
        self.saved: dict[int, dict[str, tuple[int, int]]] = {}

    def extend(self, events, first: int = 0) -> None:
        """Take in ``events`` (``first``: the number of the first; kept for the index's
        signature)."""
        for e in events:
            if e.kind == "node_created" and e.saved:
                kept = {s.name: (s.tensor, s.version) for s in e.saved if s.version >= 0}
                if kept:
                    self.saved[e.node] = kept

    def stale(self, node: int, error: str) -> list[tuple[str, int, int]]:
        """``(name, version when saved, version now)`` of ``node``'s saved tensors that
        ``error`` (the node's, torch's words) says changed since."""
        told = error_versions(error)
        if told is None:
            return []
        now, expected = told
        return [(name, version, now) for name, (_, version) in self.saved.get(node, {}).items()
                if version == expected]

    def stale_nodes(self, state) -> dict[int, list]:
        """The node of ``state``'s last error, when a saved tensor of it is stale."""
        error = state.last_error
        view = state.nodes.get(error.node) if error is not None else None
        found = self.stale(view.id, view.error) if view is not None else []
        return {view.id: found} if found else {}
