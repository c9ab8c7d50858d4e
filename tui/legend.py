"""The legend of the graph view: what each status colour and mark means (key ``l``)."""

from __future__ import annotations

from rich.text import Text

from .graphview import STATUS_STYLES

__all__ = ["STATUS_MEANINGS", "legend_text"]

STATUS_MEANINGS = {
    "created": "recorded by the forward pass; not in a running backward",
    "waiting": "in this backward, waiting for gradients to arrive",
    "ready": "all its gradients arrived; it runs when its turn comes",
    "running": "running now",
    "done": "ran (any saved tensors are still held)",
    "released": "ran and released its saved tensors (retain_graph=False)",
    "freed": "the node object is gone",
    "errored": "an error was raised here",
}

_MARKS = (
    ("╔═╗", "bold #d00000", "double red border: the current node"),
    ("┏━┓", "bold #1d4ed8", "heavy blue border: the selected node"),
    ("●", "bold #ff0000", "a breakpoint on the node (b)"),
    ("──", "bold #ff9f1c", "orange edge: leaves the current node"),
    ("──", "bold #ff3b3b", "red edge: part of a reference cycle"),
    ("⟲", "", "the leaf is on a reference cycle"),
    ("saved 24B", "dim", "bytes its saved tensors hold"),
    ("saved: freed", "dim", "its saved tensors were released"),
    (".grad [3]", "dim", "a leaf's .grad (None before any backward)"),
)


def legend_text() -> Text:
    """Each status in its own colours with its meaning, then the marks."""
    text = Text()
    text.append("Node colours\n", style="bold")
    for status, meaning in STATUS_MEANINGS.items():
        text.append(f" {status:<8} ", style=STATUS_STYLES[status])
        text.append(f" {meaning}\n")
    text.append("Marks\n", style="bold")
    for mark, style, meaning in _MARKS:
        text.append(f" {mark}", style=style)
        text.append(f"  {meaning}\n")
    text.append("l closes the legend", style="dim")
    return text
