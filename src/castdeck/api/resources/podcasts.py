from __future__ import annotations

from typing import Any

from ..models import Podcast, PodcastAnalytics, PodcastCreate, PodcastUpdate
from ..pagination import AsyncPaginator
from .base import Resource, body_of, build_input, check_uuid


class PodcastsResource(Resource):
    def list(self, *, limit: int | None = None) -> AsyncPaginator[Podcast]:
        return self._list("/v1/podcasts", Podcast, {"limit": limit})

    async def get(self, podcast_id: str) -> Podcast:
        return await self._get(f"/v1/podcasts/{check_uuid(podcast_id, 'podcast_id')}", Podcast)

    async def create(self, input: PodcastCreate | None = None, /, **fields: Any) -> Podcast:
        payload = build_input(PodcastCreate, input, fields)
        return await self._write("POST", "/v1/podcasts", Podcast, body_of(payload))

    async def update(self, podcast_id: str, input: PodcastUpdate | None = None, /, **fields: Any) -> Podcast:
        payload = build_input(PodcastUpdate, input, fields)
        path = f"/v1/podcasts/{check_uuid(podcast_id, 'podcast_id')}"
        return await self._write("PATCH", path, Podcast, body_of(payload, partial=True))

    async def analytics(self, podcast_id: str) -> PodcastAnalytics:
        return await self._get(
            f"/v1/podcasts/{check_uuid(podcast_id, 'podcast_id')}/analytics", PodcastAnalytics
        )
