"""Animated GIFs: Graphviz lays the diagram out once, every frame is drawn from that.

Each frame is the layout (every step's nodes and labels, ``Timeline.drawn``, as in the HTML player)
restyled with the step's looks (``html.step_styles``: one definition of what a step
looks like for both), with the step's sentence wrapped above it. Only what changed since
the previous frame is redrawn and written, straight into the GIF stream: no frame is
kept once written, so memory does not grow with the number of frames.

``--values`` reserves rows in the layout (as wide as the widest statistics) for every
node and edge that receives gradient statistics at some step; each frame writes the
step's statistics into them, as the single diagram writes them into its labels.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from .dot import SAVED_COLORS, SAVED_ROW, STATUS_COLORS, _stats_text, to_dot
from .html import step_styles
from .raster import VALUE_SLOT, LayoutError, Look, Raster, font, parse_layout

__all__ = ["write_gif"]

MARGIN = 4                # pixels around the drawing and the caption
MIN_WIDTH = 480           # a narrow graph still gets a caption that reads
CAPTION_PX, LINE_PX = 12, 15
MAX_CAPTION_LINES = 8     # past this a (crafted) caption ends with "..."
MAX_CAPTION = 2000        # characters of a caption wrapped (8 lines hold far fewer)


def write_gif(out, timeline, steps, options, render, captions, side: int, ms: int) -> None:
    """Write to ``out`` a GIF of ``steps`` (one frame each, ``ms`` apart, captioned), frames
    at most ``side`` x ``side`` pixels; ``options`` fix the layout (``layout_options``),
    ``render(dot, "json")`` lays it out."""
    from PIL import GifImagePlugin, Image
    plan = _plan(timeline, steps, options, render, captions, side)
    looks = _looks(timeline.state(steps[0]), options, plan.room)
    palette = _palette(plan.raster, [looks, _looks(timeline.final, options, plan.room)])
    canvas = Image.new("P", plan.frame.size, 0)
    canvas.putpalette(palette.getpalette())
    previous = None
    for n, step in enumerate(steps):
        looks = _looks(timeline.state(step), options, plan.room) if n else looks
        box = _draw_frame(canvas, palette, plan, looks, previous, plan.frame.lines[n])
        if not n:
            header, _ = GifImagePlugin.getheader(canvas, info={"loop": 0, "duration": ms})
            out.write(b"".join(header))
        # No disposal: each frame is drawn over the last, so only the changed box is written.
        out.write(b"".join(GifImagePlugin.getdata(canvas.crop(box), box[:2], duration=ms)))
        previous = looks
    out.write(b";")


@dataclass(frozen=True)
class _Plan:
    room: _Room
    frame: _Frame
    raster: Raster


def _plan(timeline, steps, options, render, captions, side: int) -> _Plan:
    """Lay the frames out once: Graphviz's layout, the frame geometry, the raster."""
    if not steps:
        raise LayoutError("there are no steps to draw")
    room = _room(timeline, options.layout.nodes) if options.values else _Room({}, {})
    layout = parse_layout(render(_layout_text(timeline, options, room), "json"))
    frame = _frame(layout, options.dpi, captions, side)
    return _Plan(room, frame, Raster(layout, frame.scale, frame.origin, room.rows()))


def _draw_frame(canvas, palette, plan: _Plan, looks, previous, caption: list) -> tuple:
    """Redraw on ``canvas`` what changed since ``previous``, and the caption; the box of it."""
    boxes = _dirty(plan.raster, looks, previous, plan.frame.drawing)
    for box in boxes:
        _paint(canvas, palette, box, plan.raster.draw, box, looks)
    _paint(canvas, palette, plan.frame.band, _caption, caption)
    return _union([*boxes, plan.frame.band])


# ----------------------------------------------------------------------------- values

@dataclass(frozen=True)
class _Room:
    """Where ``--values`` text goes: node id -> rows, (node id, edge index) -> edge key."""

    nodes: dict
    edges: dict

    def rows(self) -> dict:
        """Element key -> rows of ``VALUE_SLOT`` reserved in its label."""
        return {**{f"n{n}": rows for n, rows in self.nodes.items()},
                **{key: 1 for key in self.edges.values()}}


def _node_values(grads) -> list[str]:
    """A node's statistics lines, as ``dot`` writes them in a single diagram's label."""
    return [f"grad {text}" for text in map(_stats_text, grads) if text]


def _edge_keys(node) -> list:
    """Per edge of ``node``: its element key (``n3->n2``, ``#2`` for a repeat) or None."""
    seen: dict = {}
    keys = []
    for child, _ in node.edges if node is not None else ():
        n = seen[child] = seen.get(child, 0) + 1
        keys.append(f"n{node.id}->n{child}" + (f"#{n}" if n > 1 else "") if child else None)
    return keys


