"""GIF export: one layout drawn per frame (the step's styles, its caption, --values), written
frame by frame in bounded memory; a layout that cannot be drawn is one line."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex
from agdebug.render import gif, raster
from agdebug.render.dot import STATUS_COLORS, DotOptions, to_dot

from .test_layout import chain_timeline

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")
Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def timeline():
    with record(values=True) as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        (h * h * x).sum().backward()
    return trace.timeline()


def _frames(data: bytes) -> list:
    with Image.open(io.BytesIO(data)) as image:
        frames = []
        for i in range(image.n_frames):
            image.seek(i)
            frames.append(image.convert("RGB"))
    return frames


def _plan(timeline, steps, options=None):
    opts = ex.layout_options(timeline, options)
    captions = [ex._caption(timeline, s) for s in steps]
    return gif._plan(timeline, steps, opts, ex.render, captions, ex.FRAME_SIDE)


def _item(plan, key: str):
    return next(i for i in plan.raster.items if i.element.key == key)


def _inside(item) -> tuple:
    """The box inside a node's outline (its first filled shape), in frame pixels."""
    shape, pixels = next((s, p) for s, p in zip(item.element.shapes, item.pixels) if s.filled)
    xs, ys = ([p[k] for p in pixels] for k in (0, 1))
    return int(min(xs)) + 6, int(min(ys)) + 6, int(max(xs)) - 6, int(max(ys)) - 6


def _commonest(image, box) -> tuple:
    return max(image.crop(box).getcolors(1 << 16))[1]


def _hex(color: str) -> tuple:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


@needs_dot
def test_frames_are_one_size_and_show_each_steps_styles(timeline):
    steps = ex.frame_steps(timeline)
    frames = _frames(ex.gif_bytes(timeline, steps))
    assert len(frames) == len(steps) and len({f.size for f in frames}) == 1
    running = next((n, s) for n, s in enumerate(steps) for node in timeline.state(s).nodes.values()
                   if node.status == "running" and node.name == "ExpBackward0")
    node_id = timeline.state(running[1]).current
    box = _inside(_item(_plan(timeline, steps), f"n{node_id}"))
    assert _commonest(frames[running[0]], box) == _hex(STATUS_COLORS["running"])
    assert _commonest(frames[0], box) != _hex(STATUS_COLORS["running"])
    assert _commonest(frames[-1], box) == _hex(STATUS_COLORS["released"])   # saved `result`


@needs_dot
def test_every_frame_has_its_whole_caption(timeline):
    steps = ex.frame_steps(timeline)
    plan = _plan(timeline, steps)
    for step, lines in zip(steps, plan.frame.lines):
        assert " ".join(lines).split() == ex._caption(timeline, step).split()   # nothing cut
    frames = _frames(ex.gif_bytes(timeline, steps))
    band = plan.frame.band
    for before, after in zip(frames, frames[1:]):   # the caption says each step's sentence
        assert before.crop(band).tobytes() != after.crop(band).tobytes()
    assert min(frames[0].crop(band).convert("L").getextrema()) < 60   # dark text drawn


