"""A self-contained, offline HTML player: one SVG layout, restyled step by step.

The page embeds the diagram once (laid out from the final state, everything
visible) and, per step, only the styles that changed plus the event's text;
a small script applies them. Play, step, a slider, and node details on hover.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re

from ..debug.narration import caption
from .dot import SAVED_COLORS, SAVED_ROW, dot_elements, to_dot

__all__ = ["html_page", "step_styles"]

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
_SAVED_ROW = re.compile(re.escape(SAVED_ROW.split("{}")[0]) + r"[^\"]*\">(<S>)?")


def _struck(label: str) -> list:
    """Per saved-tensor row of a node's label: 1 if struck out (released), else 0."""
    return [1 if m else 0 for m in _SAVED_ROW.findall(label)]


def step_styles(state, options) -> dict:
    """Element key -> [fill, stroke, fontcolor, style, penwidth, struck rows, tooltip]."""
    out = {}
    counts: dict = {}
    for key, attrs in dot_elements(state, options):
        key = key.replace(" ", "")
        if key == "legend":
            continue   # a fixed key, never restyled
        n = counts[key] = counts.get(key, 0) + 1
        if n > 1:
            key = f"{key}#{n}"
        out[key] = [_unq(attrs.get(k, "")) for k in _STYLE_KEYS] + [
            _struck(str(attrs.get("label", ""))), _unq(attrs.get("tooltip", ""))]
    return out


# JSON inside <script>: nothing in it may close the element or start markup, and U+2028/9
# end a line in older JavaScript. json.dumps escapes non-ASCII (U+2028/9 included) already.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(value) -> str:
    """``value`` as JSON that is inert inside an HTML ``<script>`` element."""
    return json.dumps(value, separators=(",", ":")).translate(_SCRIPT_SAFE)


def html_page(timeline, steps, options, render) -> str:
    """The page for ``steps`` of ``timeline``; ``render(dot, "svg")`` lays out the diagram."""
    base = to_dot(timeline.final, dataclasses.replace(options, reveal=True))
    svg = render(base, "svg").decode("utf-8")
    svg = re.sub(r"^.*?(<svg\b)", r"\1", svg, flags=re.DOTALL)   # drop the XML prolog/doctype
    frames, previous = [], {}
    for step in steps:
        styles = step_styles(timeline.state(step), options)
        diff = {k: v for k, v in styles.items() if previous.get(k) != v}
        previous = styles
        frames.append({"s": step, "e": caption(timeline, step), "d": diff})
    # Pieces joined in order, never a marker replaced over text that holds data: the SVG
    # (escaped by Graphviz) and the JSON (escaped above) land only where they are meant to.
    title = html.escape(f"agdebug: {len(timeline)} events")
    return "".join((_DOCTYPE, title, _HEAD, svg, _MIDDLE, script_json(frames), _TAIL))


_DOCTYPE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>"""
_HEAD = """</title>
<style>
body{font-family:Helvetica,Arial,sans-serif;margin:0;display:flex;flex-direction:column;height:100vh}
#bar{padding:8px;background:#f4f4f4;border-bottom:1px solid #ccc;display:flex;gap:8px;
align-items:center}
#bar input[type=range]{flex:1}
#event{padding:6px 8px;font-family:monospace;font-size:12px;background:#fffbe6;white-space:pre-wrap}
#main{flex:1;display:flex;overflow:hidden}
#graph{flex:1;overflow:auto;padding:8px}
#details{width:320px;border-left:1px solid #ccc;padding:8px;font-family:monospace;font-size:12px;
white-space:pre-wrap;overflow:auto}
</style></head><body>
<div id="bar"><button id="play">play</button><button id="prev">&lt;</button>
<button id="next">&gt;</button><input id="slider" type="range" min="0" value="0">
<span id="label"></span></div>
<div id="event"></div>
<div id="main"><div id="graph">"""
_MIDDLE = """</div><div id="details">hover a node for details</div></div>
<script>
const SAVED = @SAVED@;
const FRAMES = """
_TAIL = """;
const full = [];
let acc = {};
for (const f of FRAMES) { acc = Object.assign({}, acc, f.d); full.push(acc); }
const groups = {};
const seen = {};
for (const g of document.querySelectorAll('#graph g.node, #graph g.edge')) {
  const t = g.querySelector('title'); if (!t) continue;
  let key = t.textContent.replace(/\\s/g, '');
  seen[key] = (seen[key] || 0) + 1;
  if (seen[key] > 1) key = key + '#' + seen[key];
  groups[key] = g;
  for (const s of g.querySelectorAll('polygon,ellipse,path,polyline,text'))
    s.dataset.fill0 = s.getAttribute('fill') || '';
  g.addEventListener('mouseenter', () => {
    const st = full[cur][key];
    document.getElementById('details').textContent = st ? (st[6] || key) : key;
  });
}
function restyle(g, s) {
  const [fill, color, fontcolor, style, pw, struck] = s;
  g.style.display = style.includes('invis') ? 'none' : '';
  const edge = g.classList.contains('edge');
  for (const el of g.querySelectorAll('polygon,ellipse,path,polyline')) {
    el.setAttribute('stroke', color || 'black');
    if (edge && el.tagName === 'polygon') el.setAttribute('fill', color || 'black');
    else if (!edge && fill && el.dataset.fill0 && el.dataset.fill0 !== 'none')
      el.setAttribute('fill', fill);
    el.setAttribute('stroke-width', pw || '1');
    el.setAttribute('stroke-dasharray', style.includes('dashed') ? '5,2' :
                    (style.includes('dotted') ? '1,3' : ''));
  }
  const texts = g.querySelectorAll('text');
  const rows = texts.length - struck.length;   // a node's saved tensors: its last rows
  texts.forEach((tx, i) => {
    const gone = i >= rows ? struck[i - rows] : -1;
    tx.setAttribute('fill', gone >= 0 ? SAVED[gone] : (fontcolor || (edge && color) || 'black'));
    tx.setAttribute('text-decoration', gone === 1 ? 'line-through' : '');
  });
}
let cur = 0, timer = null;
const slider = document.getElementById('slider');
slider.max = FRAMES.length - 1;
function show(i) {
  cur = Math.max(0, Math.min(FRAMES.length - 1, i));
  const st = full[cur];
  for (const key in groups) if (st[key]) restyle(groups[key], st[key]);
  slider.value = cur;
  document.getElementById('label').textContent =
    'step ' + FRAMES[cur].s + ' (' + (cur + 1) + '/' + FRAMES.length + ')';
  document.getElementById('event').textContent = FRAMES[cur].e;
}
slider.addEventListener('input', () => show(+slider.value));
document.getElementById('prev').onclick = () => show(cur - 1);
document.getElementById('next').onclick = () => show(cur + 1);
document.getElementById('play').onclick = (ev) => {
  if (timer) { clearInterval(timer); timer = null; ev.target.textContent = 'play'; return; }
  ev.target.textContent = 'pause';
  timer = setInterval(() => { if (cur >= FRAMES.length - 1) show(0); else show(cur + 1); }, 600);
};
document.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowRight') show(cur + 1); if (e.key === 'ArrowLeft') show(cur - 1);
});
show(0);
</script></body></html>
"""
# Filled in once at import, from constants only (no trace text): the saved rows' colours.
_MIDDLE = _MIDDLE.replace("@SAVED@", json.dumps([SAVED_COLORS[False], SAVED_COLORS[True]]))
