"""The answer to a media item's "Download" (spec 2.9): a link to the file (available), a wait with
"Check again" (preparing), or the studio (unavailable), each looking different so it is clear
which one the service gave."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from castdeck.services.media_actions import DownloadState
from castdeck.services.media_files import preparing_text

from ..accessible import shows_value
from ..palette import tone
from ..pane import link_label

__all__ = ["DOWNLOAD_HEADLINES", "DOWNLOAD_TONES", "DownloadState", "DownloadView"]

DOWNLOAD_TONES = {"available": "info", "preparing": "warning", "unavailable": "quiet"}
DOWNLOAD_HEADLINES = {
    "available": "● Ready to download",
    "preparing": "◌ Being prepared",
    "unavailable": "○ No downloadable file",
}


class DownloadView(QFrame):
    """The answer to Download: a link (available), a wait with "Check again" (preparing), or the studio
    (unavailable). Each kind looks different so it is clear which one the service gave."""

    def __init__(self, state: DownloadState, noun: str, studio_url: str | None,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.kind = state.kind
        self.setObjectName("download")
        self.setAccessibleName(f"Download: {state.kind}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        self.headline = QLabel(DOWNLOAD_HEADLINES.get(state.kind, "Unknown answer"), self)
        shows_value(self.headline, "Download headline")
        color = tone(DOWNLOAD_TONES.get(state.kind, "quiet"), self.palette())
        self.headline.setStyleSheet(f"color: {color}; font-weight: bold;")
        layout.addWidget(self.headline)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        shows_value(self.message, "Download state")
        layout.addWidget(self.message)
        self.link: QLabel | None = None
        self.check_again: QPushButton | None = None
        checked = time.strftime("%H:%M:%S", time.localtime(state.checked_at)) if state.checked_at else ""
        if state.saveable:
            origin = "storage" if state.origin in (None, "storage") else state.origin
            self.message.setText(
                f"From {origin}, checked {checked}. Choose where to save it; the address below is signed "
                "and expires, so press Download again for a fresh one later."
            )
            self.link = link_label(state.url, f"Download the {noun} file")
        elif state.kind == "preparing":
            why = preparing_text(state.reason)
            self.message.setText(f"Not ready yet: {why} (checked {checked}). Check again in a moment.")
            self.check_again = QPushButton("Check again", self)
            self.check_again.setAccessibleName(f"Check the {noun} download again")
        elif state.kind == "unavailable":
            self.message.setText(
                f"The service has no file to download for this {noun}. Open it in the studio application "
                "instead."
            )
            self.link = link_label(studio_url, "Open in the studio") if studio_url else None
        else:
            self.message.setText(f"The service answered with an unknown delivery kind “{state.kind}”.")
            self.link = link_label(studio_url, "Open in the studio") if studio_url else None
        if self.link is not None:
            self.link.setParent(self)
            layout.addWidget(self.link)
        if self.check_again is not None:
            layout.addWidget(self.check_again, 0, Qt.AlignmentFlag.AlignLeft)
