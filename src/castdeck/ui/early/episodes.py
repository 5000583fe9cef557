"""The Episodes list as the early window shows it: the cached records' cells, through the same
functions as the pane's columns (:mod:`castdeck.ui.cells`), and the pane's header."""

from __future__ import annotations

from typing import Any

from ..cells import (
    EPISODE_BLANKS,
    EPISODE_COLUMN_WIDTHS,
    EPISODE_COLUMNS,
    EPISODE_STATUSES,
    PODCAST_FILTER,
    STATUS_FILTER,
    Fields,
    episode_created,
    episode_generation,
    episode_published,
    episode_status,
    episode_title,
    podcast_label,
    shown_count,
)
from .window import EarlyPane, EarlyPicture

__all__ = ["episodes_pane"]


def episodes_pane(
    items: list[dict[str, Any]], more: bool, related: dict[str, list[dict[str, Any]]]
) -> EarlyPane:
    """``items``: the first cached episodes; ``more``: the list goes on; ``related["podcast"]``: the
    cached podcasts, whose titles the Podcast column and the podcast filter show."""
    podcasts = [Fields(p) for p in related.get("podcast", []) if p.get("id") is not None]
    names = {str(p.id): podcast_label(p) for p in podcasts}
    covers = {str(p.id): p.image_url for p in podcasts if p.image_url}
    rows = []
    pictures = []
    for record in items:
        episode = Fields(record)
        podcast_id = episode.podcast_id
        # The pane's picture hooks: the episode's cover, else its podcast's; the title's initials.
        url = episode.image_url or covers.get(str(podcast_id))
        pictures.append(EarlyPicture(str(episode.id or ""), episode_title(episode), url or None))
        rows.append([
            episode_title(episode),
            names.get(str(podcast_id), str(podcast_id)) if podcast_id else "",
            episode_status(episode),
            episode_generation(episode),
            episode_created(episode),
            episode_published(episode),
        ])  # fmt: skip
    status = shown_count(len(rows), "episodes", more=more)  # as the pane says it
    return EarlyPane(
        "Episodes",
        EPISODE_COLUMNS,
        EPISODE_COLUMN_WIDTHS,
        rows,
        status,
        filters=(
            ("Podcast filter", ("All podcasts", *(podcast_label(p) for p in podcasts)), PODCAST_FILTER),
            ("Status filter", tuple(EPISODE_STATUSES.values()), STATUS_FILTER),
        ),
        buttons=(("Generate…", "Generate episode"), ("New episode", "New episode")),
        splitter=(740, 360),
        splitter_key="episode",
        pictures=pictures,
        switch=True,
        blanks=EPISODE_BLANKS,
    )
