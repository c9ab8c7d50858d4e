"""Rendering through Graphviz: SVG/HTML validity, fixed-layout frames, GIF, fallbacks."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

import agdebug as ag
from agdebug.debug import record
from agdebug.render import export as ex

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program (dot or "
                               "graphviz-pure) on this machine")


@pytest.fixture(scope="module")
def timeline():
    with record() as trace:
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        del y
    return trace.timeline()


@needs_dot
def test_svg_parses(timeline, tmp_path):
    path = ex.export(timeline, "svg", tmp_path / "g.svg")[0]
    root = ET.fromstring(path.read_bytes())
    assert root.tag.endswith("svg")
    titles = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    assert {"n1", "t1"} <= titles or any(t and t.startswith("n") for t in titles)


@needs_dot
def test_frames_keep_one_layout(timeline):
    steps = ex.frame_steps(timeline)
    dots = ex.frame_dots(timeline, steps[:: max(1, len(steps) // 5)])
    positions = set()
    for text in dots:
        plain = ex.render(text, "plain").decode()
        positions.add(tuple(tuple(line.split()[:4]) for line in plain.splitlines()
                            if line.startswith("node ")))
    assert len(positions) == 1
    assert len(set(dots)) > 1   # the styles did change


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)


@needs_dot
def test_html_player(timeline, tmp_path):
    path = ex.export(timeline, "html", tmp_path / "p.html", all_steps=True)[0]
    page = path.read_text()
    parser = _Collector()
    parser.feed(page)
    tags = [t for t, _ in parser.tags]
    assert "svg" in tags and ("input", {"id": "slider", "type": "range", "min": "0",
                                        "value": "0"}) in parser.tags
    assert "http" not in re.sub(r'xmlns(:\w+)?="[^"]*"|"-//W3C[^"]*"|"http://www.w3.org[^"]*"',
                                "", page)   # offline: nothing fetched
    data = re.search(r'<script type="application/json" id="frames">(.*?)</script>', page).group(1)
    frames = json.loads(data)
    assert len(frames) == len(timeline) + 1
    assert frames[1]["e"].startswith("The forward pass uses leaf x")   # the narration, named
    assert any(v[0] == "#ff9f1c" for f in frames for v in f["d"].values())   # running


@needs_dot
def test_gif_has_a_frame_per_step(timeline, tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image
    path = ex.export(timeline, "gif", tmp_path / "a.gif", step=None)[0]
    with Image.open(path) as image:
        frames = image.n_frames
    assert frames == len(ex.frame_steps(timeline)) > 5


def test_no_graphviz_still_writes_dot(timeline, tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "find_dot", lambda: None)
    with pytest.raises(ex.RenderError) as info:
        ex.export(timeline, "png", tmp_path / "g.png")
    assert "\n" not in str(info.value) and "graphviz-pure" in str(info.value)
    assert (tmp_path / "g.png.dot").read_text().startswith("digraph agdebug {")
    assert not (tmp_path / "g.png").exists()


def test_pdf_needs_real_dot(timeline, tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "find_dot", lambda: ("/nowhere/graphviz-pure", "graphviz-pure"))
    with pytest.raises(ex.RenderError, match="PDF needs Graphviz's dot"):
        ex.export(timeline, "pdf", tmp_path / "g.pdf")


@needs_dot
def test_jupyter_bundle(timeline):
    bundle = timeline.final._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
