"""Rendering: SVG/PNG/PDF through the ``graphviz`` package, GIF frames, an HTML player.

The Graphviz program is found once: a real ``dot`` on PATH if it runs (it alone
writes PDF), else ``graphviz-pure`` from this environment's scripts folder
(``pip install graphviz-pure``). Where neither works, ``RenderError`` says so in
one line; ``export`` still writes the ``.dot`` file.

Frames share one layout: every frame is drawn from the nodes and labels of every step
(``Timeline.drawn``), only styles change (see ``render.dot``), so positions never move.

>>> import agdebug as ag
>>> from agdebug.debug import record
>>> with record() as trace:
...     x = ag.tensor([1.0, 2.0], requires_grad=True)
...     (x * x).sum().backward()
>>> svg = render(to_dot(trace.state()), "svg")
>>> svg.lstrip().startswith(b"<?xml")
True
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
import sysconfig
import threading
from pathlib import Path

from ..debug.narration import caption
from .dot import DotOptions, clean, to_dot

__all__ = [
    "FORMATS",
    "RenderError",
    "export",
    "find_dot",
    "frame_dots",
    "frame_steps",
    "gif_bytes",
    "html_bytes",
    "mimebundle",
    "render",
    "telling_step",
]

FORMATS = ("dot", "svg", "png", "pdf", "gif", "html")
FRAME_SIDE = 2000   # pixels: a frame is drawn at most 2000 x 2000 (4 megapixels)
_lock = threading.Lock()


class RenderError(RuntimeError):
    """Rendering is impossible here (no Graphviz program, or a format it cannot write)."""


def _runs(program: str) -> bool:
    try:
        return subprocess.run([program, "-V"], capture_output=True, timeout=20,
                              check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=1)
def find_dot() -> tuple[str, str] | None:
    """``(path, "dot" | "graphviz-pure")`` of the program to use, or None."""
    real = shutil.which("dot")
    if real and _runs(real):
        return real, "dot"
    scripts = Path(sysconfig.get_path("scripts") or "")
    for candidate in (scripts / "graphviz-pure", scripts / "graphviz-pure.exe",
                      shutil.which("graphviz-pure")):
        if candidate and Path(candidate).is_file() and _runs(str(candidate)):
            return str(candidate), "graphviz-pure"
    return None


def render(dot_text: str, fmt: str) -> bytes:
    """Lay out and render DOT text to ``fmt`` ("svg", "png" or "pdf") bytes."""
    found = find_dot()
    if found is None:
        raise RenderError("no Graphviz program found: install graphviz-pure "
                          "(pip install graphviz-pure) or Graphviz's dot")
    program, kind = found
    if fmt == "pdf" and kind != "dot":
        raise RenderError("PDF needs Graphviz's dot on PATH (graphviz-pure writes svg and png)")
    try:
        import graphviz
        from graphviz.backend import dot_command
    except ImportError:
        raise RenderError("the graphviz Python package is missing: pip install graphviz") \
            from None
    with _lock:   # the package runs the program named by a module global
        saved, dot_command.DOT_BINARY = dot_command.DOT_BINARY, Path(program)
        try:
            return graphviz.pipe("dot", fmt, dot_text.encode("utf-8"), quiet=True)
        except graphviz.CalledProcessError as exc:
            detail = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
            raise RenderError(f"{kind} failed: {detail[0] if detail else exc}") from None
        finally:
            dot_command.DOT_BINARY = saved


# ----------------------------------------------------------------------------- frames

def telling_step(timeline) -> int:
    """The step a single diagram shows: just after the first error, else just after the
    first cycle forms, else the end of the last backward (else the end of the trace)."""
    for kind in ("error", "cycle_detected"):
        steps = timeline.steps_of(kind)   # (a long trace's index answers without reading)
        if steps:
            return steps[0]
    ends = timeline.steps_of("backward_finished")
    return ends[-1] if ends else len(timeline)


def frame_steps(timeline, all_steps: bool = False, max_frames: int | None = 400) -> list[int]:
    """Steps to draw: every step, or from the first backward's start to the end of the trace
    (what happens after a backward, a cycle broken or nodes freed, is part of the story);
    sampled down to ``max_frames`` (None: never)."""
    n = len(timeline)
    starts = [step - 1 for step in timeline.steps_of("backward_started")]
    steps = list(range(0 if all_steps or not starts else starts[0], n + 1))
    if max_frames is not None and len(steps) > max_frames:
        stride = len(steps) / max_frames
        steps = sorted({steps[int(i * stride)] for i in range(max_frames)} | {steps[-1]})
    return steps


def layout_options(timeline, base: DotOptions | None = None) -> DotOptions:
    """Options that fix the layout of every frame of ``timeline``."""
    grads = (timeline.events[step - 1] for step in timeline.steps_of("grad_accumulated",
                                                                       "grad_set"))
    links = frozenset((e.tensor, e.grad_fn) for e in grads if e.grad_fn)
    base = base or DotOptions()
    fit = FRAME_SIDE / (base.dpi or 96)   # frames: at most FRAME_SIDE^2 pixels (4 MP)
    return DotOptions(values=base.values, saved=base.saved, attrs=base.attrs, dpi=base.dpi,
                      fit=fit, layout=timeline.drawn(), layout_links=links)


def frame_dots(timeline, steps, options: DotOptions | None = None) -> list[str]:
    """One DOT text per step, all with the same nodes, labels and so positions."""
    opts = layout_options(timeline, options)
    return [to_dot(timeline.state(step), opts) for step in steps]


def _caption(timeline, step: int) -> str:
    """A frame's caption (the one place its text is made): the step's sentence."""
    return f"step {step}/{len(timeline)}  " + clean(caption(timeline, step))


def gif_bytes(timeline, steps, options: DotOptions | None = None, ms: int = 600) -> bytes:
    """An animated GIF, one frame per step (needs Pillow), each frame at most 4 megapixels.

    Graphviz lays the diagram out once; ``render.gif`` draws and writes each frame."""
    try:
        from PIL import Image
    except ImportError:
        raise RenderError("GIF export needs Pillow: pip install Pillow") from None
    from .gif import write_gif
    from .raster import LayoutError
    out = io.BytesIO()
    captions = [_caption(timeline, step) for step in steps]
    try:
        write_gif(out, timeline, steps, layout_options(timeline, options), render, captions,
                  FRAME_SIDE, ms)
    except (MemoryError, Image.DecompressionBombError) as exc:
        raise RenderError(f"the GIF is too large to make here ({type(exc).__name__}): "
                          "try --focus, or fewer steps with --step") from None
    except LayoutError as exc:
        raise RenderError(f"cannot draw the GIF: {exc}") from None
    return out.getvalue()


def html_bytes(timeline, steps, options: DotOptions | None = None) -> bytes:
    from .html import html_page
    return html_page(timeline, steps, layout_options(timeline, options), render).encode("utf-8")


# ----------------------------------------------------------------------------- files

def _numbered(path: Path, step: int, width: int) -> Path:
    return path.with_name(f"{path.stem}-{step:0{width}d}{path.suffix}")


def export(timeline, fmt: str, path, step: int | None = None, all_steps: bool = False,
           options: DotOptions | None = None) -> list[Path]:
    """Write ``fmt`` for ``timeline`` to ``path``; returns the files written.

    dot/svg/png/pdf: the state at ``step`` (default: ``telling_step``), or with
    ``all_steps`` one numbered file per step with a fixed layout. gif/html: from the first
    backward to the end of the trace (or every step with ``all_steps``). If rendering is
    impossible, the ``.dot`` file is written anyway and ``RenderError`` raised.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if step is not None and not 0 <= step <= len(timeline):
        raise ValueError(f"step {step} is out of range: the trace has steps 0 to {len(timeline)}")
    path = Path(path)
    if fmt in ("gif", "html"):
        # The player gets every step (a step is a small style diff); a GIF frame is a picture.
        steps = (frame_steps(timeline, all_steps, max_frames=None) if fmt == "html"
                 else frame_steps(timeline, all_steps))
        if step is not None:
            steps = [step]
        dots = [to_dot(timeline.state(steps[-1]), layout_options(timeline, options))]
        data = (gif_bytes if fmt == "gif" else html_bytes)
        return [_write_or_dot(path, lambda: data(timeline, steps, options), dots[0])]
    if all_steps:
        steps = list(range(len(timeline) + 1))
        width = len(str(len(timeline)))
        texts = frame_dots(timeline, steps, options)
        return [_write_one(_numbered(path, s, width), fmt, text) for s, text in zip(steps, texts)]
    state = timeline.state(telling_step(timeline) if step is None else step)
    return [_write_one(path, fmt, to_dot(state, options))]


