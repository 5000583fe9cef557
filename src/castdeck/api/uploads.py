"""File transfers: source uploads through signed slots and episode cover images.

Uploads are checked on disk before any request (:mod:`castdeck.api.local_files`), then streamed
from disk in chunks read on a private thread, with an explicit ``Content-Length`` (signed
addresses refuse chunked bodies), to the reservation's address through the transport's
credential-free client. The whole file is never in memory. Downloads: :mod:`castdeck.api.downloads`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx

from .errors import (
    APIConnectionError,
    CastdeckError,
    ConflictError,
    InvalidResponseError,
    RateLimitedError,
    ServerError,
    UnprocessableError,
    UploadError,
    error_from_response,
)
from .inputs import body_of, build_input
from .local_files import MAX_IMAGE_BYTES, LocalFile, check_image_file, check_source_file
from .models import EpisodeImageResult, Source, UploadReservation, UploadReservationInput, UploadSlot
from .response import parse_data

if TYPE_CHECKING:
    from .transport import Transport

__all__ = [
    "CHUNK_SIZE",
    "ProgressCallback",
    "SlotExpired",
    "complete_upload",
    "discard_source",
    "reserve_upload",
    "send_to_slot",
    "slot_expired",
    "upload_episode_image",
    "upload_source",
]

CHUNK_SIZE = 2 * 1024 * 1024
"""Bytes read from disk and handed to the socket at a time (two chunks are in memory at most)."""

MAX_FRESH_SLOTS = 2
"""How many times an expired (or 403-refused) slot is replaced by a fresh reservation."""

ProgressCallback = Callable[[int, int], Any]
"""``progress(sent, total)``; may return an awaitable, which is awaited (the upload waits for it)."""


# --- progress and reading -----------------------------------------------------------------------------------


class _Progress:
    """Reports ``(sent, total)`` never going backwards, also when a fresh slot restarts the upload."""

    def __init__(self, callback: ProgressCallback | None, total: int) -> None:
        self._callback = callback
        self.total = total
        self._reported = -1

    async def report(self, sent: int) -> None:
        if self._callback is None or sent <= self._reported:
            return
        self._reported = sent
        result = self._callback(sent, self.total)
        if inspect.isawaitable(result):
            await result


class _ChunkReader:
    """Reads a file sequentially on a private thread, one chunk ahead of the sender.

    Reads and the final close run on the same single thread, in order: closing never races a read
    in flight, and a cancelled upload still closes the file (:meth:`close` never blocks the loop).
    """

    def __init__(self, local: LocalFile, chunk_size: int) -> None:
        self.local = local
        self.chunk_size = chunk_size
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="castdeck-upload")
        self._handle: IO[bytes] | None = None
        self._ahead: Future[bytes] | None = None
        self._closed = False

    def _open(self) -> None:
        try:
            handle = self.local.path.open("rb", buffering=0)
        except FileNotFoundError:
            raise UploadError("the file was removed", path=str(self.local.path)) from None
        except OSError as exc:
            raise UploadError(
                f"the file cannot be read ({exc.strerror or exc})", path=str(self.local.path)
            ) from None
        self._handle = handle
        self._check_unchanged(os.fstat(handle.fileno()))

    def _check_unchanged(self, info: os.stat_result) -> None:
        if info.st_size != self.local.size or info.st_mtime_ns != self.local.mtime_ns:
            raise UploadError("the file changed while it was being uploaded", path=str(self.local.path))

    def _read(self, size: int) -> bytes:
        assert self._handle is not None
        parts: list[bytes] = []
        wanted = size
        while wanted > 0:
            try:
                block = self._handle.read(wanted)
            except OSError as exc:
                raise UploadError(
                    f"the file could not be read ({exc.strerror or exc})", path=str(self.local.path)
                ) from None
            if not block:
                break
            parts.append(block)
            wanted -= len(block)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _finish(self) -> None:
        """After the last byte: the file must still be the one that was checked and reserved."""
        assert self._handle is not None
        if self._handle.read(1):
            raise UploadError("the file grew while it was being uploaded", path=str(self.local.path))
        self._check_unchanged(os.fstat(self._handle.fileno()))
        try:
            self._check_unchanged(os.stat(self.local.path))
        except FileNotFoundError:
            raise UploadError(
                "the file was removed while it was being uploaded", path=str(self.local.path)
            ) from None

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.wrap_future(self._executor.submit(fn, *args))

    async def chunks(self, progress: _Progress) -> AsyncGenerator[bytes, None]:
        """The file's bytes; checks size and modification time before the first and after the last."""
        await self._run(self._open)
        total = self.local.size
        sent = 0
        self._ahead = self._executor.submit(self._read, min(self.chunk_size, total))
        while sent < total:
            ahead, self._ahead = self._ahead, None
            assert ahead is not None
            chunk = await asyncio.wrap_future(ahead)
            if not chunk:
                raise UploadError(
                    "the file got shorter while it was being uploaded", path=str(self.local.path)
                )
            following = sent + len(chunk)
            if following < total:
                self._ahead = self._executor.submit(self._read, min(self.chunk_size, total - following))
            yield chunk
            sent = following
            await progress.report(sent)
        await self._run(self._finish)

    def close(self) -> None:
        """Close the file on the reader thread (after any read in flight) and let the thread end."""
        if self._closed:
            return
        self._closed = True
        if self._ahead is not None:
            self._ahead.cancel()
        self._executor.submit(self._close)
        self._executor.shutdown(wait=False)


