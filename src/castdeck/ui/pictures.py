"""``PictureBook``: pictures for a pane's rows, cards and details, loaded off the UI thread.

Views ask :meth:`PictureBook.pixmap` while they paint. A picture already made at that size comes
back at once (a least-recently-used set of scaled copies); any other is queued and ``None`` comes
back, so the view draws its placeholder. Only what is painted is asked for, so ten thousand rows
cost the rows on screen. The queue serves the most recently asked first and forgets the oldest
past its bound (a row scrolled away is asked again if it is painted again); the details' own
picture goes through a small queue served before it. Fetching (through
:class:`~castdeck.services.artwork.Artwork`, which keeps files for offline use) and decoding and
scaling (``QImageReader`` on a worker thread) never touch the UI thread; only the final
``QPixmap`` is made there.

A failure is remembered with its reason (:meth:`failure`) until :meth:`forget`; a load that
started before a forget never writes its result over what came after it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtGui import QImage, QPixmap

from castdeck.api.errors import CastdeckError
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from .cover_delegate import decode_picture
from .pixmap_lru import PixmapLRU

__all__ = ["PictureBook", "decode_picture"]

log = logging.getLogger(__name__)

Key = tuple[str, int, int]


class PictureBook(QObject):
    """Pictures for one owner (a pane): loads run in the owner's task scope and end with it."""

    changed = Signal(str)
    """A picture (its address) became available or failed: views repaint."""

    QUEUE_BOUND = 96
    CONCURRENCY = 3
    KEEP = 600
    """Scaled copies kept in memory at most (a few screens of list rows); their pixels are charged
    to the app's one budget for pictures (``runtime.pictures_memory``), shared with every other
    pane's covers and tiles. Bounded by count alone, a long session's new covers, each also shown
    large, filled 600 copies slowly; bounded by bytes pane by pane, the panes together still kept
    over a hundred MiB (the soak's memory grew by it round after round)."""

    def __init__(self, session: Session, owner: QObject) -> None:
        super().__init__(owner)
        self.session = session
        self.artwork = session.artwork
        self.work = TaskScope(self)  # a child of the owner: closing the owner closes it too
        self._pixmaps: PixmapLRU[Key, QPixmap] = PixmapLRU(self.KEEP, session.runtime.pictures_memory)
        self.destroyed.connect(self._pixmaps.clear)  # the owner closed: its copies no longer count
        self._failures: dict[str, str] = {}
        self._queue: OrderedDict[Key, None] = OrderedDict()
        self._urgent: OrderedDict[Key, None] = OrderedDict()
        self._running: set[Key] = set()
        self._workers = 0
        self._epoch: dict[str, int] = {}
        self.loaded = 0
        """Pictures decoded (tests and the benchmark count them)."""

    # --- asking ------------------------------------------------------------------------------------------------

    def pixmap(
        self, url: str | None, size: QSize, *, urgent: bool = False, ratio: float = 1.0
    ) -> QPixmap | None:
        """The picture at ``url`` scaled to ``size`` (device pixels: ``size * ratio``), or None while it
        loads, when it failed (see :meth:`failure`) or when there is no address."""
        if not url:
            return None
        key = (url, round(size.width() * ratio), round(size.height() * ratio))
        found = self._pixmaps.get(key)
        if found is not None:
            return found
        if url in self._failures:
            return None
        self._ask(key, urgent)
        return None

    @property
    def idle(self) -> bool:
        """Nothing is queued or loading (tests)."""
        return not (self._queue or self._urgent or self._running)

    def keep(self, url: str, size: QSize, image: QImage, *, ratio: float = 1.0) -> None:
        """Take ``image``, the picture at ``url`` decoded elsewhere at ``size`` (as :meth:`pixmap`
        asks for it), as if loaded here: the early window hands over the covers it has shown, so
        the real list does not draw their placeholders again while it decodes them."""
        key = (url, round(size.width() * ratio), round(size.height() * ratio))
        if image.isNull() or key in self._pixmaps:
            return
        self._pixmaps.put(key, QPixmap.fromImage(image))

    def holds(self, url: str, size: QSize, *, ratio: float = 1.0) -> bool:
        """A copy of ``url`` at ``size`` is in memory (asks for nothing)."""
        return (url, round(size.width() * ratio), round(size.height() * ratio)) in self._pixmaps

    @property
    def kept_bytes(self) -> int:
        """Pixels of the scaled copies held (tests)."""
        return self._pixmaps.bytes

    def failure(self, url: str | None) -> str | None:
        """Why the picture at ``url`` cannot be shown, once a load failed."""
        return self._failures.get(url) if url else None

    def forget(self, url: str) -> None:
        """Drop what is known of ``url`` (its copies and failure): the next ask loads it again."""
        self._epoch[url] = self._epoch.get(url, 0) + 1
        self._failures.pop(url, None)
        for key in [key for key in self._pixmaps if key[0] == url]:
            self._pixmaps.pop(key)
        self.changed.emit(url)

    def _ask(self, key: Key, urgent: bool) -> None:
        if key in self._running:
            return
        queue = self._urgent if urgent else self._queue
        if urgent:
            self._queue.pop(key, None)
        elif key in self._urgent:
            return
        queue[key] = None
        queue.move_to_end(key)
        while len(self._queue) > self.QUEUE_BOUND:
            self._queue.popitem(last=False)
        while self._workers < self.CONCURRENCY and (self._queue or self._urgent):
            self._workers += 1
            self.work.start(self._serve(), name="load pictures")

    # --- loading -----------------------------------------------------------------------------------------------

    def _next(self) -> Key | None:
        for queue in (self._urgent, self._queue):
            if queue:
                key, _ = queue.popitem(last=True)
                return key
        return None

    async def _serve(self) -> None:
        try:
            while (key := self._next()) is not None:
                self._running.add(key)
                try:
                    await self._load(key)
                finally:
                    self._running.discard(key)
        finally:
            self._workers -= 1

    async def _load(self, key: Key) -> None:
        url, width, height = key
        epoch = self._epoch.get(url, 0)
        try:
            path = await self.artwork.fetch(url)
            loop = asyncio.get_running_loop()
            image = await loop.run_in_executor(
                self.session.runtime.pictures, decode_picture, path, QSize(width, height)
            )
        except (CastdeckError, ValueError, OSError) as error:
            if self._epoch.get(url, 0) != epoch:
                self.changed.emit(url)  # forgotten meanwhile: the views ask again
                return
            reason = (
                str(error)
                if isinstance(error, CastdeckError)
                else "The file is not a picture that can be shown."
            )
            log.info("picture %s: %s", url.split("?", 1)[0], reason)
            self._failures[url] = reason
            self.changed.emit(url)
            return
        if self._epoch.get(url, 0) != epoch:
            self.changed.emit(url)
            return
        self._pixmaps.put(key, QPixmap.fromImage(image))
        self.loaded += 1
        self.changed.emit(url)
