"""The source pane (pudb's): the user's file with the step's line highlighted.

The step's line is its event's own (the line creating a node, the line an error
names, a hook's ``def``), else, inside a backward, the line that called
``backward()``/``grad()``, else the line that created the node the view follows.
Events name a file by its base name (``mlp.py:12: h = x @ w``) and, since they
record it, by its absolute path: it is looked for there, then beside the script or
the trace, in the current folder and in the folders the app was given (the demos',
for ``agdebug demo``), and the first whose line still reads as recorded wins. Files
are read once, bounded, and shown as plain text (a file's text is data, never markup).
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from rich.style import Style

from .lines import LineList
from .text import plain, printable

__all__ = ["MAX_BYTES", "SourceView", "find_file", "read_source", "source_folders",
           "step_source"]

MAX_BYTES = 1 << 20        # a bigger file gets a one-line note, not a pane of text
CONTEXT = 2                # lines kept in view above and below the current one
_SOURCE = re.compile(r"([^:/\\]+):(\d+)(?::|$)")   # "file.py:12: text" (a base name only)
_NOTE = Style(dim=True, italic=True)


def step_source(app) -> str:
    """The source string (``file.py:12: text``) of the line the step is at; "" for none."""
    if not app.step:
        return ""
    own = getattr(app.events[app.step - 1], "source", "")
    if own and type(own) is str:         # (a buffer_accumulated's source is a node id)
        return own
    start = _backward_at(app.index, app.step - 1)
    line = app.events[start].source if start is not None else ""
    return line or app.index.sources.get(app.shown_node, "")


def _backward_at(index, i: int) -> int | None:
    """The index of the backward_started event whose run event ``i`` is part of, if any."""
    at = bisect.bisect_right(index.backwards, i) - 1
    if at < 0:
        return None
    start = index.backwards[at]
    end = bisect.bisect_left(index.finishes, start)
    if end < len(index.finishes) and index.finishes[end] < i:
        return None
    return start


def source_folders(*paths, extra=()) -> list[Path]:
    """Where a base name is looked for: beside each of ``paths`` (a script, a trace), in
    the current folder, then in ``extra``."""
    return [*(Path(p).resolve().parent for p in paths if p), Path.cwd(), *map(Path, extra)]


def read_source(path: Path) -> list[str] | str:
    """``path``'s lines, made printable; a one-line note instead when it is not a text file
    of at most ``MAX_BYTES``."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return f"{path.name}: not shown ({size / 1e6:.1f} MB, over {MAX_BYTES >> 20} MB)"
        data = path.read_bytes()[:MAX_BYTES]
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "a NUL byte")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"{path.name}: not shown (not a UTF-8 text file)"
    except OSError as exc:
        return f"{path.name}: cannot be read ({exc.strerror or exc})"
    return [printable(line.expandtabs(4)) for line in text.splitlines()]


def find_file(name: str, number: int, text: str, folders, read) -> tuple[Path | None, bool]:
    """The first ``folders/name`` whose line ``number`` reads ``text``, else the first that
    exists; and whether its line matched. ``read(path)`` gives ``read_source``'s answer."""
    first = None
    for folder in folders:
        path = Path(folder) / name
        if not path.is_file():
            continue
        lines = read(path)
        if not text or (isinstance(lines, list) and number <= len(lines)
                        and lines[number - 1].strip() == printable(text)):
            return path, True
        first = first or path
    return first, False


class SourceView(LineList, can_focus=False):
    """The file of the step's line, the line marked and kept in view with some context."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.folders: list = []          # where a base name is looked for, in order
        self.source = None               # the source string shown (None: nothing yet)
        self.path: Path | None = None    # the file shown; None while a note is
        self._files: dict = {}           # path -> lines or a note (read once)

    def show(self, source: str, recorded: str = "") -> None:
        """Show the line of ``source`` (``file.py:12: text``), or say why it cannot;
        ``recorded``: the file's absolute path when the events gave it."""
        if source == self.source:
            return
        self.source = source
        match = _SOURCE.match(source)
        if match is None:
            self._note("", "no source line for this step")
            return
        name, number = match.group(1), int(match.group(2))
        text = source[match.end():].strip()
        folders = self.folders
        if recorded and Path(recorded).name == name:   # (the base name must agree)
            folders = [Path(recorded).parent, *folders]
        path, same = find_file(name, number, text, folders, self._read)
        if path is None:
            self._note(name, f"{name} is not on this machine (looked "
                             f"{'where it was recorded, ' if recorded else ''}beside the "
                             "script or trace and here)")
            return
        self._show_file(path, number, same)

    def _read(self, path: Path):
        if path not in self._files:
            if len(self._files) > 16:
                self._files.clear()
            self._files[path] = read_source(path)
        return self._files[path]

    def _show_file(self, path: Path, number: int, same: bool) -> None:
        lines = self._read(path)
        if isinstance(lines, str):
            self._note(path.name, lines)
            return
        changed = "" if same else " (changed since recorded)"
        self.border_title = plain(f"source {path.name}:{number}{changed}")
        self.path = path
        width = len(str(len(lines)))

        def line(i):
            mark = "▶" if i == number - 1 else " "
            return f"{i + 1:>{width}}{mark} {lines[i]}", Style()

        self.set_rows(len(lines), line, number - 1)

    def _note(self, title: str, note: str) -> None:
        self.border_title = plain(f"source {title}".strip())
        self.path = None
        self.set_rows(1, lambda i: (printable(note), _NOTE))

    def on_resize(self, event) -> None:
        # Shown again (s) or resized: while hidden it had no height to scroll the line into.
        self.call_after_refresh(self.reveal, self.mark)

    def reveal(self, index: int) -> None:
        """Scroll so row ``index`` is in view with ``CONTEXT`` rows around it."""
        if index < 0 or index >= self.count:
            return
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        context = min(CONTEXT, (height - 1) // 2)
        if index < top + context or index >= top + height - context:
            self.scroll_to(y=max(0, index - height // 2), animate=False, immediate=True)
