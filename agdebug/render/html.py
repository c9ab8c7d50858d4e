"""A self-contained, offline HTML player: one SVG layout, restyled step by step.

The page embeds the diagram once (laid out from every step's nodes, everything
visible) and, per step, only the styles that changed, the node the event is
about and the step's sentence; a small script (``player_assets``) applies them,
both ways, and pans, zooms, fits and follows. Every step is there: no sampling.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re

from ..debug.narration import caption
from .dot import SAVED_ROW, _build, _html, _q, _stats_text, _Writer, dot_elements
from .player_assets import BODY, END, HEAD, SCRIPT
from .player_steps import StepStyles

__all__ = ["html_page", "script_json", "step_styles"]

_STYLE_KEYS = ("fillcolor", "color", "fontcolor", "style", "penwidth")


def _unq(value) -> str:
    """The text of a DOT attribute value as ``dot._q`` wrote it."""
    text = str(value)
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text[1:-1])
        text = text.replace("&amp;", "&")
    return text


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


# Our own markup (trace text in a label is escaped, so it cannot hold these): 1 per struck row.
_SAVED_START = SAVED_ROW.split("{}")[0]
_SAVED_ROW = re.compile(re.escape(_SAVED_START) + r"[^\"]*\">(<S>)?")


def _struck(label: str) -> list:
    """Per saved-tensor row of a node's label: 1 if struck out (released), else 0."""
    return [1 if m else 0 for m in _SAVED_ROW.findall(label)]


def step_styles(state, options) -> dict:
    """Element key -> [fill, stroke, fontcolor, style, penwidth, struck rows, tooltip], and
    with ``options.values`` the text of its gradient-statistics rows."""
    out = {}
    counts: dict = {}
    universe = options.layout.nodes if options.layout is not None else state.nodes
    for key, attrs in dot_elements(state, options):
        key = key.replace(" ", "")
        if key == "legend":
            continue   # a fixed key, never restyled
        n = counts[key] = counts.get(key, 0) + 1
        if n > 1:
            key = f"{key}#{n}"
        out[key] = [_unq(attrs.get(k, "")) for k in _STYLE_KEYS] + [
            _struck(str(attrs.get("label", ""))), _unq(attrs.get("tooltip", ""))]
        if options.values:
            out[key].append(_value_rows(state, universe, key))
    return out


_EDGE_KEY = re.compile(r"n(\d+)->n(\d+)(?:#(\d+))?\Z")


def _stats(summaries) -> list:
    return [text for text in map(_stats_text, summaries) if text]


def _value_rows(state, universe, key: str) -> list:
    """The rows ``--values`` adds to element ``key``'s label at ``state`` (as ``dot`` words
    them outside frames): a node's incoming gradients, an edge's gradient."""
    if key[:1] == "n" and key[1:].isdigit():
        live = state.nodes.get(int(key[1:]))
        return [f"grad {t}" for t in _stats(g for g in live.grads_in if g)] if live else []
    match = _EDGE_KEY.match(key)
    live = match and state.nodes.get(int(match[1]))
    if not live:
        return []
    child, nth = int(match[2]), int(match[3] or 1)
    slots = [i for i, (c, _) in enumerate(universe[live.id].edges) if c == child]
    return _stats(live.grads_out[slots[nth - 1]:slots[nth - 1] + 1])


# JSON inside <script>: nothing in it may close the element or start markup, and U+2028/9
# end a line in older JavaScript. json.dumps escapes non-ASCII (U+2028/9 included) already.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(value) -> str:
    """``value`` as JSON that is inert inside an HTML ``<script>`` element."""
    return json.dumps(value, separators=(",", ":")).translate(_SCRIPT_SAFE)


def _about(builder, layout, boxes: dict) -> str:
    """The element a step is about: the event's node, else the current (running) one; the
    box drawn for it when it is inside one."""
    node = getattr(builder.event, "node", 0)
    node = node if isinstance(node, int) and node in layout else builder.current
    if node not in layout:
        return ""
    return boxes[node].key if node in boxes else f"n{node}"


def _frames(timeline, steps, options) -> list[dict]:
    """Per step: number, sentence, changed styles, and the node it is about when it changes."""
    stepper = StepStyles(timeline, steps[0], options, step_styles)
    shown = step_styles(stepper.state(), options)
    frames, about = [], None
    for n, step in enumerate(steps):
        diff = dict(shown) if n == 0 else {
            k: v for k, v in stepper.styles(step).items() if k in shown and shown[k] != v}
        shown.update(diff)
        frame = {"s": step, "e": caption(timeline, step), "d": diff}
        node = _about(stepper.builder, options.layout.nodes, stepper.boxes)
        if node != about:
            frame["c"] = about = node
        frames.append(frame)
    return frames


def _widest_rows(frames) -> dict:
    """Key -> its value rows as wide as any step's (the layout makes room for those); every
    step's rows are padded to that many, so the page sets the same text elements each time."""
    widest: dict = {}
    for frame in frames:
        for key, style in frame["d"].items():
            rows = widest.setdefault(key, [])
            for i, text in enumerate(style[7]):
                if i == len(rows):
                    rows.append(text)
                elif len(text) > len(rows[i]):
                    rows[i] = text
    for frame in frames:
        for key, style in frame["d"].items():
            style[7] = style[7] + [""] * (len(widest[key]) - len(style[7]))
    return {key: rows for key, rows in widest.items() if rows}


class _RowsWriter(_Writer):
    """The player's layout: each label ends with room for its widest value rows."""

    def __init__(self, widest: dict):
        super().__init__(reveal=True)
        self.widest, self.seen = widest, {}

    def element(self, key: str, *attrs: str) -> None:
        plain = key.replace(" ", "")
        n = self.seen[plain] = self.seen.get(plain, 0) + 1
        rows = self.widest.get(plain if n == 1 else f"{plain}#{n}")
        if rows and attrs and attrs[0].startswith("label="):
            attrs = (_label_with(attrs[0], rows), *attrs[1:])
        super().element(key, *attrs)


def _label_with(fragment: str, rows: list) -> str:
    """A ``label=`` fragment with ``rows`` added below its text (above any saved rows)."""
    if fragment.startswith("label=<"):
        cells = "".join(f"<TR><TD>{_html(row)}</TD></TR>" for row in rows)
        at = fragment.find(_SAVED_START)
        at = at if at >= 0 else fragment.rindex("</TABLE>")
        return fragment[:at] + cells + fragment[at:]
    text, extra = fragment[len('label="'):-1], _q("\n".join(rows))[1:-1]
    return f'label="{text}\\n{extra}"' if text else f'label="{extra}"'


def html_page(timeline, steps, options, render) -> str:
    """The page for ``steps`` of ``timeline``; ``render(dot, "svg")`` lays out the diagram."""
    frames = _frames(timeline, steps, options)
    widest = _widest_rows(frames) if options.values else {}
    # Drawn at its natural size (not a frame's capped one): the page zooms a vector.
    layout = dataclasses.replace(options, reveal=True, fit=None)
    svg = render(_build(timeline.final, layout, _RowsWriter(widest)).text(), "svg")
    svg = re.sub(r"^.*?(<svg\b)", r"\1", svg.decode("utf-8"), flags=re.DOTALL)   # no prolog
    # Pieces joined in order, never a marker replaced over text that holds data: the SVG
    # (escaped by Graphviz) and the JSON (escaped above) land only where they are meant to.
    title = html.escape(f"agdebug: {len(timeline)} events")
    return "".join((HEAD, title, BODY, svg, SCRIPT, script_json(frames), END))
