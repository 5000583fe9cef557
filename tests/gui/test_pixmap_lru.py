"""The in-memory picture caches' one rule (ui/pixmap_lru.py): least recently used first, within a
count and a byte budget."""

from __future__ import annotations

from PySide6.QtGui import QPixmap
from pytestqt.qtbot import QtBot

from castdeck.ui.pixmap_lru import PixmapLRU, pixels_of


def square(side: int) -> QPixmap:
    pixmap = QPixmap(side, side)
    pixmap.fill()
    return pixmap


def test_the_oldest_go_first_within_the_count_and_the_bytes(qtbot: QtBot) -> None:
    each = pixels_of(square(100))
    assert each == 100 * 100 * square(100).depth() // 8
    cache: PixmapLRU[str] = PixmapLRU(items=4, max_bytes=3 * each)
    for key in "abc":
        cache.put(key, square(100))
    assert cache.get("a") is not None  # now the most recently used
    cache.put("d", square(100))  # over the bytes: the least recently used ("b") goes
    assert list(cache) == ["c", "a", "d"]
    assert cache.bytes == 3 * each
    small = PixmapLRU[str](items=2, max_bytes=100 * each)
    for key in "xyz":
        small.put(key, square(10))
    assert list(small) == ["y", "z"]  # over the count


def test_the_newest_stays_even_alone_over_the_budget(qtbot: QtBot) -> None:
    cache: PixmapLRU[int] = PixmapLRU(items=10, max_bytes=pixels_of(square(50)))
    cache.put(1, square(50))
    cache.put(2, square(400))
    assert list(cache) == [2]
    assert cache.pop(2) is not None
    assert (len(cache), cache.bytes) == (0, 0)
