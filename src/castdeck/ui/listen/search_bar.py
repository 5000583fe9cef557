"""The transcript's search strip: the text, "3 of 12", previous and next, and close (Escape)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QStyle, QToolButton, QWidget

from ..accessible import shows_value
from .transcript_view import TranscriptView

__all__ = ["SearchBar"]


class SearchBar(QWidget):
    closed = Signal()

    def __init__(self, view: TranscriptView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.setObjectName("transcript_search")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Search the transcript")
        self.edit.setAccessibleName("Search the transcript")
        self.edit.setClearButtonEnabled(True)
        layout.addWidget(self.edit, 1)
        self.count = QLabel("", self)
        shows_value(self.count, "Search matches")
        self.count.setMinimumWidth(self.fontMetrics().horizontalAdvance("No matches") + 8)
        layout.addWidget(self.count)
        style = self.style()

        def tool(icon: QStyle.StandardPixmap, name: str, tip: str) -> QToolButton:
            button = QToolButton(self)
            button.setIcon(style.standardIcon(icon))
            button.setAutoRaise(True)
            button.setAccessibleName(name)
            button.setToolTip(tip)
            layout.addWidget(button)
            return button

        self.previous_button = tool(
            QStyle.StandardPixmap.SP_ArrowUp, "Previous match", "Previous match (Shift+Enter, Shift+F3)"
        )
        self.next_button = tool(QStyle.StandardPixmap.SP_ArrowDown, "Next match", "Next match (Enter, F3)")
        self.close_button = tool(
            QStyle.StandardPixmap.SP_DialogCloseButton, "Close search", "Close search (Escape)"
        )
        self.edit.installEventFilter(self)
        self.edit.textChanged.connect(self._changed)
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.close_button.clicked.connect(self.close_search)
        for keys, step in (("F3", 1), ("Shift+F3", -1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda step=step: self.step(step))
        self._update_count()

    def open_search(self) -> None:
        self.show()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()
        if self.edit.text():
            self._changed(self.edit.text())

    def close_search(self) -> None:
        self.view.clear_search()
        self.hide()
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.closed.emit()

    def step(self, step: int) -> None:
        self.view.next_match(step)
        self._update_count()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter and Shift+Enter step through the matches; Escape closes (keys typed in the box)."""
        if watched is self.edit and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.step(-1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.close_search()
                return True
        return super().eventFilter(watched, event)

    def _changed(self, text: str) -> None:
        self.view.search(text)
        self._update_count()

    def _update_count(self) -> None:
        total = len(self.view.matches)
        if not self.edit.text():
            self.count.setText("")
        elif total == 0:
            self.count.setText("No matches")
        else:
            self.count.setText(f"{self.view.current_match + 1} of {total}")
        self.previous_button.setEnabled(total > 1)
        self.next_button.setEnabled(total > 1)
