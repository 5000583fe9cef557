"""Episode and podcast analytics (spec 2.10)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import ResourceModel

__all__ = [
    "DownloadWindows",
    "EpisodeAnalytics",
    "NonNegativeNumber",
    "PodcastAnalytics",
    "PodcastEpisodeAnalytics",
    "PodcastTotals",
    "VideoViewWindows",
]

NonNegativeNumber = Annotated[int, Field(ge=0)] | Annotated[float, Field(ge=0)]


class DownloadWindows(ResourceModel):
    """Audio downloads since publish: first 7 days, first 30 days, all time."""

    first_7_days: NonNegativeNumber = 0
    first_30_days: NonNegativeNumber = 0
    total: NonNegativeNumber = 0


class VideoViewWindows(ResourceModel):
    """Rolling video views; ``total`` covers the last 90 days."""

    last_7_days: NonNegativeNumber = 0
    last_30_days: NonNegativeNumber = 0
    total: NonNegativeNumber = 0


class EpisodeAnalytics(ResourceModel):
    episode_id: str
    as_of: str | None = None
    complete: bool = True
    downloads: DownloadWindows = Field(default_factory=DownloadWindows)
    video_views: VideoViewWindows = Field(default_factory=VideoViewWindows)


class PodcastTotals(ResourceModel):
    downloads: NonNegativeNumber = 0
    video_views: NonNegativeNumber = 0
    plays: NonNegativeNumber = 0
    last_7_days: NonNegativeNumber = 0
    last_30_days: NonNegativeNumber = 0


class PodcastEpisodeAnalytics(ResourceModel):
    episode_id: str
    downloads: DownloadWindows = Field(default_factory=DownloadWindows)
    video_views: VideoViewWindows = Field(default_factory=VideoViewWindows)


class PodcastAnalytics(ResourceModel):
    podcast_id: str
    as_of: str | None = None
    complete: bool = True
    analytics_enabled: bool = True
    totals: PodcastTotals = Field(default_factory=PodcastTotals)
    plays_by_app: dict[str, NonNegativeNumber] = Field(default_factory=dict)
    episodes: list[PodcastEpisodeAnalytics] = Field(default_factory=list)
