"""The Scripts place in the navigation: offline scripts arrive with the script editor."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from castdeck.services.session import Session

from ..widgets import heading_label

__all__ = ["ScriptsPane"]


class ScriptsPane(QWidget):
    title = "Scripts"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Scripts")
        layout = QVBoxLayout(self)
        heading = heading_label("Scripts", self)
        layout.addWidget(heading)
        text = QLabel(
            "Write episode scripts here, offline, and import them when you are ready.\n"
            "The script editor is not part of this version yet; to generate from a script today, "
            "use Episodes → Generate.",
            self,
        )
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        text.setStyleSheet("color: palette(mid);")
        layout.addWidget(text, 1)
