"""Reference cycles as the debugger models them.

The engine's probe finds a cycle when ``backward(create_graph=True)`` gives a
leaf a ``.grad`` with a ``grad_fn``: leaf -> ``.grad`` -> grad_fn -> ... ->
AccumulateGrad -> leaf (``cycle_detected``). Assigning or clearing the leaf's
``.grad`` breaks it (``cycle_broken``). Here those events become the live
cycles of a ``GraphState``, and the edges a diagram draws in red.

>>> from agdebug.events.records import CycleDetected, CycleBroken
>>> cycles = {}
>>> apply_cycle_event(cycles, CycleDetected(seq=1, leaf=1, path=("t1", "t5", "n4", "n1", "t1"),
...                                         nodes=(4, 1)))
>>> cycle_edges(cycles)
{(4, 1)}
>>> apply_cycle_event(cycles, CycleBroken(seq=2, leaf=1, reason="grad_cleared"))
>>> cycles
{}
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CycleView", "apply_cycle_event", "cycle_edges", "describe"]


@dataclass(frozen=True, slots=True)
class CycleView:
    """A live cycle through ``leaf``: ``path`` as "t<id>"/"n<id>" names, first == last."""

    leaf: int
    path: tuple[str, ...]
    nodes: tuple[int, ...]


def apply_cycle_event(cycles: dict, event) -> None:
    """Update ``cycles`` (leaf id -> CycleView) for a cycle_detected/cycle_broken event."""
    if event.kind == "cycle_detected":
        cycles[event.leaf] = CycleView(event.leaf, tuple(event.path), tuple(event.nodes))
    elif event.kind == "cycle_broken":
        cycles.pop(event.leaf, None)


def cycle_edges(cycles) -> set:
    """Node-to-node edges (``(from, to)`` in next_functions direction) on live cycles."""
    edges = set()
    for cycle in cycles.values():
        edges.update(zip(cycle.nodes, cycle.nodes[1:]))
    return edges


def describe(cycle: CycleView, names: dict | None = None) -> str:
    """``t1 -> .grad t5 -> MulBackward0 n4 -> AccumulateGrad n1 -> t1``."""
    names = names or {}
    parts = []
    for i, item in enumerate(cycle.path):
        label = names.get(item, "")
        if i == 1:
            label = ".grad"
        parts.append(f"{label} {item}".strip())
    return " -> ".join(parts)
