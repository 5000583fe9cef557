"""The outbox service: writes that start generation are stored with their key, then sent, and resent until answered.

``submit`` makes the idempotency key, stores the entry (:class:`OutboxStore`) and only then sends
it. No usable answer (no connection, a timeout, 5xx, 429, a garbled answer) leaves the entry
pending; it is resent with the SAME key when the session reconnects, on :meth:`Outbox.flush`
(call it at start: entries of an earlier run are sent then) and by a capped backoff timer, so
the service creates the work exactly once. A 4xx (a 409 conflict too) marks it rejected with the
service's message and request id; it is never resent (correcting it means a new write with a new
key). 401/403 say nothing about the write (the key was refused): the entry stays pending.

One 409 is not a refusal: ``recovery.action = poll_content`` with ``idempotency_key = reuse`` says an
earlier send of the same write is still being accepted (its answer was lost). The entry is then
accepted-pending: it follows the resource the 409 names, or is sent again later with the SAME key
when none is named; it never asks the user to start again (a new key would charge twice).

When the service accepts a write, the entry becomes ``sent`` and its tracked job is stored in the
same transaction, then handed to the :class:`~castdeck.services.jobs.JobTracker`.

What the outbox holds is mirrored in memory: :meth:`Outbox.entries` and :meth:`Outbox.get` read
the mirror, never the database, so a widget asking costs the UI thread no disk read. The mirror is
filled once on the disk thread (:meth:`Outbox.load`, at start and before the first flush) and kept
with every change the outbox itself writes; removals reach the disk after the mirror and the
signals, and :meth:`Outbox.close` waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import sqlite3
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from castdeck.api import (
    Accepted,
    ApiError,
    CastdeckError,
    Client,
    ForbiddenError,
    InputValidationError,
    UnauthorizedError,
    is_transient,
    new_idempotency_key,
)
from castdeck.api.retry import backoff_delay
from castdeck.store.jobs import Job
from castdeck.store.outbox import REJECTED, OutboxEntry, OutboxStore

from .jobs import JobTracker
from .messages import error_text
from .outbox_names import job_kind_of, title_of
from .outbox_refusals import problem_of, unresolved_acceptance
from .session import ConnectionState, Session

__all__ = [
    "BASE_DELAY",
    "MAX_DELAY",
    "MAX_IN_FLIGHT",
    "Outbox",
    "Sent",
]

log = logging.getLogger(__name__)

MAX_IN_FLIGHT = 4
"""Writes sent at the same time; more wait their turn (a burst of starts does not flood the service)."""
BASE_DELAY = 2.0
MAX_DELAY = 300.0
"""Resend backoff after a fault: 2, 4, 8, ... seconds (with jitter), at most this; or the Retry-After given."""


@dataclass(frozen=True)
class Sent:
    """What one attempt came to: the entry as stored after it, and the answer or the error."""

    entry: OutboxEntry
    accepted: Accepted[Any] | None = None
    error: CastdeckError | None = None
    job: Job | None = None
    """The tracked job the write started (also when a 409 named it while it was being accepted)."""

    def outcome(self) -> Accepted[Any] | Job | None:
        """The accepted answer; the followed job when the service named it while still accepting
        it (409); ``None`` when no answer came (the entry is resent by itself); raises the refusal
        (the entry is rejected and never resent)."""
        if self.accepted is not None:
            return self.accepted
        if self.job is not None:
            return self.job
        if self.entry.state == REJECTED and self.error is not None:
            raise self.error
        return None


class Outbox(QObject):
    entryChanged = Signal(object)  # OutboxEntry, after every change of state
    entryRemoved = Signal(str)  # entry id
    loaded = Signal(list)  # [OutboxEntry]: the stored entries, once read (see load)
    accepted = Signal(object, object)  # (OutboxEntry, Accepted): the job tracker follows it from here

    def __init__(
        self,
        session: Session,
        store: OutboxStore,
        tracker: JobTracker,
        *,
        base_delay: float = BASE_DELAY,
        max_delay: float = MAX_DELAY,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._store = store
        self._tracker = tracker
        self._runner = session.tasks
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sending: set[str] = set()
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._known: dict[str, OutboxEntry] = {}  # the mirror: every entry of this profile, by id
        self._unsaved: set[str] = set()  # ids of entries the disk refused: shown, never sent
        self._loading: asyncio.Task[None] | None = None
        self._writes: set[asyncio.Task[Any]] = set()  # removals on their way to the disk
        self._removed: set[str] = set()  # ids forgotten in this run (a load never brings them back)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._faults = 0
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer)
        session.reconnected.connect(self.flush)
        tracker.jobForgotten.connect(self._job_forgotten)

    @property
    def profile(self) -> str:
        return self._session.profile.name

    # --- public ----------------------------------------------------------------------------------------------

    def submit(
        self,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> OutboxEntry:
        """Store the write with a new idempotency key, then send it; returns the entry at once.

        Storing (durably, on the disk thread) comes first and sending only after it; the UI thread
        never waits for the disk. An entry that cannot be stored (a full disk) is never sent: it
        ends ``rejected`` with that reason. ``idempotency_key``: the key of an earlier attempt the
        service refused with ``recovery.idempotency_key = reuse`` (spec 4.2: the corrected input is
        sent under the same key); None makes a new one.
        """
        if self._closed:
            raise RuntimeError("the outbox is closed")
        entry = self._store.new_entry(
            self.profile, kind, body, idempotency_key or new_idempotency_key(), collection=collection,
            resource_id=resource_id,
        )  # fmt: skip
        self._changed(entry)
        self._start(self._store_and_send(entry), name=f"outbox send {kind}")
        return entry

    async def _store_and_send(self, entry: OutboxEntry) -> Sent | None:
        try:
            await self._session.on_disk(self._store.insert, entry)
        except sqlite3.Error as error:
            log.error("outbox entry could not be stored: %s", error)
            unsaved = dataclasses.replace(
                entry, state=REJECTED,
                last_error=f"Not sent: Castdeck could not save the request first ({error}). Free some disk "
                           "space and start it again.",
            )  # fmt: skip
            self._unsaved.add(entry.id)
            self._changed(unsaved)
            return None
        return await self._attempt(entry.id)

    async def send(
        self,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> Sent:
        """Store the write with a new key (or ``idempotency_key``, see :meth:`submit`), send it once
        now and say what came of it (for a dialog that waits). Unanswered, the entry stays pending
        and is resent by itself with the same key. A refusal is returned to the caller to show where
        the user can correct it, and the entry is forgotten (it needs no card)."""
        if self._closed:
            raise RuntimeError("the outbox is closed")
        entry = self._store.new_entry(
            self.profile, kind, body, idempotency_key or new_idempotency_key(), collection=collection,
            resource_id=resource_id,
        )  # fmt: skip
        self._changed(entry)
        task = self._start(self._store_and_send(entry), name=f"outbox send {kind}")
        sent: Sent | None = await task
        if entry.id in self._unsaved:
            unsaved = self._known[entry.id]
            return Sent(unsaved, error=CastdeckError(unsaved.last_error or ""))
        if sent is None:  # closed meanwhile
            return Sent(self._known.get(entry.id, entry))
        if sent.entry.state == REJECTED:
            self.discard(sent.entry.id)
        return sent

    def discard(self, entry_id: str) -> None:
        """Forget an entry that needs nothing more: answered, or rejected and shown to the user.
        An entry still unanswered is kept (its write may have reached the service)."""
        entry = self._known.get(entry_id)
        if entry is not None and entry.unsent:
            raise ValueError("the entry has not been answered yet; it may still create its job")
        self._forget(entry_id)
        if entry is not None and entry_id not in self._unsaved:
            self._write(self._store.delete_answered, [entry_id], name="outbox discard")
        self._unsaved.discard(entry_id)

    def _job_forgotten(self, job: Job) -> None:
        """The tracker let go of a job a write of this outbox started (dismissed, or past the ended
        jobs it keeps): the answered write needs nothing more, in memory or on disk. (Kept, every
        write a long session sent stayed, with its body: a script's whole text for an import.)"""
        entry_id = job.extra.get("outbox_entry")
        entry = self._known.get(entry_id) if isinstance(entry_id, str) else None
        if entry is not None and entry.done and not self._closed:
            self.discard(entry.id)

    def clear_done(self) -> int:
        """Forget every answered entry shown; returns how many. (The disk forgets those, not what it
        may hold besides: an entry answered meanwhile stays until it is shown and cleared.)"""
        done = [e.id for e in self._known.values() if e.done]
        for entry_id in done:
            self._forget(entry_id)
            self._unsaved.discard(entry_id)
        if done:
            self._write(self._store.delete_answered, done, name="outbox clear done")
        return len(done)

    def flush(self) -> asyncio.Task[list[OutboxEntry]] | None:
        """Send every entry still unanswered (oldest first, each with its own key). Returns the task
        (await it to wait for this round), or None when the outbox is closed."""
        if self._closed:
            return None
        return self._start(self._flush(), name="outbox flush")

    @property
    def next_resend(self) -> float | None:
        """Seconds until the next round of resends, or None when none is due."""
        return self._timer.remainingTime() / 1000 if self._timer.isActive() else None

    def entries(self) -> list[OutboxEntry]:
        """Every entry (stored ones once :meth:`load` has read them), from memory."""
        return list(self._known.values())

    def get(self, entry_id: str) -> OutboxEntry | None:
        return self._known.get(entry_id)

    async def load(self) -> None:
        """Read the stored entries into the mirror on the disk thread (once; later calls wait for
        the first), then announce them with ``loaded``. An entry changed meanwhile keeps its newer
        state."""
        if self._loading is None:
            self._loading = self._runner.start(self._load(), name="outbox load")
        await asyncio.shield(self._loading)

    async def _load(self) -> None:
        stored = await self._session.on_disk(self._store.list, self.profile)
        fresh = [entry for entry in stored if entry.id not in self._known and entry.id not in self._removed]
        for entry in fresh:
            self._known[entry.id] = entry
        self.loaded.emit(fresh)

    async def close(self) -> None:
        """Stop the timer and every send; unanswered entries stay stored for the next start."""
        self._closed = True
        self._timer.stop()
        with contextlib.suppress(RuntimeError, TypeError):
            self._session.reconnected.disconnect(self.flush)
        running = [t for t in self._tasks if not t.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        if self._writes:  # removals already promised to the user reach the disk
            await asyncio.gather(*self._writes, return_exceptions=True)

    # --- sending ---------------------------------------------------------------------------------------------

    def _start(self, coro: Any, *, name: str) -> asyncio.Task[Any]:
        task = self._runner.start(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _changed(self, entry: OutboxEntry) -> None:
        self._known[entry.id] = entry
        self.entryChanged.emit(entry)

    def _forget(self, entry_id: str) -> None:
        self._known.pop(entry_id, None)
        self._removed.add(entry_id)
        self.entryRemoved.emit(entry_id)

    def _write(self, work: Any, *args: Any, name: str) -> None:
        """A removal the mirror already shows, on the disk thread; its failure is logged (the entry
        comes back at the next start, which is what the disk still holds)."""

        async def write() -> None:
            try:
                await self._session.on_disk(work, *args)
            except sqlite3.Error as error:
                log.warning("%s could not be written: %s", name, error)

        task = self._runner.start(write(), name=name)
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _flush(self) -> list[OutboxEntry]:
        await self.load()  # entries of an earlier run are known before they are sent again
        answered: list[OutboxEntry] = []
        for entry in await self._session.on_disk(self._store.pending, self.profile):
            if self._closed:
                break
            if entry.id in self._sending:
                continue
            result = await self._send(entry.id)
            if result is not None:
                answered.append(result)
                if result.unsent:
                    break  # no answer: the others would fare no better; the timer or a reconnect resumes
        if not self._closed and not await self._session.on_disk(self._store.pending, self.profile):
            self._timer.stop()  # everything has its answer: no round of resends is due
        return answered

    async def _send(self, entry_id: str) -> OutboxEntry | None:
        sent = await self._attempt(entry_id)
        return None if sent is None else sent.entry

    async def _attempt(self, entry_id: str) -> Sent | None:
        if entry_id in self._sending or self._closed:
            return None
        self._sending.add(entry_id)
        try:
            async with self._slots:
                return await self._attempt_now(entry_id)
        finally:
            self._sending.discard(entry_id)

    async def _attempt_now(self, entry_id: str) -> Sent:
        entry = await self._session.on_disk(self._store.mark_sending, entry_id)
        self._changed(entry)
        failure: CastdeckError | None = None
        try:
            accepted = await self._session.guard(self._call(entry), write=True)
        except (UnauthorizedError, ForbiddenError) as error:
            failure = error
            # The key was refused, not the write: keep it for when a working key is in place.
            entry = await self._record_fault(entry, error, schedule=False)
        except InputValidationError as error:
            failure = error
            # Refused before sending (it could never be sent as it is).
            entry = await self._session.on_disk(
                self._store.mark_rejected, entry.id, str(error), None,
                {"status": None, "type": "input_validation",
                 "errors": [e.model_dump(mode="json") for e in error.errors]},
            )  # fmt: skip
        except CastdeckError as error:
            if isinstance(error, ApiError) and unresolved_acceptance(error):
                return await self._accepting(entry, error)
            failure = error
            if isinstance(error, ApiError) and not is_transient(error):
                entry = await self._session.on_disk(
                    self._store.mark_rejected,
                    entry.id,
                    error_text(error),
                    error.request_id,
                    problem_of(error),
                )
                log.info("outbox %s %s rejected: %s", entry.kind, entry.id, error)
            else:  # no usable answer: the write may or may not have arrived; resend with the same key
                entry = await self._record_fault(entry, error, schedule=True)
        else:
            return await self._sent(entry, str(accepted.data.id), accepted)
        self._changed(entry)
        return Sent(entry, error=failure)

    async def _sent(
        self, entry: OutboxEntry, resource_id: str, accepted: Accepted[Any] | None, *, accepting: bool = False
    ) -> Sent:
        """The service has the write: the entry becomes ``sent`` and its job is stored in the same
        transaction (a crash between the two cannot lose the job), then followed."""
        data = getattr(accepted, "data", None)
        extra: dict[str, Any] = {
            "outbox_entry": entry.id,
            "attempts": entry.attempts,
            "idempotency_key": entry.idempotency_key,
            "retry": entry.kind == "media_retry",
        }
        if entry.collection:
            extra["collection"] = entry.collection
        if accepting:
            extra["accepting"] = True
        job = self._tracker.new_job(
            job_kind_of(entry),
            resource_id,
            title=getattr(data, "title", None) or title_of(entry),
            first_poll_after=accepted.retry_after if accepted is not None else None,
            request_id=accepted.request_id if accepted is not None else entry.request_id,
            extra=extra,
        )
        request_id = accepted.request_id if accepted is not None else entry.request_id
        stored = await self._session.on_disk(
            functools.partial(self._store.mark_sent, entry.id, resource_id, request_id, job=job)
        )
        self._faults = 0
        self._changed(stored)
        self._tracker.follow(job, stored=True)
        self.accepted.emit(stored, accepted)
        return Sent(stored, accepted=accepted, job=job)

    async def _accepting(self, entry: OutboxEntry, error: ApiError) -> Sent:
        """409 ``poll_content``/``reuse``: the service is still accepting this very write (an earlier
        send whose answer was lost). Never a refusal and never "start again" (a new key would start
        a second generation): follow the resource it names, or, when it names none, send again
        later with the same key."""
        resource_id = error.resource_id or (entry.resource_id if entry.kind == "media_retry" else None)
        if resource_id:
            log.info(
                "outbox %s %s: still being accepted as %s; following it", entry.kind, entry.id, resource_id
            )
            return await self._sent(entry, resource_id, None, accepting=True)
        stored = await self._session.on_disk(
            self._store.mark_failed_attempt, entry.id,
            "The service is still accepting this request; Castdeck asks again with the same key, so it starts "
            "only once.", error.request_id,
        )  # fmt: skip
        wait = error.recovery.poll_after_seconds if error.recovery is not None else None
        self._schedule(float(wait) if isinstance(wait, int | float) else error.retry_after)
        self._changed(stored)
        return Sent(stored, error=error)

    async def _record_fault(self, entry: OutboxEntry, error: CastdeckError, *, schedule: bool) -> OutboxEntry:
        request_id = getattr(error, "request_id", None)
        stored = await self._session.on_disk(
            self._store.mark_failed_attempt, entry.id, error_text(error), request_id
        )
        log.info(
            "outbox %s %s: no answer (%s); resending later with the same key", entry.kind, entry.id, error
        )
        if schedule:
            self._schedule(error.retry_after)
        return stored

    def _call(self, entry: OutboxEntry) -> Any:
        client: Client = self._session.client
        key = entry.idempotency_key
        body = dict(entry.body)
        if entry.kind == "episode_generate":
            return client.episodes.generate(**body, idempotency_key=key)
        if entry.kind == "episode_import":
            return client.episodes.import_script(**body, idempotency_key=key)
        resource = getattr(client, entry.collection or "")
        if entry.kind == "media_create":
            return resource.create(**body, idempotency_key=key)
        if entry.kind == "media_retry":
            return resource.retry(entry.resource_id, idempotency_key=key)
        raise ValueError(f"unknown outbox kind {entry.kind!r}")

    # --- resending -------------------------------------------------------------------------------------------

    def _schedule(self, retry_after: float | None) -> None:
        if self._closed:
            return
        delay = backoff_delay(
            self._faults,
            retry_after,
            base=self._base_delay,
            cap=self._max_delay,
            max_retry_after=self._max_delay,
        )
        self._faults += 1
        remaining = self.next_resend
        if remaining is None or delay < remaining:
            self._timer.start(max(1, round(delay * 1000)))

    def _on_timer(self) -> None:
        if self._closed:
            return
        if self._session.state in (ConnectionState.OFFLINE, ConnectionState.REJECTED):
            return  # the session's reconnect flushes (or a working key and a flush at start)
        self.flush()
