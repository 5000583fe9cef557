"""The one eviction rule of the app's disk caches: least recently used first, down to a cap.

The media cache (listened episodes, downloaded Videos, Shorts and Voiceovers) and the picture
cache each know what their items are and how to remove one; which ones go is decided here, once.
No Qt, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

__all__ = ["over_cap"]

T = TypeVar("T")


def over_cap(
    items: Iterable[T],
    *,
    cap: int,
    size: Callable[[T], int],
    used: Callable[[T], float],
    keep: Callable[[T], bool] = lambda _item: False,
) -> list[T]:
    """The items to remove so that the rest take at most ``cap`` bytes: the least recently
    ``used`` first (the first given first among equals), never one that ``keep`` holds (the
    item being opened or just written), even when the rest cannot get under the cap."""
    ordered = sorted(items, key=used)
    total = sum(size(item) for item in ordered)
    removed: list[T] = []
    for item in ordered:
        if total <= cap:
            break
        if keep(item):
            continue
        removed.append(item)
        total -= size(item)
    return removed
