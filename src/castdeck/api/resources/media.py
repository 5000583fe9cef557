"""Videos, Shorts and Voiceovers: three collections with the same operations."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from pydantic import BaseModel

from ..models import (
    MediaDownload,
    MediaJob,
    MediaOptions,
    MediaStatus,
    ShortCreateInput,
    ShortScriptCreateInput,
    VideoCreateInput,
    VideoScriptCreateInput,
    VoiceoverCreateInput,
    parse_short_create,
    parse_video_create,
)
from ..pagination import AsyncPaginator
from ..polling import media_running, poll
from ..response import ApiResponse
from ..transport import new_idempotency_key
from .base import Accepted, Resource, body_of, check_id, parse_input


class MediaWithRawResponse:
    """``client.videos.with_raw_response`` (and shorts, voiceovers): reads with status and headers."""

    def __init__(self, media: MediaResource) -> None:
        self._media = media

    async def get(self, media_id: str) -> ApiResponse[MediaJob]:
        return await self._media._get_response(self._media._path(media_id), MediaJob)

    async def status(self, media_id: str) -> ApiResponse[MediaStatus]:
        return await self._media._get_response(self._media._path(media_id, "/status"), MediaStatus)


class MediaResource(Resource):
    collection: str = ""

    def _build(self, fields: dict[str, Any], given: BaseModel | None) -> BaseModel:
        raise NotImplementedError

    async def options(self) -> MediaOptions:
        return await self._get(f"/v1/{self.collection}/options", MediaOptions)

    async def create(
        self, input: BaseModel | None = None, /, *, idempotency_key: str | None = None, **fields: Any
    ) -> Accepted[MediaJob]:
        """Start a job. The idempotency key (made here when not given) comes back on the result:
        store it before a retry, and resend with the same key so the job is created once."""
        payload = self._build(fields, input)
        key = idempotency_key or new_idempotency_key()
        return await self._accepted(f"/v1/{self.collection}", MediaJob, body_of(payload), key)

    def list(self, *, limit: int | None = None) -> AsyncPaginator[MediaJob]:
        return self._list(f"/v1/{self.collection}", MediaJob, {"limit": limit})

    async def get(self, media_id: str) -> MediaJob:
        return await self._get(self._path(media_id), MediaJob)

    async def status(self, media_id: str) -> MediaStatus:
        return await self._get(self._path(media_id, "/status"), MediaStatus)

    async def retry(self, media_id: str, *, idempotency_key: str | None = None) -> Accepted[MediaJob]:
        """A new attempt of a failed or idle job (same id); always with a new key unless one is given."""
        key = idempotency_key or new_idempotency_key()
        return await self._accepted(self._path(media_id, "/retry"), MediaJob, None, key)

    async def download(self, media_id: str) -> MediaDownload:
        """Where to download the result: ``delivery.kind`` is available, preparing or unavailable."""
        return await self._get(self._path(media_id, "/download"), MediaDownload)

    async def wait(
        self,
        media_id: str,
        *,
        timeout: float = 3600.0,
        on_update: Callable[[MediaStatus], Any] | None = None,
    ) -> MediaStatus:
        """Poll the status until the job is completed or failed, as the service's hints allow."""
        path = self._path(media_id, "/status")
        return await poll(
            f"{self.collection[:-1] or 'media'} {media_id}",
            lambda: self._get_response(path, MediaStatus),
            running=media_running,
            timeout=timeout,
            budget=self._client.budget,
            on_update=on_update,
            clock=self._client.transport.clock,
        )

    @cached_property
    def with_raw_response(self) -> MediaWithRawResponse:
        """The same reads, answering :class:`ApiResponse` (status, headers, request id beside the model)."""
        return MediaWithRawResponse(self)

    def _path(self, media_id: str, suffix: str = "") -> str:
        return f"/v1/{self.collection}/{check_id(media_id, 'media_id')}{suffix}"


class VideosResource(MediaResource):
    collection = "videos"

    def _build(self, fields: dict[str, Any], given: BaseModel | None) -> BaseModel:
        return parse_input(parse_video_create, given, fields, (VideoCreateInput, VideoScriptCreateInput))


class ShortsResource(MediaResource):
    collection = "shorts"

    def _build(self, fields: dict[str, Any], given: BaseModel | None) -> BaseModel:
        return parse_input(parse_short_create, given, fields, (ShortCreateInput, ShortScriptCreateInput))


class VoiceoversResource(MediaResource):
    collection = "voiceovers"

    def _build(self, fields: dict[str, Any], given: BaseModel | None) -> BaseModel:
        return parse_input(VoiceoverCreateInput.model_validate, given, fields, (VoiceoverCreateInput,))
