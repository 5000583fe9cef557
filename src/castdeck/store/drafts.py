"""Script drafts: the text as last saved, its version history and the runs that were editing it.

No Qt and no network. One SQLite file (``drafts.sqlite3`` in the user data folder) with
``synchronous=FULL``: a save is on disk when :meth:`DraftStore.save` returns, and is atomic (SQLite's
journal), so a crash leaves the previous save or the new one. Drafts belong to no profile: they are
written offline and sent later to whichever service is open.

Version history: :meth:`DraftStore.save` adds an automatic snapshot when the last one is older than
:data:`AUTO_SNAPSHOT_EVERY`; :meth:`DraftStore.snapshot` adds a named one (before an import, a bulk
replace, a conversion, a restore). Automatic snapshots are thinned on widening cadences (all of the
last hour, one an hour for a day, one a day for a month, one a week after that), so damage noticed
late can still be undone from a copy taken before it. Named snapshots are kept (the newest
:data:`NAMED_KEPT` of each draft).

Runs: each app run that edits drafts registers here with its process id and the draft it has open;
a clean end marks it ended. A run that never ended and whose process is gone crashed (or was
killed): the next start offers what it was writing.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .sqlite import Migration, SqliteStore

__all__ = [
    "AUTO_SNAPSHOT_EVERY",
    "DRAFT",
    "GENERATED",
    "IMPORTED",
    "NAMED_KEPT",
    "QUEUED",
    "Draft",
    "DraftStore",
    "Run",
    "SnapshotInfo",
    "snapshots_to_keep",
]

DRAFT = "draft"
QUEUED = "queued"
IMPORTED = "imported"
GENERATED = "generated"

AUTO_SNAPSHOT_EVERY = 300.0
"""Seconds between automatic snapshots of a draft being edited."""
NAMED_KEPT = 50

HOUR = 3600.0
DAY = 24 * HOUR
WEEK = 7 * DAY

SCHEMA = """
CREATE TABLE drafts (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    mapping TEXT NOT NULL DEFAULT '{}',
    options TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'draft',
    action TEXT,
    outbox_entry TEXT,
    episode_id TEXT,
    profile TEXT,
    problem TEXT,
    retry_key TEXT,
    retry_kind TEXT,
    file_path TEXT,
    file_fingerprint TEXT,
    words INTEGER NOT NULL DEFAULT 0,
    minutes REAL NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    deleted_at REAL
);
CREATE INDEX drafts_by_update ON drafts (deleted_at, updated_at);
CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    draft_id TEXT NOT NULL,
    text TEXT NOT NULL,
    mapping TEXT NOT NULL DEFAULT '{}',
    reason TEXT NOT NULL,
    words INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE INDEX snapshots_by_draft ON snapshots (draft_id, created_at);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    open_draft TEXT,
    changed_at REAL
);
"""

MIGRATIONS = [Migration(1, "drafts, snapshots and runs", SCHEMA)]

_COLUMNS = (
    "id, title, text, mapping, options, state, action, outbox_entry, episode_id, profile, problem, retry_key,"
    " retry_kind, file_path, file_fingerprint, words, minutes, revision, created_at, updated_at"
)
_LIST_COLUMNS = _COLUMNS.replace("title, text,", "title, '' AS text,")


@dataclass(frozen=True)
class Draft:
    """A draft as stored. ``mapping`` is label -> host id; ``options`` holds what the last send used
    (``podcast_id``, ``render``); ``problem`` what the service said when it last refused it;
    ``retry_key``/``retry_kind``: the idempotency key to send again with (the service said ``reuse``).
    A draft read for a list has an empty ``text``."""

    id: str
    title: str
    text: str
    mapping: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    state: str = DRAFT
    action: str | None = None
    outbox_entry: str | None = None
    episode_id: str | None = None
    profile: str | None = None
    problem: dict[str, Any] | None = None
    retry_key: str | None = None
    retry_kind: str | None = None
    file_path: str | None = None
    file_fingerprint: dict[str, Any] | None = None
    words: int = 0
    minutes: float = 0.0
    revision: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0

    def evolve(self, **changes: Any) -> Draft:
        return replace(self, **changes)


@dataclass(frozen=True)
class SnapshotInfo:
    id: int
    draft_id: str
    reason: str
    words: int
    created_at: float


@dataclass(frozen=True)
class Run:
    id: str
    pid: int
    started_at: float
    open_draft: str | None
    changed_at: float | None


def _loads(value: str | None) -> Any:
    return json.loads(value) if value else None


def _draft(row: tuple[Any, ...]) -> Draft:
    return Draft(
        id=row[0], title=row[1], text=row[2], mapping=_loads(row[3]) or {}, options=_loads(row[4]) or {},
        state=row[5], action=row[6], outbox_entry=row[7], episode_id=row[8], profile=row[9],
        problem=_loads(row[10]), retry_key=row[11], retry_kind=row[12], file_path=row[13],
        file_fingerprint=_loads(row[14]), words=row[15], minutes=row[16], revision=row[17],
        created_at=row[18], updated_at=row[19],
    )  # fmt: skip


def snapshots_to_keep(snapshots: Iterable[SnapshotInfo], now: float) -> set[int]:
    """The snapshots of one draft to keep: named ones (newest :data:`NAMED_KEPT`), and automatic ones
    on widening cadences: every one of the last hour, the newest of each hour of the last day, of
    each day of the last 30 days, and of each week before that."""
    keep: set[int] = set()
    named = sorted((s for s in snapshots if s.reason != "auto"), key=lambda s: s.created_at, reverse=True)
    keep.update(s.id for s in named[:NAMED_KEPT])
    buckets: dict[tuple[str, int], SnapshotInfo] = {}
    for snap in (s for s in snapshots if s.reason == "auto"):
        age = now - snap.created_at
        if age < HOUR:
            keep.add(snap.id)
            continue
        if age < DAY:
            bucket = ("hour", int(snap.created_at // HOUR))
        elif age < 30 * DAY:
            bucket = ("day", int(snap.created_at // DAY))
        else:
            bucket = ("week", int(snap.created_at // WEEK))
        best = buckets.get(bucket)
        if best is None or snap.created_at > best.created_at:
            buckets[bucket] = snap
    keep.update(s.id for s in buckets.values())
    return keep


class DraftStore(SqliteStore):
    """The drafts file (thread-safe; every method is one short transaction)."""

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, MIGRATIONS, synchronous="FULL")
        self._clock = clock

    # --- drafts ------------------------------------------------------------------------------------------

    def create(
        self,
        title: str,
        text: str = "",
        *,
        mapping: dict[str, str] | None = None,
        file_path: str | None = None,
        file_fingerprint: dict[str, Any] | None = None,
        words: int = 0,
        minutes: float = 0.0,
    ) -> Draft:
        now = self._clock()
        draft = Draft(
            id=uuid.uuid4().hex, title=title, text=text, mapping=dict(mapping or {}), file_path=file_path,
            file_fingerprint=file_fingerprint, words=words, minutes=minutes, revision=1, created_at=now,
            updated_at=now,
        )  # fmt: skip
        with self._lock, self._transaction():
            self._db.execute(
                f"INSERT INTO drafts ({_COLUMNS}) VALUES ({', '.join('?' * 20)})", self._row(draft)
            )
        return draft

    @staticmethod
    def _row(d: Draft) -> tuple[Any, ...]:
        def dumps(value: Any) -> str | None:
            return None if value is None else json.dumps(value)

        return (
            d.id, d.title, d.text, json.dumps(d.mapping), json.dumps(d.options), d.state, d.action,
            d.outbox_entry, d.episode_id, d.profile, dumps(d.problem), d.retry_key, d.retry_kind, d.file_path,
            dumps(d.file_fingerprint), d.words, d.minutes, d.revision, d.created_at, d.updated_at,
        )  # fmt: skip

    def get(self, draft_id: str) -> Draft | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM drafts WHERE id = ? AND deleted_at IS NULL", (draft_id,)
            ).fetchone()
        return _draft(row) if row else None

    def list_drafts(self) -> list[Draft]:
        """Every draft (without its text), the most recently edited first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_LIST_COLUMNS} FROM drafts WHERE deleted_at IS NULL ORDER BY updated_at DESC"
            ).fetchall()
        return [_draft(r) for r in rows]

    def save(
        self,
        draft_id: str,
        text: str,
        *,
        title: str,
        words: int,
        minutes: float,
        mapping: dict[str, str] | None = None,
    ) -> Draft:
        """Store the text (and the mapping when given); adds an automatic snapshot on its cadence.
        Returns the draft as stored (its ``revision`` counts saves)."""
        now = self._clock()
        with self._lock, self._transaction():
            current = self._db.execute(f"SELECT {_COLUMNS} FROM drafts WHERE id = ?", (draft_id,)).fetchone()
            if current is None:
                raise KeyError(draft_id)
            draft = _draft(current)
            draft = draft.evolve(
                text=text, title=title, words=words, minutes=minutes, revision=draft.revision + 1,
                updated_at=now, mapping=dict(mapping) if mapping is not None else draft.mapping,
            )  # fmt: skip
            self._db.execute(
                "UPDATE drafts SET text = ?, title = ?, words = ?, minutes = ?, revision = ?, updated_at = ?,"
                " mapping = ? WHERE id = ?",
                (text, title, words, minutes, draft.revision, now, json.dumps(draft.mapping), draft_id),
            )
            last = self._db.execute(
                "SELECT created_at, text FROM snapshots WHERE draft_id = ? AND reason = 'auto'"
                " ORDER BY created_at DESC, id DESC LIMIT 1",
                (draft_id,),
            ).fetchone()
            if last is None or (now - last[0] >= AUTO_SNAPSHOT_EVERY and last[1] != text):
                self._insert_snapshot(draft, "auto", now)
                self._prune(draft_id, now)
        return draft

    _UPDATABLE = frozenset({
        "title", "mapping", "options", "state", "action", "outbox_entry", "episode_id", "profile",
        "problem", "retry_key", "retry_kind", "file_path", "file_fingerprint",
    })  # fmt: skip

    def update(self, draft_id: str, **fields: Any) -> Draft:
        """Change the fields named (not the text): state, options, mapping, episode, file, problem..."""
        return self.update_many([(draft_id, fields)])[0]

    def update_many(self, changes: list[tuple[str, dict[str, Any]]]) -> list[Draft]:
        """Several drafts' fields changed in one transaction (a batch's plan: all of it or none)."""
        for _draft_id, fields in changes:
            unknown = set(fields) - self._UPDATABLE
            if unknown:
                raise ValueError(f"cannot update {sorted(unknown)}")
        names = _COLUMNS.split(", ")
        done: list[Draft] = []
        with self._lock, self._transaction():
            for draft_id, fields in changes:
                row = self._db.execute(f"SELECT {_COLUMNS} FROM drafts WHERE id = ?", (draft_id,)).fetchone()
                if row is None:
                    raise KeyError(draft_id)
                draft = _draft(row).evolve(**fields)
                values = self._row(draft)
                self._db.execute(
                    f"UPDATE drafts SET {', '.join(f'{n} = ?' for n in names[1:])} WHERE id = ?",
                    (*values[1:], draft_id),
                )
                done.append(draft)
        return done

    def delete(self, draft_id: str) -> None:
        """Put a draft aside (it and its history stay in the file; :meth:`undelete` brings it back)."""
        with self._lock, self._transaction():
            self._db.execute("UPDATE drafts SET deleted_at = ? WHERE id = ?", (self._clock(), draft_id))

    def undelete(self, draft_id: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("UPDATE drafts SET deleted_at = NULL WHERE id = ?", (draft_id,))

    def queued(self) -> list[tuple[str, str]]:
        """``(draft id, outbox entry id)`` of the drafts waiting for their request's answer."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, outbox_entry FROM drafts WHERE state = 'queued' AND outbox_entry IS NOT NULL"
                " AND deleted_at IS NULL"
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def find_by_file(self, file_path: str) -> Draft | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM drafts WHERE file_path = ? AND deleted_at IS NULL"
                " ORDER BY updated_at DESC LIMIT 1",
                (file_path,),
            ).fetchone()
        return _draft(row) if row else None

    # --- version history -----------------------------------------------------------------------------------

    def _insert_snapshot(self, draft: Draft, reason: str, now: float) -> int:
        cursor = self._db.execute(
            "INSERT INTO snapshots (draft_id, text, mapping, reason, words, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (draft.id, draft.text, json.dumps(draft.mapping), reason, draft.words, now),
        )
        return int(cursor.lastrowid or 0)

    def _prune(self, draft_id: str, now: float) -> None:
        rows = self._db.execute(
            "SELECT id, draft_id, reason, words, created_at FROM snapshots WHERE draft_id = ?", (draft_id,)
        ).fetchall()
        infos = [SnapshotInfo(*row) for row in rows]
        keep = snapshots_to_keep(infos, now)
        drop = [(s.id,) for s in infos if s.id not in keep]
        if drop:
            self._db.executemany("DELETE FROM snapshots WHERE id = ?", drop)

    def snapshot(self, draft_id: str, reason: str) -> SnapshotInfo:
        """Keep the draft as it is now, named by ``reason`` (such as ``before_import``)."""
        now = self._clock()
        with self._lock, self._transaction():
            row = self._db.execute(f"SELECT {_COLUMNS} FROM drafts WHERE id = ?", (draft_id,)).fetchone()
            if row is None:
                raise KeyError(draft_id)
            draft = _draft(row)
            snap_id = self._insert_snapshot(draft, reason, now)
            self._prune(draft_id, now)
        return SnapshotInfo(snap_id, draft_id, reason, draft.words, now)

    def snapshots(self, draft_id: str) -> list[SnapshotInfo]:
        """The draft's versions, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, draft_id, reason, words, created_at FROM snapshots WHERE draft_id = ?"
                " ORDER BY created_at DESC, id DESC",
                (draft_id,),
            ).fetchall()
        return [SnapshotInfo(*row) for row in rows]

    def snapshot_content(self, snapshot_id: int) -> tuple[str, dict[str, str]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, mapping FROM snapshots WHERE id = ?", (snapshot_id,)
            ).fetchone()
        return (row[0], _loads(row[1]) or {}) if row else None

    # --- runs ------------------------------------------------------------------------------------------------

    def begin_run(self, pid: int) -> str:
        run_id = uuid.uuid4().hex
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO runs (id, pid, started_at) VALUES (?, ?, ?)", (run_id, pid, self._clock())
            )
        return run_id

    def set_open(self, run_id: str, draft_id: str | None, *, changed: bool = False) -> None:
        """The draft the run has open (and, with ``changed``, that it was just changed there)."""
        with self._lock, self._transaction():
            if changed:
                self._db.execute(
                    "UPDATE runs SET open_draft = ?, changed_at = ? WHERE id = ?",
                    (draft_id, self._clock(), run_id),
                )
            else:
                self._db.execute("UPDATE runs SET open_draft = ? WHERE id = ?", (draft_id, run_id))

    def end_run(self, run_id: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("UPDATE runs SET ended_at = ? WHERE id = ?", (self._clock(), run_id))

    def unfinished_runs(self, exclude: str | None = None) -> list[Run]:
        """Runs that never ended (crashed, killed, or still running in another process)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, pid, started_at, open_draft, changed_at FROM runs WHERE ended_at IS NULL"
                " AND id IS NOT ? ORDER BY started_at",
                (exclude,),
            ).fetchall()
        return [Run(*row) for row in rows]

    def forget_runs(self, before: float) -> None:
        """Drop the records of runs that ended before ``before``."""
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM runs WHERE ended_at IS NOT NULL AND ended_at < ?", (before,))
