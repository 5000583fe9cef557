"""Pixmaps kept in memory, the least recently used going first, bounded by count and by a shared
byte budget.

A bound by count alone let a long session fill its caches slowly: each new title's placeholder
tile, each new cover at a details size (a quarter of a MiB each) stayed until hundreds were
kept; a bound by bytes per cache still let the caches together keep over a hundred MiB. Every
in-memory picture cache of the app (the panes' :class:`~castdeck.ui.pictures.PictureBook`, the
placeholder and small tiles of :class:`~castdeck.ui.cover_delegate.Tiles`, a media pane's stills)
keeps its copies here, each under its own count and all under the app's one
:class:`~castdeck.services.memory_budget.MemoryBudget` (``runtime.pictures_memory``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

from PySide6.QtGui import QImage, QPixmap, QScreen

from castdeck.services.memory_budget import PICTURES_IN_MEMORY, MemoryBudget

__all__ = ["PixmapLRU", "pictures_budget", "pixels_of"]

K = TypeVar("K", bound=Hashable)
P = TypeVar("P", QPixmap, QImage)


def pixels_of(pixmap: QPixmap | QImage) -> int:
    """Bytes of ``pixmap``'s (or an image's) pixels."""
    return pixmap.width() * pixmap.height() * max(pixmap.depth(), 8) // 8


SCREENS_KEPT = 3
"""Screens of pictures kept in memory: the one in view, and one either way to scroll back to."""


def pictures_budget(screen: QScreen | None) -> int:
    """The byte budget of every picture kept in memory on ``screen``: three screens of pixels at
    its density, and never under :data:`~castdeck.services.memory_budget.PICTURES_IN_MEMORY`; less
    than a screen of cards would make a full window of them load again at every paint."""
    if screen is None:
        return PICTURES_IN_MEMORY
    size = screen.size()
    ratio = screen.devicePixelRatio()
    pixels = size.width() * size.height() * ratio * ratio
    return max(PICTURES_IN_MEMORY, round(SCREENS_KEPT * pixels * 4))


class PixmapLRU(Generic[K, P]):
    """At most ``items`` pixmaps (or images), their pixels charged to ``budget``; the newest is
    always kept."""

    def __init__(self, items: int, budget: MemoryBudget) -> None:
        self.items = items
        self.budget = budget
        self._kept: OrderedDict[K, P] = OrderedDict()
        self._bytes = 0

    def get(self, key: K) -> P | None:
        """The pixmap under ``key`` (now the most recently used), or None."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            self.budget.touch(self, key)
        return found

    def put(self, key: K, pixmap: P) -> None:
        """Keep ``pixmap`` as the newest; the oldest go while over the count (and, across every
        cache charging the same budget, the least recently used while over its bytes)."""
        self.pop(key)
        self._kept[key] = pixmap
        self._bytes += pixels_of(pixmap)
        while len(self._kept) > max(1, self.items):
            oldest, dropped = self._kept.popitem(last=False)
            self._bytes -= pixels_of(dropped)
            self.budget.release(self, oldest)
        self.budget.charge(self, key, pixels_of(pixmap))

    def pop(self, key: K) -> P | None:
        found = self._kept.pop(key, None)
        if found is not None:
            self._bytes -= pixels_of(found)
            self.budget.release(self, key)
        return found

    def dropped(self, key: Hashable) -> None:
        """The budget let ``key`` go (to make room elsewhere)."""
        found = self._kept.pop(key, None)  # type: ignore[arg-type]
        if found is not None:
            self._bytes -= pixels_of(found)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._kept))

    @property
    def bytes(self) -> int:
        """Pixels held by this cache."""
        return self._bytes

    def clear(self) -> None:
        for key in self._kept:
            self.budget.release(self, key)
        self._kept.clear()
        self._bytes = 0