def _room(timeline, universe) -> _Room:
    """Rows to reserve: the most statistics any step gives each node and edge."""
    nodes: dict = {}
    for step in timeline.steps_of("node_started"):
        event = timeline.events[step - 1]
        if event.node in universe:
            nodes[event.node] = max(nodes.get(event.node, 0), len(_node_values(event.grads)))
    edges: dict = {}
    for step in timeline.steps_of("node_finished"):
        event = timeline.events[step - 1]
        keys = _edge_keys(universe.get(event.node))
        for i, grad in enumerate(event.grads[:len(keys)]):
            if keys[i] and _stats_text(grad):
                edges[event.node, i] = keys[i]
    return _Room({n: rows for n, rows in nodes.items() if rows}, edges)


def _values(state, room: _Room) -> dict:
    """Element key -> the statistics texts ``state`` gives it."""
    out = {}
    for node_id in room.nodes:
        live = state.nodes.get(node_id)
        if live is not None:
            out[f"n{node_id}"] = tuple(_node_values(live.grads_in))
    for (node_id, i), key in room.edges.items():
        live = state.nodes.get(node_id)
        text = _stats_text(live.grads_out[i]) if live and i < len(live.grads_out) else ""
        out[key] = (text,) if text else ()
    return out


def _looks(state, options, room: _Room) -> dict:
    """Element key -> ``Look`` at ``state``: the player's styles plus the values."""
    values = _values(state, room)
    return {key: Look(*style[:5], tuple(style[5]), values.get(key, ()))
            for key, style in step_styles(state, options).items()}


# An element line of ``to_dot`` (a node or an edge between op nodes) and its label: a DOT
# string (escapes inside) or an HTML-like table (trace text in it is escaped, so no
# ``</TABLE>>``).
_ELEMENT = re.compile(r'^\s*(n\d+(?: -> n\d+)?) \[label=("(?:[^"\\]|\\.)*"|<<TABLE.*?</TABLE>>)')
_SAVED_START = SAVED_ROW.split("{}")[0]


def _layout_text(timeline, options, room: _Room) -> str:
    """The DOT text every frame is drawn from: the layout, all shown, with the rows
    ``room`` reserves added to the labels."""
    text = to_dot(timeline.final, dataclasses.replace(options, reveal=True, fit=None))
    rows = room.rows()
    if not rows:
        return text
    counts: dict = {}
    lines = text.split("\n")
    for i, line in enumerate(lines):
        match = _ELEMENT.match(line)
        if match is None:
            continue
        key = match.group(1).replace(" ", "")
        n = counts[key] = counts.get(key, 0) + 1
        key = f"{key}#{n}" if n > 1 else key
        if rows.get(key):
            label = _with_rows(match.group(2), rows[key])
            lines[i] = line[:match.start(2)] + label + line[match.end(2):]
    return "\n".join(lines)


def _with_rows(label: str, rows: int) -> str:
    """``label`` with ``rows`` lines of ``VALUE_SLOT`` after its text (before saved rows)."""
    if label.startswith('"'):
        body = label[1:-1]
        return '"' + "\\n".join(([body] if body else []) + [VALUE_SLOT] * rows) + '"'
    extra = f"<TR><TD>{VALUE_SLOT}</TD></TR>" * rows
    at = label.find(_SAVED_START)
    at = at if at >= 0 else label.rindex("</TABLE>>")
    return label[:at] + extra + label[at:]


# ----------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class _Frame:
    size: tuple           # (width, height) pixels of every frame
    scale: float          # pixels per layout point
    origin: tuple         # where the layout's top-left corner lands
    band: tuple           # the caption's box, at the top
    drawing: tuple        # the drawing's box, below it
    lines: list           # per step: its caption's lines


def _frame(layout, dpi, captions, side: int) -> _Frame:
    """Frame geometry: the drawing at ``dpi`` (shrunk to fit), captions wrapped to the width,
    everything within ``side`` x ``side`` pixels."""
    w, h = max(layout.width, 1.0), max(layout.height, 1.0)
    scale = min((dpi or 96) / 72, (side - 2 * MARGIN) / w)
    width = int(min(side, max(MIN_WIDTH, w * scale + 2 * MARGIN)))
    lines = [wrap(text, width - 2 * MARGIN) for text in captions]
    band = max(map(len, lines)) * LINE_PX + 2 * MARGIN
    scale = min(scale, (side - band - 2 * MARGIN) / h)
    height = band + min(int(math.ceil(h * scale)) + 2 * MARGIN, side - band)
    origin = ((width - w * scale) / 2, band + MARGIN)
    return _Frame((width, height), scale, origin, (0, 0, width, band),
                  (0, band, width, height), lines)


