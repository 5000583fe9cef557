"""The disk caches' one eviction rule (``castdeck.store.lru``), and the picture cache using it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from castdeck.services.artwork import Artwork
from castdeck.store.lru import over_cap


def test_the_least_recently_used_go_first_down_to_the_cap_never_the_kept_one() -> None:
    items = [("c", 30, 3.0), ("a", 30, 1.0), ("b", 30, 2.0), ("d", 30, 4.0)]  # name, bytes, last used

    def going(cap: int, keep: str = "") -> list[str]:
        return [
            name
            for name, _size, _used in over_cap(
                items, cap=cap, size=lambda i: i[1], used=lambda i: i[2], keep=lambda i: i[0] == keep
            )
        ]

    assert going(120) == []  # within the cap: nothing goes
    assert going(119) == ["a"]
    assert going(60) == ["a", "b"]
    assert going(60, keep="a") == ["b", "c"]  # the one being opened stays; the next oldest go
    assert going(0, keep="d") == ["a", "b", "c"]  # even when the rest cannot get under the cap


def test_the_picture_cache_removes_its_oldest_files_past_its_cap(tmp_path: Path) -> None:
    session: Any = None  # eviction touches only the folder
    pictures = Artwork(session, tmp_path, cap_bytes=250)
    for age, name in enumerate(["newest", "new", "old", "oldest"]):
        path = tmp_path / name
        path.write_bytes(b"x" * 100)
        os.utime(path, (1_000_000 - age * 10, 1_000_000 - age * 10))
    pictures._evict(keep=tmp_path / "oldest")  # just written: it stays
    assert sorted(p.name for p in tmp_path.iterdir()) == ["newest", "oldest"]
