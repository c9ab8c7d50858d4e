"""The inspector: everything the state knows about one node (and its leaf tensor)."""

from __future__ import annotations

from rich.text import Text

from agdebug.debug.attrs import attr_text

from .graphview import _bytes
from .layout import short_name
from .lines import TextView
from .text import PlainText

__all__ = ["Inspector", "describe_node", "stats_line"]


def stats_line(summary) -> str:
    """``x [3] float32 cpu t1`` (the name when the user gave one), plus preview and statistics
    when values were recorded."""
    if summary is None:
        return "None"
    text = f"{list(summary.shape)} {summary.dtype} {summary.device} t{summary.id}"
    if summary.name:   # the user's name for it first (``x``, ``0.weight``)
        text = f"{summary.name} {text}"
    s = summary.stats
    if s is None:
        return text
    preview = ", ".join(f"{v:.4g}" for v in s.preview)
    text += f"\n      [{preview}{', …' if len(s.preview) >= 6 else ''}]"
    if s.min is not None:
        text += f"\n      min {s.min:.4g} max {s.max:.4g} mean {s.mean:.4g} norm {s.norm:.4g}"
    if s.nan or s.inf:
        text += f"\n      NaN {s.nan} Inf {s.inf}"
    return text


def _tensors(out: Text, title: str, summaries) -> None:
    if not summaries:
        return
    out.append(f"{title}\n", style="bold")
    for i, s in enumerate(summaries):
        style = "bold red" if s is not None and s.stats and (s.stats.nan or s.stats.inf) else ""
        out.append(f"  {i}: {stats_line(s)}\n", style=style)


def describe_node(state, node_id: int, source: str = "", stale=()) -> Text:
    """The inspector's text for ``node_id`` in ``state``; ``source``: the forward line;
    ``stale``: the saved tensors changed in place since (``versions.stale``)."""
    node = state.nodes.get(node_id)
    out = PlainText()
    if node is None:
        out.append("No node selected.\nStep (space) or click a node.", style="dim")
        return out
    out.append(f"{short_name(node.name)}", style="bold")
    out.append(f"  n{node.id}\n")
    if node.error:   # first and whole: torch's message is the answer the user came for
        out.append(f"error: {node.error}\n", style="bold red")
    out.append(f"status {node.status}" + (f" (freed by {node.freed_by})" if node.freed_by
                                          else "") + "\n")
    if node.op:
        out.append(f"op {node.op}\n")
    if source:
        out.append(f"at {source}\n", style="italic")
    if node.leaf is not None:
        _leaf(out, state, node)
    _tensors(out, "inputs", node.inputs)
    _tensors(out, "outputs", node.outputs)
    _saved(out, node, stale)
    if node.attrs:
        out.append("attrs " + ", ".join(attr_text(k, v) for k, v in node.attrs) + "\n")
    if node.hooks:
        out.append("hooks fired: " + ", ".join(node.hooks) + "\n", style="magenta")
    _tensors(out, "grad in (buffer)", node.buffer if not node.grads_in else ())
    _tensors(out, "grad in", node.grads_in)
    _tensors(out, "grad out", node.grads_out)
    if node.remaining:
        out.append(f"waiting for {node.remaining} more gradient(s)\n")
    return out


def _leaf(out: Text, state, node) -> None:
    leaf = state.leaves.get(node.leaf.id)
    out.append(f"leaf {stats_line(node.leaf)}\n")
    if leaf is None:
        return
    out.append(f".grad {stats_line(leaf.grad)}\n", style="green" if leaf.grad else "")
    if leaf.grad_fn:
        out.append(f".grad.grad_fn n{leaf.grad_fn}\n")
    if leaf.tensor.id in state.cycles:
        out.append("on a live reference cycle\n", style="bold red")


def _saved(out: Text, node, stale) -> None:
    if not node.saved:
        return
    gone_all = node.status == "freed"
    changed = {name: (saved, now) for name, saved, now in stale}
    out.append(f"saved ({_bytes(node.saved_bytes)} held)\n", style="bold")
    for s in node.saved:
        gone = s.released or gone_all
        tag = "released" if gone else "held"
        version = f", version {s.version}" if s.version >= 0 else ""
        out.append(f"  {s.name}: {list(s.shape)} {s.dtype} {_bytes(s.nbytes)} {tag}{version}\n",
                   style="strike dim" if gone else "")
        if s.name in changed:   # torch's words, as its error will say them
            saved, now = changed[s.name]
            out.append(f"    modified in place: t{s.tensor} is at version {now}; expected "
                       f"version {saved}\n", style="bold red")


class Inspector(TextView):
    """Shows ``describe_node`` for the selected (or current) node."""

    def show(self, state, node_id: int, source: str = "", stale=()) -> None:
        self.update(describe_node(state, node_id, source, stale))
