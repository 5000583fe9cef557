"""Highlighting of a text script, one line at a time, with the script model's own line rules.

Chapter lines are bold in the chapter colour; speaker labels bold in the speaker's colour; inline
delivery tags italic; lines the service will leave out on import (directions, notes, titles, text
before the first label) grey and italic. The block state carries "a label came before", the one
piece of context a line's reading depends on, so a keystroke re-highlights one line (and the lines
after it only when that changes).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from castdeck.scripts.lines import (
    CHAPTER,
    DROPPED,
    EMPTY,
    LABEL,
    LABEL_INLINE,
    SPOKEN,
    classify_line,
    inline_tags,
)

from .colors import chapter_color, speaker_color, tag_color

__all__ = ["ScriptHighlighter"]

BEFORE_LABEL, AFTER_LABEL = 0, 1


class ScriptHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, *, dark: bool, muted: QColor) -> None:
        super().__init__(document)
        self._speakers: dict[str, QTextCharFormat] = {}
        self.slots: dict[str, int] = {}
        self.set_palette(dark, muted)

    def set_palette(self, dark: bool, muted: QColor) -> None:
        self.dark = dark
        self._speakers.clear()
        self.chapter_format = QTextCharFormat()
        self.chapter_format.setFontWeight(QFont.Weight.Bold)
        self.chapter_format.setForeground(chapter_color(dark))
        self.tag_format = QTextCharFormat()
        self.tag_format.setFontItalic(True)
        self.tag_format.setForeground(tag_color(dark))
        self.dropped_format = QTextCharFormat()
        self.dropped_format.setFontItalic(True)
        self.dropped_format.setForeground(muted)

    def set_slots(self, slots: dict[str, int]) -> bool:
        """The speakers' colour slots of the script; True when they changed (re-highlight then)."""
        if slots == self.slots:
            return False
        self.slots = dict(slots)
        self._speakers.clear()
        return True

    def speaker_format(self, label: str) -> QTextCharFormat:
        found = self._speakers.get(label)
        if found is None:
            found = QTextCharFormat()
            found.setFontWeight(QFont.Weight.Bold)
            found.setForeground(speaker_color(label, self.dark, self.slots))
            self._speakers[label] = found
        return found

    def highlightBlock(self, text: str) -> None:
        after = self.previousBlockState() == AFTER_LABEL
        info = classify_line(text, after)
        kind = info.kind
        if kind in (LABEL, LABEL_INLINE):
            after = True
            self.setFormat(
                info.label_start, info.label_end - info.label_start, self.speaker_format(info.label or "")
            )
            if kind == LABEL_INLINE:
                self._tags(text, info.label_end)
        elif kind == CHAPTER:
            self.setFormat(0, len(text), self.chapter_format)
        elif kind in (DROPPED, EMPTY) or (kind == SPOKEN and not after):
            self.setFormat(0, len(text), self.dropped_format)
        elif kind == SPOKEN:
            self._tags(text, 0)
        self.setCurrentBlockState(AFTER_LABEL if after else BEFORE_LABEL)

    def _tags(self, text: str, start: int) -> None:
        for begin, end in inline_tags(text[start:]):
            self.setFormat(start + begin, end - begin, self.tag_format)
