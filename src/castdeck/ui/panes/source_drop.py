"""Files dropped on the Sources pane: the strip that takes them, and what the pane's banner says of
a drop whose files were refused.

The strip only carries the local paths of what was dropped (the pane puts them into the upload
queue). A :class:`Refusal` follows one drop's files in the queue, so that the banner counts the
refused ones while they are listed: a file retried and sent leaves the count, and once none is
left the banner goes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from castdeck.services.uploads import UploadQueue
from castdeck.store.uploads import UploadItem

__all__ = ["Refusal", "SourceDropArea"]


class Refusal:
    """One drop's files, some refused: what the pane's banner says of them while they are listed."""

    def __init__(self, queue: UploadQueue, items: list[UploadItem], visuals: bool) -> None:
        self.queue = queue
        self.ids = frozenset(item.id for item in items)
        self.refused = {item.id for item in items if item.state == "refused"}
        self.count = len(items)
        self.visuals = visuals
        self.said = ""

    def follow(self, item_id: str) -> None:
        """The item changed (or left the list): counted among the refused while it is one."""
        item = self.queue.item(item_id)
        if item is not None and item.state == "refused":
            self.refused.add(item_id)
        else:
            self.refused.discard(item_id)

    def text(self) -> str | None:
        """What to say now; None once no refused file of the drop is left in the list."""
        if not self.refused:
            return None
        if len(self.refused) == 1:
            item = self.queue.item(next(iter(self.refused)))
            which = f"“{item.name}” was" if item is not None else "1 file was"
        else:
            which = f"{len(self.refused)} files were"
        kind = "voiceover visuals" if self.visuals else "sources"
        return (
            f"{which} refused and not sent ({self.count - len(self.refused)} of {self.count} queued as "
            f"{kind}). The Uploads list says why for each file."
        )


class SourceDropArea(QFrame):
    """A strip that accepts dropped files and folders; ``filesDropped`` carries their local paths."""

    filesDropped = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourceDropArea")
        self.setAcceptDrops(True)
        self.setAccessibleName("Drop files or folders to upload them as sources")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        self.label = QLabel("Drop files or folders here to upload them as sources", self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.label, 1)
        self._set_highlight(False)

    def _set_highlight(self, on: bool) -> None:
        border = "2px solid palette(highlight)" if on else "1px dashed palette(mid)"
        self.setStyleSheet(f"QFrame#sourceDropArea {{ border: {border}; border-radius: 4px; }}")

    @staticmethod
    def _paths(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[Path]:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return []
        return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._paths(event):
            event.acceptProposedAction()
            self._set_highlight(True)
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if self._paths(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._set_highlight(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_highlight(False)
        paths = self._paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.filesDropped.emit(paths)
