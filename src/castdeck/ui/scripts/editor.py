"""The script editor: a plain-text editor with the script's highlighting, problems underlined (their
message on hover), search matches marked, and edits that are one undo step each.

Underlines and search matches are extra selections (nothing is re-rendered); the highlighter
touches only the line that changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from castdeck.scripts import Problem
from castdeck.scripts.edits import Edit
from castdeck.services.drafts import SCRIPT_SUFFIXES

from .colors import is_dark, muted, problem_color
from .highlighter import ScriptHighlighter

__all__ = ["MAX_UNDERLINED", "ScriptEditor"]

MAX_UNDERLINED = 400
"""Problems underlined at once (the panel lists them all)."""


class ScriptEditor(QPlainTextEdit):
    filesDropped = Signal(list)  # [str]: script files dropped on the editor (opened, not pasted)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("script_editor")
        self.setAccessibleName("Script")
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText(
            "# Chapter title\n\n[Alex]\nWhat Alex says. (laughs)\n\n[Maya]\nWhat Maya says.\n\n"
            "Speaker labels in brackets on their own line; # starts a chapter."
        )
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF(), 9.0) * 1.1)
        font.setStyleHint(QFont.StyleHint.SansSerif)
        self.setFont(font)
        self.setTabChangesFocus(False)
        self.highlighter = ScriptHighlighter(self.document(), dark=is_dark(self), muted=muted(self))
        self._problems: list[Problem] = []
        self._problem_selections: list[QTextEdit.ExtraSelection] = []
        self._match_selections: list[QTextEdit.ExtraSelection] = []

    # --- palette -------------------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.highlighter.set_palette(is_dark(self), muted(self))
            self.highlighter.rehighlight()
            self.set_problems(self._problems)

    # --- problems and matches --------------------------------------------------------------------------------

    @property
    def problems(self) -> list[Problem]:
        return self._problems

    def set_problems(self, problems: Sequence[Problem]) -> None:
        """Underline ``problems`` (errors red, warnings amber; a wavy line like a spelling check)."""
        self._problems = list(problems)
        dark = is_dark(self)
        document = self.document()
        selections: list[QTextEdit.ExtraSelection] = []
        for problem in self._problems[:MAX_UNDERLINED]:
            block = document.findBlockByNumber(problem.line)
            if not block.isValid():
                continue
            length = problem.length or max(block.length() - 1 - problem.column, 1)
            cursor = QTextCursor(block)
            cursor.setPosition(block.position() + min(problem.column, max(block.length() - 1, 0)))
            cursor.setPosition(
                min(cursor.position() + length, block.position() + max(block.length() - 1, 0)),
                QTextCursor.MoveMode.KeepAnchor,
            )
            if not cursor.hasSelection():  # an empty line: mark the line itself
                cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            selection = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(problem_color(problem.is_error, dark))
            if not cursor.hasSelection():
                fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
                fmt.setBackground(_tinted(problem_color(problem.is_error, dark), 40))
            selection.format = fmt
            selection.cursor = cursor
            selections.append(selection)
        self._problem_selections = selections
        self._apply_selections()

    def set_matches(self, ranges: Sequence[tuple[int, int]], current: int | None = None) -> None:
        """Mark search matches (``(start, end)`` offsets); ``current`` is the one selected."""
        selections: list[QTextEdit.ExtraSelection] = []
        color = self.palette().color(QPalette.ColorRole.Highlight)
        for index, (start, end) in enumerate(ranges[:2000]):
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(_tinted(color, 200 if index == current else 90))
            selection.format = fmt
            selection.cursor = cursor
            selections.append(selection)
        self._match_selections = selections
        self._apply_selections()

    def _apply_selections(self) -> None:
        self.setExtraSelections(self._match_selections + self._problem_selections)

    def problems_at(self, line: int, column: int) -> list[Problem]:
        found = []
        for problem in self._problems:
            if problem.line != line:
                continue
            end = problem.column + (problem.length or 10**9)
            if problem.column <= column <= end:
                found.append(problem)
        return found

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            pos = event.pos()  # type: ignore[attr-defined]
            cursor = self.cursorForPosition(QPoint(pos.x(), pos.y()))
            found = self.problems_at(cursor.blockNumber(), cursor.positionInBlock())
            if found:
                QToolTip.showText(event.globalPos(), "\n".join(p.message for p in found), self)  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    # --- moving and editing -----------------------------------------------------------------------------------

    def go_to(self, line: int, column: int = 0) -> None:
        """Put the cursor at ``line`` (0-based) and ``column``, in view, and focus the editor."""
        block = self.document().findBlockByNumber(max(0, min(line, self.document().blockCount() - 1)))
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + max(0, min(column, block.length() - 1)))
        self.setTextCursor(cursor)
        self.centerCursor()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def apply_edits(self, edits: Sequence[Edit]) -> None:
        """Apply line edits as ONE undo step (rename everywhere, replace all, a turn's new speaker)."""
        if not edits:
            return
        document = self.document()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for line, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
            block = document.findBlockByNumber(line)
            if not block.isValid():
                continue
            cursor.setPosition(block.position() + start)
            cursor.setPosition(block.position() + end, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(text)
        cursor.endEditBlock()

    def replace_all_text(self, text: str) -> None:
        """Replace the whole text as one undo step (a reordering, a restored version)."""
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()

    # --- dropped files ---------------------------------------------------------------------------------------

    @staticmethod
    def _script_files(source: QMimeData) -> list[str]:
        if not source.hasUrls():
            return []
        return [
            url.toLocalFile()
            for url in source.urls()
            if url.isLocalFile() and url.toLocalFile().lower().endswith(SCRIPT_SUFFIXES)
        ]

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(self._script_files(source)) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = self._script_files(source)
        if files:
            self.filesDropped.emit(files)
            return
        super().insertFromMimeData(source)


def _tinted(color: QColor, alpha: int) -> QColor:
    tinted = QColor(color)
    tinted.setAlpha(alpha)
    return tinted
