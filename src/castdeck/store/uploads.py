"""The upload queue on disk: one row per file the user dropped, per profile, so uploads survive a restart.

No Qt and no network here. Methods are short and synchronous (call them on a worker thread);
access is serialized by the store's lock. Times are wall-clock seconds (``time.time()``).

``reserving`` marks the moment a reservation request (``POST /v1/sources/uploads``, which has no
idempotency key) may be out: it is stored before the request leaves and cleared with its answer.
An item still marked after a restart may or may not have reached the service, so it is never
reserved again automatically.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .sqlite import SqliteStore

__all__ = [
    "ACTIVE_STATES",
    "FINISHED_STATES",
    "UPLOAD_STATES",
    "UploadItem",
    "UploadStore",
]

UPLOAD_STATES = ("queued", "uploading", "completing", "paused", "done", "failed", "refused", "cancelled")
ACTIVE_STATES = frozenset({"queued", "uploading", "completing"})
FINISHED_STATES = frozenset({"done", "cancelled", "refused"})

SCHEMA = """
CREATE TABLE IF NOT EXISTS uploads (
    id TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    mime_type TEXT,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    prepare_visuals INTEGER NOT NULL,
    batch TEXT NOT NULL,
    position INTEGER NOT NULL,
    state TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    request_id TEXT,
    source_id TEXT,
    slot TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    title TEXT,
    reserving INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS uploads_by_profile ON uploads (profile, position);
"""


@dataclass(frozen=True)
class UploadItem:
    """One file of the upload queue (see ``UPLOAD_STATES`` for what each state means).

    ``slot`` is the reserved slot ``{"url", "method", "headers", "expires_at"}`` (None when none);
    ``title`` is the title asked for at the drop; ``reserving`` is set while a reservation request
    may be out (see the module's notes).
    """

    id: str
    profile: str
    path: str
    name: str
    mime_type: str | None
    size: int
    mtime_ns: int
    prepare_visuals: bool
    batch: str
    position: int
    state: str
    sent: int = 0
    error: str | None = None
    request_id: str | None = None
    source_id: str | None = None
    slot: dict[str, Any] | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    title: str | None = None
    reserving: bool = False

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES

    @property
    def can_pause(self) -> bool:
        return self.state in ("queued", "uploading")

    @property
    def can_resume(self) -> bool:
        return self.state == "paused"

    @property
    def can_cancel(self) -> bool:
        return self.state in ("queued", "uploading", "paused", "failed")

    @property
    def can_retry(self) -> bool:
        return self.state in ("failed", "cancelled", "refused")

    @property
    def can_remove(self) -> bool:
        return not self.active

    def with_changes(self, **changes: Any) -> UploadItem:
        """A copy with ``changes`` and a fresh ``updated_at``."""
        changes.setdefault("updated_at", time.time())
        return replace(self, **changes)


_FIELDS = tuple(f.name for f in fields(UploadItem))
_COLUMNS = ", ".join(_FIELDS)


def _row(item: UploadItem) -> tuple[Any, ...]:
    values: list[Any] = []
    for name in _FIELDS:
        value = getattr(item, name)
        if name == "slot":
            value = json.dumps(value, separators=(",", ":")) if value is not None else None
        elif isinstance(value, bool):
            value = int(value)
        values.append(value)
    return tuple(values)


def _item(row: tuple[Any, ...]) -> UploadItem:
    data = dict(zip(_FIELDS, row, strict=True))
    data["slot"] = json.loads(data["slot"]) if data["slot"] else None
    data["prepare_visuals"] = bool(data["prepare_visuals"])
    data["reserving"] = bool(data["reserving"])
    return UploadItem(**data)


class UploadStore(SqliteStore):
    """One SQLite file holding the upload queue of every profile (thread-safe; short transactions)."""

    def __init__(self, path: Path | str) -> None:
        # FULL: a "reserving" mark must be on disk before the reservation request leaves.
        super().__init__(path, SCHEMA, synchronous="FULL")

    # --- writing -------------------------------------------------------------------------------------------

    def add_many(self, items: Iterable[UploadItem]) -> list[UploadItem]:
        """Store new items in one transaction; returns them."""
        added = list(items)
        placeholders = ", ".join("?" * len(_FIELDS))
        with self._lock, self._transaction():
            self._db.executemany(
                f"INSERT INTO uploads ({_COLUMNS}) VALUES ({placeholders})", [_row(i) for i in added]
            )
        return added

    def update(self, item: UploadItem) -> UploadItem:
        """Store ``item`` as it is now (insert or replace); returns it."""
        placeholders = ", ".join("?" * len(_FIELDS))
        with self._lock, self._transaction():
            self._db.execute(
                f"INSERT OR REPLACE INTO uploads ({_COLUMNS}) VALUES ({placeholders})", _row(item)
            )
        return item

    def remove(self, item_id: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM uploads WHERE id = ?", (item_id,))

    def remove_many(self, item_ids: Iterable[str]) -> None:
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM uploads WHERE id = ?", [(i,) for i in item_ids])

    def clear_finished(self, profile: str) -> int:
        """Forget the profile's done, cancelled and refused items; returns how many."""
        states = sorted(FINISHED_STATES)
        with self._lock, self._transaction():
            cursor = self._db.execute(
                f"DELETE FROM uploads WHERE profile = ? AND state IN ({', '.join('?' * len(states))})",
                (profile, *states),
            )
        return cursor.rowcount

    def forget_profile(self, profile: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM uploads WHERE profile = ?", (profile,))

    # --- reading -------------------------------------------------------------------------------------------

    def get(self, item_id: str) -> UploadItem | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM uploads WHERE id = ?", (item_id,)).fetchone()
        return _item(row) if row else None

    def list(self, profile: str) -> list[UploadItem]:
        """The profile's items in queue order."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM uploads WHERE profile = ? ORDER BY position, created_at, rowid",
                (profile,),
            ).fetchall()
        return [_item(r) for r in rows]

    def next_position(self, profile: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM uploads WHERE profile = ?", (profile,)
            ).fetchone()
        return int(row[0])
