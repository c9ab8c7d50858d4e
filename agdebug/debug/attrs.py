"""How a node's attributes read to a person: torch saves some choices as enum numbers
(``_saved_reduction`` is 1 for ``reduction='mean'``), shown with the word they stand for."""

from __future__ import annotations

# at::Reduction, the number every loss node saves for its ``reduction`` argument
_REDUCTIONS = {"0": "none", "1": "mean", "2": "sum"}


def attr_text(key: str, value: str) -> str:
    """``reduction=1 (mean)``; any other attribute as ``key=value``."""
    if key == "reduction" and value in _REDUCTIONS:
        return f"{key}={value} ({_REDUCTIONS[value]})"
    return f"{key}={value}"
