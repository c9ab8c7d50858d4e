"""The narration bar: the current step's sentence, always on screen, wrapped.

Sentences come from ``agdebug.debug.narration`` (the exports say the same); they hold
program text (source lines, error messages), so they are shown as plain ``Text``.
"""

from __future__ import annotations

from .lines import TextView
from .text import PlainText

__all__ = ["NarrationBar", "sentence_text"]

_STYLES = {"error": "bold #ff5555", "cycle_detected": "bold #ff5555",
           "saved_released": "cyan", "node_started": "bold"}


def sentence_text(kind: str, sentence: str) -> PlainText:
    """``sentence`` as escaped text, styled by its event's kind."""
    text = PlainText()
    text.append("▶ ", style="bold")
    text.append(sentence, style=_STYLES.get(kind, ""))
    return text


class NarrationBar(TextView, can_focus=False):
    """A fixed-height view of one sentence: a step never re-lays out the screen."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._said = None

    def say(self, kind: str, sentence: str) -> None:
        key = (kind, sentence)
        if key != self._said:
            self._said = key
            self.update(sentence_text(kind, sentence))
            self.scroll_to(y=0, animate=False, immediate=True)
