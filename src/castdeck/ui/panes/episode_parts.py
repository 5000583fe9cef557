"""The Episodes pane's parts that hold no state of the pane: its columns, the generation row from
a live job, and the strip shown while a publish waits for rendering."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from castdeck.api.models import Episode
from castdeck.services.jobs import job_text
from castdeck.services.season import season_reason
from castdeck.store.jobs import Job

from ..accessible import shows_value
from ..cells import (
    EPISODE_BLANKS,
    EPISODE_COLUMNS,
    episode_created,
    episode_generation,
    episode_published,
    episode_status,
    episode_title,
    format_time,
    generation_text,
    words,
)
from ..palette import tone
from ..resource_model import Column
from .podcasts import NameBook

__all__ = ["GENERATION_STARTED", "PublishWait", "episode_columns", "generating", "live_text"]


def live_text(job: Job) -> str:
    """The generation row from the tracker's live job (newer than the episode the list holds)."""
    if job.extra.get("accepting"):
        return job_text(job)
    phase = words(job.phase)
    detail = phase + (f" {job.progress:.0f}%" if job.progress is not None else "")
    return f"Generating — {detail.strip()}" if detail.strip() else "Generating"


GENERATION_STARTED = "Generation started; its card in Jobs (Ctrl+J) and the details follow its progress."


def generating(episode: Episode) -> bool:
    return episode.generation is not None and episode.generation.state == "generating"


def _published_tooltip(episode: Episode) -> str | None:
    if episode.published_at:
        return "Published " + format_time(episode.published_at)
    if episode.scheduled_at:
        return "Scheduled for " + format_time(episode.scheduled_at)
    return None


def episode_columns(names: NameBook) -> list[Column]:
    """The Episodes list's columns; their texts are :mod:`castdeck.ui.cells`' (the early window's too)."""
    return [
        Column(EPISODE_COLUMNS[0], episode_title, blank=EPISODE_BLANKS[0]),
        Column(
            EPISODE_COLUMNS[1],
            lambda e: names.name("podcast", e.podcast_id) if e.podcast_id else "",
            blank=EPISODE_BLANKS[1],
        ),
        Column(EPISODE_COLUMNS[2], episode_status, blank=EPISODE_BLANKS[2]),
        Column(
            EPISODE_COLUMNS[3],
            episode_generation,
            tooltip=lambda e: (
                (e.generation.error_message if e.generation is not None else None)
                or e.error_message
                or generation_text(e)
            ),
            blank=EPISODE_BLANKS[3],
        ),
        Column(
            EPISODE_COLUMNS[4],
            episode_created,
            sort_key=lambda e: e.created_at or "",
            tooltip=lambda e: format_time(e.created_at) or None,
            blank=EPISODE_BLANKS[4],
        ),
        Column(
            EPISODE_COLUMNS[5],
            episode_published,
            sort_key=lambda e: e.published_at or e.scheduled_at or "",
            tooltip=_published_tooltip,
            blank=EPISODE_BLANKS[5],
        ),
    ]


class PublishWait(QFrame):
    """A strip above the list while a publish waits for rendering: the countdown and a Stop button."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("publishWait")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            f"QFrame#publishWait {{ border: 1px solid {tone('info')}; border-left: 4px solid {tone('info')}; border-radius: 3px; }}"
        )
        self.title = title
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        shows_value(self.label, "Publishing status")
        self.stop_button = QPushButton("Stop waiting", self)
        self.stop_button.setAccessibleName(f"Stop waiting to publish {title}")
        layout.addWidget(self.label, 1)
        layout.addWidget(self.stop_button)

    @property
    def text(self) -> str:
        return self.label.text()

    def set_text(self, text: str) -> None:
        self.label.setText(text)


def selection_facts(episodes: list[Episode]) -> tuple[str, list[tuple[str, Any]], str]:
    """The details of several episodes selected at once: a heading, the counts, and a note that
    says what the one action does (or why none of them can go)."""
    reasons = [season_reason(episode) for episode in episodes]
    ready = reasons.count(None)
    left = [reason.split(":")[0].split(" (")[0].rstrip(".") for reason in reasons if reason is not None]
    rows: list[tuple[str, Any]] = [
        ("Selected", f"{len(episodes)} episodes"),
        ("Can be published", str(ready)),
    ]
    if left:
        kinds = sorted(set(left), key=left.index)
        rows.append(("Left out", ", ".join(f"{left.count(k)} {k.lower()}" for k in kinds)))
    if ready:
        note = "Publish them now, or schedule them as a series in the order the list shows them."
    else:
        note = "None of these can be published now; the reasons are listed when you open Publish or schedule."
    return f"{len(episodes)} episodes selected", rows, note
