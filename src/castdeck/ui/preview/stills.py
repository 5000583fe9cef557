"""Stills of finished media items: one picture per item, made once from its downloaded file.

A still is the frame about a second into the video, grabbed with QtMultimedia (a ``QMediaPlayer``
paused on a ``QVideoSink``: the backend decodes on its own threads), converted and scaled on a
worker thread, and kept as a PNG beside the file (:class:`~castdeck.services.media_files.MediaFiles`),
so it shows offline and is never made twice. A file without pictures (audio only) gets a drawn
waveform instead. :class:`Stills` makes them for one pane, at most two at a time, the ones asked
for last (the items on screen) first, and keeps the small pictures of the list in memory.

The player that grabs the frame also reads how long the file is; the still keeps that length (a
PNG text entry), so :meth:`Stills.length` knows the real length of every item whose still was made
or read, where the service gives none.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Q_ARG, QObject, QPointF, QRectF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPainterPath, QPixmap

from castdeck.api.errors import CastdeckError
from castdeck.services.media_files import MediaFile, MediaFiles
from castdeck.services.memory_budget import MemoryBudget

from .. import multimedia
from ..listen.playback import queued
from ..pixmap_lru import PixmapLRU
from .frames import fit_image, frame_image

if TYPE_CHECKING:
    from ..multimedia import QMediaPlayer, QVideoFrame, QVideoSink

__all__ = ["LENGTH_TAG", "STILL_BOUND", "Grabbed", "Stills", "audio_still", "grab_frame"]

log = logging.getLogger(__name__)

STILL_BOUND = QSize(640, 640)
"""The largest still kept on disk (the details preview shows it until the video plays)."""
CARD_BOUND = QSize(320, 320)
"""The largest still kept in memory for the list."""
MAX_RUNNING = 2
RETRY_SECONDS = 60.0
"""A still that could not be made (no file yet, offline) is tried again after this long."""
KEPT_IMAGES = 120
KEPT_PIXMAPS = 240
AUDIO_TAG = "castdeck-still"
LENGTH_TAG = "castdeck-length"
"""The PNG text entry of a still that holds its file's length in seconds."""


@dataclass(frozen=True)
class Grabbed:
    """What a paused player found in a file: the still's frame (``None``: no pictures, sound only)
    and the file's length in seconds (``None`` when the player could not tell)."""

    frame: QVideoFrame | None
    seconds: float | None


class _Grab(QObject):
    """The frame about ``at`` seconds into a file, from a paused player (no audio output)."""

    def __init__(self, path: Path, at: float) -> None:
        super().__init__()
        qt = multimedia.require()
        self.at = at
        self.target_us = 0
        self.seconds: float | None = None
        """The file's length, once the player has loaded it."""
        self.result: asyncio.Future[QVideoFrame | None] = asyncio.get_running_loop().create_future()
        self.status = qt.QMediaPlayer.MediaStatus
        self.player: QMediaPlayer = qt.QMediaPlayer(self)
        self.sink: QVideoSink = qt.QVideoSink(self)
        self.player.setVideoOutput(self.sink)
        self.player.mediaStatusChanged.connect(self._status)
        self.player.errorOccurred.connect(self._error)
        self.sink.videoFrameChanged.connect(self._frame)
        self.player.setSource(QUrl.fromLocalFile(str(path)))

    def _status(self, status: QMediaPlayer.MediaStatus) -> None:
        if self.result.done():
            return
        if status == self.status.LoadedMedia:
            duration = self.player.duration() / 1000.0
            self.seconds = duration if duration > 0 else None
            if not self.player.hasVideo():
                self.result.set_result(None)  # audio only
                return
            at = min(self.at, duration / 4) if duration > 0 else self.at
            self.target_us = int(at * 1_000_000)
            queued(self.player, "setPosition", Q_ARG("qint64", int(at * 1000)))
            queued(self.player, "pause")  # decodes the frame at the position and stops there
        elif status == self.status.InvalidMedia:
            self.result.set_exception(ValueError(self.player.errorString() or "not a playable file"))

    def _error(self, _error: QMediaPlayer.Error, text: str) -> None:
        if not self.result.done():
            self.result.set_exception(ValueError(text or "the file cannot be played"))

    def _frame(self, frame: QVideoFrame) -> None:
        # The player shows nothing before it is paused at the position; the frame it shows then
        # is the still (the one at the position, or the nearest the file's key frames allow).
        if not self.result.done() and frame.isValid() and self.target_us:
            self.result.set_result(frame)

    def close(self) -> None:
        if not self.result.done():
            self.result.cancel()
        self.player.setSource(QUrl())  # stops; PySide lets the interpreter lock go here
        self.deleteLater()


