"""The offline cache: every list page and detail the user has seen, per profile, in SQLite.

No Qt and no network here. Every method is short and synchronous; the services call them from a
worker thread (``Cache`` serializes access with a lock), so the UI thread never waits on the disk.
Only resource JSON is stored: never the API key, never request headers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .sqlite import SqliteStore

__all__ = ["Cache", "CachedList"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    profile TEXT NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT NOT NULL,
    seen_at REAL NOT NULL,
    PRIMARY KEY (profile, kind, id)
);
CREATE TABLE IF NOT EXISTS list_items (
    profile TEXT NOT NULL,
    list_key TEXT NOT NULL,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (profile, list_key, position)
);
CREATE TABLE IF NOT EXISTS lists (
    profile TEXT NOT NULL,
    list_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    complete INTEGER NOT NULL,
    seen_at REAL NOT NULL,
    PRIMARY KEY (profile, list_key)
);
"""


@dataclass(frozen=True)
class CachedList:
    """A list as it was last seen: its items in order, whether every page was read, and when."""

    items: list[dict[str, Any]]
    complete: bool
    seen_at: float


class Cache(SqliteStore):
    """One SQLite file holding the cached resources of every profile."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path, SCHEMA)

    # --- records -------------------------------------------------------------------------------------------

    def put(self, profile: str, kind: str, record: dict[str, Any]) -> None:
        self.put_many(profile, kind, [record])

    def put_many(self, profile: str, kind: str, records: Iterable[dict[str, Any]]) -> None:
        now = time.time()
        rows = [(profile, kind, str(r["id"]), json.dumps(r, separators=(",", ":")), now) for r in records]
        with self._lock, self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)", rows)

    def get(self, profile: str, kind: str, record_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM records WHERE profile = ? AND kind = ? AND id = ?",
                (profile, kind, record_id),
            ).fetchone()
        return json.loads(row[0]) if row else None

    def delete(self, profile: str, kind: str, record_id: str) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "DELETE FROM records WHERE profile = ? AND kind = ? AND id = ?", (profile, kind, record_id)
            )
            self._db.execute(
                "DELETE FROM list_items WHERE profile = ? AND kind = ? AND id = ?", (profile, kind, record_id)
            )

    # --- lists ---------------------------------------------------------------------------------------------

    def put_page(
        self,
        profile: str,
        list_key: str,
        kind: str,
        records: list[dict[str, Any]],
        *,
        offset: int,
        last: bool,
    ) -> None:
        """Store one page of a list read from the start: the first page (offset 0) replaces the list."""
        now = time.time()
        rows = [(profile, kind, str(r["id"]), json.dumps(r, separators=(",", ":")), now) for r in records]
        items = [(profile, list_key, offset + i, kind, str(r["id"])) for i, r in enumerate(records)]
        with self._lock, self._transaction():
            if offset == 0:
                self._db.execute(
                    "DELETE FROM list_items WHERE profile = ? AND list_key = ?", (profile, list_key)
                )
            else:
                self._db.execute(
                    "DELETE FROM list_items WHERE profile = ? AND list_key = ? AND position >= ?",
                    (profile, list_key, offset),
                )
            self._db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)", rows)
            self._db.executemany("INSERT OR REPLACE INTO list_items VALUES (?, ?, ?, ?, ?)", items)
            self._db.execute(
                "INSERT OR REPLACE INTO lists VALUES (?, ?, ?, ?, ?)",
                (profile, list_key, kind, int(last), now),
            )

    def get_list(self, profile: str, list_key: str) -> CachedList | None:
        with self._lock:
            meta = self._db.execute(
                "SELECT complete, seen_at FROM lists WHERE profile = ? AND list_key = ?", (profile, list_key)
            ).fetchone()
            if meta is None:
                return None
            rows = self._db.execute(
                "SELECT r.body FROM list_items AS l JOIN records AS r"
                " ON r.profile = l.profile AND r.kind = l.kind AND r.id = l.id"
                " WHERE l.profile = ? AND l.list_key = ? ORDER BY l.position",
                (profile, list_key),
            ).fetchall()
        return CachedList([json.loads(body) for (body,) in rows], bool(meta[0]), meta[1])

    def forget_profile(self, profile: str) -> None:
        with self._lock, self._transaction():
            for table in ("records", "list_items", "lists"):
                self._db.execute(f"DELETE FROM {table} WHERE profile = ?", (profile,))
