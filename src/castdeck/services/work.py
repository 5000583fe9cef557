"""One record per piece of work the creator started, from the moment it is stored to its end.

A generation, an import or a media job starts as an outbox write (:mod:`castdeck.services.outbox`)
and, once the service accepts it, goes on as a job the tracker follows
(:mod:`castdeck.services.jobs`); a job resumed at start-up, or a source being processed, is only
ever the tracker's. :class:`WorkLog` joins the two into one :class:`Work` record each, so that
nothing downstream stitches them:

    waiting to be sent (the entry: sending, waiting to resend, refused)
      → accepted (the entry is sent; the record takes its job's key)
      → running → ended (completed, failed) or still running on the service

The records live in memory, fed by the two services' signals (which write to their stores
behind, on the disk thread); nothing here reads a database. What is kept is the services' own
rule: the tracker forgets the oldest ended jobs, the outbox forgets what is answered and
cleared; a record goes when what it records goes.

:class:`WorkLog` is a list model, newest first (one role, :data:`WORK_ROLE`, the record): the Jobs
dock is a view of it (``castdeck.ui.jobs.panel``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from castdeck.store.jobs import Job
from castdeck.store.outbox import SENT, OutboxEntry

from .jobs import JobTracker
from .outbox import Outbox
from .outbox_names import job_kind_of

__all__ = ["WORK_ROLE", "Work", "WorkLog", "work_key"]

WORK_ROLE = int(Qt.ItemDataRole.UserRole) + 1
"""The role under which each row gives its :class:`Work`."""


def work_key(kind: str, resource_id: str) -> str:
    """The key of the work that made (or follows) ``kind`` ``resource_id``."""
    return f"job:{kind}:{resource_id}"


@dataclass(frozen=True)
class Work:
    """One thing the creator started: its outbox entry until the service accepted it, its job after."""

    seq: int
    """When it came (newer is larger): its identity while its key changes, and its place."""
    entry: OutboxEntry | None = None
    job: Job | None = None

    @property
    def key(self) -> str:
        """``entry:<id>`` while it waits to be sent or was refused; its job's (``job:<kind>:<id>``) once accepted."""
        if self.job is not None:
            return work_key(self.job.kind, self.job.resource_id)
        entry = self.entry
        assert entry is not None
        if entry.state == SENT and entry.resource_id:
            return work_key(job_kind_of(entry), entry.resource_id)
        return f"entry:{entry.id}"

    @property
    def accepted(self) -> bool:
        """The service took it: its job is (or is about to be) followed."""
        return self.job is not None or (self.entry is not None and self.entry.state == SENT)

    @property
    def ended(self) -> bool:
        """Nothing more will happen by itself: the job ended, or the write was refused."""
        if self.job is not None:
            return self.job.finished
        return self.entry is not None and self.entry.state == "rejected"