async def grab_frame(path: Path, at: float = 1.0, timeout: float = 20.0) -> Grabbed:
    """The frame shown ``at`` seconds into the video at ``path`` (a quarter in for a short one;
    none when the file has no pictures) and the file's length. Raises ``ValueError`` for a file
    that cannot be played (or when QtMultimedia cannot be loaded here: :mod:`castdeck.ui.multimedia`)
    and ``TimeoutError`` when no frame came in ``timeout`` seconds."""
    problem = multimedia.missing("Making a still")
    if problem is not None:
        raise ValueError(problem)
    grab = _Grab(path, at)
    try:
        frame = await asyncio.wait_for(asyncio.shield(grab.result), timeout)
        return Grabbed(frame, grab.seconds)
    finally:
        grab.close()


def audio_still(size: QSize, seed: str = "") -> QImage:
    """A picture for a file that has no pictures: a waveform drawn in a neutral blue that reads on
    light and dark backgrounds (the background stays transparent)."""
    width, height = size.width(), size.height() * 9 // 16
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    card = QPainterPath()
    card.addRoundedRect(QRectF(0, 0, width, height), height * 0.06, height * 0.06)
    gradient = QLinearGradient(QPointF(0, 0), QPointF(0, height))
    gradient.setColorAt(0, QColor(84, 110, 122, 70))
    gradient.setColorAt(1, QColor(84, 110, 122, 30))
    painter.fillPath(card, gradient)
    bars = 48
    step = width / (bars + 2)
    rng = zlib.crc32(seed.encode("utf-8")) or 1
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(66, 133, 180))
    for index in range(bars):
        rng = (rng * 1103515245 + 12345) & 0x7FFFFFFF
        envelope = 0.35 + 0.65 * math.sin(math.pi * (index + 0.5) / bars) ** 0.6
        level = envelope * (0.35 + 0.65 * (rng % 1000) / 1000)
        bar = max(level * height * 0.62, height * 0.03)
        x = step * (index + 1.5)
        painter.drawRoundedRect(QRectF(x - step * 0.3, (height - bar) / 2, step * 0.6, bar), 2, 2)
    painter.end()
    image.setText(AUDIO_TAG, "audio")
    return image


def _load(path: Path, bound: QSize) -> QImage | None:
    image = QImage(str(path))
    return None if image.isNull() else fit_image(image, bound)


def length_of(image: QImage) -> float | None:
    """The length of the file a still was made from, as the still keeps it (``None``: not kept)."""
    try:
        seconds = float(image.text(LENGTH_TAG))
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