def _write_one(path: Path, fmt: str, dot_text: str) -> Path:
    if fmt == "dot":
        path.write_text(dot_text, encoding="utf-8")
        return path
    return _write_or_dot(path, lambda: render(dot_text, fmt), dot_text)


def _write_or_dot(path: Path, make, dot_text: str) -> Path:
    try:
        data = make()
    except RenderError as exc:
        dot_path = _fallback_dot(path, dot_text)
        raise RenderError(f"cannot write {path}: {exc}; wrote {dot_path} instead") from None
    path.write_bytes(data)
    return path


def _fallback_dot(path: Path, dot_text: str) -> Path:
    """Write ``dot_text`` beside ``path`` under a new name (``g.png.dot``, ``g.png.1.dot``...):
    the user named only ``path``, so no file of theirs may be overwritten."""
    for n in range(100):
        candidate = path.with_name(f"{path.name}{f'.{n}' if n else ''}.dot")
        try:
            with open(candidate, "x", encoding="utf-8") as file:
                file.write(dot_text)
            return candidate
        except FileExistsError:
            continue
    raise RenderError(f"cannot write {path}, nor a .dot file beside it (100 exist)")


def mimebundle(state) -> dict:
    """Jupyter display of a ``GraphState``: SVG when Graphviz runs, else the DOT text."""
    text = to_dot(state)
    bundle = {"text/plain": f"<GraphState step {state.step}: {len(state.nodes)} nodes>"}
    try:
        bundle["image/svg+xml"] = render(text, "svg").decode("utf-8")
    except RenderError:
        bundle["text/plain"] += "\n" + text
    return bundle
