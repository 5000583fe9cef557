"""``CoverView``: the picture at the top of a podcast's, episode's or host's details.

It shows the picture once it has loaded (through the pane's :class:`~castdeck.ui.pictures.PictureBook`,
asked before the list's rows), a placeholder tile with the item's initials meanwhile or when there
is none, and says why in its tooltip and accessible description when a picture cannot be shown.
Where the item's picture can be replaced (an episode's cover), an image file dropped on it is
offered to the pane through :attr:`CoverView.fileDropped`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPainter, QPainterPath, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from .cover_delegate import Tiles, draw_picture
from .pictures import PictureBook

__all__ = ["PICTURE_SUFFIXES", "CoverView"]

PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def _dropped_picture(event: QDragEnterEvent | QDropEvent) -> Path | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    path = Path(urls[0].toLocalFile())
    return path if path.suffix.lower() in PICTURE_SUFFIXES else None


class CoverView(QWidget):
    fileDropped = Signal(Path)

    def __init__(
        self, book: PictureBook, tiles: Tiles, side: int = 168, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.book = book
        self.tiles = tiles
        self.side = side
        self.setFixedSize(side, side)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._url: str | None = None
        self._title = ""
        self._seed = ""
        self._what = "Cover"
        self._busy = ""
        self._hovering = False
        book.changed.connect(self._changed)

    # --- what it shows -------------------------------------------------------------------------------------

    def show_picture(self, url: str | None, title: str | None, seed: str, *, what: str = "Cover") -> None:
        self._url, self._title, self._seed, self._what = url or None, title or "", seed, what
        self._busy = ""
        self._describe()
        self.update()

    def set_busy(self, text: str) -> None:
        """Say what is happening to the picture (a replacement being sent), or "" when done."""
        self._busy = text
        self._describe()
        self.update()

    @property
    def url(self) -> str | None:
        return self._url

    def current(self) -> QPixmap | None:
        """The loaded picture shown now, or None while the placeholder shows."""
        size = QSize(self.side, self.side)
        return self.book.pixmap(self._url, size, urgent=True, ratio=self.devicePixelRatioF())

    def state(self) -> str:
        """``picture``, ``loading``, ``failed`` or ``none`` (tests, and the text alternatives)."""
        if not self._url:
            return "none"
        if self.book.failure(self._url):
            return "failed"
        return "picture" if self.current() is not None else "loading"

    def _describe(self) -> None:
        title = self._title or "this item"
        state = self.state()
        if state == "picture":
            text = f"{self._what} of {title}"
        elif state == "failed":
            reason = (self.book.failure(self._url) or "").rstrip(".")
            text = f"No {self._what.lower()} shown for {title}: {reason}"
        elif state == "loading":
            text = f"{self._what} of {title}, loading"
        else:
            text = f"No {self._what.lower()} for {title}"
        if self._busy:
            text = f"{text}. {self._busy}"
        if self.acceptDrops():
            text += ". Drop a JPEG, PNG or WebP image here to replace it."
        self.setAccessibleName(f"{self._what} picture")
        self.setAccessibleDescription(text)
        self.setToolTip(text)

    def _changed(self, url: str) -> None:
        if url == self._url:
            self._describe()
            self.update()

    # --- painting ------------------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        rect = QRectF(0, 0, self.side, self.side)
        radius = self.side / 14
        clip = QPainterPath()
        clip.addRoundedRect(rect, radius, radius)
        draw_picture(painter, rect.toRect(), self.current(), self._seed or self._title, self._title,
                     self.devicePixelRatioF(), self.tiles)  # fmt: skip
        if self._busy or self._hovering:
            painter.setOpacity(0.55)
            painter.fillPath(clip, Qt.GlobalColor.black)
            painter.setOpacity(1.0)
            painter.setPen(Qt.GlobalColor.white)
            label = self._busy or "Drop to replace"
            painter.drawText(
                rect.adjusted(8, 8, -8, -8), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, label
            )
        if self._hovering:
            pen = QPen(self.palette().highlight().color(), 3)
            painter.setPen(pen)
            painter.drawPath(clip)
        painter.end()

    # --- dropping a replacement ----------------------------------------------------------------------------

    def set_droppable(self, yes: bool) -> None:
        self.setAcceptDrops(yes)
        self._describe()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _dropped_picture(event) is not None and not self._busy:
            event.acceptProposedAction()
            self._hovering = True
            self.update()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: object) -> None:
        self._hovering = False
        self.update()

    def dropEvent(self, event: QDropEvent) -> None:
        self._hovering = False
        self.update()
        path = _dropped_picture(event)
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.fileDropped.emit(path)
