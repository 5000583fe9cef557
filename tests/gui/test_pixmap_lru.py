"""The in-memory picture caches' one rule (ui/pixmap_lru.py, services/memory_budget.py): least
recently used first, within each cache's count and one byte budget shared by every cache."""

from __future__ import annotations

from PySide6.QtGui import QImage, QPixmap
from pytestqt.qtbot import QtBot

from castdeck.services.memory_budget import MemoryBudget
from castdeck.ui.pixmap_lru import PixmapLRU, pixels_of


def square(side: int) -> QPixmap:
    pixmap = QPixmap(side, side)
    pixmap.fill()
    return pixmap


def test_the_oldest_go_first_within_the_count_and_the_bytes(qtbot: QtBot) -> None:
    each = pixels_of(square(100))
    assert each == 100 * 100 * square(100).depth() // 8
    cache: PixmapLRU[str, QPixmap] = PixmapLRU(items=4, budget=MemoryBudget(3 * each))
    for key in "abc":
        cache.put(key, square(100))
    assert cache.get("a") is not None  # now the most recently used
    cache.put("d", square(100))  # over the bytes: the least recently used ("b") goes
    assert list(cache) == ["c", "a", "d"]
    assert cache.bytes == 3 * each
    assert cache.budget.bytes == 3 * each
    small: PixmapLRU[str, QPixmap] = PixmapLRU(items=2, budget=MemoryBudget(100 * each))
    for key in "xyz":
        small.put(key, square(10))
    assert list(small) == ["y", "z"]  # over the count
    assert small.budget.bytes == 2 * pixels_of(square(10))  # what the count let go no longer counts


def test_the_newest_stays_even_alone_over_the_budget(qtbot: QtBot) -> None:
    cache: PixmapLRU[int, QPixmap] = PixmapLRU(items=10, budget=MemoryBudget(pixels_of(square(50))))
    cache.put(1, square(50))
    cache.put(2, square(400))
    assert list(cache) == [2]
    assert cache.pop(2) is not None
    assert (len(cache), cache.bytes, cache.budget.bytes) == (0, 0, 0)


def test_caches_sharing_a_budget_let_the_least_recently_used_go_whichever_holds_it(qtbot: QtBot) -> None:
    each = pixels_of(square(100))
    budget = MemoryBudget(4 * each)
    covers: PixmapLRU[str, QPixmap] = PixmapLRU(items=100, budget=budget)
    tiles: PixmapLRU[str, QPixmap] = PixmapLRU(items=100, budget=budget)
    images: PixmapLRU[str, QImage] = PixmapLRU(items=100, budget=budget)
    covers.put("c1", square(100))
    covers.put("c2", square(100))
    tiles.put("t1", square(100))
    assert covers.get("c1") is not None  # c2 is now the least recently used of all
    image = QImage(100, 100, QImage.Format.Format_ARGB32)
    image.fill(0)
    images.put("i1", image)
    assert budget.bytes == 4 * each
    tiles.put("t2", square(100))  # over: c2 goes, from the other cache
    assert (list(covers), list(tiles), list(images)) == (["c1"], ["t1", "t2"], ["i1"])
    assert (covers.bytes, tiles.bytes, images.bytes, budget.bytes) == (each, 2 * each, each, 4 * each)
    tiles.clear()  # an owner closed: its share is given back
    assert budget.bytes == 2 * each
    covers.put("c3", square(100))
    covers.put("c4", square(100))
    assert (list(covers), list(images), budget.bytes) == (["c1", "c3", "c4"], ["i1"], 4 * each)


def test_the_budget_holds_three_screens_of_pictures_and_never_less_than_the_floor(qtbot: QtBot) -> None:
    from PySide6.QtGui import QGuiApplication

    from castdeck.services.memory_budget import PICTURES_IN_MEMORY
    from castdeck.ui.pixmap_lru import pictures_budget

    assert pictures_budget(None) == PICTURES_IN_MEMORY
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    ratio = screen.devicePixelRatio()
    one_screen = screen.size().width() * screen.size().height() * ratio * ratio * 4
    budget = pictures_budget(screen)
    assert budget >= 3 * one_screen
    assert budget >= PICTURES_IN_MEMORY
