"""Episode resource, its create, update and publish inputs and the small results around it (spec 2.3)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, AwareDatetime, Field, StringConstraints, WithJsonSchema, model_validator

from ._base import URI_SCHEMA, InputModel, ResourceModel, UpdateModel, check_uri
from .common import ListQuery
from .limits import MAX_EPISODE_DESCRIPTION_CHARS, MAX_EPISODE_TITLE_CHARS

__all__ = [
    "Episode",
    "EpisodeAccepted",
    "EpisodeCreate",
    "EpisodeImageResult",
    "EpisodeListQuery",
    "EpisodeUpdate",
    "Generation",
    "PublishInput",
    "PublishResult",
    "SkippedSource",
    "TimestampSpeaker",
    "TimestampWord",
    "UriStr",
    "WordTimestamps",
]

UriStr = Annotated[str, AfterValidator(check_uri), WithJsonSchema(URI_SCHEMA)]
"""An absolute URI, kept as the exact string given."""

EpisodeTitle = Annotated[str, StringConstraints(min_length=1, max_length=MAX_EPISODE_TITLE_CHARS)]
EpisodeDescription = Annotated[str, StringConstraints(max_length=MAX_EPISODE_DESCRIPTION_CHARS)]


class SkippedSource(ResourceModel):
    id: str
    title: str | None = None
    url: str | None = None
    reason: str | None = None


class Generation(ResourceModel):
    """Generation progress of an episode; ``phase`` and ``progress_pct`` come from a variant rendering."""

    state: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    error_message: str | None = None
    skipped_sources: list[SkippedSource] | None = None
    phase: str | None = None
    progress_pct: int | float | None = None


class Episode(ResourceModel):
    """An episode. ``status`` is kept as sent (``generating`` appears in a variant rendering)."""

    id: str
    podcast_id: str | None = None
    status: str | None = None
    title: str | None = None
    description: str | None = None
    image_url: str | None = None
    audio_url: str | None = None
    video_url: str | None = None
    url: str | None = None
    host_ids: list[str] | None = None
    source_ids: list[str] | None = None
    published_at: str | None = None
    scheduled_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    generation: Generation | None = None
    # Variant rendering only:
    duration: int | float | None = None
    error_message: str | None = None


class EpisodeAccepted(ResourceModel):
    """Acknowledgement of generate and import (status is always ``generating``)."""

    id: str
    podcast_id: str | None = None
    status: str | None = None
    host_ids: list[str] | None = None
    workflow_run_id: str | None = None
    created_at: str | None = None
    updated_at: str | None = None


class EpisodeCreate(InputModel):
    """An empty episode row; nothing is generated."""

    podcast_id: uuid.UUID
    title: EpisodeTitle | None = None
    description: EpisodeDescription | None = None
    host_ids: list[str] | None = None
    image: UriStr | None = None


class EpisodeUpdate(UpdateModel):
    """Only provided fields change (``model_dump(exclude_unset=True)``); description and image may be null."""

    nullable_fields: ClassVar[frozenset[str]] = frozenset({"description", "image"})

    title: EpisodeTitle | None = None
    description: EpisodeDescription | None = None
    image: UriStr | None = None


class PublishInput(InputModel):
    """Publish now (no ``scheduled_time``) or schedule; the time must carry a timezone offset."""

    scheduled_time: AwareDatetime | None = None


class PublishResult(ResourceModel):
    id: str
    status: str | None = None
    scheduled_time: str | None = None


class EpisodeImageResult(ResourceModel):
    id: str
    image_url: str | None = None


class TimestampSpeaker(ResourceModel):
    host_id: str | None = None
    name: str | None = None


class TimestampWord(ResourceModel):
    """One spoken word. The spec's shape is ``{start, end, speaker, text}``; an older one is
    ``{word, start, end}`` (no speaker): ``word`` is read as ``text``."""

    start: float
    end: float
    speaker: int | None = None
    text: str

    @model_validator(mode="before")
    @classmethod
    def _older_shape(cls, value: Any) -> Any:
        if isinstance(value, dict) and "text" not in value and "word" in value:
            return {**value, "text": value["word"]}
        return value


class WordTimestamps(ResourceModel):
    """The words of an episode's audio (``client.episodes.timestamps`` also reads a bare list of
    words, an older rendering, into this shape)."""

    episode_id: str
    speakers: list[TimestampSpeaker] = Field(default_factory=list)
    words: list[TimestampWord] = Field(default_factory=list)


class EpisodeListQuery(ListQuery):
    podcast_id: uuid.UUID | None = None
    status: str | None = None
