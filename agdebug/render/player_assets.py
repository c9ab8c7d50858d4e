"""The HTML player's fixed text: markup, style and script, joined around the page's data.

Nothing here holds trace text. ``html.html_page`` writes ``HEAD``, the escaped title,
``BODY``, the SVG, ``SCRIPT``, the frames as inert JSON (a data block), then ``END``. The
script applies each step's style diff (and, going back, what that step replaced: ``undo``),
so a step costs what it changes; it pans (drag), zooms (wheel about the pointer, +/-), fits
(f, and on open) and follows the node a step is about. Keys act whatever has focus, once.
"""

from __future__ import annotations

import json

from .dot import SAVED_COLORS

__all__ = ["BODY", "END", "HEAD", "SCRIPT"]

HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>"""

BODY = """</title>
<style>
body{font-family:Helvetica,Arial,sans-serif;margin:0;display:flex;flex-direction:column;
height:100vh;overflow:hidden}
#bar{padding:6px 8px;background:#f4f4f4;border-bottom:1px solid #ccc;display:flex;gap:6px;
align-items:center;flex:none}
#bar input[type=range]{flex:1;min-width:80px}
#bar label,#label{font-size:12px;white-space:nowrap}
#main{flex:1;display:flex;min-height:0}
#view{flex:1;position:relative;overflow:hidden;cursor:grab;touch-action:none}
#view.dragging{cursor:grabbing}
#stage{position:absolute;left:0;top:0;transform-origin:0 0}
#stage svg{display:block}
#details{width:300px;border-left:1px solid #ccc;padding:8px;font-family:monospace;
font-size:12px;white-space:pre-wrap;overflow:auto;flex:none}
#event{flex:none;padding:6px 8px;font-family:monospace;font-size:13px;background:#fffbe6;
border-top:1px solid #ccc;white-space:pre-wrap;max-height:5em;overflow:auto}
</style></head><body>
<div id="bar"><button id="play">play</button>
<button id="prev" title="back (Left)">&lt;</button>
<button id="next" title="next (Space, Right)">&gt;</button>
<input id="slider" type="range" min="0" value="0"><span id="label"></span>
<button id="out" title="zoom out (-)">&minus;</button><button id="in" title="zoom in (+)">+</button>
<button id="fit" title="fit what this step draws (f)">fit</button>
<label title="bring the step's node into view"><input id="follow" type="checkbox" checked>
follow</label></div>
<div id="main"><div id="view"><div id="stage">"""

# The frames are JSON data, not a script: JSON.parse reads megabytes several times faster
# than the JavaScript parser reads the same literal.
SCRIPT = """</div></div><div id="details"></div></div>
<div id="event"></div>
<script type="application/json" id="frames">"""

END = """</script>
<script>
const SAVED = @SAVED@;
const $ = (id) => document.getElementById(id);
const FRAMES = JSON.parse($('frames').textContent);
const view = $('view'), stage = $('stage'), svg = stage.querySelector('svg');
const slider = $('slider'), details = $('details');
const HINT = 'hover or click a node for details\\n\\nkeys: Space/Right next, Left back, ' +
  'Home/End, +/- zoom, f fit; drag to pan, wheel to zoom';