# --- source uploads -----------------------------------------------------------------------------------------


class SlotExpired(Exception):
    """The slot expired or the signed address refused it (403): reserve a fresh one.

    Not a lost write: the slot is known to refuse the bytes, so a fresh reservation is safe.
    """


def slot_expired(expires_at: str | None, now: float | None = None) -> bool:
    """Whether a slot's ``expires_at`` (ISO 8601) has passed at ``now`` (seconds since the epoch;
    the machine's time when not given); unknown or unreadable: not expired."""
    if not expires_at:
        return False
    try:
        when = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    moment = datetime.now(UTC) if now is None else datetime.fromtimestamp(now, UTC)
    return moment >= when


def _upload_timeout(transport: Transport) -> httpx.Timeout:
    """Per-operation limits for a long transfer: a stalled socket fails, a slow steady one does not."""
    base = transport.timeout
    floor = 60.0
    return httpx.Timeout(
        connect=base.connect,
        read=max(base.read or floor, floor),
        write=max(base.write or floor, floor),
        pool=base.pool,
    )


async def send_to_slot(
    transport: Transport,
    slot: UploadSlot,
    local: LocalFile,
    progress: ProgressCallback | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> None:
    """Stream ``local`` to a reserved slot (a PUT, safe to repeat while the slot is valid).

    Raises :class:`SlotExpired` when the slot expired (before sending) or the signed address
    refused it (403); :class:`UploadError` when the file changed, went away or cannot be read;
    :class:`APIConnectionError` (timeouts too) or a typed :class:`ApiError` for other faults.
    ``progress(sent, total)`` counts this attempt's bytes, never going backwards.
    """
    await _send_file(transport, slot, local, _Progress(progress, local.size), chunk_size)


async def _send_file(
    transport: Transport,
    slot: UploadSlot,
    local: LocalFile,
    progress: _Progress,
    chunk_size: int,
) -> None:
    await progress.report(0)
    if slot_expired(slot.expires_at, transport.clock.time()):
        raise SlotExpired
    # Exactly the reservation's headers, plus the length: never chunked, never credentials.
    headers = {
        k: v for k, v in slot.headers.items() if k.lower() not in ("content-length", "transfer-encoding")
    }
    headers["Content-Length"] = str(local.size)
    reader = _ChunkReader(local, chunk_size)
    body = reader.chunks(progress)
    try:
        response = await transport.send_signed(
            (slot.method or "PUT").upper(),
            slot.url,
            headers=headers,
            content=body,
            timeout=_upload_timeout(transport),
        )
    finally:
        await body.aclose()
        reader.close()
    if response.status == 403:
        raise SlotExpired
    if response.status >= 300:
        if response.status < 400:
            raise InvalidResponseError(
                f"the upload address answered {response.status} (a redirect, not followed for uploads)",
                status=response.status,
            )
        raise error_from_response(response.status, response.content, response.headers)


async def complete_upload(transport: Transport, source_id: str) -> Source:
    """Complete an upload, retrying on faults.

    Safe to repeat (spec 3.2): completing a source that is already ``processing`` or ``completed``
    returns its current record, so a completion whose answer was lost (connection dropped, 5xx,
    429) is simply sent again. A 409 means another completion is still running: wait and ask again.
    """
    policy = transport.policy
    attempts = max(3, policy.max_retries)
    for attempt in range(attempts + 1):
        try:
            response = await transport.request("POST", f"/v1/sources/{source_id}/complete-upload")
            return parse_data(response, Source)
        except (APIConnectionError, RateLimitedError, ServerError, ConflictError) as exc:
            if attempt >= attempts:
                raise
            await transport.clock.sleep(policy.delay(attempt, exc.retry_after))
    raise AssertionError("unreachable")  # pragma: no cover


async def discard_source(transport: Transport, source_id: str) -> None:
    """Best effort: delete the source of a slot that was replaced or abandoned (it never got its bytes)."""
    with contextlib.suppress(CastdeckError):  # tidying up only; the upload itself goes on
        await transport.request("DELETE", f"/v1/sources/{source_id}", expect_body=False)


async def upload_source(
    transport: Transport,
    path: Path,
    *,
    title: str | None = None,
    prepare_visuals: bool = False,
    progress: ProgressCallback | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> Source:
    """Check ``path`` locally, reserve a slot, stream the file to it and complete the upload.

    Raises :class:`UploadError` (nothing sent) when the file cannot be uploaded, and when it changes
    during the upload (the upload is then not completed). Cancel the awaiting task to stop: the
    file is closed and the source stays ``awaiting_upload``.
    """
    local = await asyncio.to_thread(check_source_file, Path(path), prepare_visuals=prepare_visuals)
    reporter = _Progress(progress, local.size)
    fresh = 0
    while True:
        # Reservation is an unkeyed write: never repeated automatically.
        reservation = await reserve_upload(transport, local, title=title, prepare_visuals=prepare_visuals)
        source_id = reservation.source.id
        try:
            await _send_file(transport, reservation.upload, local, reporter, chunk_size)
            return await complete_upload(transport, source_id)
        except SlotExpired:
            pass
        except UnprocessableError:
            # Completion after the slot's lifetime is refused: the bytes must go to a fresh slot.
            if not slot_expired(reservation.upload.expires_at, transport.clock.time()):
                raise
        if fresh >= MAX_FRESH_SLOTS:
            raise UploadError(
                "the upload slot expired or was refused again after reserving a fresh one; try again",
                path=str(local.path),
            )
        fresh += 1
        await discard_source(transport, source_id)


async def reserve_upload(
    transport: Transport, local: LocalFile, *, title: str | None = None, prepare_visuals: bool = False
) -> UploadReservation:
    """``POST /v1/sources/uploads`` for a checked file: the source (``awaiting_upload``) and its slot.

    An unkeyed write: never repeat it automatically after a lost answer (the caller decides).
    """
    fields: dict[str, Any] = {
        "file_name": local.name,
        "mime_type": local.mime_type,
        "size_bytes": local.size,
        "prepare_visuals": prepare_visuals,
    }
    if title is not None:
        fields["title"] = title
    payload = build_input(UploadReservationInput, None, fields)
    answer = await transport.request("POST", "/v1/sources/uploads", json_body=body_of(payload))
    return parse_data(answer, UploadReservation)


# --- episode images ---------------------------------------------------------------------------------------------


def _read_all(local: LocalFile) -> bytes:
    with local.path.open("rb") as handle:
        content = handle.read(MAX_IMAGE_BYTES + 1)
    if len(content) != local.size:
        raise UploadError("the image changed while it was being read", path=str(local.path))
    return content


async def upload_episode_image(transport: Transport, path_str: str, path: Path) -> EpisodeImageResult:
    """``PUT`` a cover image's bytes to ``path_str`` (an API call, with credentials; not repeated)."""
    local = await asyncio.to_thread(check_image_file, Path(path))
    content = await asyncio.to_thread(_read_all, local)
    response = await transport.request(
        "PUT", path_str, content=content, headers={"Content-Type": local.mime_type}
    )
    return parse_data(response, EpisodeImageResult)


# --- signed downloads -------------------------------------------------------------------------------------------


async def _maybe_await(result: Any) -> None:
    if inspect.isawaitable(result):
        await result
