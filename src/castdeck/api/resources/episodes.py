from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from ..models import (
    Episode,
    EpisodeAccepted,
    EpisodeAnalytics,
    EpisodeCreate,
    EpisodeGenerateInput,
    EpisodeImageResult,
    EpisodeImportInput,
    EpisodeListQuery,
    EpisodeUpdate,
    PublishInput,
    PublishResult,
    WordTimestamps,
)
from ..pagination import AsyncPaginator
from ..polling import episode_running, poll
from ..response import ApiResponse, parse_model
from ..transport import new_idempotency_key
from ..uploads import upload_episode_image
from .base import Accepted, Resource, body_of, build_input, check_uuid


class EpisodesWithRawResponse:
    """``client.episodes.with_raw_response``: reads that keep the answer's status and headers."""

    def __init__(self, episodes: EpisodesResource) -> None:
        self._episodes = episodes

    async def get(self, episode_id: str) -> ApiResponse[Episode]:
        return await self._episodes._get_response(self._episodes._path(episode_id), Episode)


class EpisodesResource(Resource):
    def list(
        self, *, podcast_id: str | None = None, status: str | None = None, limit: int | None = None
    ) -> AsyncPaginator[Episode]:
        query = build_input(
            EpisodeListQuery,
            None,
            {
                k: v
                for k, v in {"podcast_id": podcast_id, "status": status, "limit": limit}.items()
                if v is not None
            },
        )
        return self._list("/v1/episodes", Episode, query.model_dump(mode="json", exclude_unset=True))

    async def get(self, episode_id: str) -> Episode:
        return await self._get(self._path(episode_id), Episode)

    async def create(self, input: EpisodeCreate | None = None, /, **fields: Any) -> Episode:
        """An empty draft episode; no content is generated."""
        payload = build_input(EpisodeCreate, input, fields)
        return await self._write("POST", "/v1/episodes", Episode, body_of(payload))

    async def update(self, episode_id: str, input: EpisodeUpdate | None = None, /, **fields: Any) -> Episode:
        payload = build_input(EpisodeUpdate, input, fields)
        return await self._write("PATCH", self._path(episode_id), Episode, body_of(payload, partial=True))

    async def generate(
        self,
        input: EpisodeGenerateInput | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> Accepted[EpisodeAccepted]:
        """Start generating an episode from a prompt or a structured script.

        The idempotency key (made here when not given) is returned on the result; store it before
        a retry so that the same generation is never started twice.
        """
        payload = build_input(EpisodeGenerateInput, input, fields)
        key = idempotency_key or new_idempotency_key()
        return await self._accepted("/v1/episodes/generate", EpisodeAccepted, body_of(payload), key)

    async def import_script(
        self, input: EpisodeImportInput | None = None, /, *, idempotency_key: str | None = None, **fields: Any
    ) -> Accepted[EpisodeAccepted]:
        """Start an episode from script text with bracketed speaker labels."""
        payload = build_input(EpisodeImportInput, input, fields)
        key = idempotency_key or new_idempotency_key()
        return await self._accepted("/v1/episodes/import", EpisodeAccepted, body_of(payload), key)

    async def publish(self, episode_id: str, scheduled_time: datetime | str | None = None) -> PublishResult:
        """Publish now, or schedule for ``scheduled_time`` (timezone-aware)."""
        payload = build_input(
            PublishInput, None, {} if scheduled_time is None else {"scheduled_time": scheduled_time}
        )
        body = body_of(payload) or None
        response = await self._transport.request("POST", self._path(episode_id, "/publish"), json_body=body)
        return self._data(response, PublishResult)

    async def unpublish(self, episode_id: str) -> Episode:
        response = await self._transport.request("POST", self._path(episode_id, "/unpublish"))
        return self._data(response, Episode)

    async def delete(self, episode_id: str) -> None:
        await self._delete(self._path(episode_id))

    async def analytics(self, episode_id: str) -> EpisodeAnalytics:
        return await self._get(self._path(episode_id, "/analytics"), EpisodeAnalytics)

    async def timestamps(self, episode_id: str) -> WordTimestamps:
        """The words of the episode's audio with their start and end times (404 until audio exists).

        Both word shapes are read: ``{start, end, speaker, text}`` beside a ``speakers`` list, and
        the older ``{word, start, end}``, also when ``data`` is a bare list of such words.
        """
        response = await self._transport.request("GET", self._path(episode_id, "/timestamps"))
        body = response.json()
        data = body.get("data") if isinstance(body, dict) else None
        if isinstance(data, list):
            return parse_model(response, {"episode_id": episode_id, "words": data}, WordTimestamps)
        if isinstance(data, dict) and "episode_id" not in data:
            data = {**data, "episode_id": episode_id}
            return parse_model(response, data, WordTimestamps)
        return self._data(response, WordTimestamps)

    async def subtitles(self, episode_id: str, format: Literal["srt", "vtt"] = "vtt") -> str:
        """The word timestamps as SRT or WebVTT subtitles."""
        if format not in ("srt", "vtt"):
            raise ValueError("format must be 'srt' or 'vtt'")
        accept = "application/x-subrip" if format == "srt" else "text/vtt"
        response = await self._transport.request(
            "GET",
            self._path(episode_id, "/timestamps"),
            params={"format": format},
            headers={"Accept": accept},
        )
        return response.content.decode("utf-8", errors="replace")

    async def upload_image(self, episode_id: str, path: str | Path) -> EpisodeImageResult:
        """Upload a JPEG, PNG or WebP cover (at most 10 MB), checked locally first."""
        return await upload_episode_image(self._transport, self._path(episode_id, "/image"), Path(path))

    async def wait(
        self,
        episode_id: str,
        *,
        timeout: float = 1800.0,
        on_update: Callable[[Episode], Any] | None = None,
    ) -> Episode:
        """Poll until generation has finished (completed or failed), as the service's hints allow.

        Reaching ``timeout`` raises :class:`~castdeck.api.polling.StillRunning`: the generation
        goes on at the service; stopping the poll cancels nothing.
        """
        path = self._path(episode_id)
        return await poll(
            f"episode {episode_id}",
            lambda: self._get_response(path, Episode),
            running=episode_running,
            timeout=timeout,
            budget=self._client.budget,
            on_update=on_update,
            clock=self._client.transport.clock,
        )

    @cached_property
    def with_raw_response(self) -> EpisodesWithRawResponse:
        """The same reads, answering :class:`ApiResponse` (status, headers, request id beside the model)."""
        return EpisodesWithRawResponse(self)

    @staticmethod
    def _path(episode_id: str, suffix: str = "") -> str:
        return f"/v1/episodes/{check_uuid(episode_id, 'episode_id')}{suffix}"
