"""What the Episodes pane's details say of an episode: its facts, the note above them, and the
Audio row with its Listen button; and the line under its card's title.

These hold no state of the pane: they read the episode, the names the pane has looked up, the
tracker's live job of a generation (newer than the episode the list holds), and whether a
publish waits for rendering. The pane shows what they give and keeps its Listen button.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from castdeck.api.models import Episode
from castdeck.services.publish import NOT_RENDERED_NOTE, never_rendered
from castdeck.store.jobs import Job

from ..cells import episode_created, episode_published, format_time, generation_text
from ..pane import link_label
from .episode_parts import generating, live_text
from .hosts import plain_value
from .podcasts import NameBook

__all__ = ["audio_row", "episode_error", "episode_facts", "episode_note", "episode_subtitle"]


def episode_subtitle(item: Episode) -> str:
    """Under a card's title: its state and the day that matters (published, or created)."""
    published = episode_published(item)
    if generating(item):
        state = "Generating"
    elif item.status == "scheduled" and published:
        state = f"Scheduled {published}"
    elif item.status == "published" and published:
        return f"Published {published}"
    else:
        state = (item.status or "draft").capitalize()
    day = episode_created(item)
    return f"{state} · {day}" if day else state


def episode_error(item: Episode) -> str | None:
    """Why its generation failed (the generation's word first), or ``None``."""
    generation = item.generation
    return (generation.error_message if generation is not None else None) or item.error_message


def episode_facts(
    item: Episode, names: NameBook, live: Job | None, error: str | None, audio: Callable[[str], QWidget]
) -> list[tuple[str, Any]]:
    """The details' rows, in order; ``audio`` builds the Audio row of an episode with a file."""
    generation = item.generation
    rows: list[tuple[str, Any]] = [
        ("Podcast", plain_value(names.name("podcast", item.podcast_id))),
        ("Status", plain_value((item.status or "—").capitalize())),
        (
            "Generation",
            plain_value(live_text(live) if live is not None else generation_text(item)),
        ),
    ]
    if generation is not None:
        rows.append(("Started", format_time(generation.started_at)))
        if generation.completed_at:
            rows.append(("Finished", format_time(generation.completed_at)))
    if error:
        rows.append(("Error", plain_value(error)))
    skipped = generation.skipped_sources if generation is not None else None
    if skipped:
        lines = [f"{s.title or s.url or s.id}: {s.reason or 'no reason given'}" for s in skipped]
        rows.append(("Skipped sources", plain_value("\n".join(lines))))
    rows += [
        ("Audio", audio(item.audio_url) if item.audio_url else "—"),
        ("Video", link_label(item.video_url, "Video file") if item.video_url else "—"),
    ]
    if item.url:
        rows.append(("Episode page", link_label(item.url, "Open the episode page")))
    rows += [
        ("Hosts", plain_value(names.names("host", item.host_ids))),
        ("Sources", plain_value(names.names("source", item.source_ids))),
        ("Created", format_time(item.created_at)),
        ("Updated", format_time(item.updated_at)),
    ]
    if item.published_at:
        rows.append(("Published", format_time(item.published_at)))
    if item.scheduled_at:
        rows.append(("Scheduled for", format_time(item.scheduled_at)))
    rows.append(("Episode ID", plain_value(item.id)))
    return rows


def episode_note(item: Episode, error: str | None, waiting: str | None) -> tuple[str | None, str]:
    """The note above the facts and its kind; ``waiting`` is the strip's text of a publish that
    waits for rendering."""
    if waiting is not None:
        return waiting, "info"
    if error:
        said = re.sub(r"^\s*generation failed\s*[:.-]\s*", "", error, flags=re.IGNORECASE)
        return (
            f"Generation failed: {said or error}",
            "error",
        )  # never "Generation failed: Generation failed:"
    if generating(item):
        return "Generating: these details follow its progress (and its card in Jobs, Ctrl+J).", "info"
    if item.generation is None and item.status == "draft":
        return "An empty draft: write and render it in the studio application before publishing.", "info"
    if never_rendered(item):
        return NOT_RENDERED_NOTE, "info"
    return None, "info"


def audio_row(url: str, listen: Callable[[], object]) -> tuple[QWidget, QPushButton]:
    """The Audio row: Listen (the player and transcript) beside the link to the file."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    button = QPushButton("▶  Listen", row)
    button.setAccessibleName("Listen to the episode")
    button.setToolTip("Play the audio and read along with the transcript (Ctrl+L)")
    button.clicked.connect(listen)
    layout.addWidget(button)
    layout.addWidget(link_label(url, "Audio file"))
    layout.addStretch(1)
    return row, button
