"""The memory panel: saved-tensor bytes over time, what this step freed, live cycles, GC."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Sparkline, Static

from agdebug.debug.cycles import describe as describe_cycle

from .graphview import _bytes
from .layout import short_name
from .text import PlainText

__all__ = ["MemoryPanel", "memory_text"]


def memory_text(state, series, events, step: int) -> Text:
    """Numbers for ``step``: bytes held, live nodes, what this event freed, cycles, GC."""
    out = PlainText()
    held = series.saved_bytes[min(step, len(series.saved_bytes) - 1)]
    live = series.live_nodes[min(step, len(series.live_nodes) - 1)]
    peak = max(series.saved_bytes[: step + 1] or [0])
    out.append(f"saved tensors held {_bytes(held)} (peak {_bytes(peak)}), live nodes {live}, "
               f"GC passes {state.gc_passes}\n")
    event = events[step - 1] if step else None
    if event is not None and event.kind == "saved_released":
        out.append(f"this step released {', '.join(event.names)} of n{event.node} "
                   f"({_bytes(event.nbytes)})\n", style="cyan")
    elif event is not None and event.kind == "node_freed":
        node = state.nodes.get(event.node)
        name = short_name(node.name) if node else "?"
        out.append(f"this step freed {name} n{event.node} (by {event.by})\n", style="cyan")
    elif event is not None and event.kind == "gc_pass":
        out.append(f"GC pass gen {event.generation}: collected {event.collected}\n")
    for cycle in state.cycles.values():
        names = {f"n{i}": short_name(state.nodes[i].name) for i in cycle.nodes
                 if i in state.nodes}
        out.append(f"cycle: {describe_cycle(cycle, names)}\n", style="bold red")
    if not state.cycles:
        out.append("no live reference cycles\n", style="dim")
    return out


class MemoryPanel(Vertical):
    """A sparkline of saved bytes up to the current step, and ``memory_text``."""

    def compose(self):
        yield Sparkline([0], id="memory-spark")
        with VerticalScroll():
            yield Static(id="memory-text")

    def show(self, state, series, events, step: int) -> None:
        series.reach(step)
        data = series.saved_bytes[: step + 1] or [0]
        self.query_one("#memory-spark", Sparkline).data = data
        self.query_one("#memory-text", Static).update(memory_text(state, series, events, step))
