"""Find and replace in the script (Ctrl+F, Ctrl+H): every match marked, next and previous, replace
one, replace all (one undo step, after a snapshot of the draft)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QLineEdit, QPushButton, QWidget

from castdeck.scripts.edits import find_all, replace_edits

from ..accessible import shows_value
from ..widgets import name_clear_button
from .editor import ScriptEditor

__all__ = ["FindBar"]


class FindBar(QWidget):
    replaceAllRequested = Signal(list)  # the edits of "replace all" (the workspace snapshots, then applies)

    def __init__(self, editor: ScriptEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.setObjectName("find_bar")
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        self.find_edit = QLineEdit(self)
        self.find_edit.setPlaceholderText("Find")
        self.find_edit.setAccessibleName("Find")
        name_clear_button(self.find_edit, "Clear what to find")
        self.replace_edit = QLineEdit(self)
        self.replace_edit.setPlaceholderText("Replace with")
        self.replace_edit.setAccessibleName("Replace with")
        self.case_box = QCheckBox("Match case", self)
        self.words_box = QCheckBox("Whole words", self)
        self.count = QLabel(self)
        shows_value(self.count, "Matches")
        self.count.setMinimumWidth(90)
        buttons = []
        for text, name, slot in (
            ("Previous", "Find previous", self.find_previous),
            ("Next", "Find next", self.find_next),
            ("Replace", "Replace", self.replace_one),
            ("Replace all", "Replace all", self.replace_all),
            ("Close", "Close find", self.close_bar),
        ):
            button = QPushButton(text, self)
            button.setAccessibleName(name)
            button.clicked.connect(slot)
            buttons.append(button)
        self.previous_button, self.next_button, self.replace_button, self.replace_all_button, close = buttons
        layout.addWidget(self.find_edit, 0, 0)
        layout.addWidget(self.previous_button, 0, 1)
        layout.addWidget(self.next_button, 0, 2)
        layout.addWidget(self.count, 0, 3)
        layout.addWidget(self.case_box, 0, 4)
        layout.addWidget(close, 0, 5)
        layout.addWidget(self.replace_edit, 1, 0)
        layout.addWidget(self.replace_button, 1, 1)
        layout.addWidget(self.replace_all_button, 1, 2)
        layout.addWidget(self.words_box, 1, 4)
        layout.setColumnStretch(0, 1)
        self.find_edit.textChanged.connect(self.refresh)
        self.case_box.toggled.connect(self.refresh)
        self.words_box.toggled.connect(self.refresh)
        self.find_edit.returnPressed.connect(self.find_next)
        self.replace_edit.returnPressed.connect(self.replace_one)
        QShortcut(
            QKeySequence("Escape"),
            self,
            self.close_bar,
            context=Qt.ShortcutContext.WidgetWithChildrenShortcut,
        )
        self.matches: list[tuple[int, int]] = []
        self.current: int | None = None
        self.hide()

    def open_bar(self, *, replace: bool = False) -> None:
        self.show()
        selected = self.editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_edit.setText(selected)
        target = self.replace_edit if replace and self.find_edit.text() else self.find_edit
        target.setFocus()
        target.selectAll()
        self.refresh()

    def close_bar(self) -> None:
        self.hide()
        self.matches = []
        self.editor.set_matches([])
        self.editor.setFocus()

    def _flags(self) -> dict[str, bool]:
        return {"case": self.case_box.isChecked(), "words": self.words_box.isChecked()}

    def refresh(self, *_: object) -> None:
        """Find every match again (the text or the search changed)."""
        if not self.isVisible():
            return
        self.matches = find_all(self.editor.toPlainText(), self.find_edit.text(), **self._flags())
        position = self.editor.textCursor().selectionStart()
        self.current = (
            next((i for i, (s, _e) in enumerate(self.matches) if s >= position), 0) if self.matches else None
        )
        self._show()

    def _show(self) -> None:
        self.editor.set_matches(self.matches, self.current)
        needle = self.find_edit.text()
        if not needle:
            self.count.setText("")
        elif not self.matches:
            self.count.setText("No matches")
        else:
            self.count.setText(f"{(self.current or 0) + 1} of {len(self.matches)}")
        # disabled with nothing to go to, and each says why (a disabled button's tooltip still shows)
        shown = needle if len(needle) <= 40 else needle[:39] + "…"
        why = None if self.matches else (f"No match for “{shown}”" if needle else "Type what to find first")
        for button, tip in (
            (self.next_button, "The next match (F3, or Enter in Find)"),
            (self.previous_button, "The previous match (Shift+F3)"),
            (self.replace_button, "Replace this match, then go to the next (Enter in Replace with)"),
            (self.replace_all_button, "Replace every match (one step to undo)"),
        ):
            button.setEnabled(bool(self.matches))
            button.setToolTip(why or tip)

    def _select(self, index: int) -> None:
        self.current = index % len(self.matches)
        start, end = self.matches[self.current]
        cursor = QTextCursor(self.editor.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        self.editor.setTextCursor(cursor)
        self.editor.centerCursor()
        self._show()

    def find_next(self) -> None:
        if not self.matches:
            self.refresh()
        if self.matches:
            cursor = self.editor.textCursor()
            here = cursor.selectionEnd() if cursor.hasSelection() else cursor.position()
            index = next((i for i, (s, _e) in enumerate(self.matches) if s >= here), 0)
            self._select(index)

    def find_previous(self) -> None:
        if not self.matches:
            self.refresh()
        if self.matches:
            here = self.editor.textCursor().selectionStart()
            before = [i for i, (s, _e) in enumerate(self.matches) if s < here]
            self._select(before[-1] if before else len(self.matches) - 1)

    def replace_one(self) -> None:
        cursor = self.editor.textCursor()
        if self.current is not None and self.matches and cursor.hasSelection():
            start, end = self.matches[self.current]
            if (cursor.selectionStart(), cursor.selectionEnd()) == (start, end):
                cursor.insertText(self.replace_edit.text())
        self.refresh()
        self.find_next()

    def replace_all(self) -> None:
        edits = replace_edits(self.editor.toPlainText(), self.find_edit.text(), self.replace_edit.text(),
                              **self._flags())  # fmt: skip
        if edits:
            self.replaceAllRequested.emit(edits)
