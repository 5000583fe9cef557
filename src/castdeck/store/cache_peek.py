"""A quick, read-only look at the first rows of one cached list, for the window painted at start-up
before the rest of the app has loaded (:mod:`castdeck.ui.early`).

Only :mod:`sqlite3` and :mod:`json`: no models, no Qt, no lock. The file is opened read-only (a
Castdeck already running, or the one starting, may write it at the same time: SQLite's WAL lets
both go on) and never created or brought up to date here. Anything unexpected (no file, a schema
this code does not know, a locked or damaged file, a list never cached) answers None: the app then
starts as it would without a cache. The tables are those of :class:`castdeck.store.cache.Cache`.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["CACHE_SCHEMA_VERSION", "PeekedList", "peek_list"]

CACHE_SCHEMA_VERSION = 1
"""The cache's ``user_version`` whose tables this module reads (``Cache``'s newest migration)."""


class PeekedList(NamedTuple):
    """The first records of a cached list, in order; ``more``: the list goes on past them (more
    rows were cached, or it was not read to its end)."""

    items: list[dict[str, Any]]
    more: bool
    seen_at: float


def peek_list(path: Path, profile: str, list_key: str, limit: int) -> PeekedList | None:
    """The first ``limit`` records of ``list_key`` as cached for ``profile``, or None."""
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.1)
    except sqlite3.Error:
        return None
    with contextlib.closing(db):
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != CACHE_SCHEMA_VERSION:
                return None
            meta = db.execute(
                "SELECT complete, seen_at FROM lists WHERE profile = ? AND list_key = ?", (profile, list_key)
            ).fetchone()
            if meta is None:
                return None
            rows = db.execute(
                "SELECT l.position, r.body FROM list_items AS l JOIN records AS r"
                " ON r.profile = l.profile AND r.kind = l.kind AND r.id = l.id"
                " WHERE l.profile = ? AND l.list_key = ? ORDER BY l.position LIMIT ?",
                (profile, list_key, limit + 1),
            ).fetchall()
        except sqlite3.Error:
            return None
    try:
        items = [json.loads(body) for _position, body in rows[:limit]]
    except ValueError:
        return None
    if not all(isinstance(item, dict) for item in items):
        return None
    return PeekedList(items, more=len(rows) > limit or not meta[0], seen_at=float(meta[1]))
