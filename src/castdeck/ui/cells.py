"""What the lists' cells say, as pure functions of an item's fields: no Qt, no models, no I/O.

Every function reads fields as attributes, so it takes a resource model (``Episode``) as the panes
hold it, or a cached record (the JSON the service sent) seen through :class:`Fields`, as the early
window reads it from the cache before the models exist (see :mod:`castdeck.ui.early`). Both
windows call the same code, so the early window's rows say what the real list will say.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

__all__ = [
    "EPISODE_COLUMNS",
    "EPISODE_COLUMN_WIDTHS",
    "EPISODE_STATUSES",
    "Fields",
    "day",
    "episode_created",
    "episode_generation",
    "episode_published",
    "episode_status",
    "episode_title",
    "format_time",
    "generation_text",
    "podcast_label",
]

EPISODE_COLUMNS = ("Title", "Podcast", "Status", "Generation", "Created", "Published")
EPISODE_COLUMN_WIDTHS = (0, 124, 74, 126, 84, 112)
"""Pixels per column of the Episodes list; the title (0) takes what is left."""

EPISODE_STATUSES = {
    "": "All statuses",
    "draft": "Draft",
    "scheduled": "Scheduled",
    "published": "Published",
    "in review": "In review",
    "archived": "Archived",
}
"""The Episodes pane's status filter: value sent -> text shown."""


class Fields:
    """A cached record read by attribute, as a model is: ``Fields({"a": {"b": 1}}).a.b == 1``; a
    field the record lacks reads as None (a tolerant model's default)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        value = self._data.get(name)
        return Fields(value) if isinstance(value, Mapping) else value


def format_time(value: str | None) -> str:
    """An ISO 8601 timestamp from the service in the user's local time, or the text as sent."""
    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if moment.tzinfo is not None:
            moment = moment.astimezone()
    except (ValueError, OverflowError):  # not a timestamp, or one local time cannot hold (year 1)
        return value
    return moment.strftime("%Y-%m-%d %H:%M")


def day(value: str | None) -> str:
    """The local date of a timestamp (the time is in the tooltip and the details)."""
    return format_time(value)[:10]


def _words(value: str | None) -> str:
    return (value or "").replace("_", " ")


def generation_text(episode: Any, *, short: bool = False) -> str:
    generation = episode.generation
    if generation is None:
        return "" if short else "Not generated (an empty draft)"
    state = _words(generation.state).capitalize() or "Unknown"
    if generation.state == "generating":
        phase = _words(generation.phase)
        pct = generation.progress_pct
        detail = phase + (f" {pct:.0f}%" if isinstance(pct, int | float) else "")
        return f"{state} — {detail.strip()}" if detail.strip() else state
    return state


def podcast_label(podcast: Any) -> str:
    return str(podcast.title or podcast.id)


def episode_title(episode: Any) -> str:
    return str(episode.title or "(untitled)")


def episode_status(episode: Any) -> str:
    return str(episode.status or "").capitalize()


def episode_generation(episode: Any) -> str:
    return generation_text(episode, short=True)


def episode_created(episode: Any) -> str:
    return day(episode.created_at)


def episode_published(episode: Any) -> str:
    if episode.published_at:
        return day(episode.published_at)
    if episode.scheduled_at:
        return "for " + day(episode.scheduled_at)
    return ""