def test_captions_wrap_to_the_width_and_stay_bounded():
    text = "word " * 20 + "x" * 100 + " end"   # a word wider than the line, broken
    lines = gif.wrap(text, 300)
    assert all(raster.font(gif.CAPTION_PX).getlength(line) <= 300 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    crafted = gif.wrap("y" * 100_000, 300)
    assert len(crafted) == gif.MAX_CAPTION_LINES and crafted[-1].endswith("...")
    # Printed output keeps its lines (a font cannot measure a newline: it raised before).
    printed = gif.wrap("The program printed: one\n    two words\n\nend", 300)
    assert printed == ["The program printed: one", "two words", "", "end"]


@needs_dot
def test_a_gif_of_a_trace_whose_program_printed_lines(tmp_path):
    from agdebug.debug import load_trace
    trace = load_trace(Path(__file__).parents[1] / "tui" / "traces" / "inplace.agtrace")
    timeline = trace.timeline()
    printed = [s for s in timeline.steps_of("printed") if "\n" in timeline.events[s - 1].text]
    assert printed   # (the in-place error's message, printed over several lines)
    data = ex.gif_bytes(timeline, printed[:1])
    assert data.startswith(b"GIF89a")


@needs_dot
def test_values_are_drawn_in_frames_as_in_the_single_diagram(timeline):
    steps = ex.frame_steps(timeline)
    options = DotOptions(values=True)
    plan = _plan(timeline, steps, options)
    node_id = next(n.id for n in timeline.final.nodes.values() if n.name == "ExpBackward0")
    item = _item(plan, f"n{node_id}")
    [(index, _)] = item.slots.items()
    (x, y), = item.pixels[index]
    shape = item.element.shapes[index]
    width = shape.text_width * plan.frame.scale
    slot = (int(x - width / 2), int(y - shape.size * plan.frame.scale), int(x + width / 2), int(y))
    frames = _frames(ex.gif_bytes(timeline, steps, options))
    assert min(frames[0].crop(slot).convert("L").getextrema()) > 200   # not run: no values
    assert min(frames[-1].crop(slot).convert("L").getextrema()) < 100  # run: its statistics
    looks = gif._looks(timeline.final, ex.layout_options(timeline, options), plan.room)
    [text] = looks[f"n{node_id}"].values
    assert text.startswith("grad min ") and text in to_dot(timeline.final, options)
    edge = next(k for k in plan.room.edges.values() if k.startswith(f"n{node_id}->"))
    assert looks[edge].values and looks[edge].values[0] in to_dot(timeline.final, options)


@needs_dot
def test_without_values_the_layout_is_the_players():
    timeline = chain_timeline(6)
    opts = ex.layout_options(timeline)
    text = gif._layout_text(timeline, opts, gif._Room({}, {}))
    assert raster.VALUE_SLOT not in text and "self: [2] float32" in text


@needs_dot
def test_frames_stay_within_four_megapixels():
    # 57 nodes: under DotOptions.max_nodes, so drawn uncollapsed (a bigger graph is
    # summarised into a few boxes): ~4000 px tall before the cap
    timeline = chain_timeline(56)
    steps = ex.frame_steps(timeline)
    frames = _frames(ex.gif_bytes(timeline, [steps[0], steps[len(steps) // 2], steps[-1]]))
    width, height = frames[0].size
    assert width * height <= 4_000_000 and max(width, height) >= 1000


_MEMORY = """
import resource, sys
sys.path.insert(0, {root!r})
from tests.render.test_layout import chain_timeline
from agdebug.render import export as ex
timeline = chain_timeline(150)
steps = ex.frame_steps(timeline)
ex.gif_bytes(timeline, steps[:2])   # the first frame's peak, Pillow's fonts and plugins
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = ex.gif_bytes(timeline, steps)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(steps), (after - before) // 1024, len(data))
"""


@needs_dot
def test_a_many_frame_gif_is_written_in_bounded_memory():
    """400 frames of ~1.25 megapixels: holding them (as Pillow's save_all does) would add
    500 MB even as palette images; written frame by frame, the peak does not move."""
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_MEMORY.format(root=root))],
                          capture_output=True, text=True, timeout=600, check=True)
    frames, grown_mb, size = map(int, done.stdout.split())
    assert frames == 401 and size > 0
    assert grown_mb < 100


def test_an_unreadable_layout_is_one_line(monkeypatch):
    nan = b'{"bb": "0,0,9,9", "objects": [{"_draw_": [{"op": "L", "points": [[NaN, 1], [2, 3]]}]}]}'
    for junk in (b"not json", b"[1, 2]", nan):
        monkeypatch.setattr(ex, "render", lambda dot_text, fmt, junk=junk: junk)
        with pytest.raises(ex.RenderError, match="^cannot draw the GIF: ") as info:
            ex.gif_bytes(chain_timeline(4), [0, 1])
        assert "\n" not in str(info.value)


def test_layouts_are_parsed_defensively(monkeypatch):
    ops = [{"op": "c", "color": "#ff0000"}, {"op": "X", "what": 1}, {"op": "T", "pt": [1, 2],
           "align": "evil", "width": 5, "text": ["not", "text"]},
           {"op": "L", "points": [[0, 0], [10, 10]]}]
    layout = raster.parse_layout(json.dumps({"bb": "0,0,10,10", "objects": [
        {"_gvid": 0, "name": "n1", "_draw_": ops}], "edges": [{"tail": 0, "head": 7}]}).encode())
    node = layout.elements[1]
    assert [s.kind for s in node.shapes] == ["text", "line"]
    assert node.shapes[0].text == "" and node.shapes[0].align == "c"
    assert node.shapes[1].pen == "#ff0000" and layout.elements[2].key == "n1->?"
    for bad in ({"bb": "0,0,1"}, {"bb": "0,0,1,1", "objects": [{"_draw_": [
                {"op": "E", "rect": [1, 2, "3", 4]}]}]}):
        with pytest.raises(raster.LayoutError):
            raster.parse_layout(json.dumps(bad).encode())
    monkeypatch.setattr(raster, "MAX_LAYOUT_BYTES", 10)
    with pytest.raises(raster.LayoutError, match="too large"):
        raster.parse_layout(b" " * 11)


def test_frames_draw_with_the_systems_sans_font_where_one_is_installed():
    """Pillow's own font has no "—" (box labels) or "×" (merged edges): a box it drew."""
    from PIL import ImageFont
    installed = []
    for name in raster._SYSTEM_FONTS:
        with contextlib.suppress(OSError):
            installed.append(ImageFont.truetype(name, 14).getname()[0])
    if not installed:
        pytest.skip("no system sans font: frames use Pillow's own")
    assert raster.font(14).getname()[0] == installed[0]
    assert raster.font(14).getlength("—") > 0
