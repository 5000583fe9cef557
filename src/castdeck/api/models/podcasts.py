"""Podcast resource and its create and update inputs (spec 2.2)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from ._base import InputModel, ResourceModel, UpdateModel
from .limits import DEFAULT_PODCAST_LANGUAGE, MAX_PODCAST_TITLE_CHARS

__all__ = ["Podcast", "PodcastCreate", "PodcastUpdate"]

PodcastTitle = Annotated[str, StringConstraints(min_length=1, max_length=MAX_PODCAST_TITLE_CHARS)]
LanguageCode = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{2,3}$")]
HostIdList = Annotated[list[str], Field(min_length=1)]


class Podcast(ResourceModel):
    id: str
    title: str | None = None
    description: str | None = None
    episode_count: int | None = None
    episode_order: str | None = None
    host_ids: list[str] | None = None
    image_url: str | None = None
    languages: list[str] | None = None
    rss_feed_url: str | None = None
    url: str | None = None
    visibility: str | None = None
    created_at: str | None = None
    updated_at: str | None = None


class PodcastCreate(InputModel):
    host_ids: HostIdList
    title: PodcastTitle
    description: str | None = None
    episode_order: Literal["episodic", "serial"] = "serial"
    language: LanguageCode = DEFAULT_PODCAST_LANGUAGE
    visibility: Literal["public", "private"] = "public"


class PodcastUpdate(UpdateModel):
    """Only provided fields change: use ``model_dump(exclude_unset=True)``. ``null`` is refused."""

    host_ids: HostIdList | None = None
    title: PodcastTitle | None = None
    description: str | None = None
    episode_order: Literal["episodic", "serial"] | None = None
    language: LanguageCode | None = None
    visibility: Literal["public", "private", "unlisted"] | None = None
