"""Opening an episode to listen: its audio and word timestamps, from the cache or the service.

The audio is fetched from the episode's signed address by the client's credential-free client
(the API key never goes to it). A signed address that stopped working (expired: 403, or gone) is
replaced by reading the episode again for a fresh one, once; never by sending the key. What was
fetched is kept in the media cache in the user data folder (size cap, least recently used
evicted), so a cached episode opens without the service. Disk work runs on a worker thread:
the UI thread never waits for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from castdeck.api import APIConnectionError, ApiError, CastdeckError, NotFoundError
from castdeck.api.downloads import download_to
from castdeck.api.models import Episode
from castdeck.store.media_cache import DEFAULT_CAP_BYTES, CachedEpisode, MediaCacheStore, audio_key
from castdeck.transcript import Transcript, normalise

from .runtime import run_on
from .session import Session

__all__ = ["EpisodeMedia", "ListenMedia", "MediaUnavailable"]

log = logging.getLogger(__name__)
T = TypeVar("T")

STALE_ADDRESS = (401, 403, 404, 410)
"""Answers of a signed address that mean "ask for a fresh address" (expired, or moved)."""


class MediaUnavailable(CastdeckError):
    """The episode cannot be listened to: no audio yet, or offline with nothing cached."""


@dataclass(frozen=True)
class ListenMedia:
    episode_id: str
    audio: Path
    transcript: Transcript
    offline: bool  # opened from the cache because the service could not be reached
    from_cache: bool


class EpisodeMedia:
    """Audio and transcript of episodes for one session, through the cache at ``root``."""

    def __init__(self, session: Session, root: Path, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        self.session = session
        self.store = MediaCacheStore(root, cap_bytes)
        self.downloads = 0
        """Audio downloads started (tests and the benchmark count them)."""

    @property
    def profile(self) -> str:
        return f"{self.session.profile.name}|{self.session.profile.base_url}"

    async def _on_disk(self, fn: Callable[..., T], *args: Any) -> T:
        return await run_on(self.session.runtime.files, fn, *args)

    async def cached(self, episode_id: str) -> CachedEpisode | None:
        return await self._on_disk(lambda: self.store.get(self.profile, episode_id, touch=False))

    async def open(
        self,
        episode_id: str,
        *,
        progress: Callable[[int, int | None], Any] | None = None,
    ) -> ListenMedia:
        """The audio file and transcript of an episode. From the cache when it holds this
        episode's current audio (or when the service cannot be reached); else fetched and cached.

        Raises :class:`MediaUnavailable` (no audio, or offline with nothing cached) or the
        service's error (an unknown episode is a :class:`NotFoundError`).
        """
        cached = await self._on_disk(self.store.get, self.profile, episode_id)
        if not self.session.online and cached is not None and cached.complete:
            return self._from_cache(cached, offline=True)
        try:
            episode = await self.session.call(lambda c: c.episodes.get(episode_id))
        except APIConnectionError:
            if cached is not None and cached.complete:
                return self._from_cache(cached, offline=True)
            raise MediaUnavailable(
                "The service cannot be reached and this episode's audio is not cached yet; "
                "it can be listened to once the service is back."
            ) from None
        if not episode.audio_url:
            raise MediaUnavailable("This episode has no audio yet: generate or render it first.")
        if cached is not None and cached.complete and cached.audio_key == audio_key(episode.audio_url):
            return self._from_cache(cached, offline=False)
        payload = await self._timestamps(episode_id)
        await self._on_disk(self.store.put_timestamps, self.profile, episode_id, payload)
        audio = await self._download(episode, progress)
        transcript = normalise(payload, episode_id)
        return ListenMedia(episode_id, audio, transcript, offline=False, from_cache=False)

    def _from_cache(self, cached: CachedEpisode, *, offline: bool) -> ListenMedia:
        assert cached.audio is not None and cached.timestamps is not None
        transcript = normalise(cached.timestamps, cached.episode_id)
        return ListenMedia(cached.episode_id, cached.audio, transcript, offline=offline, from_cache=True)

    async def _timestamps(self, episode_id: str) -> dict[str, Any]:
        try:
            stamps = await self.session.call(lambda c: c.episodes.timestamps(episode_id))
        except NotFoundError:
            raise MediaUnavailable(
                "This episode has no word timestamps yet (its audio is not ready)."
            ) from None
        return stamps.model_dump(mode="json")

    async def _download(self, episode: Episode, progress: Callable[[int, int | None], Any] | None) -> Path:
        url, episode_id = str(episode.audio_url), str(episode.id)
        for attempt in range(2):
            target = await self._on_disk(self.store.audio_path, self.profile, episode_id, url)
            self.downloads += 1
            try:
                await self.session.guard(
                    download_to(self.session.client.transport, url, target, progress=progress)
                )
            except ApiError as error:
                if attempt or error.status not in STALE_ADDRESS:
                    raise
                log.info(
                    "the audio address of %s stopped working (%s); reading a fresh one",
                    episode.id,
                    error.status,
                )
                episode = await self.session.call(lambda c: c.episodes.get(episode_id))
                if not episode.audio_url:
                    raise MediaUnavailable("This episode no longer has audio.") from None
                url = episode.audio_url
                continue
            removed = await self._on_disk(self.store.commit_audio, self.profile, episode_id, target, url)
            if removed:
                log.info("media cache: removed %d least recently used episodes", len(removed))
            return target
        raise AssertionError("unreachable")  # pragma: no cover
