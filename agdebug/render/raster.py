"""Graphviz's drawing operations (its ``json`` output: xdot 1.7 ops) drawn with Pillow.

Frames of an animation share one layout, so Graphviz lays the diagram out once and
``Raster`` draws every frame itself, each element restyled by a ``Look`` (the step's
fill, stroke, font colour, style, pen width, struck saved rows and value texts): the
same restyling the HTML player applies to its one SVG.

The layout is parsed defensively: ``json.loads`` only, every value checked for its
type and range, a bounded number of operations; text is drawn as text, never read.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, replace

from .dot import SAVED_COLORS

__all__ = ["Element", "LayoutError", "Look", "Raster", "Shape", "font", "parse_layout"]

MAX_LAYOUT_BYTES = 64 << 20   # a layout past this is refused, not drawn
MAX_SHAPES = 500_000
MAX_TEXT = 2000               # characters of one text drawn (a frame is at most 2000 px wide)
MIN_TEXT_PX = 3               # smaller text is not drawn (Graphviz's PNG shows a smudge)
_FAR = 1e7                    # points: coordinates past this are not a real layout


class LayoutError(ValueError):
    """Graphviz's layout cannot be drawn (unreadable, or larger than the bounds)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One drawing operation with the pen state it was drawn with, in layout points."""

    kind: str            # "polygon", "ellipse", "line" or "text"
    points: tuple        # ((x, y), ...); an ellipse: (centre, (rx, ry))
    filled: bool = False
    pen: str = "#000000"
    fill: str = "#000000"
    dash: str = ""       # "", "dashed" or "dotted"
    width: float = 1.0   # line width in points
    text: str = ""
    size: float = 14.0   # font size in points
    align: str = "c"     # "l", "c" or "r" of the point
    text_width: float = 0.0
    flags: int = 0       # xdot font characteristics: 8 underline, 32 strike-through


@dataclass(slots=True)
class Element:
    """A node, an edge, a cluster or the graph itself: its key and its shapes."""

    key: str             # "n3", "n3->n2" ("#2" for a repeat), "legend"; "" for the graph
    edge: bool
    shapes: list


@dataclass(frozen=True, slots=True)
class Look:
    """How one element looks at one step (``html.step_styles`` plus value texts)."""

    fill: str = ""
    color: str = ""
    fontcolor: str = ""
    style: str = ""
    penwidth: str = ""
    struck: tuple = ()   # per saved-tensor row (a node's last texts): 1 once released
    values: tuple = ()   # texts for the rows reserved for gradient statistics


@dataclass(frozen=True, slots=True)
class Layout:
    width: float         # points
    height: float
    elements: list


# ----------------------------------------------------------------------------- parsing

def _bad(what: str):
    raise LayoutError(f"Graphviz's layout holds {what}")


def _num(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or abs(value) > _FAR:
        _bad("a number out of range")
    return float(value)


def _pair(value) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) < 2:
        _bad("a malformed point")
    return _num(value[0]), _num(value[1])


def _points(value, least: int) -> tuple:
    if not isinstance(value, list) or len(value) < least:
        _bad("a malformed point list")
    return tuple(_pair(p) for p in value)


def _text(value) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""


class _Pen:
    """xdot's drawing state: reset for each drawing attribute (defaults as Graphviz's)."""

    def __init__(self):
        self.pen, self.fill, self.dash, self.width = "#000000", "#000000", "", 1.0
        self.size, self.flags = 14.0, 0

    def style(self, text: str) -> None:
        for part in text.split(","):
            part = part.strip()
            if part in ("dashed", "dotted", "solid"):
                self.dash = "" if part == "solid" else part
            elif part.startswith("setlinewidth(") and part.endswith(")"):
                try:
                    self.width = min(max(float(part[13:-1]), 0.0), 50.0)
                except ValueError:
                    pass

    def shape(self, kind: str, points: tuple, filled: bool = False) -> Shape:
        return Shape(kind, points, filled, self.pen, self.fill, self.dash, self.width)


