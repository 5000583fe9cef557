"""Tracked jobs: every long-running thing the app follows (generation, media jobs, sources being
processed), per profile, in SQLite, so tracking resumes after a restart.

No Qt and no network here. Methods are short and synchronous; ``JobStore`` serializes access with
a lock. Times are wall-clock seconds (``time.time()``) because they must survive a restart.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .kinds import JOB_KINDS
from .sqlite import Migration, SqliteStore

__all__ = ["ACTIVE_STATES", "FINISHED_STATES", "JOB_KINDS", "JOB_STATES", "Job", "JobStore"]

JOB_STATES = ("running", "completed", "failed", "still_running")
ACTIVE_STATES = frozenset({"running"})
"""States the tracker polls (``still_running`` waits for "check again")."""
FINISHED_STATES = frozenset({"completed", "failed"})

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    profile TEXT NOT NULL,
    kind TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    title TEXT,
    state TEXT NOT NULL,
    phase TEXT,
    progress REAL,
    error TEXT,
    request_id TEXT,
    started_at REAL NOT NULL,
    next_poll_at REAL NOT NULL,
    deadline_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (profile, kind, resource_id)
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (profile, state);
"""

COLUMNS = (
    "profile, kind, resource_id, title, state, phase, progress, error, request_id,"
    " started_at, next_poll_at, deadline_at, updated_at, extra"
)


@dataclass(frozen=True)
class Job:
    """One tracked job as last observed.

    ``state``: ``running`` (being polled), ``completed``, ``failed`` (``error`` says why, with the
    ``request_id`` of the answer that said so), or ``still_running``: the local deadline passed
    while the work still runs on the service; it was not cancelled, check again later.
    ``progress`` is a percentage (0..100) when the service gives one. ``extra`` holds links the
    service returned (``studio_url``, ``audio_url``, ...).
    """

    profile: str
    kind: str
    resource_id: str
    title: str | None = None
    state: str = "running"
    phase: str | None = None
    progress: float | None = None
    error: str | None = None
    request_id: str | None = None
    started_at: float = 0.0
    next_poll_at: float = 0.0
    deadline_at: float = 0.0
    updated_at: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.profile, self.kind, self.resource_id)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES

    def evolve(self, **changes: Any) -> Job:
        return replace(self, **changes)


MIGRATIONS = [Migration(1, "jobs", SCHEMA)]


class JobStore(SqliteStore):
    """The tracked jobs of every profile: a file of its own, or a table of a shared database
    (``shared``: the :class:`~castdeck.store.background.BackgroundStore`)."""

    def __init__(self, path: Path | str | None = None, *, shared: SqliteStore | None = None) -> None:
        if shared is not None:
            self._share(shared)
        elif path is not None:
            super().__init__(path, MIGRATIONS)
        else:
            raise TypeError("a JobStore needs a path or a shared store")

    def upsert(self, job: Job) -> Job:
        """Insert or replace the job (``updated_at`` is set now); returns the stored job."""
        with self._lock:
            return self.upsert_unlocked(job)

    def upsert_unlocked(self, job: Job) -> Job:
        """:meth:`upsert` for a caller that holds the lock (inside its own transaction)."""
        if job.kind not in JOB_KINDS:
            raise ValueError(f"unknown job kind {job.kind!r}")
        if job.state not in JOB_STATES:
            raise ValueError(f"unknown job state {job.state!r}")
        stored = job if job.updated_at else job.evolve(updated_at=time.time())
        row = (
            stored.profile, stored.kind, stored.resource_id, stored.title, stored.state, stored.phase,
            stored.progress, stored.error, stored.request_id, stored.started_at, stored.next_poll_at,
            stored.deadline_at, stored.updated_at, json.dumps(stored.extra, separators=(",", ":")),
        )  # fmt: skip
        self._db.execute(f"INSERT OR REPLACE INTO jobs ({COLUMNS}) VALUES ({', '.join('?' * 14)})", row)
        return stored

    def get(self, profile: str, kind: str, resource_id: str) -> Job | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {COLUMNS} FROM jobs WHERE profile = ? AND kind = ? AND resource_id = ?",
                (profile, kind, resource_id),
            ).fetchone()
        return _job(row) if row else None

    def list(self, profile: str, active_only: bool = False) -> list[Job]:
        """The profile's jobs, oldest first; ``active_only`` keeps the ``running`` ones."""
        query = f"SELECT {COLUMNS} FROM jobs WHERE profile = ?"
        if active_only:
            query += " AND state = 'running'"
        with self._lock:
            rows = self._db.execute(query + " ORDER BY started_at, rowid", (profile,)).fetchall()
        return [_job(row) for row in rows]

    def remove(self, profile: str, kind: str, resource_id: str) -> None:
        with self._lock:
            self._db.execute(
                "DELETE FROM jobs WHERE profile = ? AND kind = ? AND resource_id = ?",
                (profile, kind, resource_id),
            )

    def clear_finished(self, profile: str) -> int:
        """Forget the profile's completed and failed jobs; returns how many."""
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM jobs WHERE profile = ? AND state IN ('completed', 'failed')", (profile,)
            )
        return cursor.rowcount


def _job(row: tuple[Any, ...]) -> Job:
    extra = json.loads(row[13]) if row[13] else {}
    names = [name.strip() for name in COLUMNS.split(",")][:13]
    fields: dict[str, Any] = dict(zip(names, row[:13], strict=True))
    return Job(**fields, extra=extra if isinstance(extra, dict) else {})
