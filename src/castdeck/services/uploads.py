"""The upload queue: files the user dropped, checked, reserved, sent to their slot and completed.

Every item is a row of :class:`UploadStore`; every change of state is written on the session's
disk thread as it happens (the ``reserving`` mark before the reservation leaves), so a new queue
on the same store resumes where the last one stopped: ``queued`` and ``uploading`` items are sent
again (to the same slot while it is valid, else to a fresh one), ``completing`` ones complete again
(safe to repeat), ``done`` ones are never sent again.

Faults. The reservation (``POST /v1/sources/uploads``) has no idempotency key: it is never repeated
automatically; no answer (connection, timeout, 5xx) or a stop while it was out leaves the item
``failed`` for the user to retry. PUTs of the bytes to a valid slot are retried a few times with
backoff. An expired slot, or one the signed address refuses (403), is replaced by a fresh
reservation (the old one is known to refuse the bytes, so that is no repeated write) and the old
source is deleted, best effort. A file changed, removed or unreadable since it was queued is never
completed. When the store cannot be written (a full disk) the item stops with a message saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import sqlite3
import stat
import time
import uuid
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from PySide6.QtCore import QObject, Signal

from castdeck.api import (
    APIConnectionError,
    ApiError,
    CastdeckError,
    ConflictError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    UnprocessableError,
    UploadError,
)
from castdeck.api.models import Source, UploadReservation, UploadSlot
from castdeck.api.models.files import VOICEOVER_VISUAL_MIME_TYPES
from castdeck.api.uploads import (
    CHUNK_SIZE,
    LocalFile,
    SlotExpired,
    check_source_file,
    complete_upload,
    discard_source,
    reserve_upload,
    send_to_slot,
    slot_expired,
)
from castdeck.store.uploads import UploadItem, UploadStore

from .session import ConnectionState, Session
from .tasks import tasks

__all__ = ["MAX_DROP_FILES", "MAX_FRESH_SLOTS", "PUT_RETRY_DELAYS", "Transfer", "UploadQueue"]

log = logging.getLogger(__name__)

MAX_DROP_FILES = 1000
"""Files taken from one drop; beyond that one refused row says the rest were left out."""

PUT_RETRY_DELAYS = (1.0, 3.0, 8.0)
"""Seconds before each automatic resend of the bytes to a valid slot after a fault."""

MAX_FRESH_SLOTS = 2
"""Fresh reservations per attempt after an expired or refused slot."""

PROGRESS_INTERVAL = 0.125
"""At most ~8 byte-progress updates per second per item (state changes are emitted at once)."""

SPEED_HALF_LIFE = 2.0
"""Seconds over which the speed estimate forgets half of its past."""


@dataclass(frozen=True)
class Transfer:
    sent: int
    total: int
    speed: float | None  # bytes per second, smoothed; None when unknown
    eta: float | None  # seconds left; None when unknown


class _Stopped(Exception):
    """The worker's item can go no further (its state already says why)."""


class _Meter:
    """A smoothed speed: an exponentially weighted average of the rate between progress reports."""

    def __init__(self) -> None:
        self.speed: float | None = None
        self._last: tuple[float, int] | None = None

    def note(self, sent: int) -> None:
        now = time.monotonic()
        if self._last is None or sent < self._last[1]:
            self._last = (now, sent)
            return
        then, before = self._last
        elapsed = now - then
        if elapsed < 0.1:
            return
        rate = (sent - before) / elapsed
        weight = 1.0 - 0.5 ** (elapsed / SPEED_HALF_LIFE)
        self.speed = rate if self.speed is None else self.speed + weight * (rate - self.speed)
        self._last = (now, sent)


# --- the local side (worker threads) -----------------------------------------------------------------------------


def _is_hidden(name: str) -> bool:
    return name.startswith(".")


