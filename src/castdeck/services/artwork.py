"""Pictures from the service (podcast and episode covers, host pictures): fetched once through the
credential-free client and kept on disk with the other offline data, so they show offline.

A picture is identified by its address without the query (a signed address's signature and expiry
change; a new picture gets a new path). What is fetched is checked to be a picture (PNG, JPEG, WebP
or GIF by its first bytes) before it is kept. Asks for the same picture while it is being fetched
share the one fetch. Every disk step runs on the session's disk thread.

This module reads and writes files only; decoding and scaling belong to the widgets' side
(``castdeck.ui.pictures``), which runs them on worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from castdeck.api import APIConnectionError, ApiError, CastdeckError
from castdeck.api.downloads import download_to
from castdeck.store.lru import over_cap
from castdeck.store.picture_files import picture_key

if TYPE_CHECKING:
    from .session import Session

__all__ = ["Artwork", "PictureUnavailable", "picture_key", "sniff_picture"]

log = logging.getLogger(__name__)

MAX_PICTURE_BYTES = 20 * 1024 * 1024
DEFAULT_CAP_BYTES = 256 * 1024 * 1024
SIGNATURES = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
}


class PictureUnavailable(CastdeckError):
    """A picture that cannot be shown: not a web address, not a picture, or not fetched (offline)."""


def sniff_picture(head: bytes) -> str | None:
    """The kind of picture these first bytes start (``png``, ``jpg``, ``gif``, ``webp``), or None."""
    for kind, starts in SIGNATURES.items():
        if any(head.startswith(start) for start in starts):
            return kind
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


def _web_address(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class Artwork:
    """The pictures of one session (``session.artwork``), kept in ``root`` (least recently used
    removed past ``cap``)."""

    def __init__(self, session: Session, root: Path, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        self.session = session
        self.root = root
        self.cap_bytes = cap_bytes
        self._fetching: dict[str, asyncio.Future[Path]] = {}
        self.fetches = 0
        """Pictures fetched from the service (tests count them)."""
        self._kept = 0

    def _path(self, url: str) -> Path:
        return self.root / picture_key(url)

    def _kept_file(self, path: Path) -> Path | None:
        if not path.is_file():
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used
        return path

    async def kept(self, url: str) -> Path | None:
        """The kept file of this picture, without asking the service."""
        return await self.session.on_disk(self._kept_file, self._path(url))

    async def fetch(self, url: str) -> Path:
        """The picture's file: the kept copy, else fetched from its address and kept.

        Raises :class:`PictureUnavailable` (not a web address, not a picture, offline with no copy)
        or the address's own error (:class:`~castdeck.api.ApiError`: 404 and the like)."""
        if not _web_address(url):
            raise PictureUnavailable("The picture's address is not a web address.")
        path = self._path(url)
        while True:
            running = self._fetching.get(path.name)
            if running is None:
                break
            try:
                return await asyncio.shield(running)
            except asyncio.CancelledError:
                me = asyncio.current_task()
                if not running.cancelled() or (me is not None and me.cancelling()):
                    raise  # we were cancelled ourselves (perhaps together with the one fetching)
                # only the asker that fetched was cancelled: fetch again (or join the next one)
        shared: asyncio.Future[Path] = asyncio.get_running_loop().create_future()
        self._fetching[path.name] = shared  # before any await: later asks join this one
        try:
            got = await self.kept(url) or await self._download(url, path)
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):
                shared.cancel()
            else:
                shared.set_exception(error)
                shared.exception()  # retrieved: nobody else may be waiting
            raise
        else:
            shared.set_result(got)
            return got
        finally:
            self._fetching.pop(path.name, None)

    async def _download(self, url: str, path: Path) -> Path:
        if not self.session.online:
            raise PictureUnavailable("Offline: this picture was not kept on this computer yet.")
        await self.session.on_disk(lambda: self.root.mkdir(parents=True, exist_ok=True))
        partial = path.with_name(path.name + ".download")
        self.fetches += 1

        def too_big(received: int, total: int | None) -> None:
            if received > MAX_PICTURE_BYTES or (total or 0) > MAX_PICTURE_BYTES:
                raise PictureUnavailable("The picture is larger than 20 MB.")

        try:  # not through session.guard: a picture host's answer says nothing of the service or the key
            await download_to(self.session.client.transport, url, partial, progress=too_big)
        except APIConnectionError:
            raise PictureUnavailable(
                "The picture could not be fetched: the service cannot be reached."
            ) from None
        except ApiError as error:
            if error.status in (401, 403):
                why = "its address was refused; it may have expired"
            elif error.status in (404, 410):
                why = "it is no longer at its address"
            else:
                why = "its address answered with an error"
            raise PictureUnavailable(f"The picture could not be fetched: {why} ({error.status}).") from None
        return await self.session.on_disk(self._keep, partial, path)

    def _keep(self, partial: Path, path: Path) -> Path:
        try:
            with partial.open("rb") as handle:
                head = handle.read(16)
            if sniff_picture(head) is None:
                raise PictureUnavailable("The address does not hold a picture (PNG, JPEG, WebP or GIF).")
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        self._kept += 1
        if self._kept % 32 == 0:
            self._evict(keep=path)
        return path

    def _evict(self, keep: Path) -> None:
        try:
            files = [(entry.stat().st_mtime, entry.stat().st_size, entry) for entry in self.root.iterdir()]
        except OSError:
            return
        going = over_cap(
            files, cap=self.cap_bytes, size=lambda f: f[1], used=lambda f: f[0], keep=lambda f: f[2] == keep
        )
        for _, _, entry in going:
            with contextlib.suppress(OSError):
                entry.unlink()
        log.debug("pictures: %d removed past the cap", len(going))
