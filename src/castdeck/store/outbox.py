"""The outbox: every write that starts generation, stored with its idempotency key before it is sent.

No Qt and no network here. An entry is written (``add``) before its request leaves the app; the
answer moves it to ``sent`` (the service accepted it) or ``rejected`` (a 4xx: never resent). Until
then it is ``pending`` (or ``sending`` while a request is out, or when the app stopped mid-request)
and is resent with the same key, so the service creates the work exactly once.
Only the request body is stored: never the API key, never request headers.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .jobs import Job, JobStore
from .kinds import MEDIA_COLLECTIONS
from .sqlite import Migration, SqliteStore

__all__ = ["KINDS", "STATES", "OutboxEntry", "OutboxStore"]

KINDS = frozenset({"episode_generate", "episode_import", "media_create", "media_retry"})
"""What an entry sends: ``episodes.generate``, ``episodes.import_script``, ``<collection>.create``,
``<collection>.retry(resource_id)``."""


PENDING = "pending"
SENDING = "sending"
SENT = "sent"
REJECTED = "rejected"
STATES = (PENDING, SENDING, SENT, REJECTED)

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    kind TEXT NOT NULL,
    collection TEXT,
    body TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    problem TEXT,
    request_id TEXT,
    resource_id TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_by_profile ON outbox (profile, state, created_at);
"""

MIGRATIONS = [Migration(1, "outbox", SCHEMA)]

_COLUMNS = (
    "id, profile, kind, collection, body, idempotency_key, state, attempts, last_error, problem,"
    " request_id, resource_id, created_at, updated_at"
)


@dataclass(frozen=True)
class OutboxEntry:
    """One stored write. ``resource_id`` is the retried job for ``media_retry`` from the start, and
    the created episode or job once the service accepted it. ``problem`` holds what a rejection said
    (status, type, fields, recovery) so the UI can say what to correct."""

    id: str
    profile: str
    kind: str
    collection: str | None
    body: dict[str, Any]
    idempotency_key: str
    state: str
    attempts: int
    last_error: str | None
    problem: dict[str, Any] | None
    request_id: str | None
    resource_id: str | None
    created_at: float
    updated_at: float

    @property
    def unsent(self) -> bool:
        """Still to be sent (again): no answer has been recorded."""
        return self.state in (PENDING, SENDING)

    @property
    def done(self) -> bool:
        return self.state in (SENT, REJECTED)


def _entry(row: tuple[Any, ...]) -> OutboxEntry:
    return OutboxEntry(
        id=row[0],
        profile=row[1],
        kind=row[2],
        collection=row[3],
        body=json.loads(row[4]),
        idempotency_key=row[5],
        state=row[6],
        attempts=row[7],
        last_error=row[8],
        problem=json.loads(row[9]) if row[9] else None,
        request_id=row[10],
        resource_id=row[11],
        created_at=row[12],
        updated_at=row[13],
    )