// Element key -> its SVG group: the title, numbered when repeated (h * h: two edges).
const groups = new Map();
{
  const seen = {};
  for (const g of svg.querySelectorAll('g.node, g.edge')) {
    const t = g.querySelector('title'); if (!t) continue;
    let key = t.textContent.replace(/\\s/g, '');
    seen[key] = (seen[key] || 0) + 1;
    if (seen[key] > 1) key += '#' + seen[key];
    groups.set(key, g); g.dataset.key = key;
  }
}
// undo[i]: the styles frame i replaced, so going back costs what changed too.
const undo = [], about = [];
{
  const acc = {}; let node = '';
  for (const f of FRAMES) {
    const u = {};
    for (const k in f.d) { u[k] = acc[k]; acc[k] = f.d[k]; }
    undo.push(u);
    if ('c' in f) node = f.c;
    about.push(node);
  }
}
const now = {}, partsOf = new Map();
function parts(g) {
  let p = partsOf.get(g);
  if (!p) {
    const shapes = [...g.querySelectorAll('polygon,ellipse,path,polyline')];
    p = {shapes, texts: [...g.querySelectorAll('text')], edge: g.classList.contains('edge'),
         filled: shapes.map((s) => !!s.getAttribute('fill') && s.getAttribute('fill') !== 'none')};
    partsOf.set(g, p);
  }
  return p;
}
function restyle(g, s) {
  const [fill, color, fontcolor, style, pw, struck, , rows] = s;
  g.style.display = style.includes('invis') ? 'none' : '';
  const p = parts(g);
  const dash = style.includes('dashed') ? '5,2' : (style.includes('dotted') ? '1,3' : '');
  p.shapes.forEach((el, i) => {
    el.setAttribute('stroke', color || 'black');
    if (p.edge && el.tagName === 'polygon') el.setAttribute('fill', color || 'black');
    else if (!p.edge && fill && p.filled[i]) el.setAttribute('fill', fill);
    el.setAttribute('stroke-width', pw || '1');
    el.setAttribute('stroke-dasharray', dash);
  });
  // A node's texts: its label lines, then its --values rows, then its saved tensors.
  const own = p.texts.length - struck.length, nv = rows ? rows.length : 0;
  p.texts.forEach((tx, i) => {
    const gone = i >= own ? struck[i - own] : -1;
    tx.setAttribute('fill', gone >= 0 ? SAVED[gone] : (fontcolor || (p.edge && color) || 'black'));
    tx.setAttribute('text-decoration', gone === 1 ? 'line-through' : '');
    if (i >= own - nv && i < own) tx.textContent = rows[i - own + nv];
  });
}
// Pan and zoom: one transform on the stage; the SVG stays a vector at any scale.
const W = svg.width.baseVal.value, H = svg.height.baseVal.value;
let k = 1, tx = 0, ty = 0, fitK = 1;
function place() { stage.style.transform = `translate(${tx}px,${ty}px) scale(${k})`; }
// Fit: what the step draws (a long run's layout holds every iteration, most of it hidden
// at any one step), at most at the scale that fits the whole drawing or natural size.
function shown() {
  const s = stage.getBoundingClientRect();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const g of groups.values()) {
    if (g.style.display === 'none') continue;
    const b = g.getBoundingClientRect();
    if (!b.width && !b.height) continue;
    x0 = Math.min(x0, b.left); y0 = Math.min(y0, b.top);
    x1 = Math.max(x1, b.right); y1 = Math.max(y1, b.bottom);
  }
  if (x0 === Infinity) return {x: 0, y: 0, w: W, h: H};
  return {x: (x0 - s.left) / k, y: (y0 - s.top) / k, w: (x1 - x0) / k, h: (y1 - y0) / k};
}
function fit(whole = false) {
  const r = view.getBoundingClientRect(), b = whole ? {x: 0, y: 0, w: W, h: H} : shown();
  fitK = Math.min(r.width / W, r.height / H) * 0.97;
  k = Math.min(Math.min(r.width / b.w, r.height / b.h) * 0.97, Math.max(1, fitK));
  tx = (r.width - b.w * k) / 2 - b.x * k; ty = (r.height - b.h * k) / 2 - b.y * k; place();
}
function zoom(f, x = view.clientWidth / 2, y = view.clientHeight / 2) {
  const k2 = Math.max(Math.min(fitK, 1) / 4, Math.min(8, k * f));
  tx = x - (x - tx) * k2 / k; ty = y - (y - ty) * k2 / k; k = k2; place();
}
function follow() {
  const g = $('follow').checked && groups.get(about[cur]);
  if (!g || g.style.display === 'none') return;
  const b = g.getBoundingClientRect(), r = view.getBoundingClientRect();
  if (b.left >= r.left && b.right <= r.right && b.top >= r.top && b.bottom <= r.bottom) return;
  tx += r.left + r.width / 2 - (b.left + b.width / 2);
  ty += r.top + r.height / 2 - (b.top + b.height / 2); place();
}
let cur = -1, timer = null, pinned = '';
function describe(key) { const s = now[key]; details.textContent = s ? (s[6] || key) : key; }
function show(i) {
  i = Math.max(0, Math.min(FRAMES.length - 1, i));
  const net = {};
  if (i > cur) for (let j = cur + 1; j <= i; j++) Object.assign(net, FRAMES[j].d);
  else for (let j = cur; j > i; j--) Object.assign(net, undo[j]);
  for (const key in net) {
    const s = net[key], g = groups.get(key);
    if (s && g && s !== now[key]) { restyle(g, s); now[key] = s; }
  }
  cur = i; slider.value = i;
  $('label').textContent = `step ${FRAMES[i].s} (${i + 1}/${FRAMES.length})`;
  $('event').textContent = FRAMES[i].e;
  if (pinned) describe(pinned);
  follow();
}
slider.max = FRAMES.length - 1;
slider.addEventListener('input', () => show(+slider.value));
$('prev').onclick = () => show(cur - 1);
$('next').onclick = () => show(cur + 1);
$('in').onclick = () => zoom(1.25);
$('out').onclick = () => zoom(0.8);
$('fit').onclick = () => fit();
$('follow').onchange = follow;
$('play').onclick = (ev) => {
  if (timer) { clearInterval(timer); timer = null; ev.target.textContent = 'play'; return; }
  ev.target.textContent = 'pause';
  timer = setInterval(() => show(cur >= FRAMES.length - 1 ? 0 : cur + 1), 500);
};
const KEYS = {' ': () => show(cur + 1), ArrowRight: () => show(cur + 1),
  ArrowLeft: () => show(cur - 1), Home: () => show(0), End: () => show(FRAMES.length - 1),
  '+': () => zoom(1.25), '=': () => zoom(1.25), '-': () => zoom(0.8), f: fit, F: fit};
