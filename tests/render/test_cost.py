"""Bounded cost: frames at most 4 megapixels, and one line (never a traceback) for a GIF
that cannot be made."""

from __future__ import annotations

import io

import pytest

from agdebug.render import export as ex

from .test_layout import chain_timeline

needs_dot = pytest.mark.skipif(ex.find_dot() is None, reason="no Graphviz program")


@needs_dot
def test_frames_are_capped_at_four_megapixels():
    pytest.importorskip("PIL")
    from PIL import Image
    # 57 nodes: under DotOptions.max_nodes, so drawn uncollapsed (a bigger graph is
    # summarised into a few boxes): ~4000 px tall before the cap
    timeline = chain_timeline(56)
    [dot_text] = ex.frame_dots(timeline, [len(timeline)])
    width, height = Image.open(io.BytesIO(ex.render(dot_text, "png"))).size
    assert width * height <= 4_000_000 and max(width, height) >= 1000


@pytest.mark.parametrize("error", ["MemoryError", "DecompressionBombError"])
def test_a_gif_too_large_is_one_line(monkeypatch, error):
    PIL = pytest.importorskip("PIL.Image")
    exc = MemoryError() if error == "MemoryError" else PIL.DecompressionBombError("big")

    def fail(dot_text, fmt):
        raise exc
    monkeypatch.setattr(ex, "render", fail)
    with pytest.raises(ex.RenderError, match=f"too large to make here \\({error}\\)") as info:
        ex.gif_bytes(chain_timeline(4), [0, 1])
    assert "\n" not in str(info.value)
