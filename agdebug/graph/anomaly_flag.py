"""The anomaly-mode switch, read by node creation and the engine.

Process-wide, as in torch. The user-facing context managers live in
``agdebug.autograd.anomaly``.
"""

from __future__ import annotations


class _Anomaly:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


ANOMALY = _Anomaly()