// Capturing, and cancelling the default: a focused slider or button must not step again.
window.addEventListener('keydown', (e) => {
  const act = !e.ctrlKey && !e.metaKey && !e.altKey && KEYS[e.key];
  if (act) { e.preventDefault(); e.stopPropagation(); act(); }
}, true);
window.addEventListener('keyup', (e) => { if (e.key === ' ') e.preventDefault(); }, true);
view.addEventListener('wheel', (e) => {
  e.preventDefault();
  const r = view.getBoundingClientRect();
  zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
}, {passive: false});
let drag = null;
view.addEventListener('pointerdown', (e) => {
  if (e.button !== 0) return;
  drag = {x: e.clientX, y: e.clientY, tx, ty, moved: false};
  view.setPointerCapture(e.pointerId);
});
view.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; view.classList.add('dragging'); }
  if (drag.moved) { tx = drag.tx + dx; ty = drag.ty + dy; place(); }
});
view.addEventListener('pointerup', (e) => {
  const click = drag && !drag.moved;
  drag = null; view.classList.remove('dragging');
  if (!click) return;
  // A click pins a node's details (another click elsewhere lets hover show them again).
  const hit = document.elementFromPoint(e.clientX, e.clientY);
  const g = hit && hit.closest('g.node, g.edge');
  pinned = g ? g.dataset.key : '';
  if (g) describe(pinned); else details.textContent = HINT;
});
svg.addEventListener('mouseover', (e) => {
  const g = !pinned && e.target.closest('g.node, g.edge');
  if (g) describe(g.dataset.key);
});
details.textContent = HINT;
show(0);
// On open: the whole drawing while it is legible (a picture of where the graph will grow),
// else what the first step draws; where that is too big to read whole (a real model's
// graph), it is shown at a scale its words read at, from its top (the loss) and around
// the step's node: f fits it whole.
const LEGIBLE = 0.6;
function openView() {
  fit(Math.min(view.clientWidth / W, view.clientHeight / H) >= 0.5);
  if (k >= LEGIBLE) return;
  const r = view.getBoundingClientRect(), b = shown();
  k = LEGIBLE; tx = (r.width - b.w * k) / 2 - b.x * k; ty = 8 - b.y * k; place();
  follow();
}
openView();
</script></body></html>
"""
# Filled in once at import, from constants only (no trace text): the saved rows' colours.
END = END.replace("@SAVED@", json.dumps([SAVED_COLORS[False], SAVED_COLORS[True]]))
