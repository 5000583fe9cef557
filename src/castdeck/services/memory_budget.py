"""``MemoryBudget``: one account of bytes for several caches, the least recently used going first
across all of them.

Each of the app's in-memory picture caches bounded itself: a pane's covers, the placeholder and
small tiles, a media pane's stills. Bounded one by one, together they could keep well over a
hundred MiB, and a long session filled them slowly (the soak's memory grew by it round after
round). The app builds one budget for all its pictures (``Runtime.pictures_memory``); every cache
charges what it keeps to it, and when the total is over, whatever was used least recently goes,
whichever cache holds it.

Nothing here knows what is kept: a cache names an entry by itself and a key, and gives its size.
Used from one thread (the UI thread, where pixmaps live).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Protocol

__all__ = ["PICTURES_IN_MEMORY", "Holder", "MemoryBudget"]

PICTURES_IN_MEMORY = 12 * 2**20
"""The pictures' budget when the app names none, and the least it is given: three whole screens of
pixels on the 1366×768 laptop screen the app is built for (4 MiB each; a window of cards and
their tiles covers less than one). The app sizes it to its screen
(:func:`castdeck.ui.pixmap_lru.pictures_budget`)."""


class Holder(Protocol):
    """A cache that charges a budget: told to let go of an entry the budget dropped."""

    def dropped(self, key: Hashable) -> None:
        """Forget ``key`` (the budget no longer counts it)."""
        ...


class MemoryBudget:
    """At most ``limit`` bytes over every holder; the entry charged last is always kept."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._order: OrderedDict[tuple[Holder, Hashable], int] = OrderedDict()
        self._bytes = 0

    @property
    def bytes(self) -> int:
        """Bytes counted now, over every holder."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._order)

    def charge(self, holder: Holder, key: Hashable, size: int) -> None:
        """Count ``size`` bytes for ``holder``'s ``key`` as the most recently used; then, while over
        the limit, the least recently used entries (of any holder, never this one) go."""
        self.release(holder, key)
        self._order[(holder, key)] = size
        self._bytes += size
        while self._bytes > self.limit and len(self._order) > 1:
            (owner, oldest), freed = self._order.popitem(last=False)
            self._bytes -= freed
            owner.dropped(oldest)

    def touch(self, holder: Holder, key: Hashable) -> None:
        """``holder``'s ``key`` was just used: it goes last."""
        if (holder, key) in self._order:
            self._order.move_to_end((holder, key))

    def release(self, holder: Holder, key: Hashable) -> None:
        """``holder`` let go of ``key`` itself: it is no longer counted."""
        size = self._order.pop((holder, key), None)
        if size is not None:
            self._bytes -= size
