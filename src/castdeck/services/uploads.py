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

Alongside: :mod:`.upload_files` walks and checks the local files, :mod:`.upload_transfer` holds the
steps of one item's transfer (a mixin of the queue), :mod:`.upload_progress` the progress figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import time
import uuid
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, NoReturn

from PySide6.QtCore import QObject, QTimer, Signal

from castdeck.api.local_files import LocalFile
from castdeck.api.uploads import CHUNK_SIZE, discard_source
from castdeck.store.uploads import UploadItem, UploadStore

from .session import ConnectionState, Session
from .upload_files import MAX_DROP_FILES, scan_drop
from .upload_progress import SpeedMeter, Transfer
from .upload_transfer import MAX_FRESH_SLOTS, PUT_RETRY_DELAYS, Stopped, TransferSteps, describe_error

__all__ = [
    "MAX_DROP_FILES",
    "MAX_FRESH_SLOTS",
    "PROGRESS_INTERVAL",
    "PUT_RETRY_DELAYS",
    "Transfer",
    "UploadQueue",
]

log = logging.getLogger(__name__)


PROGRESS_INTERVAL = 0.125
"""At most ~8 byte-progress updates per second per item (state changes are emitted at once)."""


def _save_message(error: Exception) -> str:
    return (
        f"The upload queue could not be saved ({error}); this upload was stopped. "
        "Free some disk space, then choose Retry."
    )


# --- the queue ------------------------------------------------------------------------------------------------


class UploadQueue(TransferSteps, QObject):
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
        self._meters: dict[str, SpeedMeter] = {}
        self._emitted: dict[str, float] = {}
        self._unsaid: set[str] = set()
        """Items whose last bytes were not announced yet (held back by :data:`PROGRESS_INTERVAL`)."""
        self._say_unsaid = QTimer(self)
        self._say_unsaid.setObjectName("upload progress said late")
        self._say_unsaid.setSingleShot(True)
        self._say_unsaid.setInterval(round(PROGRESS_INTERVAL * 1000))
        self._say_unsaid.timeout.connect(self._progress_late)
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
        checked = await asyncio.to_thread(scan_drop, [Path(p) for p in paths], prepare_visuals)
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
                    error=None if isinstance(result, LocalFile) else describe_error(result),
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

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran (the app is closing or the session was replaced)."""
        return self._closed

    async def close(self) -> None:
        """Stop every transfer; items stay stored as they are and resume at the next :meth:`start`."""
        self._closed = True
        self._say_unsaid.stop()
        self._unsaid.clear()
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
        self._unsaid.discard(item_id)
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
            raise Stopped
        # "Clear finished" may have taken a finished item off the queue while it was stored: its
        # last state is still the answer (a finished upload's source is still announced)
        return self._items.get(item_id, item)

    async def _fail(self, item_id: str, message: str, **changes: Any) -> NoReturn:
        await self._set(item_id, state="failed", error=message, reserving=False, **changes)
        raise Stopped

    def _progress(self, item_id: str) -> Callable[[int, int], None]:
        meter = self._meters[item_id] = SpeedMeter()

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
                self._unsaid.discard(item_id)
                self.itemChanged.emit(item)
            else:  # said at the end of the interval at the latest: a transfer that stalls now
                self._unsaid.add(item_id)  # must not go on showing the bytes of before
                if not self._say_unsaid.isActive() and not self._closed:
                    self._say_unsaid.start()

        return report

    def _progress_late(self) -> None:
        """The bytes that moved since the last announcement, for the items that said nothing since."""
        unsaid, self._unsaid = self._unsaid, set()
        now = time.monotonic()
        for item_id in unsaid:
            item = self._items.get(item_id)
            if item is not None:
                self._emitted[item_id] = now
                self.itemChanged.emit(item)

    def _forget(self, item_id: str) -> None:
        self._meters.pop(item_id, None)
        self._emitted.pop(item_id, None)
        self._unsaid.discard(item_id)

    # --- internals: tasks -----------------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        task = self._session.tasks.start(coro, name=name)
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
            self._spawn(discard_source(self._session.client.transport, source_id), name="upload discard")

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
                task = self._session.tasks.start(self._work(item.id), name=f"upload {item.name}")
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

    # --- internals: one transfer: _retry, _work and their steps are TransferSteps (upload_transfer.py) ---


def _clamp(value: int) -> int:
    return max(1, min(8, int(value)))
