"""Finished Videos, Shorts and Voiceovers on this computer: their files and their stills.

For a finished media item the service says where its file is (``GET …/download``, spec 2.9):
``available`` with a signed address, ``preparing`` with a reason, or ``unavailable``. An available
file is downloaded once by the client's credential-free client (the API key never goes to the
signed address) into a folder per profile and item, named after the address without its
signature (so a new attempt, with a new address, is a new file), and kept under a size cap with
the least recently used items evicted (the store of the listened episodes, in its own folder).
Asks for the same file while it downloads share that one download; a download nobody waits for
any more stops. A signed address that stopped working is replaced by asking the service again,
once. Offline, the kept copy is used without any request.

Beside each file lives its still (a PNG a widget made from the file; this module writes it
atomically and never draws it). All disk work runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from castdeck.api import APIConnectionError, ApiError, CastdeckError
from castdeck.api.downloads import download_to
from castdeck.store.kinds import MEDIA_KINDS
from castdeck.store.media_cache import DEFAULT_CAP_BYTES, CachedEpisode, MediaCacheStore, audio_key

from .downloads import Downloads
from .media_cache import STALE_ADDRESS
from .runtime import run_on
from .session import Session

__all__ = [
    "PREPARING_REASONS",
    "MediaAnswer",
    "MediaFile",
    "MediaFileError",
    "MediaFiles",
    "Preparing",
    "Unavailable",
    "preparing_text",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

Progress = Callable[[int, int | None], Any]
STILL_SUFFIX = ".still.png"


class MediaFileError(CastdeckError):
    """The file cannot be had now: offline with no kept copy (``offline`` is then true)."""

    def __init__(self, message: str, *, offline: bool = False) -> None:
        super().__init__(message)
        self.offline = offline


@dataclass(frozen=True)
class MediaFile:
    """A downloaded file of a finished item, ready to play."""

    kind: str
    media_id: str
    path: Path
    key: str  # the address it came from, without its signature
    offline: bool = False  # kept copy used because the service cannot be reached
    from_cache: bool = False  # nothing was downloaded for this answer
    origin: str | None = None

    @property
    def still(self) -> Path:
        """Where this file's still is kept (it may not exist yet)."""
        return still_of(self.path)


PREPARING_REASONS = {
    "rendition": "the video file is still being rendered",
    "ingest": "the video delivery provider is still taking the file in",
}
"""What the service's reasons for a file being prepared mean, in words."""


def preparing_text(reason: str | None) -> str:
    return PREPARING_REASONS.get(reason or "", reason or "the file is being prepared")


@dataclass(frozen=True)
class Preparing:
    """The service is still preparing the file (``reason``: ``rendition``, ``ingest`` or as sent)."""

    reason: str | None = None


@dataclass(frozen=True)
class Unavailable:
    """The service has no downloadable file for this item (open it in the studio); ``kind`` is the
    delivery kind as sent (``unavailable``, or one this app does not know)."""

    kind: str = "unavailable"


MediaAnswer = MediaFile | Preparing | Unavailable


def still_of(path: Path) -> Path:
    return path.with_name(path.stem + STILL_SUFFIX)


def _file_stem(url: str) -> str:
    return "media-" + hashlib.sha256(audio_key(url).encode("utf-8")).hexdigest()[:12]


@dataclass
class _Shared:
    """One download in flight and who waits for it."""

    task: asyncio.Task[Path]
    waiters: int = 0
    listeners: list[Progress] = field(default_factory=list)

    def report(self, received: int, total: int | None) -> None:
        for listener in list(self.listeners):
            listener(received, total)