def _expand(paths: list[Path], limit: int) -> tuple[list[Path], Path | None]:
    """Dropped paths to files, in order: folders walked (sorted, hidden entries and symlinked folders
    skipped). Returns at most ``limit`` files and the first path left out (None when none was)."""
    found: list[Path] = []

    def walk(folder: Path) -> Path | None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return None  # unreadable folder: nothing to add from it
        for entry in entries:
            if _is_hidden(entry.name):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                over = walk(Path(entry.path))
                if over is not None:
                    return over
                continue
            if entry.is_symlink() and Path(entry.path).is_dir():
                continue  # symlinked folders are not followed
            if len(found) >= limit:
                return Path(entry.path)
            found.append(Path(entry.path))
        return None

    for path in paths:
        if path.is_dir() and not path.is_symlink():
            over = walk(path)
        elif len(found) >= limit:
            over = path
        else:
            found.append(path)
            over = None
        if over is not None:
            return found, over
    return found, None


def _check(path: Path, prepare_visuals: bool) -> LocalFile | UploadError:
    try:
        return check_source_file(
            path, prepare_visuals=prepare_visuals, visual_types=VOICEOVER_VISUAL_MIME_TYPES
        )
    except UploadError as error:
        return error


def _scan(paths: list[Path], prepare_visuals: bool) -> list[tuple[Path, LocalFile | UploadError]]:
    files, over = _expand([p.absolute() for p in paths], MAX_DROP_FILES)
    checked: list[tuple[Path, LocalFile | UploadError]] = [(p, _check(p, prepare_visuals)) for p in files]
    if over is not None:
        checked.append(
            (
                over.parent,
                UploadError(
                    f"this drop holds more than {MAX_DROP_FILES:,} files; only the first {MAX_DROP_FILES:,} "
                    "were added. Add the rest in another drop.",
                    path=str(over.parent),
                ),
            )
        )
    return checked


