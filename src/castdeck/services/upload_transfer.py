"""One item's transfer, the steps of :class:`~castdeck.services.uploads.UploadQueue` that move it
along: retry's re-check, the reservation of a slot (never repeated after no answer; made again after
a 429, which says it was not taken, or once the connection is back when none could be made), the
bytes sent to it (resent a few times after faults), a fresh slot when it expired or was refused,
and the completion (safe to repeat: after a lost connection it is made again once the connection is
back). They live in :class:`TransferSteps`, a mixin of the queue that keeps its state; every change
goes through the queue's ``_set``, ``_fail`` and ``_commit``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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
from castdeck.api.errors import is_transient
from castdeck.api.local_files import LocalFile
from castdeck.api.models import Source, UploadReservation, UploadSlot
from castdeck.api.uploads import (
    SlotExpired,
    complete_upload,
    reserve_upload,
    send_to_slot,
    slot_expired,
)
from castdeck.store.uploads import UploadItem

from .messages import error_text
from .upload_files import check_file, file_problem

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

    from PySide6.QtCore import SignalInstance

    from .session import Session

__all__ = ["MAX_FRESH_SLOTS", "PUT_RETRY_DELAYS", "Stopped", "TransferSteps", "describe_error"]

log = logging.getLogger("castdeck.services.uploads")  # the queue's own logger, as before the split

PUT_RETRY_DELAYS = (1.0, 3.0, 8.0)
"""Seconds before each automatic resend of the bytes to a valid slot after a fault."""

MAX_FRESH_SLOTS = 2
"""Fresh reservations per attempt after an expired or refused slot."""

RATE_LIMIT_WAITS = (2.0, 5.0, 10.0)
"""Seconds waited (unless the service's Retry-After says) before reserving again after a 429: a
rate-limited reservation was not taken, so reserving again repeats nothing."""
MAX_RATE_LIMIT_WAIT = 60.0

SERVICE_ORIGIN = "service_origin"
"""Kept with a stored slot: the service's origin when the slot was reserved."""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def slot_for_service(slot: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The stored slot, as the service reaches it now. A slot on the service's own host (the
    sandbox's are) moves with the service when it comes back at another address (the sandbox
    restarted on a new port); a slot on a storage host of its own stays as it was."""
    stored = {k: v for k, v in slot.items() if k != SERVICE_ORIGIN}
    then, now = slot.get(SERVICE_ORIGIN), origin_of(base_url)
    url = str(stored.get("url") or "")
    if then and then != now and origin_of(url) == then:
        stored["url"] = now + url[len(then) :]
    return stored


class Stopped(Exception):
    """The worker's item can go no further (its state already says why)."""


def describe_error(error: CastdeckError) -> str:
    """An error as a sentence for the item's row."""
    return error_text(error, status=False)


class TransferSteps:
    """The transfer steps of :class:`~castdeck.services.uploads.UploadQueue` (a mixin of it)."""

    if TYPE_CHECKING:  # what the steps use of the queue, which provides all of it
        sourceUploaded: SignalInstance
        put_retry_delays: tuple[float, ...]
        _session: Session
        _chunk_size: int
        _items: dict[str, UploadItem]
        _running: dict[str, asyncio.Task[None]]

        def _change(self, item_id: str, **changes: Any) -> UploadItem | None: ...
        def _commit(self, item_id: str, **changes: Any) -> None: ...
        async def _set(self, item_id: str, **changes: Any) -> UploadItem: ...
        async def _fail(self, item_id: str, message: str, **changes: Any) -> NoReturn: ...
        def _progress(self, item_id: str) -> Callable[[int, int], None]: ...
        def _discard(self, source_id: str) -> None: ...
        def _pump(self) -> None: ...

    async def _retry(self, item_id: str) -> None:
        stopping = self._running.get(item_id)
        if stopping is not None:  # cancelled a moment ago: let it end first
            await asyncio.wait([stopping])
        item = self._items[item_id]
        result = await asyncio.to_thread(check_file, Path(item.path), item.prepare_visuals)
        item = self._items.get(item_id) or item
        if not item.can_retry or item_id in self._running:
            return
        if isinstance(result, UploadError):
            # refused again: say that the file was looked at again (a Retry never does nothing)
            checked = time.strftime("%H:%M:%S", time.localtime())
            self._commit(
                item_id, state="refused", error=f"{describe_error(result)} (checked again at {checked})"
            )
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
        with contextlib.suppress(Stopped):
            await self._transfer(item_id)

    async def _transfer(self, item_id: str) -> None:
        item = self._items[item_id]
        local = LocalFile(Path(item.path), item.name, item.mime_type or "", item.size, item.mtime_ns)
        if item.state != "completing":
            problem = await self._session.on_disk(file_problem, item)
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

    async def _wait_for_connection(self, item_id: str, state: str, note: str) -> NoReturn:
        """Stop this transfer where it stands (``queued``: reserve again; ``completing``: complete
        again); the queue takes it up again when the session is back online."""
        await self._set(item_id, state=state, error=note, reserving=False)
        raise Stopped

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
            and not slot_expired(item.slot.get("expires_at"), self._session.clock.time())
        ):
            return await self._set(item_id, state="uploading", sent=0, error=None)
        if item.source_id is not None:
            self._discard(item.source_id)  # its slot expired before the bytes went out
        await self._set(
            item_id, state="uploading", sent=0, error=None, source_id=None, slot=None, reserving=True
        )
        for wait in (*RATE_LIMIT_WAITS, None):
            try:
                reservation: UploadReservation = await self._session.guard(
                    reserve_upload(
                        self._session.client.transport,
                        local,
                        title=item.title,
                        prepare_visuals=item.prepare_visuals,
                    ),
                    write=True,
                )
                break
            except RateLimitedError as error:
                # Not taken (nothing was reserved): wait as asked, then reserve (for the first time).
                if wait is None:
                    await self._fail(
                        item_id,
                        f"The service is busy ({describe_error(error)}); nothing was reserved. Choose Retry.",
                        request_id=error.request_id,
                    )
                pause = min(max(error.retry_after or wait, 0.5), MAX_RATE_LIMIT_WAIT)
                self._change(item_id, error=f"The service asked to wait; reserving in {pause:.0f} s…")
                await asyncio.sleep(pause)
            except APIConnectionError as error:
                if not error.sent:  # no connection: nothing was reserved
                    await self._wait_for_connection(
                        item_id, "queued", "Waiting for the connection; nothing was reserved yet."
                    )
                await self._fail(
                    item_id,
                    f"No answer to the upload reservation ({describe_error(error)}). The service may have reserved "
                    "it anyway; it was not sent again. Choose Retry to reserve a slot again.",
                    request_id=getattr(error, "request_id", None),
                )
            except (ServerError, InvalidResponseError) as error:
                await self._fail(
                    item_id,
                    f"No answer to the upload reservation ({describe_error(error)}). The service may have reserved "
                    "it anyway; it was not sent again. Choose Retry to reserve a slot again.",
                    request_id=getattr(error, "request_id", None),
                )
            except ApiError as error:
                await self._fail(
                    item_id,
                    f"The service refused the upload: {describe_error(error)}",
                    request_id=error.request_id,
                )
            except CastdeckError as error:  # refused before sending (the input could never be sent)
                await self._fail(item_id, f"The upload could not be reserved: {describe_error(error)}")
        slot = reservation.upload.model_dump(mode="json")
        slot[SERVICE_ORIGIN] = origin_of(self._session.profile.base_url)
        return await self._set(
            item_id, reserving=False, source_id=reservation.source.id, slot=slot,
            request_id=self._session.client.last_request_id,
        )  # fmt: skip

    async def _send(self, item_id: str, local: LocalFile) -> bool:
        """The bytes to the item's slot, resent a few times after faults; False when the slot is gone."""
        item = self._items[item_id]
        assert item.slot is not None
        slot = UploadSlot.model_validate(slot_for_service(item.slot, self._session.profile.base_url))
        transport = self._session.client.transport
        for attempt in range(len(self.put_retry_delays) + 1):
            try:
                await send_to_slot(transport, slot, local, self._progress(item_id), self._chunk_size)
                break
            except SlotExpired:
                return False
            except UploadError as error:
                await self._fail(item_id, describe_error(error) + " It was not completed.", sent=0)
            except ConflictError:
                break  # the service already has the bytes (an earlier completion went through)
            except NotFoundError:
                return False  # the slot's source is gone
            except CastdeckError as error:
                if not is_transient(error):
                    await self._fail(item_id, f"The upload address refused the file: {describe_error(error)}")
                if attempt >= len(self.put_retry_delays):
                    await self._fail(
                        item_id,
                        f"The file could not be sent ({describe_error(error)}); tried {attempt + 1} times. Choose Retry.",
                    )
                log.info("upload %s: sending failed (%s); again shortly", item_id, error)
                # the service's Retry-After wins over our own pause when it asks for longer
                delay = max(self.put_retry_delays[attempt], error.retry_after or 0.0)
                self._change(
                    item_id, sent=0, error=f"Sending failed ({describe_error(error)}); trying again…"
                )
                await asyncio.sleep(delay)
        await self._set(item_id, state="completing", sent=item.size, error=None)
        return True

    async def _complete(self, item_id: str) -> Source | None:
        """Complete the upload (safe to repeat); None when the slot expired before completion."""
        item = self._items[item_id]
        assert item.source_id is not None
        try:
            return await self._session.guard(
                complete_upload(self._session.client.transport, item.source_id), write=True
            )
        except UnprocessableError as error:
            if item.slot is not None and slot_expired(
                item.slot.get("expires_at"), self._session.clock.time()
            ):
                return None
            await self._fail(
                item_id,
                f"The service did not accept the file: {describe_error(error)}",
                request_id=error.request_id,
            )
        except NotFoundError:
            return None
        except APIConnectionError:
            # The bytes are there and completing is safe to repeat: again once the service answers.
            await self._wait_for_connection(
                item_id, "completing", "The connection was lost; the upload completes when it returns."
            )
        except ApiError as error:
            await self._fail(
                item_id,
                f"The upload could not be completed: {describe_error(error)} Choose Retry.",
                request_id=error.request_id,
            )
        except CastdeckError as error:
            await self._fail(
                item_id, f"The upload could not be completed ({describe_error(error)}). Choose Retry."
            )