class MediaFiles:
    """Files and stills of finished media items for one session, kept at ``root``."""

    def __init__(self, session: Session, root: Path, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        self.session = session
        self.store = MediaCacheStore(root, cap_bytes)
        self.deliveries = Downloads(session)
        self._shared: dict[tuple[str, str, str], _Shared] = {}
        self.downloads = 0
        """Downloads started (tests count them)."""
        self.downloaded: collections.Counter[str] = collections.Counter()
        """Downloads started per item id (the list's stills download the other finished items too)."""

    async def close(self) -> None:
        """Stop the downloads still running (their partial files are removed)."""
        running = [shared.task for shared in self._shared.values()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    @property
    def profile(self) -> str:
        return f"{self.session.profile.name}|{self.session.profile.base_url}"

    async def _on_disk(self, fn: Callable[..., T], *args: Any) -> T:
        return await run_on(self.session.runtime.files, fn, *args)

    @staticmethod
    def _entry(kind: str, media_id: str) -> str:
        if kind not in MEDIA_KINDS:
            raise ValueError(f"a {kind} has no media file")
        return f"{kind}-{media_id}"

    # --- what this computer keeps ------------------------------------------------------------------------

    def _kept_now(self, kind: str, media_id: str, touch: bool) -> MediaFile | None:
        cached: CachedEpisode | None = self.store.get(self.profile, self._entry(kind, media_id), touch=touch)
        if cached is None or cached.audio is None or not cached.audio_key:
            return None
        return MediaFile(kind, media_id, cached.audio, cached.audio_key, from_cache=True)

    async def kept(self, kind: str, media_id: str) -> MediaFile | None:
        """The kept copy of an item's file (no request), or ``None``."""
        return await self._on_disk(self._kept_now, kind, media_id, False)

    async def kept_still(self, kind: str, media_id: str) -> Path | None:
        """The still of the kept file when one was made (no request), or ``None``."""

        def find() -> Path | None:
            kept = self._kept_now(kind, media_id, False)
            return kept.still if kept is not None and kept.still.is_file() else None

        return await self._on_disk(find)

    async def put_still(self, file: MediaFile, write: Callable[[Path], bool]) -> Path | None:
        """Keep the still of ``file``: ``write(path)`` writes the picture to a temporary path (on
        the disk thread), which is then moved into place. ``None`` when the file is no longer kept
        (evicted meanwhile) or ``write`` failed."""

        def put() -> Path | None:
            if not file.path.is_file():
                return None
            target = file.still
            temp = target.with_name(f".{target.name}.tmp")
            try:
                if not write(temp):
                    return None
                with temp.open("rb") as handle:
                    os.fsync(handle.fileno())
                os.replace(temp, target)
            finally:
                temp.unlink(missing_ok=True)
            return target

        return await self._on_disk(put)

    def waiting(self, kind: str, media_id: str) -> int:
        """How many asks wait for a download of this item now."""
        return sum(s.waiters for (k, m, _), s in self._shared.items() if (k, m) == (kind, media_id))

    # --- asking the service ----------------------------------------------------------------------------------

    async def fetch(self, kind: str, media_id: str, *, progress: Progress | None = None) -> MediaAnswer:
        """The file of a finished item: kept, or downloaded now; or what the service says instead.

        Offline, the kept copy is returned without a request (``offline`` set); with nothing kept
        that raises :class:`MediaFileError` (also raised when the disk refuses the file). Other
        failures are the service's errors (an :class:`ApiError`, a connection error).
        """
        kept = await self.kept(kind, media_id)
        if kept is not None and not self.session.online:
            return replace(kept, offline=True)
        try:
            answer = await self.deliveries.delivery(kind, media_id)
        except APIConnectionError:
            if kept is not None:
                return replace(kept, offline=True)
            raise MediaFileError(
                "The service cannot be reached and this file is not on this computer yet; it can be "
                "previewed once the service is back.",
                offline=True,
            ) from None
        delivery = answer.delivery
        if delivery.kind == "preparing":
            return Preparing(delivery.reason)
        if delivery.kind != "available" or not delivery.url:
            return Unavailable(delivery.kind)
        url = delivery.url
        if kept is not None and kept.key == audio_key(url):
            await self._on_disk(self._kept_now, kind, media_id, True)  # used now: last to be evicted
            return replace(kept, origin=delivery.origin)
        for attempt in range(2):
            try:
                path = await self._download(kind, media_id, url, progress)
            except ApiError as error:
                if attempt or error.status not in STALE_ADDRESS:
                    raise
                log.info("the file address of %s %s stopped working (%s); asking again", kind, media_id,
                         error.status)  # fmt: skip
                again = (await self.deliveries.delivery(kind, media_id)).delivery
                if again.kind == "preparing":
                    return Preparing(again.reason)
                if again.kind != "available" or not again.url:
                    return Unavailable(again.kind)
                url = again.url
                continue
            return MediaFile(kind, media_id, path, audio_key(url), origin=delivery.origin)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _download(self, kind: str, media_id: str, url: str, progress: Progress | None) -> Path:
        """Download ``url`` for the item, sharing a download of the same address already running."""
        key = (kind, media_id, audio_key(url))
        shared = self._shared.get(key)
        if shared is None or shared.task.done():
            task = self.session.tasks.start(
                self._download_once(kind, media_id, url),
                on_error=lambda _error: None,  # each waiter hears of it
                name="media file download",
            )
            shared = _Shared(task)
            self._shared[key] = shared
            shared.task.add_done_callback(functools.partial(self._forget, key))
        shared.waiters += 1
        if progress is not None:
            shared.listeners.append(progress)
        try:
            return await asyncio.shield(shared.task)
        except asyncio.CancelledError:
            if shared.waiters == 1 and not shared.task.done():
                shared.task.cancel()  # nobody waits any more: the download stops
            raise
        finally:
            shared.waiters -= 1
            if progress is not None:
                with contextlib.suppress(ValueError):
                    shared.listeners.remove(progress)

    def _forget(self, key: tuple[str, str, str], task: asyncio.Task[Path]) -> None:
        shared = self._shared.get(key)
        if shared is not None and shared.task is task:
            del self._shared[key]
        if not task.cancelled():
            task.exception()  # retrieved: the waiters were told (or there were none)

    async def _download_once(self, kind: str, media_id: str, url: str) -> Path:
        try:
            return await self._download_and_keep(kind, media_id, url)
        except OSError as error:
            raise MediaFileError(
                f"The file could not be stored on this computer: {error.strerror or error}"
            ) from error

    async def _download_and_keep(self, kind: str, media_id: str, url: str) -> Path:
        entry = self._entry(kind, media_id)
        target = await self._on_disk(
            lambda: self.store.audio_path(self.profile, entry, url, stem=_file_stem(url))
        )
        self.downloads += 1
        self.downloaded[media_id] += 1
        key = (kind, media_id, audio_key(url))

        def report(received: int, total: int | None) -> None:
            shared = self._shared.get(key)
            if shared is not None:
                shared.report(received, total)

        await self.session.guard(download_to(self.session.client.transport, url, target, progress=report))

        def commit() -> list[str]:
            for old in target.parent.glob(f"*{STILL_SUFFIX}"):
                if old != still_of(target):
                    old.unlink(missing_ok=True)  # the still of a file this one replaces
            return self.store.commit_audio(self.profile, entry, target, url)

        removed = await self._on_disk(commit)
        if removed:
            log.info("media files: removed %d least recently used items", len(removed))
        return target