def _file_problem(item: UploadItem) -> str | None:
    """Why the file can no longer be sent as queued (None when it is unchanged)."""
    try:
        info = os.stat(item.path)
    except FileNotFoundError:
        return "The file was removed after it was added to the queue. Add it again to upload it."
    except OSError as exc:
        return f"The file cannot be read ({exc.strerror or exc})."
    if not stat.S_ISREG(info.st_mode):
        return "The file is no longer a regular file that can be read."
    if info.st_size != item.size or info.st_mtime_ns != item.mtime_ns:
        return (
            "The file changed after it was added to the queue; it was not uploaded. "
            "Choose Retry to upload its current version."
        )
    try:
        with open(item.path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        return f"The file cannot be read ({exc.strerror or exc})."
    return None


def _describe(error: CastdeckError) -> str:
    if isinstance(error, UploadError):
        return error.reason[:1].upper() + error.reason[1:] + "."
    if isinstance(error, ApiError):
        text = error.detail or error.title or str(error)
        if error.errors:
            text += " (" + "; ".join(f"{e.field or 'body'}: {e.message}" for e in error.errors) + ")"
        return text
    return str(error) or type(error).__name__


def _save_message(error: Exception) -> str:
    return (
        f"The upload queue could not be saved ({error}); this upload was stopped. "
        "Free some disk space, then choose Retry."
    )


# --- the queue ------------------------------------------------------------------------------------------------


class UploadQueue(QObject):
    itemAdded = Signal(object)  # UploadItem
    itemChanged = Signal(object)  # UploadItem
    itemRemoved = Signal(str)  # item id
    sourceUploaded = Signal(object, object)  # (UploadItem, Source)
    DEFAULT_CONCURRENCY = 3

    def __init__(
        self,
        session: Session,
        store: UploadStore,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        chunk_size: int = CHUNK_SIZE,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._store = store
        self._concurrency = _clamp(concurrency)
        self._chunk_size = chunk_size
        self._items: dict[str, UploadItem] = {}
        self._running: dict[str, asyncio.Task[None]] = {}
        self._meters: dict[str, _Meter] = {}
        self._emitted: dict[str, float] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loading: asyncio.Task[None] | None = None
        self._stopping: set[asyncio.Task[None]] = set()
        self._closed = False
        self.put_retry_delays: tuple[float, ...] = PUT_RETRY_DELAYS
        session.reconnected.connect(self._pump)

    @property
    def profile(self) -> str:
        return self._session.profile.name

    # --- settings and reading -------------------------------------------------------------------------------

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @concurrency.setter
    def concurrency(self, value: int) -> None:
        self._concurrency = _clamp(value)
        self._pump()

    def items(self) -> list[UploadItem]:
        return sorted(self._items.values(), key=lambda i: (i.position, i.created_at))

    def item(self, item_id: str) -> UploadItem | None:
        return self._items.get(item_id)

    def transfer(self, item_id: str) -> Transfer:
        item = self._items.get(item_id)
        if item is None:
            return Transfer(0, 0, None, None)
        sent = item.size if item.state == "done" else item.sent
        meter = self._meters.get(item_id)
        speed = meter.speed if meter is not None and item.state == "uploading" else None
        eta = (item.size - sent) / speed if speed else None
        return Transfer(sent, item.size, speed, eta)

    def totals(self) -> Transfer:
        sent = total = left = 0
        speed: float | None = None
        for item in self._items.values():
            if item.state in ("refused", "cancelled"):
                continue
            one = self.transfer(item.id)
            sent += one.sent
            total += one.total
            if item.active:
                left += one.total - one.sent
            if one.speed is not None:
                speed = (speed or 0.0) + one.speed
        eta = left / speed if speed else None
        return Transfer(sent, total, speed, eta)

    # --- adding ---------------------------------------------------------------------------------------------

    async def add_paths(
        self, paths: Iterable[Path], *, prepare_visuals: bool = False, title: str | None = None
    ) -> list[UploadItem]:
        """Folders expanded recursively (hidden entries inside them skipped, symlinked folders not
        followed), each file checked off the UI thread; refused files stored as ``refused`` with the
        reason, the rest ``queued``. At most :data:`MAX_DROP_FILES` files per drop: beyond that, one
        refused row (the folder) says so. Returns the new items in order."""
        if self._closed:
            raise RuntimeError("the upload queue is closed")
        checked = await asyncio.to_thread(_scan, [Path(p) for p in paths], prepare_visuals)
        if not checked:
            return []
        try:
            stored_next = await self._session.on_disk(self._store.next_position, self.profile)
        except sqlite3.Error:
            stored_next = 0
        position = max([stored_next, *(i.position + 1 for i in self._items.values())])
        batch = uuid.uuid4().hex
        now = time.time()
        new: list[UploadItem] = []
        for offset, (path, result) in enumerate(checked):
            ok = isinstance(result, LocalFile)
            new.append(
                UploadItem(
                    id=uuid.uuid4().hex,
                    profile=self.profile,
                    path=str(path),
                    name=result.name if isinstance(result, LocalFile) else (path.name or str(path)),
                    mime_type=result.mime_type if isinstance(result, LocalFile) else None,
                    size=result.size if isinstance(result, LocalFile) else 0,
                    mtime_ns=result.mtime_ns if isinstance(result, LocalFile) else 0,
                    prepare_visuals=prepare_visuals,
                    batch=batch,
                    position=position + offset,
                    state="queued" if ok else "refused",
                    error=None if isinstance(result, LocalFile) else _describe(result),
                    created_at=now,
                    updated_at=now,
                    title=title,
                )
            )
        try:
            await self._session.on_disk(self._store.add_many, new)
        except sqlite3.Error as exc:
            log.warning("upload queue not saved: %s", exc)
            message = _save_message(exc).replace("this upload was stopped", "these files were not queued")
            new = [i.with_changes(state="failed", error=message) if i.state == "queued" else i for i in new]
        for item in new:
            self._items[item.id] = item
            self.itemAdded.emit(item)
        self._pump()
        return new

    # --- user actions -------------------------------------------------------------------------------------

    def pause(self, item_id: str) -> None:
        item = self._items.get(item_id)
        if item is None or not item.can_pause:
            return
        self._stop_worker(item_id)
        # A reservation cut short may or may not have been made: resuming is the user's choice.
        self._commit(item_id, state="paused", error=None, reserving=False)

    def resume(self, item_id: str) -> None:
        item = self._items.get(item_id)
        if item is None or not item.can_resume:
            return
        self._commit(item_id, state="queued", error=None, sent=0)
        self._pump()

    def cancel(self, item_id: str) -> None:
        item = self._items.get(item_id)
        if item is None or not item.can_cancel:
            return
        self._stop_worker(item_id)
        if item.source_id is not None and item.sent < item.size:
            self._discard(item.source_id)  # the source never got its bytes
        self._commit(item_id, state="cancelled", error=None, source_id=None, slot=None, reserving=False)

    def retry(self, item_id: str) -> None:
        item = self._items.get(item_id)
        if item is None or not item.can_retry or self._closed:
            return
        self._spawn(self._retry(item_id), name="upload retry")

    def remove(self, item_id: str) -> None:
        item = self._items.get(item_id)
        if item is None or not item.can_remove:
            return
        if item.source_id is not None and item.state in ("paused", "failed") and item.sent < item.size:
            self._discard(item.source_id)
        del self._items[item_id]
        self._forget(item_id)
        self.itemRemoved.emit(item_id)
        self._spawn(self._disk_quietly(self._store.remove, item_id), name="upload remove")

    def pause_all(self) -> None:
        for item in self.items():
            if item.state == "queued":
                self.pause(item.id)
        for item in self.items():
            self.pause(item.id)

    def resume_all(self) -> None:
        for item in self.items():
            self.resume(item.id)

    def cancel_all(self) -> None:
        for item in self.items():
            if item.state == "queued":
                self.cancel(item.id)
        for item in self.items():
            self.cancel(item.id)

    def retry_all(self) -> None:
        for item in self.items():
            if item.state == "failed":
                self.retry(item.id)

    def clear_finished(self) -> int:
        finished = [i.id for i in self.items() if i.finished]
        for item_id in finished:
            del self._items[item_id]
            self._forget(item_id)
            self.itemRemoved.emit(item_id)
        if finished:
            self._spawn(self._disk_quietly(self._store.remove_many, finished), name="upload clear")
        return len(finished)

    # --- lifetime -------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Load the stored items (off the UI thread) and resume the unfinished ones."""
        if self._loading is None and not self._closed:
            self._loading = self._spawn(self._load(), name="upload queue load")

    async def loaded(self) -> None:
        """Wait until :meth:`start` has loaded the stored items."""
        if self._loading is not None:
            await asyncio.shield(self._loading)

    async def close(self) -> None:
        """Stop every transfer; items stay stored as they are and resume at the next :meth:`start`."""
        self._closed = True
        with contextlib.suppress(RuntimeError, TypeError):
            self._session.reconnected.disconnect(self._pump)
        for task in list(self._running.values()):
            task.cancel()
        running = [*self._running.values(), *(t for t in self._tasks if t.get_name() == "upload save")]
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        others = [t for t in self._tasks if not t.done()]
        if others:  # best-effort deletes get a moment to finish
            await asyncio.wait(others, timeout=2.0)
        for task in others:
            task.cancel()
        if others:
            await asyncio.gather(*others, return_exceptions=True)

    async def _load(self) -> None:
        try:
            stored = await self._session.on_disk(self._store.list, self.profile)
        except sqlite3.Error as exc:
            log.warning("upload queue not read: %s", exc)
            return
        for item in stored:
            if item.id in self._items:
                continue
            changed = True
            if item.reserving:
                item = item.with_changes(
                    state="failed",
                    reserving=False,
                    error="The app stopped while an upload slot was being reserved; the service may or may "
                    "not have reserved it. Choose Retry to reserve a slot again.",
                )
            elif item.state == "uploading":
                item = item.with_changes(state="queued", sent=0)  # its slot is kept (reused while valid)
            else:
                changed = False
            self._items[item.id] = item
            self.itemAdded.emit(item)
            if changed:
                self._spawn(self._write(item.id), name="upload save")
        self._pump()

    # --- internals: state -----------------------------------------------------------------------------------

    def _change(self, item_id: str, **changes: Any) -> UploadItem | None:
        """Change the item in memory and say so (state changes: at once)."""
        item = self._items.get(item_id)
        if item is None:
            return None
        item = item.with_changes(**changes)
        self._items[item_id] = item
        self._emitted[item_id] = time.monotonic()
        self.itemChanged.emit(item)
        return item

    def _commit(self, item_id: str, **changes: Any) -> None:
        """Change the item and store it in the background."""
        if self._change(item_id, **changes) is not None:
            self._spawn(self._write(item_id), name="upload save")

    async def _save(self, item_id: str) -> bool:
        """Store the item and wait for it. The write itself goes on when the waiting worker is
        cancelled (a pause, :meth:`close`): a state shown is a state stored."""
        return bool(await asyncio.shield(self._spawn(self._write(item_id), name="upload save")))

    async def _write(self, item_id: str) -> bool:
        """Store the item as it is when the disk thread gets to it; False (and the item stopped,
        saying why) when the store cannot be written."""

        def write() -> None:
            current = self._items.get(item_id)
            if current is not None:
                self._store.update(current)

        try:
            await self._session.on_disk(write)
        except sqlite3.Error as exc:
            log.warning("upload queue not saved: %s", exc)
            self._save_failed(item_id, exc)
            return False
        return True

    def _save_failed(self, item_id: str, error: Exception) -> None:
        item = self._items.get(item_id)
        if item is None:
            return
        if item.state == "done":
            self._change(item_id, error=f"Uploaded, but the upload queue could not be saved ({error}).")
            return
        worker = self._running.get(item_id)
        if worker is not None and worker is not asyncio.current_task():
            self._stop_worker(item_id)
        self._change(item_id, state="failed", error=_save_message(error), reserving=False)

    async def _set(self, item_id: str, **changes: Any) -> UploadItem:
        """From a worker: change the item, store it and wait until it is stored."""
        item = self._change(item_id, **changes)
        if item is None or not await self._save(item_id):
            raise _Stopped
        return self._items[item_id]

    async def _fail(self, item_id: str, message: str, **changes: Any) -> NoReturn:
        await self._set(item_id, state="failed", error=message, reserving=False, **changes)
        raise _Stopped

    def _progress(self, item_id: str) -> Callable[[int, int], None]:
        meter = self._meters[item_id] = _Meter()

        def report(sent: int, total: int) -> None:
            item = self._items.get(item_id)
            if item is None:
                return
            meter.note(sent)
            item = item.with_changes(sent=sent)
            self._items[item_id] = item
            now = time.monotonic()
            if sent >= total or now - self._emitted.get(item_id, 0.0) >= PROGRESS_INTERVAL:
                self._emitted[item_id] = now
                self.itemChanged.emit(item)

        return report

    def _forget(self, item_id: str) -> None:
        self._meters.pop(item_id, None)
        self._emitted.pop(item_id, None)

    # --- internals: tasks -----------------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        task = tasks.start(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _disk_quietly(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            await self._session.on_disk(fn, *args)
        except sqlite3.Error as exc:
            log.warning("upload queue not saved: %s", exc)

    def _discard(self, source_id: str) -> None:
        """Delete an unused source, best effort, in the background."""
        if not self._closed:
            self._spawn(discard_source(self._session.client.sources, source_id), name="upload discard")

    def _stop_worker(self, item_id: str) -> None:
        task = self._running.get(item_id)
        if task is not None:
            self._stopping.add(task)
            task.cancel()

    def _pump(self) -> None:
        """Start transfers for waiting items while places are free (in queue order)."""
        if self._closed or self._session.state is ConnectionState.OFFLINE:
            return  # offline: the session's reconnection pumps again
        for item in self.items():
            if len(self._running) >= self._concurrency:
                return
            if item.state in ("queued", "completing") and item.id not in self._running:
                task = tasks.start(self._work(item.id), name=f"upload {item.name}")
                self._running[item.id] = task
                task.add_done_callback(functools.partial(self._worker_done, item.id))

    def _worker_done(self, item_id: str, task: asyncio.Task[None]) -> None:
        if self._running.get(item_id) is task:
            del self._running[item_id]
        self._meters.pop(item_id, None)
        stopped_here = task in self._stopping
        self._stopping.discard(task)
        if task.cancelled() and not stopped_here:
            return  # stopped from outside (the app quits): start nothing new
        self._pump()

    # --- internals: one transfer -----------------------------------------------------------------------------

    async def _retry(self, item_id: str) -> None:
        stopping = self._running.get(item_id)
        if stopping is not None:  # cancelled a moment ago: let it end first
            await asyncio.wait([stopping])
        item = self._items[item_id]
        result = await asyncio.to_thread(_check, Path(item.path), item.prepare_visuals)
        item = self._items.get(item_id) or item
        if not item.can_retry or item_id in self._running:
            return
        if isinstance(result, UploadError):
            self._commit(item_id, state="refused", error=_describe(result))
            return
        same = (result.size, result.mtime_ns, result.mime_type, result.name) == (
            item.size, item.mtime_ns, item.mime_type, item.name
        )  # fmt: skip
        changes: dict[str, Any] = {}
        state = "queued"
        if same and item.state == "failed" and item.source_id is not None and item.sent >= item.size:
            state = "completing"  # the bytes went out; only the completion (safe to repeat) is missing
        elif not same or item.state == "cancelled":
            if item.source_id is not None and item.state != "cancelled":
                self._discard(item.source_id)
            changes = dict(source_id=None, slot=None, size=result.size, mtime_ns=result.mtime_ns,
                           mime_type=result.mime_type, name=result.name)  # fmt: skip
        if state == "queued":
            changes["sent"] = 0
        self._commit(item_id, state=state, error=None, reserving=False, **changes)
        self._pump()

    async def _work(self, item_id: str) -> None:
        with contextlib.suppress(_Stopped):
            await self._transfer(item_id)

    async def _transfer(self, item_id: str) -> None:
        item = self._items[item_id]
        local = LocalFile(Path(item.path), item.name, item.mime_type or "", item.size, item.mtime_ns)
        if item.state != "completing":
            problem = await self._session.on_disk(_file_problem, item)
            if problem is not None:
                await self._fail(item_id, problem)
        fresh = 0
        while True:
            item = self._items[item_id]
            if item.state != "completing":
                item = await self._slot_for(item_id, local)
                if not await self._send(item_id, local):
                    fresh = await self._next_slot(item_id, fresh)
                    continue
            source = await self._complete(item_id)
            if source is None:
                fresh = await self._next_slot(item_id, fresh)
                continue
            done = await self._set(item_id, state="done", source_id=source.id, error=None, sent=item.size)
            self.sourceUploaded.emit(done, source)
            return

    async def _next_slot(self, item_id: str, fresh: int) -> int:
        """The slot is gone: forget it (deleting its source) for a fresh reservation, a few times."""
        item = self._items[item_id]
        if item.source_id is not None:
            self._discard(item.source_id)
        if fresh >= MAX_FRESH_SLOTS:
            await self._fail(
                item_id,
                "The upload slot expired or was refused again after reserving a fresh one. Choose Retry.",
                source_id=None, slot=None,
            )  # fmt: skip
        await self._set(item_id, state="uploading", source_id=None, slot=None, sent=0)
        return fresh + 1

    async def _slot_for(self, item_id: str, local: LocalFile) -> UploadItem:
        """The item's slot while it is valid, else a fresh reservation (never repeated after no answer)."""
        item = self._items[item_id]
        if (
            item.slot is not None
            and item.source_id is not None
            and not slot_expired(item.slot.get("expires_at"))
        ):
            return await self._set(item_id, state="uploading", sent=0, error=None)
        if item.source_id is not None:
            self._discard(item.source_id)  # its slot expired before the bytes went out
        await self._set(
            item_id, state="uploading", sent=0, error=None, source_id=None, slot=None, reserving=True
        )
        resource = self._session.client.sources
        try:
            reservation: UploadReservation = await self._session.guard(
                reserve_upload(resource, local, title=item.title, prepare_visuals=item.prepare_visuals),
                write=True,
            )
        except (APIConnectionError, ServerError, InvalidResponseError) as error:
            await self._fail(
                item_id,
                f"No answer to the upload reservation ({_describe(error)}). The service may have reserved "
                "it anyway; it was not sent again. Choose Retry to reserve a slot again.",
                request_id=getattr(error, "request_id", None),
            )
        except ApiError as error:
            await self._fail(
                item_id, f"The service refused the upload: {_describe(error)}", request_id=error.request_id
            )
        except CastdeckError as error:  # refused before sending (the input could never be sent)
            await self._fail(item_id, f"The upload could not be reserved: {_describe(error)}")
        slot = reservation.upload.model_dump(mode="json")
        return await self._set(
            item_id, reserving=False, source_id=reservation.source.id, slot=slot,
            request_id=self._session.client.last_request_id,
        )  # fmt: skip

    async def _send(self, item_id: str, local: LocalFile) -> bool:
        """The bytes to the item's slot, resent a few times after faults; False when the slot is gone."""
        item = self._items[item_id]
        assert item.slot is not None
        slot = UploadSlot.model_validate(item.slot)
        transport = self._session.client.transport
        for attempt in range(len(self.put_retry_delays) + 1):
            try:
                await send_to_slot(transport, slot, local, self._progress(item_id), self._chunk_size)
                break
            except SlotExpired:
                return False
            except UploadError as error:
                await self._fail(item_id, _describe(error) + " It was not completed.", sent=0)
            except ConflictError:
                break  # the service already has the bytes (an earlier completion went through)
            except NotFoundError:
                return False  # the slot's source is gone
            except (APIConnectionError, ServerError, RateLimitedError, InvalidResponseError) as error:
                if attempt >= len(self.put_retry_delays):
                    await self._fail(
                        item_id,
                        f"The file could not be sent ({_describe(error)}); tried {attempt + 1} times. Choose Retry.",
                    )
                log.info("upload %s: sending failed (%s); again shortly", item_id, error)
                delay = self.put_retry_delays[attempt]
                if isinstance(error, RateLimitedError) and error.retry_after is not None:
                    delay = max(delay, error.retry_after)
                self._change(item_id, sent=0, error=f"Sending failed ({_describe(error)}); trying again…")
                await asyncio.sleep(delay)
            except ApiError as error:
                await self._fail(item_id, f"The upload address refused the file: {_describe(error)}")
        await self._set(item_id, state="completing", sent=item.size, error=None)
        return True

    async def _complete(self, item_id: str) -> Source | None:
        """Complete the upload (safe to repeat); None when the slot expired before completion."""
        item = self._items[item_id]
        assert item.source_id is not None
        try:
            return await self._session.guard(
                complete_upload(self._session.client.sources, item.source_id), write=True
            )
        except UnprocessableError as error:
            if item.slot is not None and slot_expired(item.slot.get("expires_at")):
                return None
            await self._fail(
                item_id,
                f"The service did not accept the file: {_describe(error)}",
                request_id=error.request_id,
            )
        except NotFoundError:
            return None
        except ApiError as error:
            await self._fail(
                item_id,
                f"The upload could not be completed: {_describe(error)} Choose Retry.",
                request_id=error.request_id,
            )
        except CastdeckError as error:
            await self._fail(
                item_id, f"The upload could not be completed ({_describe(error)}). Choose Retry."
            )


def _clamp(value: int) -> int:
    return max(1, min(8, int(value)))
