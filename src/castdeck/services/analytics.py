"""Analytics of podcasts and episodes (spec 2.10, 4.3): read from the service, kept for offline use.

:meth:`Analytics.podcast` reads a podcast's figures and the titles of its episodes (the analytics
name episodes by id only); :meth:`Analytics.episode` one episode's. Every read is stored in the
cache with the time it was made. When the service cannot be reached, the last stored figures come
back marked ``offline`` with that time; with nothing stored the connection error is raised.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from castdeck.api import APIConnectionError
from castdeck.api.models import Episode, EpisodeAnalytics, PodcastAnalytics

from .session import Session

__all__ = ["MAX_EPISODES", "Analytics", "EpisodeFigures", "EpisodeLine", "PodcastFigures"]

MAX_EPISODES = 5_000
"""Episodes whose titles are read for one podcast's table (more are shown by id)."""

PODCAST_KIND = "podcast_analytics"
EPISODE_KIND = "episode_analytics"


@dataclass(frozen=True)
class EpisodeLine:
    """What the analytics table shows of an episode besides its figures."""

    title: str | None
    status: str | None
    published_at: str | None


@dataclass(frozen=True)
class PodcastFigures:
    analytics: PodcastAnalytics
    episodes: dict[str, EpisodeLine]
    """Episode id -> title, status and publish time (read with the figures)."""
    read_at: float
    """When the figures were read from the service (``time.time()``)."""
    offline: bool = False
    """True when the service could not be reached and these are the figures stored at ``read_at``."""


@dataclass(frozen=True)
class EpisodeFigures:
    analytics: EpisodeAnalytics
    read_at: float
    offline: bool = False


class Analytics:
    """Reads and keeps the figures of one session's profile."""

    def __init__(self, session: Session) -> None:
        self._session = session

    async def podcast(self, podcast_id: str) -> PodcastFigures:
        try:
            analytics = await self._session.call(lambda c: c.podcasts.analytics(podcast_id))
            episodes = await self._session.call(lambda c: self._episodes(c, podcast_id))
        except APIConnectionError:
            stored = await self._stored_podcast(podcast_id)
            if stored is None:
                raise
            return stored
        figures = PodcastFigures(analytics, episodes, time.time())
        await self._session.cache_record(
            PODCAST_KIND,
            {
                "id": podcast_id,
                "read_at": figures.read_at,
                "analytics": analytics.model_dump(mode="json"),
                "episodes": {key: dataclasses.asdict(line) for key, line in episodes.items()},
            },
        )
        return figures

    async def episode(self, episode_id: str) -> EpisodeFigures:
        try:
            analytics = await self._session.call(lambda c: c.episodes.analytics(episode_id))
        except APIConnectionError:
            stored = await self._stored_episode(episode_id)
            if stored is None:
                raise
            return stored
        figures = EpisodeFigures(analytics, time.time())
        await self._session.cache_record(
            EPISODE_KIND,
            {"id": episode_id, "read_at": figures.read_at, "analytics": analytics.model_dump(mode="json")},
        )
        return figures

    # --- internals -----------------------------------------------------------------------------------------

    @staticmethod
    async def _episodes(client: Any, podcast_id: str) -> dict[str, EpisodeLine]:
        found: dict[str, EpisodeLine] = {}
        episode: Episode
        async for episode in client.episodes.list(podcast_id=podcast_id, limit=100):
            found[str(episode.id)] = EpisodeLine(episode.title, episode.status, episode.published_at)
            if len(found) >= MAX_EPISODES:
                break
        return found

    async def _stored_podcast(self, podcast_id: str) -> PodcastFigures | None:
        record = await self._session.cached_record(PODCAST_KIND, podcast_id)
        if record is None:
            return None
        try:
            analytics = PodcastAnalytics.model_validate(record["analytics"])
            episodes = {
                str(key): EpisodeLine(line.get("title"), line.get("status"), line.get("published_at"))
                for key, line in dict(record.get("episodes") or {}).items()
            }
            return PodcastFigures(analytics, episodes, float(record["read_at"]), offline=True)
        except (KeyError, TypeError, ValueError, AttributeError, ValidationError):
            return None  # written by another version in another shape: as if nothing was stored

    async def _stored_episode(self, episode_id: str) -> EpisodeFigures | None:
        record = await self._session.cached_record(EPISODE_KIND, episode_id)
        if record is None:
            return None
        try:
            analytics = EpisodeAnalytics.model_validate(record["analytics"])
            return EpisodeFigures(analytics, float(record["read_at"]), offline=True)
        except (KeyError, TypeError, ValueError, ValidationError):
            return None