class OutboxStore(SqliteStore):
    """One SQLite file holding the outbox of every profile (thread-safe; short transactions)."""

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        shared: SqliteStore | None = None,
        jobs: JobStore | None = None,
    ) -> None:
        self._jobs = jobs
        if shared is not None:
            self._share(shared)
        elif path is not None:
            # FULL: an entry must survive a crash right after add() returned (its request is then sent).
            super().__init__(path, MIGRATIONS, synchronous="FULL")
        else:
            raise TypeError("an OutboxStore needs a path or a shared store")

    @property
    def jobs(self) -> JobStore | None:
        """The tracked jobs stored with this outbox's accepted entries (the shared database's)."""
        return self._jobs

    # --- writing -------------------------------------------------------------------------------------------

    def add(
        self,
        profile: str,
        kind: str,
        body: dict[str, Any] | None,
        idempotency_key: str,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
    ) -> OutboxEntry:
        """Store a write before it is sent; returns the ``pending`` entry."""
        entry = self.new_entry(
            profile, kind, body, idempotency_key, collection=collection, resource_id=resource_id
        )
        return self.insert(entry)

    @staticmethod
    def new_entry(
        profile: str,
        kind: str,
        body: dict[str, Any] | None,
        idempotency_key: str,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
    ) -> OutboxEntry:
        """A ``pending`` entry, checked but not stored yet (:meth:`insert` stores it)."""
        if kind not in KINDS:
            raise ValueError(f"unknown outbox kind {kind!r}")
        if kind.startswith("media_") and collection not in MEDIA_COLLECTIONS:
            raise ValueError(f"{kind} needs a collection ({', '.join(sorted(MEDIA_COLLECTIONS))})")
        if kind == "media_retry" and not resource_id:
            raise ValueError("media_retry needs the id of the job to retry")
        if not idempotency_key:
            raise ValueError("an outbox entry needs an idempotency key")
        now = time.time()
        return OutboxEntry(
            id=uuid.uuid4().hex, profile=profile, kind=kind, collection=collection, body=dict(body or {}),
            idempotency_key=idempotency_key, state=PENDING, attempts=0, last_error=None, problem=None,
            request_id=None, resource_id=resource_id, created_at=now, updated_at=now,
        )  # fmt: skip

    def insert(self, entry: OutboxEntry) -> OutboxEntry:
        """Store a new entry (durably: synchronous=FULL) and return it as stored."""
        row = (
            entry.id, entry.profile, entry.kind, entry.collection, json.dumps(entry.body, separators=(",", ":")),
            entry.idempotency_key, entry.state, entry.attempts, None, None, None, entry.resource_id,
            entry.created_at, entry.updated_at,
        )  # fmt: skip
        with self._lock, self._transaction():
            self._db.execute(f"INSERT INTO outbox ({_COLUMNS}) VALUES ({', '.join('?' * 14)})", row)
        return self._get_or_raise(entry.id)

    def mark_sending(self, entry_id: str) -> OutboxEntry:
        """A request is about to leave (counts an attempt)."""
        return self._update(entry_id, "state = ?, attempts = attempts + 1", (SENDING,))

    def mark_sent(
        self, entry_id: str, resource_id: str, request_id: str | None = None, *, job: Job | None = None
    ) -> OutboxEntry:
        """The service accepted the write. ``job``, the tracked job it started, is stored in the same
        transaction (needs the shared database): a crash never leaves one without the other."""
        jobs = self._jobs
        if job is not None and jobs is None:
            raise ValueError("storing the job with the entry needs the shared background database")
        return self._update(
            entry_id,
            "state = ?, resource_id = ?, request_id = COALESCE(?, request_id), last_error = NULL, problem = NULL",
            (SENT, resource_id, request_id),
            also=(lambda: jobs.upsert_unlocked(job)) if job is not None and jobs is not None else None,
        )

    def mark_rejected(
        self,
        entry_id: str,
        message: str,
        request_id: str | None = None,
        problem: dict[str, Any] | None = None,
    ) -> OutboxEntry:
        """The service refused the write (a 4xx); it is never resent."""
        return self._update(
            entry_id,
            "state = ?, last_error = ?, request_id = ?, problem = ?",
            (REJECTED, message, request_id, json.dumps(problem) if problem is not None else None),
        )

    def mark_failed_attempt(self, entry_id: str, error: str, request_id: str | None = None) -> OutboxEntry:
        """No usable answer (no connection, timeout, 5xx, 429): stays ``pending`` for a resend."""
        return self._update(
            entry_id,
            "state = ?, last_error = ?, request_id = COALESCE(?, request_id)",
            (PENDING, error, request_id),
        )

    def delete_answered(self, entry_ids: list[str]) -> int:
        """Forget these entries where they are sent or rejected (one that is still unanswered
        stays), in one transaction; returns how many went."""
        with self._lock, self._transaction():
            cursor = self._db.executemany(
                "DELETE FROM outbox WHERE id = ? AND state IN (?, ?)",
                [(i, SENT, REJECTED) for i in entry_ids],
            )
        return cursor.rowcount

    def forget_profile(self, profile: str) -> None:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM outbox WHERE profile = ?", (profile,))

    # --- reading -------------------------------------------------------------------------------------------

    def get(self, entry_id: str) -> OutboxEntry | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM outbox WHERE id = ?", (entry_id,)).fetchone()
        return _entry(row) if row else None

    def pending(self, profile: str) -> list[OutboxEntry]:
        """Entries still to be sent, oldest first: ``pending``, and ``sending`` ones whose answer never
        arrived (the app stopped mid-request)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM outbox WHERE profile = ? AND state IN (?, ?)"
                " ORDER BY created_at, rowid",
                (profile, PENDING, SENDING),
            ).fetchall()
        return [_entry(r) for r in rows]

    def list(self, profile: str, *, state: str | None = None) -> list[OutboxEntry]:
        with self._lock:
            if state is None:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM outbox WHERE profile = ? ORDER BY created_at, rowid", (profile,)
                ).fetchall()
            else:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM outbox WHERE profile = ? AND state = ? ORDER BY created_at, rowid",
                    (profile, state),
                ).fetchall()
        return [_entry(r) for r in rows]

    # --- internals -----------------------------------------------------------------------------------------

    def _update(
        self,
        entry_id: str,
        assignments: str,
        values: tuple[Any, ...],
        *,
        also: Callable[[], Any] | None = None,
    ) -> OutboxEntry:
        with self._lock, self._transaction():
            cursor = self._db.execute(
                f"UPDATE outbox SET {assignments}, updated_at = ? WHERE id = ?",
                (*values, time.time(), entry_id),
            )
            if cursor.rowcount == 0:
                raise KeyError(entry_id)
            if also is not None:
                also()
        return self._get_or_raise(entry_id)

    def _get_or_raise(self, entry_id: str) -> OutboxEntry:
        entry = self.get(entry_id)
        if entry is None:
            raise KeyError(entry_id)
        return entry