def _wrapped(face, text: str, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else word
        if face.getlength(joined) <= width or not joined.strip():
            line = joined
            continue
        if line:
            lines.append(line)
        line = word
        while face.getlength(line) > width and len(line) > 1:   # a word wider than a line
            cut = max(1, int(len(line) * width / face.getlength(line)))
            lines.append(line[:cut])
            line = line[cut:]
    return lines + [line]


def wrap(text: str, width: float) -> list[str]:
    """``text`` in lines at most ``width`` pixels wide in the caption font (words kept
    whole where they fit). Bounded: past ``MAX_CAPTION_LINES`` the last ends with "..."."""
    face, lines = font(CAPTION_PX), []
    for paragraph in text[:MAX_CAPTION].split("\n"):   # (printed output keeps its lines;
        lines += _wrapped(face, paragraph, width)        # a font measures one line only)
    if len(lines) > MAX_CAPTION_LINES or len(text) > MAX_CAPTION:
        lines = lines[:MAX_CAPTION_LINES]
        lines[-1] = lines[-1][:max(0, len(lines[-1]) - 3)] + "..."
    return lines


def _caption(image, lines: list[str]) -> None:
    from PIL import ImageDraw
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((MARGIN, MARGIN + i * LINE_PX), line, fill=(0, 0, 0), font=font(CAPTION_PX))


def _dirty(raster: Raster, looks: dict, previous: dict | None, drawing: tuple) -> list:
    """Boxes to redraw: all of the drawing at first (or when much changed), else the boxes
    of the elements whose look changed."""
    if previous is None:
        return [drawing]
    boxes = [_clip(item.box, drawing) for item in raster.items
             if looks.get(item.element.key) != previous.get(item.element.key)]
    boxes = [b for b in boxes if b[0] < b[2] and b[1] < b[3]]
    if len(boxes) * 4 > len(raster.items) or len(boxes) > 64:
        return [_union(boxes)] if boxes else []
    return _merged(boxes)


def _clip(box: tuple, within: tuple) -> tuple:
    return (max(box[0], within[0]), max(box[1], within[1]),
            min(box[2], within[2]), min(box[3], within[3]))


def _union(boxes) -> tuple:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def _merged(boxes: list) -> list:
    """``boxes`` with overlapping ones joined (so no pixel is drawn twice)."""
    out: list = []
    for box in boxes:
        while True:
            hit = next((b for b in out if b[0] < box[2] and box[0] < b[2]
                        and b[1] < box[3] and box[1] < b[3]), None)
            if hit is None:
                break
            out.remove(hit)
            box = _union([box, hit])
        out.append(box)
    return out


def _paint(canvas, palette, box: tuple, draw, *args) -> None:
    """``draw(image, *args)`` onto a white RGB image of ``box``, mapped to the palette, into
    ``canvas`` (antialiased drawing, then each pixel to its nearest palette colour)."""
    from PIL import Image
    image = Image.new("RGB", (box[2] - box[0], box[3] - box[1]), (255, 255, 255))
    draw(image, *args)
    canvas.paste(image.quantize(palette=palette, dither=Image.Dither.NONE), box[:2])


def _palette(raster: Raster, looks: list):
    """A palette image: every colour the frames use (the layout's and the looks'), then
    blends of each toward white and black for the edges of antialiased text."""
    from PIL import Image, ImageColor
    names = ["#ffffff", "#000000", *STATUS_COLORS.values(), *SAVED_COLORS.values()]
    for item in raster.items:
        names.extend(c for s in item.element.shapes for c in (s.pen, s.fill))
    for step in looks:
        names.extend(c for look in step.values() for c in (look.fill, look.color, look.fontcolor)
                     if c)
    exact: dict = {}
    for name in names:
        try:
            rgba = ImageColor.getcolor(name, "RGBA")
        except ValueError:
            continue
        if rgba[3]:
            exact.setdefault(rgba[:3], None)
    colors = list(exact)
    colors += [tuple(round(c + (t - c) * k) for c in rgb)
               for k in (1 / 3, 2 / 3) for t in (255, 0) for rgb in list(exact)]
    colors += [(g, g, g) for g in range(0, 256, 17)]
    colors = list(dict.fromkeys(colors))[:256]
    image = Image.new("P", (1, 1))
    image.putpalette([v for rgb in colors for v in rgb] + [0, 0, 0] * (256 - len(colors)))
    return image
