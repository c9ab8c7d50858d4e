"""A self-contained, offline HTML player: one SVG layout, restyled step by step.

The page embeds the diagram once (laid out from the final state, everything
visible) and, per step, only the styles that changed plus the event's text;
a small script applies them. Play, step, a slider, and node details on hover.
"""

from __future__ import annotations

import html
import json
import re

from ..debug.narration import caption
from .dot import dot_elements, to_dot

__all__ = ["html_page", "step_styles"]

_STYLE_KEYS = ("fillcolor", "color", "fontcolor", "style", "penwidth")


def _unq(value) -> str:
    text = str(value)
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
    return text


def step_styles(state, options) -> dict:
    """Element key -> [fill, stroke, fontcolor, style, penwidth, struck, tooltip]."""
    out = {}
    counts: dict = {}
    for key, attrs in dot_elements(state, options):
        key = key.replace(" ", "")
        n = counts[key] = counts.get(key, 0) + 1
        if n > 1:
            key = f"{key}#{n}"
        label = str(attrs.get("label", ""))
        out[key] = [_unq(attrs.get(k, "")) for k in _STYLE_KEYS] + [
            1 if label.startswith("<<S>") else 0, _unq(attrs.get("tooltip", ""))]
    return out


def _all_visible(dot_text: str) -> str:
    lines = []
    for line in dot_text.split("\n"):
        if "style=invis" in line:
            line = line.replace("style=invis", "style=solid" if " -> " in line else
                                "style=filled")
        lines.append(line)
    return "\n".join(lines)


def html_page(timeline, steps, options, render) -> str:
    """The page for ``steps`` of ``timeline``; ``render(dot, "svg")`` lays out the diagram."""
    base = to_dot(timeline.final, options)
    svg = render(_all_visible(base), "svg").decode("utf-8")
    svg = re.sub(r"^.*?(<svg\b)", r"\1", svg, flags=re.DOTALL)   # drop the XML prolog/doctype
    frames, previous = [], {}
    for step in steps:
        styles = step_styles(timeline.state(step), options)
        diff = {k: v for k, v in styles.items() if previous.get(k) != v}
        previous = styles
        frames.append({"s": step, "e": caption(timeline, step), "d": diff})
    data = json.dumps(frames, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.replace("@SVG@", svg).replace("@DATA@", data).replace(
        "@TITLE@", html.escape(f"agdebug: {len(timeline)} events"))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
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
<div id="main"><div id="graph">@SVG@</div><div id="details">hover a node for details</div></div>
<script>
const FRAMES = @DATA@;
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
  for (const tx of g.querySelectorAll('text')) {
    tx.setAttribute('fill', fontcolor || (edge && color) || 'black');
    tx.setAttribute('text-decoration', struck ? 'line-through' : '');
  }
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