def _shape(pen: _Pen, op: dict) -> Shape | None:
    """The shape ``op`` draws, or None (a state change, or an op we do not draw)."""
    name = op.get("op")
    if name in ("c", "C"):
        color = op.get("color")
        if isinstance(color, str):
            setattr(pen, "pen" if name == "c" else "fill", color[:32])
    elif name == "S" and isinstance(op.get("style"), str):
        pen.style(op["style"][:200])
    elif name == "F":
        pen.size = min(max(_num(op.get("size", 14.0)), 0.0), 1000.0)
    elif name == "t":
        pen.flags = int(_num(op.get("fontchar", 0))) & 0x7F
    elif name in ("P", "p"):
        return pen.shape("polygon", _points(op.get("points"), 3), name == "P")
    elif name in ("E", "e"):
        rect = op.get("rect")
        if not isinstance(rect, list) or len(rect) < 4:
            _bad("a malformed ellipse")
        x, y, rx, ry = (_num(v) for v in rect[:4])
        return pen.shape("ellipse", ((x, y), (abs(rx), abs(ry))), name == "E")
    elif name in ("L", "B", "b"):
        # Graphviz's json writes an edge's (unfilled) spline as "b": drawn as a line either way.
        points = _points(op.get("points"), 2)
        return pen.shape("line", _bezier(points) if name != "L" else points)
    elif name == "T":
        return _text_shape(pen, op)
    return None


def _text_shape(pen: _Pen, op: dict) -> Shape:
    x, y = _pair(op.get("pt"))
    align = op.get("align") if op.get("align") in ("l", "c", "r") else "c"
    return Shape("text", ((x, y),), pen=pen.pen, text=_text(op.get("text")), size=pen.size,
                 align=align, text_width=max(_num(op.get("width", 0.0)), 0.0),
                 flags=pen.flags)