class Stills(QObject):
    """The stills of one pane's items (``kind``: video, short, voiceover). Work runs through
    ``start`` (the pane's task scope), so it ends with the pane."""

    stillReady = Signal(str)
    """A still (or its list-sized picture) arrived for this item id."""
    lengthKnown = Signal(str)
    """The real length of this item's file became known (or changed): :meth:`length`."""

    def __init__(
        self,
        files: MediaFiles,
        kind: str,
        start: Callable[[Coroutine[Any, Any, None], str], asyncio.Task[None]],
        budget: MemoryBudget,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.files = files
        self.kind = kind
        self._start = start
        self._queue: OrderedDict[str, None] = OrderedDict()
        self._running: set[str] = set()
        self._failed: dict[str, float] = {}
        self._images: PixmapLRU[str, QImage] = PixmapLRU(KEPT_IMAGES, budget)
        self._pixmaps: PixmapLRU[tuple[str, int, int], QPixmap] = PixmapLRU(KEPT_PIXMAPS, budget)
        self.destroyed.connect(self._images.clear)  # the pane closed: what it kept no longer counts
        self.destroyed.connect(self._pixmaps.clear)
        self._scaling: set[tuple[str, int, int]] = set()
        self.audio_only: set[str] = set()
        self._lengths: dict[str, float] = {}
        self.made = 0
        """Stills drawn from a file (not read from disk): tests count them."""

    # --- asking -------------------------------------------------------------------------------------------

    def image(self, media_id: str) -> QImage | None:
        """The list-sized still when it is known."""
        return self._images.get(media_id)

    def length(self, media_id: str) -> float | None:
        """How long the item's kept file is, in seconds, as the player found when its still was
        made; ``None`` until its still was made or read (no file kept, or not looked at yet)."""
        return self._lengths.get(media_id)

    def picture(self, media_id: str, size: QSize) -> QPixmap | None:
        """The still scaled to fit ``size`` when known; else ``None``, and it is made (or scaled)
        meanwhile: :attr:`stillReady` says when to ask again."""
        key = (media_id, size.width(), size.height())
        pixmap = self._pixmaps.get(key)
        if pixmap is not None:
            return pixmap
        image = self._images.get(media_id)
        if image is None:
            self.request(media_id)
        elif key not in self._scaling:
            self._scaling.add(key)
            self._start(self._scale(key, image), "scale a still")
        return None

    def request(self, media_id: str, *, now: bool = False) -> None:
        """Make the still of a finished item (asked last, made first). A still that could not be
        made is tried again only after a while, unless ``now`` (its file has just arrived)."""
        if now:
            self._failed.pop(media_id, None)
        if media_id in self._images or media_id in self._running:
            return
        failed = self._failed.get(media_id)
        if failed is not None and time.monotonic() - failed < RETRY_SECONDS:
            return
        self._queue[media_id] = None
        self._queue.move_to_end(media_id)
        self._pump()

    def forget(self, media_id: str) -> None:
        """The item's file changed (a new attempt): its still is made again when next asked."""
        self._images.pop(media_id)
        self._failed.pop(media_id, None)
        self.audio_only.discard(media_id)
        if self._lengths.pop(media_id, None) is not None:
            self.lengthKnown.emit(media_id)  # the new file's length is not known yet
        self._forget_pixmaps(media_id)

    async def full_image(self, media_id: str) -> QImage | None:
        """The still at its kept size (the details preview), read on a worker thread."""
        path = await self.files.kept_still(self.kind, media_id)
        image = await asyncio.to_thread(_load, path, STILL_BOUND) if path is not None else None
        if image is not None:
            self._learn_length(media_id, length_of(image))
        return image

    # --- making -------------------------------------------------------------------------------------------

    def _pump(self) -> None:
        while self._queue and len(self._running) < MAX_RUNNING:
            media_id, _ = self._queue.popitem(last=True)
            self._running.add(media_id)
            self._start(self._make(media_id), "make a still")

    async def _make(self, media_id: str) -> None:
        try:
            image = await self._still_of(media_id)
        except (CastdeckError, OSError, ValueError, TimeoutError) as error:
            log.info("no still for %s %s: %s", self.kind, media_id, error)
            image = None
        finally:
            self._running.discard(media_id)
        if image is None:
            self._failed[media_id] = time.monotonic()
        else:
            self._failed.pop(media_id, None)
            self._keep(media_id, image)
            self.stillReady.emit(media_id)
        self._pump()

    async def _still_of(self, media_id: str) -> QImage | None:
        path = await self.files.kept_still(self.kind, media_id)
        if path is None:
            file = await self.files.kept(self.kind, media_id)
            if file is None:
                # The list never downloads a file for a still: a finished video can be large. The
                # still is made from the file kept once the item was previewed.
                return None
            path = await self.draw(file)
            if path is None:
                return None
        return await asyncio.to_thread(_load, path, CARD_BOUND)

    async def draw(self, file: MediaFile) -> Path | None:
        """Draw the still of ``file`` and keep it beside the file; where it was kept."""
        grabbed = await grab_frame(file.path)
        if grabbed.frame is None:
            image: QImage | None = await asyncio.to_thread(audio_still, STILL_BOUND, file.media_id)
        else:
            image = await asyncio.to_thread(frame_image, grabbed.frame, STILL_BOUND)
        if image is None:
            return None
        still = image
        if grabbed.seconds is not None:
            still.setText(LENGTH_TAG, f"{grabbed.seconds:.3f}")  # kept with the still, read with it
        path = await self.files.put_still(file, lambda temp: still.save(str(temp), "PNG"))  # type: ignore[call-overload]
        if path is not None:
            self.made += 1
            self._learn_length(file.media_id, grabbed.seconds)
        return path

    def _learn_length(self, media_id: str, seconds: float | None) -> None:
        if seconds is None or self._lengths.get(media_id) == seconds:
            return
        self._lengths[media_id] = seconds
        self.lengthKnown.emit(media_id)

    def _keep(self, media_id: str, image: QImage) -> None:
        if image.text(AUDIO_TAG) == "audio":
            self.audio_only.add(media_id)
        self._learn_length(media_id, length_of(image))
        self._images.put(media_id, image)
        self._forget_pixmaps(media_id)

    def _forget_pixmaps(self, media_id: str) -> None:
        for key in [k for k in self._pixmaps if k[0] == media_id]:
            self._pixmaps.pop(key)

    async def _scale(self, key: tuple[str, int, int], image: QImage) -> None:
        try:
            scaled = await asyncio.to_thread(fit_image, image, QSize(key[1], key[2]))
        finally:
            self._scaling.discard(key)
        if self._images.get(key[0]) is not image:
            return  # forgotten or replaced meanwhile
        self._pixmaps.put(key, QPixmap.fromImage(scaled))
        self.stillReady.emit(key[0])
