"""Signed downloads: a file the service made (audio, video, a cover) streamed to disk.

The address is signed: it is fetched with the transport's credential-free client (the API key
never goes there, redirects included), not bounded by the JSON size cap, written to a temporary
file beside the target on the transport's download pool and renamed into place once complete, so a broken
download leaves nothing half-written.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import httpx

from .addresses import redirect_target, web_address
from .errors import APIConnectionError, APITimeoutError, InvalidResponseError, error_from_response
from .transport import MAX_REDIRECTS

if TYPE_CHECKING:
    from .transport import Transport

__all__ = ["DOWNLOAD_CHUNK", "DownloadProgress", "download_to"]

DOWNLOAD_CHUNK = 2 * 1024 * 1024
"""Bytes handed from the socket to the disk at a time."""

DownloadProgress = Callable[[int, int | None], Any]


async def download_to(
    transport: Transport,
    url: str,
    dest: str | Path,
    *,
    progress: DownloadProgress | None = None,
    chunk_size: int = DOWNLOAD_CHUNK,
) -> Path:
    """Stream a signed download to ``dest``: never with credentials (redirects included), not bounded
    by the JSON size cap, written to a temporary file beside ``dest`` and renamed when complete.

    ``progress(received, total)`` (``total`` is None without a Content-Length). A non-2xx answer is
    a typed :class:`ApiError`; a body shorter than announced is an :class:`APIConnectionError`.
    """
    dest = Path(dest)
    client = await transport.ready_signed_client()
    partial = dest.with_name(f".{dest.name}.{uuid.uuid4().hex[:8]}.part")
    executor = transport.download_disk
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
