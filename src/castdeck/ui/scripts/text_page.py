"""The two halves of the Scripts workspace beside the drafts list that hold no logic of their own:
the Text page (the editor with its find bar, its undo, redo and find buttons, the save state and
the counts) and the side panels (problems, outline, speakers).

The pane (:class:`~castdeck.ui.scripts.pane.ScriptsPane`) builds them, keeps their widgets under
the names it always had (``pane.editor``, ``pane.find_bar``, ``pane.problems_panel``...) and wires
their signals to what it does; nothing here reads a draft or the service.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from ..accessible import shows_value
from .editor import ScriptEditor
from .find_bar import FindBar
from .panels import OutlinePanel, ProblemsPanel, SpeakersPanel

__all__ = ["SAVE_STATES", "ScriptPanels", "TextPage", "push_button"]

SAVE_STATES = ("Saved", "Saving…", "Not saved!")
"""What the save state says: its label is as wide as the longest, so "Saving…" is never cut."""


def push_button(parent: QWidget, text: str, name: str, tip: str, slot: Callable[[], object],
                row: QHBoxLayout) -> QPushButton:  # fmt: skip
    """A button in ``row`` that calls ``slot``, named for a screen reader, with its tip."""
    button = QPushButton(text, parent)
    button.setAccessibleName(name)
    button.setToolTip(tip)
    button.clicked.connect(lambda _=False: slot())
    row.addWidget(button)
    return button


class TextPage(QWidget):
    """The script's text: the find bar over the editor, the buttons and the state under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.editor = ScriptEditor(self)
        self.find_bar = FindBar(self.editor, self)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.editor, 1)
        row = QHBoxLayout()
        self.undo_button = push_button(self, "Undo", "Undo", "Undo (Ctrl+Z)", self.editor.undo, row)
        self.redo_button = push_button(self, "Redo", "Redo", "Redo (Ctrl+Shift+Z)", self.editor.redo, row)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        self.editor.undoAvailable.connect(self.undo_button.setEnabled)
        self.editor.redoAvailable.connect(self.redo_button.setEnabled)
        self.find_button = push_button(self, "Find…", "Find and replace", "Find (Ctrl+F) and replace (Ctrl+H)",
                                       lambda: self.find_bar.open_bar(replace=True), row)  # fmt: skip
        row.addStretch(1)
        self.save_state = QLabel(self)
        shows_value(self.save_state, "Save state")
        self.save_state.setStyleSheet("color: palette(mid);")
        self.save_state.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        metrics = self.save_state.fontMetrics()
        self.save_state.setMinimumWidth(max(metrics.horizontalAdvance(text) for text in SAVE_STATES) + 4)
        row.addWidget(self.save_state)
        layout.addLayout(row)
        # the counts on a line of their own under the buttons: with the Jobs dock open the column is
        # narrow, and beside the buttons they were squeezed into a tall column of words
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setObjectName("script_status")
        shows_value(self.status, "Script status")
        layout.addWidget(self.status)


class ScriptPanels(QTabWidget):
    """The side panels: the script's problems, its outline and its speakers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Script panels")
        # every tab's name whole ("Outli" was cut behind scroll arrows): the panels need that width,
        # and the drafts list and the editor give way
        self.tabBar().setUsesScrollButtons(False)
        self.tabBar().setElideMode(Qt.TextElideMode.ElideNone)
        self.problems_panel = ProblemsPanel(self)
        self.outline = OutlinePanel(self)
        self.speakers = SpeakersPanel(self)
        self.addTab(self.problems_panel, "Problems")
        self.addTab(self.outline, "Outline")
        self.addTab(self.speakers, "Speakers")