def _bezier(points: tuple) -> tuple:
    """A cubic B-spline's control points (1 + 3n of them) as a polyline."""
    out = [points[0]]
    for i in range(0, len(points) - 3, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[i:i + 4]
        for k in range(1, 9):
            t = k / 8
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            out.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return tuple(out) if len(out) > 1 else points


_DRAWS = ("_draw_", "_ldraw_", "_hdraw_", "_tdraw_", "_hldraw_", "_tldraw_")


def _shapes(obj: dict, budget: list) -> list:
    shapes = []
    for attr in _DRAWS:
        ops = obj.get(attr)
        if not isinstance(ops, list):
            continue
        budget[0] -= len(ops)
        if budget[0] < 0:
            raise LayoutError(f"the layout has over {MAX_SHAPES} drawing operations")
        pen = _Pen()
        shapes.extend(s for s in (_shape(pen, op) for op in ops if isinstance(op, dict)) if s)
    return shapes


def parse_layout(data: bytes) -> Layout:
    """The elements of Graphviz's ``-Tjson`` output, in drawing order (graph, clusters,
    nodes, edges). Raises ``LayoutError`` for anything else."""
    if len(data) > MAX_LAYOUT_BYTES:
        raise LayoutError(f"the layout is too large to draw ({len(data) >> 20} MB)")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise LayoutError("Graphviz's layout could not be read") from None
    if not isinstance(doc, dict):
        raise LayoutError("Graphviz's layout could not be read")
    x0, y0, x1, y1 = _bounds(doc.get("bb"))
    objects = [o for o in doc.get("objects") or [] if isinstance(o, dict)]
    budget = [MAX_SHAPES]
    elements = [Element("", False, _shapes(doc, budget))]
    clusters = [o for o in objects if "nodes" in o or "edges" in o]
    nodes = [o for o in objects if not ("nodes" in o or "edges" in o)]
    for obj in clusters + nodes:
        elements.append(Element(_text(obj.get("name")), False, _shapes(obj, budget)))
    elements.extend(_edges(doc.get("edges"), objects, budget))
    return Layout(x1 - x0, y1 - y0, _moved(elements, -x0, -y0))


def _bounds(text) -> tuple:
    try:
        values = [float(v) for v in str(text)[:200].split(",")]
    except ValueError:
        values = []
    if len(values) != 4:
        _bad("no bounding box")
    return tuple(_num(v) for v in values)


def _edges(edges, objects: list, budget: list) -> list:
    """Edge elements keyed ``tail->head`` as ``html.step_styles`` keys them (``#2``...)."""
    names = {o.get("_gvid"): _text(o.get("name")) for o in objects}
    counts: dict = {}
    out = []
    for edge in edges if isinstance(edges, list) else []:
        if not isinstance(edge, dict):
            continue
        key = f"{names.get(edge.get('tail'), '?')}->{names.get(edge.get('head'), '?')}"
        n = counts[key] = counts.get(key, 0) + 1
        out.append(Element(f"{key}#{n}" if n > 1 else key, True, _shapes(edge, budget)))
    return out


def _moved(elements: list, dx: float, dy: float) -> list:
    """``elements`` with the layout's origin at (0, 0)."""
    if not dx and not dy:
        return elements
    for element in elements:
        element.shapes = [_shift(s, dx, dy) for s in element.shapes]
    return elements


def _shift(shape: Shape, dx: float, dy: float) -> Shape:
    if shape.kind == "ellipse":
        (x, y), radii = shape.points
        return replace(shape, points=((x + dx, y + dy), radii))
    return replace(shape, points=tuple((x + dx, y + dy) for x, y in shape.points))


# ----------------------------------------------------------------------------- drawing

VALUE_SLOT = "grad min -8.888e+88 max -8.888e+88 mean -8.888e+88 norm 8.888e+88"
"""Text reserving a row for a step's gradient statistics (as wide as the widest)."""

_ANCHORS = {"l": "ls", "c": "ms", "r": "rs"}   # Pillow anchors on the baseline, as xdot's T


# Helvetica's metrics (what Graphviz measured the labels with) and glyphs past Latin-1 ("—",
# "×"): the system's sans fonts where installed; Pillow's own font lacks those glyphs.
_SYSTEM_FONTS = ("LiberationSans-Regular.ttf", "DejaVuSans.ttf", "Arial.ttf")


@functools.lru_cache(maxsize=64)
def font(px: int):
    """A sans font at ``px`` pixels: the system's (see ``_SYSTEM_FONTS``), else Pillow's own
    (no font file needed)."""
    from PIL import ImageFont
    for name in _SYSTEM_FONTS:
        try:
            return ImageFont.truetype(name, px)
        except OSError:   # not installed here
            continue
    face = ImageFont.load_default(size=px)
    if not isinstance(face, ImageFont.FreeTypeFont):
        raise LayoutError("drawing frames needs Pillow built with FreeType")
    return face


@functools.lru_cache(maxsize=1024)
def _rgb(color: str) -> tuple | None:
    """``#rrggbb[aa]`` or a colour name as RGB; None if fully transparent."""
    from PIL import ImageColor
    try:
        value = ImageColor.getrgb(color)
    except ValueError:
        return (0, 0, 0)
    if len(value) == 4 and value[3] == 0:
        return None
    return value[:3]


@dataclass(slots=True)
class _Item:
    element: Element
    pixels: list         # per shape: its geometry in frame pixels
    box: tuple           # (x0, y0, x1, y1) in frame pixels, pen widths included
    texts: list          # indices of the text shapes
    slots: dict          # shape index -> which value text it shows


class Raster:
    """A layout drawn at ``scale`` pixels per point with its top-left corner at ``origin``
    (Graphviz's y axis points up, images' down). ``reserved``: element key -> rows of
    ``VALUE_SLOT`` text it holds for ``Look.values``."""

    def __init__(self, layout: Layout, scale: float, origin: tuple, reserved: dict):
        self.scale = scale
        self.height = layout.height
        self.origin = origin
        self.items = [self._item(e, reserved.get(e.key, 0)) for e in layout.elements]

    def _xy(self, x: float, y: float) -> tuple[float, float]:
        return self.origin[0] + x * self.scale, self.origin[1] + (self.height - y) * self.scale

    def _item(self, element: Element, reserved: int) -> _Item:
        texts = [i for i, s in enumerate(element.shapes) if s.kind == "text"]
        marked = [i for i in texts if element.shapes[i].text == VALUE_SLOT]
        slots = {i: n for n, i in enumerate(marked[-reserved:])} if reserved else {}
        if slots:
            _realign(element, texts, slots)
        pixels = [self._geometry(shape) for shape in element.shapes]
        boxes = [self._box(s, p) for s, p in zip(element.shapes, pixels)]
        box = _union(boxes) if boxes else (0, 0, 0, 0)
        return _Item(element, pixels, box, texts, slots)

    def _geometry(self, shape: Shape) -> tuple:
        if shape.kind == "ellipse":
            (x, y), (rx, ry) = shape.points
            (cx, cy), r = self._xy(x, y), (rx * self.scale, ry * self.scale)
            return cx - r[0], cy - r[1], cx + r[0], cy + r[1]
        return tuple(self._xy(x, y) for x, y in shape.points)

    def _box(self, shape: Shape, pixels: tuple) -> tuple:
        pad = shape.width * self.scale * 3 + 3   # a current node's outline is 3x wider
        if shape.kind == "ellipse":
            x0, y0, x1, y1 = pixels
        elif shape.kind == "text":
            (x, y), = pixels
            w, h = shape.text_width * self.scale, shape.size * self.scale
            x0 = x - {"l": 0, "c": w / 2, "r": w}[shape.align]
            x1, y0, y1 = x0 + w, y - h, y + h / 3
        else:
            xs, ys = [p[0] for p in pixels], [p[1] for p in pixels]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        return (int(x0 - pad), int(y0 - pad), int(math.ceil(x1 + pad)), int(math.ceil(y1 + pad)))

    def draw(self, image, box: tuple, looks: dict) -> None:
        """Draw what overlaps ``box`` (frame pixels) onto ``image``, whose (0, 0) is ``box``'s
        top-left corner, each element as ``looks[key]`` says (unlisted: as laid out)."""
        from PIL import ImageDraw
        draw = ImageDraw.Draw(image)
        for item in self.items:
            if not _overlaps(item.box, box):
                continue
            look = looks.get(item.element.key)
            if look is not None and "invis" in look.style:
                continue
            _Painter(draw, item, look, box[:2], self.scale).paint()


def _left(shape: Shape) -> float:
    return shape.points[0][0] - {"l": 0, "c": shape.text_width / 2, "r": shape.text_width}[
        shape.align]


def _realign(element: Element, texts: list, slots: dict) -> None:
    """A row reserved for values is as wide as the widest; the values are mostly narrower. A
    node's are centred in their row; an edge's label is set flush left, where Graphviz put
    it beside the edge (centred in the wide label, its shape text would float away)."""
    shapes = element.shapes
    left = min(_left(shapes[i]) for i in slots)
    for i in texts if element.edge else slots:
        shape = shapes[i]
        x = left if element.edge else _left(shape) + shape.text_width / 2
        shapes[i] = replace(shape, points=((x, shape.points[0][1]),),
                            align="l" if element.edge else "c")


def _union(boxes) -> tuple:
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def _overlaps(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Painter:
    """One element drawn with one look: the rules of the HTML player's ``restyle``."""

    def __init__(self, draw, item: _Item, look: Look | None, origin: tuple, scale: float):
        self.draw, self.item, self.look, self.scale = draw, item, look, scale
        self.dx, self.dy = -origin[0], -origin[1]

    def paint(self) -> None:
        item = self.item
        # A node's saved tensors are its last text rows (as the player counts them).
        row = -(len(item.texts) - len(self.look.struck)) if self.look else -len(item.texts)
        for n, (shape, pixels) in enumerate(zip(item.element.shapes, item.pixels)):
            if shape.kind != "text":
                self._figure(shape, pixels)
                continue
            self._text(shape, pixels[0], self._words(shape, n), row)
            row += 1

    def _words(self, shape: Shape, n: int) -> str:
        slot = self.item.slots.get(n)
        if slot is None:
            return shape.text
        values = self.look.values if self.look else ()
        return values[slot] if slot < len(values) else ""

    def _figure(self, shape: Shape, pixels: tuple) -> None:
        look, edge = self.look, self.item.element.edge
        pen, fill, dash, width = shape.pen, shape.fill if shape.filled else None, \
            shape.dash, shape.width
        if look is not None:
            pen = look.color or "black"
            fill = (pen if edge else look.fill or shape.fill) if shape.filled else None
            dash = "dashed" if "dashed" in look.style else \
                "dotted" if "dotted" in look.style else ""
            width = _float(look.penwidth, 1.0)
        ink, paint = _rgb(pen), _rgb(fill) if fill else None
        px = max(1, round(width * self.scale))
        _figure(self.draw, shape.kind, self._moved(shape.kind, pixels), ink, paint,
                "" if edge and shape.filled else dash, px, self.scale)

    def _moved(self, kind: str, pixels: tuple) -> tuple:
        if kind == "ellipse":
            x0, y0, x1, y1 = pixels
            return x0 + self.dx, y0 + self.dy, x1 + self.dx, y1 + self.dy
        return tuple((x + self.dx, y + self.dy) for x, y in pixels)

    def _text(self, shape: Shape, at: tuple, text: str, row: int) -> None:
        look, flags = self.look, shape.flags
        if look is None:
            ink = shape.pen
        elif row >= 0:   # a saved tensor's row: brown while held, grey and struck once released
            gone = bool(look.struck[row])
            ink, flags = SAVED_COLORS[gone], (flags | 32) if gone else (flags & ~32)
        else:
            ink = look.fontcolor or (self.item.element.edge and look.color) or "black"
        color = _rgb(ink)
        if color is not None and text:
            _write(self.draw, (at[0] + self.dx, at[1] + self.dy), text.replace("\n", " "),
                   shape, self.scale, color, flags)


def _float(text: str, default: float) -> float:
    try:
        value = float(text)
    except ValueError:
        return default
    return min(max(value, 0.0), 20.0) if math.isfinite(value) else default


def _figure(draw, kind: str, pixels: tuple, pen, fill, dash: str, width: int, scale) -> None:
    if kind == "ellipse":
        if dash:
            x0, y0, x1, y1 = pixels
            cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
            turns = [a / 24 * math.pi for a in range(48)]
            pixels = tuple((cx + rx * math.cos(t), cy + ry * math.sin(t)) for t in turns)
            kind = "polygon"
        else:
            draw.ellipse(pixels, fill=fill, outline=pen, width=width)
            return
    if kind == "polygon":
        if fill is not None:
            draw.polygon(pixels, fill=fill)
        pixels = pixels + pixels[:1]
    if pen is None:
        return
    if dash:
        on, off = (5, 2) if dash == "dashed" else (1, 3)
        for piece in _dashes(pixels, max(on * scale * width, 2), max(off * scale * width, 2)):
            draw.line(piece, fill=pen, width=width)
    else:
        draw.line(pixels, fill=pen, width=width, joint="curve" if width > 2 else None)


def _dashes(points: tuple, on: float, off: float):
    """Pieces of the polyline ``points``: ``on`` pixels drawn, ``off`` skipped, repeated."""
    piece, left, drawing = [points[0]], on, True
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        length, at = math.hypot(x1 - x0, y1 - y0), 0.0
        while length - at > left:
            at += left
            t = at / length
            point = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if drawing:
                yield piece + [point]
            piece, left, drawing = [point], off if drawing else on, not drawing
        left -= length - at
        piece.append((x1, y1))
    if drawing and len(piece) > 1:
        yield piece


def _write(draw, at: tuple, text: str, shape: Shape, scale: float, color, flags: int) -> None:
    """``text`` at ``at`` (its baseline), shrunk to the width Graphviz made room for."""
    px = int(shape.size * scale)
    room = shape.text_width * scale
    if px < MIN_TEXT_PX:
        return
    length = font(px).getlength(text)
    if room and length > room * 1.08 + 2:
        px = int(px * room / length)
        if px < MIN_TEXT_PX:
            return
        length = font(px).getlength(text)
    draw.text(at, text, fill=color, font=font(px), anchor=_ANCHORS[shape.align])
    left = at[0] - {"l": 0, "c": length / 2, "r": length}[shape.align]
    for flag, rise in ((32, 0.3), (8, -0.15)):   # strike-through, underline
        if flags & flag:
            y = at[1] - px * rise
            draw.line(((left, y), (left + length, y)), fill=color, width=max(1, px // 12))
