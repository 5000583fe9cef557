"""The outbox service: writes that start generation are stored with their key, then sent, and resent until answered.

``submit`` makes the idempotency key, stores the entry (:class:`OutboxStore`) and only then sends
it. No usable answer (no connection, a timeout, 5xx, 429, a garbled answer) leaves the entry
pending; it is resent with the SAME key when the session reconnects, on :meth:`Outbox.flush`
(call it at start: entries of an earlier run are sent then) and by a capped backoff timer, so
the service creates the work exactly once. A 4xx (a 409 conflict too) marks it rejected with the
service's message and request id; it is never resent (correcting it means a new write with a new
key). 401/403 say nothing about the write (the key was refused): the entry stays pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import sqlite3
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from castdeck.api import (
    APIConnectionError,
    ApiError,
    CastdeckError,
    Client,
    ForbiddenError,
    InputValidationError,
    InvalidResponseError,
    RateLimitedError,
    ServerError,
    UnauthorizedError,
    new_idempotency_key,
)
from castdeck.api.errors import parse_retry_after
from castdeck.api.resources.base import Accepted
from castdeck.store.outbox import REJECTED, OutboxEntry, OutboxStore

from .session import ConnectionState, Session
from .tasks import TaskRunner, tasks

__all__ = ["BASE_DELAY", "MAX_DELAY", "MAX_IN_FLIGHT", "Outbox", "Sent"]

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

    def outcome(self) -> Accepted[Any] | None:
        """The accepted answer; ``None`` when no answer came (the entry is resent by itself);
        raises the refusal (the entry is rejected and never resent)."""
        if self.accepted is not None:
            return self.accepted
        if self.entry.state == REJECTED and self.error is not None:
            raise self.error
        return None


class Outbox(QObject):
    entryChanged = Signal(object)  # OutboxEntry, after every change of state
    entryRemoved = Signal(str)  # entry id
    accepted = Signal(object, object)  # (OutboxEntry, Accepted): the job tracker follows it from here

    def __init__(
        self,
        session: Session,
        store: OutboxStore,
        *,
        runner: TaskRunner = tasks,
        base_delay: float = BASE_DELAY,
        max_delay: float = MAX_DELAY,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._store = store
        self._runner = runner
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sending: set[str] = set()
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._unsaved: dict[str, OutboxEntry] = {}  # entries the disk refused: shown, never sent
        self._tasks: set[asyncio.Task[Any]] = set()
        self._faults = 0
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer)
        session.reconnected.connect(self.flush)

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
    ) -> OutboxEntry:
        """Store the write with a new idempotency key, then send it; returns the entry at once.

        Storing (durably, on the disk thread) comes first and sending only after it; the UI thread
        never waits for the disk. An entry that cannot be stored (a full disk) is never sent: it
        ends ``rejected`` with that reason.
        """
        if self._closed:
            raise RuntimeError("the outbox is closed")
        entry = self._store.new_entry(
            self.profile, kind, body, new_idempotency_key(), collection=collection, resource_id=resource_id
        )
        self.entryChanged.emit(entry)
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
            self._unsaved[entry.id] = unsaved
            self.entryChanged.emit(unsaved)
            return None
        return await self._attempt(entry.id)

    async def send(
        self,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        collection: str | None = None,
        resource_id: str | None = None,
    ) -> Sent:
        """Store the write with a new key, send it once now and say what came of it (for a dialog
        that waits). Unanswered, the entry stays pending and is resent by itself with the same key.
        A refusal is returned to the caller to show where the user can correct it, and the entry
        is forgotten (it needs no card)."""
        if self._closed:
            raise RuntimeError("the outbox is closed")
        entry = self._store.new_entry(
            self.profile, kind, body, new_idempotency_key(), collection=collection, resource_id=resource_id
        )
        self.entryChanged.emit(entry)
        task = self._start(self._store_and_send(entry), name=f"outbox send {kind}")
        sent: Sent | None = await task
        if entry.id in self._unsaved:
            return Sent(
                self._unsaved[entry.id], error=CastdeckError(self._unsaved[entry.id].last_error or "")
            )
        if sent is None:  # closed meanwhile
            return Sent(self._store.get(entry.id) or entry)
        if sent.entry.state == REJECTED:
            self.discard(sent.entry.id)
        return sent

    def discard(self, entry_id: str) -> None:
        """Forget an entry that needs nothing more: answered, or rejected and shown to the user.
        An entry still unanswered is kept (its write may have reached the service)."""
        entry = self._store.get(entry_id)
        if entry is None:
            self._unsaved.pop(entry_id, None)
            self.entryRemoved.emit(entry_id)
            return
        if entry.unsent:
            raise ValueError("the entry has not been answered yet; it may still create its job")
        self._store.delete(entry_id)
        self.entryRemoved.emit(entry_id)

    def clear_done(self) -> int:
        done = [e.id for e in self._store.list(self.profile) if e.done]
        removed = self._store.clear_done(self.profile)
        for entry_id in done:
            self.entryRemoved.emit(entry_id)
        return removed

    def flush(self) -> asyncio.Task[list[OutboxEntry]] | None:
        """Send every entry still unanswered (oldest first, each with its own key). Returns the task
        (await it to wait for this round), or None when the outbox is closed."""
        if self._closed:
            return None
        return self._start(self._flush(), name="outbox flush")

    def entries(self) -> list[OutboxEntry]:
        return self._store.list(self.profile) + list(self._unsaved.values())

    def get(self, entry_id: str) -> OutboxEntry | None:
        return self._store.get(entry_id) or self._unsaved.get(entry_id)

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

    # --- sending ---------------------------------------------------------------------------------------------

    def _start(self, coro: Any, *, name: str) -> asyncio.Task[Any]:
        task = self._runner.start(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _flush(self) -> list[OutboxEntry]:
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
        self.entryChanged.emit(entry)
        failure: CastdeckError | None = None
        try:
            accepted = await self._session.guard(self._call(entry), write=True)
        except (UnauthorizedError, ForbiddenError) as error:
            failure = error
            # The key was refused, not the write: keep it for when a working key is in place.
            entry = await self._record_fault(entry, error, schedule=False)
        except (APIConnectionError, ServerError, RateLimitedError, InvalidResponseError) as error:
            failure = error
            entry = await self._record_fault(entry, error, schedule=True)
        except ApiError as error:
            failure = error
            entry = await self._session.on_disk(
                self._store.mark_rejected, entry.id, _message(error), error.request_id, _problem(error)
            )
            log.info("outbox %s %s rejected: %s", entry.kind, entry.id, error)
        except InputValidationError as error:
            failure = error
            # Refused before sending (it could never be sent as it is).
            entry = await self._session.on_disk(
                self._store.mark_rejected, entry.id, str(error), None,
                {"status": None, "type": "input_validation",
                 "errors": [e.model_dump(mode="json") for e in error.errors]},
            )  # fmt: skip
        except CastdeckError as error:
            failure = error
            entry = await self._record_fault(entry, error, schedule=True)
        else:
            entry = await self._session.on_disk(
                self._store.mark_sent, entry.id, accepted.data.id, accepted.request_id
            )
            self._faults = 0
            self.entryChanged.emit(entry)
            self.accepted.emit(entry, accepted)
            return Sent(entry, accepted=accepted)
        self.entryChanged.emit(entry)
        return Sent(entry, error=failure)

    async def _record_fault(self, entry: OutboxEntry, error: CastdeckError, *, schedule: bool) -> OutboxEntry:
        request_id = getattr(error, "request_id", None)
        stored = await self._session.on_disk(
            self._store.mark_failed_attempt, entry.id, _message(error), request_id
        )
        log.info(
            "outbox %s %s: no answer (%s); resending later with the same key", entry.kind, entry.id, error
        )
        if schedule:
            self._schedule(_retry_after(error))
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
        if retry_after is not None:
            delay = min(max(retry_after, 0.0), self._max_delay)
        else:
            ceiling = min(self._max_delay, self._base_delay * (2**self._faults))
            delay = random.uniform(ceiling / 2, ceiling)
        self._faults += 1
        remaining = self._timer.remainingTime() / 1000 if self._timer.isActive() else None
        if remaining is None or delay < remaining:
            self._timer.start(max(1, round(delay * 1000)))

    def _on_timer(self) -> None:
        if self._closed:
            return
        if self._session.state in (ConnectionState.OFFLINE, ConnectionState.REJECTED):
            return  # the session's reconnect flushes (or a working key and a flush at start)
        self.flush()


def _message(error: CastdeckError) -> str:
    if isinstance(error, ApiError):
        text = error.detail or error.title or str(error)
        if error.errors:
            text += " (" + "; ".join(f"{e.field or 'body'}: {e.message}" for e in error.errors) + ")"
        return f"{error.status}: {text}"
    return str(error) or type(error).__name__


def _problem(error: ApiError) -> dict[str, Any]:
    return {
        "status": error.status,
        "type": error.type,
        "title": error.title,
        "detail": error.detail,
        "errors": [e.model_dump(mode="json") for e in error.errors],
        "reason": error.reason,
        "recovery": error.recovery.model_dump(mode="json", exclude_none=True)
        if error.recovery is not None
        else None,
    }


def _retry_after(error: CastdeckError) -> float | None:
    if isinstance(error, RateLimitedError):
        return error.retry_after
    if isinstance(error, ServerError):
        return parse_retry_after(error.headers.get("retry-after"))
    return None
