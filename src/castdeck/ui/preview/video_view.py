"""``VideoView``: the picture of a playing video, or its still until it plays.

Why not ``QVideoWidget``: it renders through a native child window and Qt's rendering hardware
interface. Where there is none (the offscreen platform of the tests, remote sessions) it warns
"No RHI backend" on every new thread (warnings fail the tests), ``grab()`` sees an empty widget
(no screenshots), and a still cannot be painted under it. Here the player writes into a
``QVideoSink``; each frame is converted and scaled on a worker thread (:mod:`.frames`) and the
widget paints the finished image. When frames come faster than they are converted, the ones in
between are skipped: the picture stays current and the UI thread only paints.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from .. import multimedia
from .frames import fit_image, frame_image

if TYPE_CHECKING:
    from ..multimedia import QVideoFrame, QVideoSink

__all__ = ["VideoView"]

log = logging.getLogger(__name__)

BACKGROUND = QColor("#101114")
TEXT = QColor("#c9ccd1")


class _Converter(QObject):
    """The worker thread and the signal it reports on. It outlives the view it serves until the
    view is destroyed, so the worker never emits on a deleted widget."""

    rendered = Signal(object, int)  # (QImage or None, generation)

    def __init__(self) -> None:
        super().__init__()
        self._executor: ThreadPoolExecutor | None = None

    def submit(self, work: Callable[[], None]) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="castdeck-video")
        self._executor.submit(work)

    def shutdown(self, *_: object) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


class VideoView(QWidget):
    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("video_view")
        self.setAccessibleName("Video preview")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 90)
        qt = multimedia.load()
        self.sink: QVideoSink | None = None
        """Where a player writes its frames; None without QtMultimedia (the view shows stills)."""
        if qt is not None:
            self.sink = qt.QVideoSink(self)
            self.sink.videoFrameChanged.connect(self._frame_arrived)
        self._converter = _Converter()
        self._converter.rendered.connect(self._show_rendered)
        self.destroyed.connect(self._converter.shutdown)
        self._generation = 0
        self._busy = False
        self._pending: QVideoFrame | QImage | None = None
        self._source: QVideoFrame | QImage | None = None
        self._still: QImage | None = None
        self._shown: QImage | None = None
        self.playing_video = False
        """Frames of the video are shown (not the still)."""
        self.frames_shown = 0
        self.text = ""

    # --- what is shown ----------------------------------------------------------------------------------

    @property
    def still(self) -> QImage | None:
        return self._still

    @property
    def shown(self) -> QImage | None:
        """The image painted now (scaled to the widget), or ``None``."""
        return self._shown

    def set_still(self, image: QImage | None) -> None:
        """The picture shown until the video plays."""
        self._still = image
        if not self.playing_video:
            self._show(image)

    def set_text(self, text: str) -> None:
        """Said in the middle when there is no picture (loading, nothing to show)."""
        self.text = text
        self.update()

    def clear(self) -> None:
        """Forget the frames (another file comes); the still stays until replaced."""
        self.playing_video = False
        self._show(self._still)

    def sizeHint(self) -> QSize:
        return QSize(480, 270)

    # --- frames ---------------------------------------------------------------------------------------------

    def _frame_arrived(self, frame: QVideoFrame) -> None:
        if not frame.isValid():
            return
        self.playing_video = True
        self._render(frame)

    def _show(self, source: QVideoFrame | QImage | None) -> None:
        self._generation += 1  # what is converting now is shown no more
        self._pending = None
        self._source = source
        if source is None:
            self._shown = None
            self.update()
        else:
            self._render(source)

    def _render(self, source: QVideoFrame | QImage) -> None:
        self._source = source
        self._pending = source
        self._next()

    def _next(self) -> None:
        if self._busy or self._pending is None:
            return
        source, self._pending = self._pending, None
        self._busy = True
        ratio = self.devicePixelRatioF()
        size = QSize(max(int(self.width() * ratio), 1), max(int(self.height() * ratio), 1))
        generation = self._generation
        rendered = self._converter.rendered

        def convert() -> None:
            image: QImage | None = None
            try:
                image = fit_image(source, size) if isinstance(source, QImage) else frame_image(source, size)
                if image is not None:
                    image.setDevicePixelRatio(ratio)
            except Exception:
                log.exception("a video frame could not be converted")
            finally:
                rendered.emit(image, generation)

        self._converter.submit(convert)

    def _show_rendered(self, image: QImage | None, generation: int) -> None:
        self._busy = False
        if generation == self._generation and image is not None:
            self._shown = image
            if self.playing_video:
                self.frames_shown += 1
            self.update()
        self._next()

    def release(self) -> None:
        """End the worker thread (the view goes away)."""
        self._generation += 1
        self._pending = None
        self._converter.shutdown()
        self._busy = False

    # --- painting and input --------------------------------------------------------------------------------

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        image = self._shown
        if image is not None and not image.isNull():
            ratio = image.devicePixelRatio() or 1.0
            size = QSize(round(image.width() / ratio), round(image.height() / ratio))
            if size.width() > self.width() or size.height() > self.height():
                size = size.scaled(
                    self.size(), Qt.AspectRatioMode.KeepAspectRatio
                )  # resized: until re-rendered
            target = QRect(
                (self.width() - size.width()) // 2, (self.height() - size.height()) // 2,
                size.width(), size.height(),
            )  # fmt: skip
            painter.drawImage(target, image)
        elif self.text:
            painter.setPen(TEXT)
            painter.drawText(self.rect().adjusted(12, 8, -12, -8),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.text)  # fmt: skip
        if self.hasFocus():
            painter.setPen(self.palette().highlight().color())
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._source is not None:
            self._render(self._source)  # at the new size

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.clicked.emit()
            event.accept()
            return
        super().mousePressEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.update()
