"""Files the app writes: the current view in a format (e; the palette picks the format)
and Textual's screenshots, both in a thread or with a notice saying where they went."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

__all__ = ["FORMATS", "deliver_screenshot", "export_as", "export_view"]

FORMATS = ("svg", "png", "pdf", "dot", "html", "gif")


def export_view(app) -> None:
    """Write the step shown (the focus view's neighbourhood in focus mode) in a thread."""
    if app.history is None:
        return
    path = app.export_dir / f"agdebug-step{app.step}.{app.export_format}"
    app.notify(f"exporting {path}...", timeout=2)
    focus = (app.selected or app.state.current) if app.focus_mode else None
    app.run_worker(partial(_export, app, app.export_format, path, app.step, focus),
                   name="export", group="export", description=f"export {path}",
                   exclusive=True, thread=True)


def export_as(app, fmt: str) -> None:
    app.export_format = fmt
    export_view(app)


def _export(app, fmt: str, path: Path, step: int, focus) -> None:
    # (in a thread worker: the renderer is imported here, the first time it is used)
    from agdebug.render.dot import DotOptions
    from agdebug.render.export import RenderError, export
    history = app.history
    timeline = history if hasattr(history, "steps_of") else history.timeline()
    try:
        written = export(timeline, fmt, path, step=step, options=DotOptions(focus=focus))
        app.call_from_thread(app.notify, f"wrote {written[0]}", timeout=4)
    except (RenderError, OSError) as exc:
        app.call_from_thread(app.notify, str(exc), severity="error", timeout=6)


def deliver_screenshot(app, filename=None, path=None, time_format=None) -> None:
    """An SVG of the screen next to the trace (or in the current folder), and a notice
    saying where: Textual's default, ~/Downloads, is missing on many machines."""
    folder = path or (os.path.dirname(os.path.abspath(app.trace_path))
                      if app.trace_path is not None else ".")
    try:
        written = app.save_screenshot(filename, folder, time_format)
    except OSError as exc:
        app.notify(f"cannot save a screenshot in {folder}: {exc.strerror or exc}",
                   severity="error", timeout=8)
        return
    app.notify(f"saved the screenshot to {os.path.abspath(written)}", timeout=8)
