"""Text from a program or a trace, made safe to show: plain text, never markup.

Op names, messages, file names and a script's output are data. They are shown
as ``Text`` objects (never parsed as Textual markup, so ``[/x]`` cannot crash a
screen and ``[@click=app.quit]`` is not an action), and their control
characters are escaped (an ESC in a name would otherwise reach the terminal
and retitle or clear it).

>>> printable("a\\x1b]0;pwned\\x07b")
'a\\\\x1b]0;pwned\\\\x07b'
>>> PlainText("x").append("[link=y]\\x1b").plain
'x[link=y]\\\\x1b'
"""

from __future__ import annotations

from rich.text import Text

__all__ = ["PlainText", "plain", "printable"]


def _table(keep: str) -> dict:
    codes = [*range(0x20), 0x7F, *range(0x80, 0xA0)]
    return {c: f"\\x{c:02x}" for c in codes if chr(c) not in keep}


_ONE_LINE = _table("")
_LINES = _table("\n\t")


def printable(text, lines: bool = False) -> str:
    """``text`` with control characters shown as ``\\x1b``; ``lines`` keeps newlines, tabs."""
    return str(text).translate(_LINES if lines else _ONE_LINE)


def plain(text, style: str = "") -> Text:
    """A one-line ``Text`` of ``text`` (escaped, never markup)."""
    return Text(printable(text), style=style, no_wrap=True)


class PlainText(Text):
    """A ``Text`` whose ``append`` escapes the control characters of every string."""

    def append(self, text, style=None) -> PlainText:
        if isinstance(text, str):
            text = printable(text, lines=True)
        super().append(text, style)
        return self
