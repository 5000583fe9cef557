"""What the lists' cells say, as pure functions of an item's fields: no Qt, no models, no I/O.

Every function reads fields as attributes, so it takes a resource model (``Episode``) as the panes
hold it, or a cached record (the JSON the service sent) seen through :class:`Fields`, as the early
window reads it from the cache before the models exist (see :mod:`castdeck.ui.early`). Both
windows call the same code, so the early window's rows say what the real list will say.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import datetime
from typing import Any

__all__ = [
    "EPISODE_COLUMNS",
    "EPISODE_COLUMN_WIDTHS",
    "EPISODE_STATUSES",
    "PODCAST_FILTER",
    "STATUS_FILTER",
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
    "shown_count",
    "words",
]

EPISODE_COLUMNS = ("Title", "Podcast", "Status", "Generation", "Created", "Published")
EPISODE_BLANKS = ("Untitled", "No podcast", "No status", "No generation", "Not known", "Not published")
"""What a blank cell of each column reads as to a screen reader."""
EPISODE_COLUMN_WIDTHS = (0, 124, 74, 126, 84, 112)
"""Pixels per column of the Episodes list; the title (0) takes what is left."""

PODCAST_FILTER = (18, 110)
STATUS_FILTER = (11, 84)
"""The Episodes header's filter boxes: (characters, least pixels), see ``pane_header.fit_filter``."""

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
    return _format_time(value)


@functools.lru_cache(maxsize=16384)  # asked on every paint of every row's date cells
def _format_time(value: str) -> str:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone()
        except OverflowError:  # year 9999 with a negative offset (or year 1 with a positive one)
            return value
    return moment.strftime("%Y-%m-%d %H:%M")


def day(value: str | None) -> str:
    """The local date of a timestamp (the time is in the tooltip and the details)."""
    return format_time(value)[:10]


def words(value: str | None) -> str:
    """A service value as words ("script_writing" -> "script writing")."""
    return (value or "").replace("_", " ")


def generation_text(episode: Any, *, short: bool = False) -> str:
    generation = episode.generation
    if generation is None:
        return "" if short else "Not generated (an empty draft)"
    state = words(generation.state).capitalize() or "Unknown"
    if generation.state == "generating":
        phase = words(generation.phase)
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


def shown_count(count: int, plural: str, *, more: bool = False, loading: bool = False) -> str:
    """The line under a list: "1 episode shown", "1,204 episodes shown — scroll for more"."""
    noun = plural[:-1] if count == 1 and plural.endswith("s") else plural
    return (
        f"{count:,} {noun} shown"
        + (" — scroll for more" if more else "")
        + (" — loading…" if loading else "")
    )