class WorkLog(QAbstractListModel):
    """The work of one session's profile, newest first, fed by its outbox and job tracker."""

    def __init__(self, jobs: JobTracker, outbox: Outbox, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.outbox = outbox
        self._rows: list[Work] = []
        """Newest first (largest ``seq`` first): a new record is always row 0."""
        self._by_key: dict[str, int] = {}
        self._by_entry: dict[str, int] = {}
        self._order = itertools.count()
        jobs.jobChanged.connect(self._job_changed)
        jobs.jobForgotten.connect(self._job_forgotten)
        outbox.entryChanged.connect(self._entry_changed)
        outbox.entryRemoved.connect(self._entry_removed)
        outbox.loaded.connect(self._entries_loaded)
        for job in jobs.jobs():  # what the two already know (oldest first: the newest ends on top)
            self._job_changed(job)
        self._entries_loaded(outbox.entries())

    # --- reading ---------------------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._rows)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = int(Qt.ItemDataRole.DisplayRole)
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        work = self._rows[index.row()]
        if role == WORK_ROLE:
            return work
        if role == int(Qt.ItemDataRole.DisplayRole):
            return work.key
        return None

    def at(self, row: int) -> Work:
        """The record in ``row`` (0 is the newest)."""
        return self._rows[row]

    def records(self) -> list[Work]:
        """Every record, newest first."""
        return list(self._rows)

    def record(self, key: str) -> Work | None:
        seq = self._by_key.get(key)
        return None if seq is None else self._rows[self._row_of(seq)]

    # --- what the creator asks -------------------------------------------------------------------------------

    def dismiss(self, key: str) -> bool:
        """Let go of an ended record (its card's Dismiss): the tracker forgets the job, the outbox
        the refused write. False when it is not the creator's to dismiss (still running or sending)."""
        work = self.record(key)
        if work is None:
            return False
        job, entry = work.job, work.entry
        if job is not None:
            if self.jobs.is_following(job.kind, job.resource_id):
                return False
            self.jobs.forget(job)  # the record goes with the tracker's word (jobForgotten)
            return True
        if entry is not None and not entry.unsent:
            self.outbox.discard(entry.id)  # and with the outbox's (entryRemoved)
            return True
        return False

    def clear_finished(self) -> int:
        """Let go of every completed or failed job and every answered write; returns how many
        records went."""
        self.jobs.clear_finished()
        self.outbox.clear_done()  # refused writes go through entryRemoved
        gone = [work.seq for work in self._rows if work.job is not None and work.job.finished]
        for seq in gone:
            self._remove(seq)
        return len(gone)

    # --- what the services report ----------------------------------------------------------------------------

    def _job_changed(self, job: Job) -> None:
        key = work_key(job.kind, job.resource_id)
        seq = self._by_key.get(key)
        entry_id = job.extra.get("outbox_entry")
        if seq is None and isinstance(entry_id, str):
            seq = self._by_entry.get(entry_id)  # the write that started it: the same record goes on
        if seq is None:
            self._insert(Work(next(self._order), job=job))
        else:
            work = self._rows[self._row_of(seq)]
            self._update(replace(work, job=job))

    def _job_forgotten(self, job: Job) -> None:
        seq = self._by_key.get(work_key(job.kind, job.resource_id))
        if seq is not None:
            self._remove(seq)

    def _entries_loaded(self, entries: list[OutboxEntry]) -> None:
        for entry in sorted(entries, key=lambda e: e.created_at):
            self._entry_changed(entry)

    def _entry_changed(self, entry: OutboxEntry) -> None:
        seq = self._by_entry.get(entry.id)
        if entry.state == SENT and not entry.resource_id:
            if seq is not None:  # answered with nothing to follow
                self._remove(seq)
            return
        if seq is None:
            if entry.state == SENT:
                followed = self._by_key.get(work_key(job_kind_of(entry), str(entry.resource_id)))
                if followed is not None:  # its job is known already (resumed before the entry loaded)
                    work = self._rows[self._row_of(followed)]
                    self._update(replace(work, entry=entry))
                    return
            self._insert(Work(next(self._order), entry=entry))
            return
        work = self._rows[self._row_of(seq)]
        self._update(replace(work, entry=entry))

    def _entry_removed(self, entry_id: str) -> None:
        seq = self._by_entry.get(entry_id)
        if seq is None:
            return
        work = self._rows[self._row_of(seq)]
        if work.job is None:
            self._remove(seq)
        else:  # its job goes on: the record stays, and no longer finds itself by the entry
            del self._by_entry[entry_id]
            self._update(replace(work, entry=None))

    # --- rows --------------------------------------------------------------------------------------------------

    def _row_of(self, seq: int) -> int:
        """The row of record ``seq``: the rows are sorted by ``seq``, largest first."""
        low, high = 0, len(self._rows)
        while low < high:
            middle = (low + high) // 2
            if self._rows[middle].seq > seq:
                low = middle + 1
            else:
                high = middle
        assert low < len(self._rows) and self._rows[low].seq == seq, seq
        return low

    def _index(self, work: Work) -> None:
        self._by_key[work.key] = work.seq
        if work.entry is not None:
            self._by_entry[work.entry.id] = work.seq

    def _insert(self, work: Work) -> None:
        self.beginInsertRows(QModelIndex(), 0, 0)
        self._rows.insert(0, work)
        self._index(work)
        self.endInsertRows()

    def _update(self, work: Work) -> None:
        holder = self._by_key.get(work.key)
        if holder is not None and holder != work.seq:
            # an earlier record of the same job: a retry of a media job, accepted, goes on as that
            # job, and the job has one record (the newer, with the write that started it again)
            self._remove(holder)
        row = self._row_of(work.seq)
        old = self._rows[row]
        if old.key != work.key and self._by_key.get(old.key) == work.seq:
            del self._by_key[old.key]
        self._rows[row] = work
        self._index(work)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [WORK_ROLE])

    def _remove(self, seq: int) -> None:
        row = self._row_of(seq)
        work = self._rows[row]
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        if self._by_key.get(work.key) == seq:
            del self._by_key[work.key]
        if work.entry is not None and self._by_entry.get(work.entry.id) == seq:
            del self._by_entry[work.entry.id]
        self.endRemoveRows()
