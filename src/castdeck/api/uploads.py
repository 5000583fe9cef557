"""File transfers: source uploads through signed slots, episode cover images, signed downloads.

Uploads are checked on disk before any request (size, type by extension and by signature, no
video), then streamed from disk in chunks read on a private thread, with an explicit
``Content-Length`` (signed addresses refuse chunked bodies), to the reservation's address through
the transport's credential-free client. The whole file is never in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import mimetypes
import os
import stat
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx

from .addresses import redirect_target, web_address
from .errors import (
    APIConnectionError,
    APITimeoutError,
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
from .models import EpisodeImageResult, Source, UploadReservation, UploadReservationInput, UploadSlot
from .models.files import (
    JPEG,
    PNG,
    RESEARCH_MIME_TYPES,
    SNIFF_BYTES,
    VISUAL_MIME_TYPES,
    WEBP,
    canonical_mime,
    file_extension,
    is_acceptable_file_name,
    is_video_mime,
    mime_for_filename,
    signature_matches,
    sniff_mime,
)
from .models.limits import MAX_UPLOAD_BYTES, MIN_UPLOAD_BYTES
from .response import parse_data
from .transport import MAX_REDIRECTS

if TYPE_CHECKING:
    from .transport import Transport

__all__ = [
    "CHUNK_SIZE",
    "MAX_IMAGE_BYTES",
    "LocalFile",
    "ProgressCallback",
    "SlotExpired",
    "check_image_file",
    "check_source_file",
    "complete_upload",
    "discard_source",
    "download_to",
    "reserve_upload",
    "send_to_slot",
    "slot_expired",
    "upload_episode_image",
    "upload_source",
]

CHUNK_SIZE = 2 * 1024 * 1024
"""Bytes read from disk and handed to the socket at a time (two chunks are in memory at most)."""

MAX_IMAGE_BYTES = 10 * 1024 * 1024
"""Episode cover images: at most 10 MB (the sandbox's fixed choice, 10 MiB)."""

IMAGE_TYPES = {".jpg": JPEG, ".jpeg": JPEG, ".png": PNG, ".webp": WEBP}

MAX_FRESH_SLOTS = 2
"""How many times an expired (or 403-refused) slot is replaced by a fresh reservation."""

ProgressCallback = Callable[[int, int], Any]
"""``progress(sent, total)``; may return an awaitable, which is awaited (the upload waits for it)."""


@dataclass(frozen=True)
class LocalFile:
    """A file that passed the local checks: what the reservation declares and how to notice changes."""

    path: Path
    name: str
    mime_type: str
    size: int
    mtime_ns: int


# --- local checks ---------------------------------------------------------------------------------------------


def _stat_regular(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UploadError("the file does not exist", path=str(path)) from None
    except PermissionError:
        raise UploadError("the file cannot be read (permission denied)", path=str(path)) from None
    except OSError as exc:
        raise UploadError(f"the file cannot be read ({exc.strerror or exc})", path=str(path)) from None
    if stat.S_ISDIR(info.st_mode):
        raise UploadError("this is a folder, not a file", path=str(path))
    if not stat.S_ISREG(info.st_mode):
        raise UploadError("this is not a regular file", path=str(path))
    return info


def _read_head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(SNIFF_BYTES)
    except PermissionError:
        raise UploadError("the file cannot be read (permission denied)", path=str(path)) from None
    except OSError as exc:
        raise UploadError(f"the file cannot be read ({exc.strerror or exc})", path=str(path)) from None


def _video_refusal(path: Path) -> UploadError:
    return UploadError(
        "video files are not accepted; extract the audio track (for example as MP3) and upload that instead",
        path=str(path),
    )


def check_source_file(
    path: Path,
    *,
    prepare_visuals: bool = False,
    visual_types: Mapping[str, tuple[str, ...]] | None = None,
) -> LocalFile:
    """Check a file for a source upload without sending anything; raises :class:`UploadError`.

    With ``prepare_visuals`` the file must be one of ``visual_types`` (default: the spec's full
    visual table; pass ``VOICEOVER_VISUAL_MIME_TYPES`` for the narrower list that is safe everywhere).
    Blocking (it reads the first bytes): call it through ``asyncio.to_thread`` on a loop.
    """
    info = _stat_regular(path)
    name = path.name
    guessed = mimetypes.guess_type(name)[0] or ""
    if is_video_mime(guessed):
        raise _video_refusal(path)
    if info.st_size < MIN_UPLOAD_BYTES:
        raise UploadError("the file is empty", path=str(path))
    if info.st_size > MAX_UPLOAD_BYTES:
        raise UploadError(
            f"the file is {info.st_size:,} bytes; the service accepts at most {MAX_UPLOAD_BYTES:,} "
            "bytes (100 MiB)",
            path=str(path),
        )
    if not is_acceptable_file_name(name):
        raise UploadError(
            "the file name is not acceptable (at most 255 characters, no separators)", path=str(path)
        )
    if prepare_visuals:
        table = visual_types if visual_types is not None else VISUAL_MIME_TYPES
    else:
        table = RESEARCH_MIME_TYPES
    by_extension = mime_for_filename(name)
    mime = canonical_mime(by_extension, table) if by_extension else None
    if mime is None:
        ext = file_extension(name) or "(no extension)"
        purpose = "visual sources (prepare_visuals)" if prepare_visuals else "uploads"
        known = ", ".join(sorted({e for exts in table.values() for e in exts}))
        raise UploadError(f"{ext} files are not supported for {purpose}; supported: {known}", path=str(path))
    head = _read_head(path)
    sniffed = sniff_mime(head, name)
    if sniffed is not None and is_video_mime(sniffed):
        raise _video_refusal(path)
    if not signature_matches(head, mime, name):
        looks = f"they look like {sniffed}" if sniffed else "their type is not recognised"
        raise UploadError(f"the contents do not match its type, {mime} ({looks})", path=str(path))
    return LocalFile(path, name, mime, info.st_size, info.st_mtime_ns)


def check_image_file(path: Path) -> LocalFile:
    """Check an episode cover image (JPEG, PNG or WebP, at most 10 MB); raises :class:`UploadError`."""
    info = _stat_regular(path)
    mime = IMAGE_TYPES.get(file_extension(path.name))
    if mime is None:
        raise UploadError("a cover image must be a .jpg, .jpeg, .png or .webp file", path=str(path))
    if info.st_size == 0:
        raise UploadError("the image is empty", path=str(path))
    if info.st_size > MAX_IMAGE_BYTES:
        raise UploadError(
            f"the image is {info.st_size:,} bytes; covers can be at most {MAX_IMAGE_BYTES:,} bytes (10 MB)",
            path=str(path),
        )
    head = _read_head(path)
    if not signature_matches(head, mime):
        sniffed = sniff_mime(head, path.name)
        looks = f"they look like {sniffed}" if sniffed else "their type is not recognised"
        raise UploadError(f"the contents do not match the image type {mime} ({looks})", path=str(path))
    return LocalFile(path, path.name, mime, info.st_size, info.st_mtime_ns)


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

DownloadProgress = Callable[[int, int | None], Any]


_download_disk = ThreadPoolExecutor(max_workers=4, thread_name_prefix="castdeck-download")
"""Where downloads write (each download awaits its own writes in order): one pool for all, where a
thread per download made four hundred threads for four hundred covers."""


async def download_to(
    transport: Transport,
    url: str,
    dest: str | Path,
    *,
    progress: DownloadProgress | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> Path:
    """Stream a signed download to ``dest``: never with credentials (redirects included), not bounded
    by the JSON size cap, written to a temporary file beside ``dest`` and renamed when complete.

    ``progress(received, total)`` (``total`` is None without a Content-Length). A non-2xx answer is
    a typed :class:`ApiError`; a body shorter than announced is an :class:`APIConnectionError`.
    """
    dest = Path(dest)
    client = await transport.ready_signed_client()
    partial = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.part")
    executor = _download_disk
    handle: IO[bytes] | None = None
    done = False

    async def run(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.wrap_future(executor.submit(fn, *args))

    try:
        for _ in range(MAX_REDIRECTS + 1):
            request = client.build_request("GET", web_address(url, "the download address"))
            try:
                response = await client.send(request, stream=True)
            except (httpx.InvalidURL, UnicodeError) as exc:  # httpx reads a redirect's Location (and
                # its IDNA host) even when not following it
                raise InvalidResponseError(f"the download's Location is not an address ({exc})") from None
            except httpx.TimeoutException as exc:
                raise APITimeoutError(f"no answer from {request.url.host} in time", request=request) from exc
            except httpx.TransportError as exc:
                raise APIConnectionError(
                    f"could not reach {request.url.host}: {exc}", request=request
                ) from exc
            try:
                if response.status_code in (301, 302, 303, 307, 308) and "location" in response.headers:
                    url = redirect_target(request.url, response.headers, response.status_code)
                    continue
                if response.status_code >= 300:
                    content = b""
                    async for piece in response.aiter_raw():
                        content += piece
                        if len(content) > 65536:
                            break
                    raise error_from_response(response.status_code, content[:65536], response.headers)
                declared = response.headers.get("content-length", "")
                total = int(declared) if declared.isascii() and declared.isdigit() else None
                handle = await run(partial.open, "wb")
                received = 0
                if progress is not None:
                    await _maybe_await(progress(0, total))
                try:
                    async for piece in response.aiter_bytes(chunk_size):
                        await run(handle.write, piece)
                        received += len(piece)
                        if progress is not None:
                            await _maybe_await(progress(received, total))
                except httpx.TimeoutException as exc:
                    raise APITimeoutError("the download stalled", request=request) from exc
                except httpx.TransportError as exc:
                    raise APIConnectionError(f"the download broke off: {exc}", request=request) from exc
                if total is not None and response.num_bytes_downloaded != total:
                    raise APIConnectionError(
                        f"the download ended after {response.num_bytes_downloaded} of {total} bytes",
                        request=request,
                    )
                await run(handle.close)
                await run(os.replace, partial, dest)
                done = True
                return dest
            finally:
                await response.aclose()
        raise InvalidResponseError(f"more than {MAX_REDIRECTS} redirects from a download address")
    finally:
        if not done:
            opened = handle

            def cleanup() -> None:
                if opened is not None:
                    opened.close()
                partial.unlink(missing_ok=True)

            executor.submit(cleanup)


async def _maybe_await(result: Any) -> None:
    if inspect.isawaitable(result):
        await result
