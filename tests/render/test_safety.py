"""A trace is untrusted: nothing in it may become markup in a DOT, SVG or HTML export, and an
export never overwrites a file the user did not name."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from agdebug.debug.recorder import Trace
from agdebug.events import records as r
from agdebug.render import export as ex
from agdebug.render.dot import DotOptions, to_dot

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")

# Markup, a script end, the page's old markers, an entity, controls and JS line ends.
EVIL = ('<img src=x onerror="alert(1)"></script><b onclick=x>@DATA@ @SVG@ @TITLE@ &lt; '
        '\x01\x07\x1b\x7f\u2028\u2029 \\N "q"')
_PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "div", "button", "input",
              "span", "script", "label"}


def _t(i):
    return r.TensorSummary(i, (2,), "float32", "cpu", 8)


# A gradient with statistics: ``--values`` rows in labels (numbers, written as text).
_STATS = r.TensorSummary(5, (2,), "float32", "cpu", 8,
                         r.Stats((1.0, 2.0), 1.0, 2.0, 1.5, 2.236, 0, 0))


def _evil_trace() -> Trace:
    saved = (r.SavedSummary("self" + EVIL, 1, (2,), "float32", 8),)
    return Trace([
        r.NodeCreated(seq=1, node=1, name="AccumulateGrad" + EVIL, op="", edges=(),
                      inputs=(), outputs=(), saved=(), attrs=(), leaf=_t(1)),
        r.NodeCreated(seq=2, node=2, name="MulBackward0" + EVIL, op="mul" + EVIL,
                      edges=((1, 0),), inputs=(_t(1),), outputs=(_t(2),), saved=saved,
                      attrs=(("k" + EVIL, "v" + EVIL),), source="f.py:3: " + EVIL),
        r.BackwardStarted(seq=3, api="backward", roots=(2,), grads=(_t(5),), inputs=None,
                          retain_graph=False, create_graph=False),
        r.NodeStarted(seq=4, node=2, name="MulBackward0" + EVIL, grads=(_STATS,), runs=True),
        r.Error(seq=5, type="RuntimeError" + EVIL, message=EVIL, node=2),
        r.BackwardFinished(seq=6, api="backward", ok=False),
    ])


class _Page(HTMLParser):
    """Every element and attribute name of a page, and each script's attributes and text."""

    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.scripts, self._in_script = [], set(), [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.update(name for name, _ in attrs)
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append((dict(attrs), ""))

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


@needs_dot
@pytest.mark.parametrize("values", [False, True])
def test_html_page_has_no_injected_element_or_attribute(tmp_path, values):
    path = ex.export(_evil_trace().timeline(), "html", tmp_path / "p.html", all_steps=True,
                     options=DotOptions(values=values))[0]
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    svg_start = page.tags.index("svg")
    assert set(page.tags[:svg_start]) <= _PAGE_TAGS and "img" not in page.tags
    assert "b" not in page.tags and page.tags.count("script") == 2
    assert not {a for a in page.attrs if a.startswith("on")}
    # One script runs; the frames are an inert data block that only JSON.parse reads.
    [(data_attrs, data), (code_attrs, _)] = page.scripts
    assert data_attrs == {"type": "application/json", "id": "frames"} and code_attrs == {}
    frames = json.loads(data)
    assert any("<img src=x" in f["e"] for f in frames)   # the data, kept as text
    tips = {style[6] for f in frames for style in f["d"].values()}
    assert any("<img src=x" in tip for tip in tips)
    if values:   # --values rows: in the layout (room for the widest) and per step
        row = "grad min 1 max 2 mean 1.5 norm 2.236"
        assert [row] in [style[7] for f in frames for style in f["d"].values()]
        assert f">{row}</text>" in path.read_text(encoding="utf-8")


@needs_dot
def test_svg_is_well_formed_and_shows_names_as_text(tmp_path):
    path = ex.export(_evil_trace().timeline(), "svg", tmp_path / "g.svg")[0]
    root = ET.fromstring(path.read_bytes())
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any('<img src=x onerror="alert(1)"></script><b onclick=x>@DATA@' in t
               for t in texts)
    assert any("&lt;" in t for t in texts)   # an entity in a name stays four characters
    assert not [e for e in root.iter() if e.tag.rpartition("}")[2] in ("img", "b", "script")]


def test_dot_strings_hold_no_control_characters():
    text = to_dot(_evil_trace().state())
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", text)
    assert "\u2401\u2407\u241b\u2421" in text   # shown as visible control pictures


def test_fallback_dot_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "find_dot", lambda: None)
    mine = tmp_path / "g.dot"
    mine.write_text("my own file")
    with pytest.raises(ex.RenderError) as first:
        ex.export(_evil_trace().timeline(), "png", tmp_path / "g.png")
    with pytest.raises(ex.RenderError) as second:
        ex.export(_evil_trace().timeline(), "png", tmp_path / "g.png")
    assert mine.read_text() == "my own file"
    assert str(first.value).endswith(f"wrote {tmp_path / 'g.png.dot'} instead")
    assert str(second.value).endswith(f"wrote {tmp_path / 'g.png.1.dot'} instead")
    assert (tmp_path / "g.png.1.dot").read_text().startswith("digraph agdebug {")
