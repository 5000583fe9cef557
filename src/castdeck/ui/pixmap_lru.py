"""Pixmaps kept in memory, the least recently used going first, bounded by count and by pixels.

A bound by count alone let a long session fill its caches slowly: each new title's placeholder
tile, each new cover at a details size (a quarter of a MiB each) stayed until hundreds were
kept. Every in-memory picture cache of the app (the panes' :class:`~castdeck.ui.pictures.PictureBook`,
the placeholder and small tiles of :mod:`castdeck.ui.cover_delegate`) keeps its copies here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

from PySide6.QtGui import QPixmap

__all__ = ["PixmapLRU", "pixels_of"]

K = TypeVar("K", bound=Hashable)


def pixels_of(pixmap: QPixmap) -> int:
    """Bytes of ``pixmap``'s pixels."""
    return pixmap.width() * pixmap.height() * max(pixmap.depth(), 8) // 8


class PixmapLRU(Generic[K]):
    """At most ``items`` pixmaps and ``max_bytes`` of pixels; the newest is always kept."""

    def __init__(self, items: int, max_bytes: int) -> None:
        self.items = items
        self.max_bytes = max_bytes
        self._kept: OrderedDict[K, QPixmap] = OrderedDict()
        self._bytes = 0

    def get(self, key: K) -> QPixmap | None:
        """The pixmap under ``key`` (now the most recently used), or None."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: K, pixmap: QPixmap) -> None:
        """Keep ``pixmap`` as the newest; the oldest go while over either bound."""
        self.pop(key)
        self._kept[key] = pixmap
        self._bytes += pixels_of(pixmap)
        while len(self._kept) > 1 and (len(self._kept) > self.items or self._bytes > self.max_bytes):
            _, dropped = self._kept.popitem(last=False)
            self._bytes -= pixels_of(dropped)

    def pop(self, key: K) -> QPixmap | None:
        found = self._kept.pop(key, None)
        if found is not None:
            self._bytes -= pixels_of(found)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._kept))

    @property
    def bytes(self) -> int:
        """Pixels held."""
        return self._bytes

    def clear(self) -> None:
        self._kept.clear()
        self._bytes = 0
