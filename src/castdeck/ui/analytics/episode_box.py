"""An episode's analytics in its details: downloads in the first 7 and 30 days after publishing and
all time, video views in the last 7, 30 and 90 days, when the service computed them, "at least"
with the reason when incomplete, and the stored figures marked when offline."""

from __future__ import annotations

import asyncio
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Episode
from castdeck.services.analytics import Analytics, EpisodeFigures
from castdeck.services.messages import error_text
from castdeck.services.tasks import TaskScope

from ..accessible import set_value, shows_value
from ..resource_model import format_time
from .cards import count_text

__all__ = ["EpisodeAnalyticsBox"]

ROWS = (
    ("downloads", "first_7_days", "Downloads, first 7 days"),
    ("downloads", "first_30_days", "Downloads, first 30 days"),
    ("downloads", "total", "Downloads, all time"),
    ("video_views", "last_7_days", "Video views, last 7 days"),
    ("video_views", "last_30_days", "Video views, last 30 days"),
    ("video_views", "total", "Video views, last 90 days"),
)


class EpisodeAnalyticsBox(QWidget):
    def __init__(self, analytics: Analytics, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        self.analytics = analytics
        self.setAccessibleName("Episode analytics")
        self.episode_id: str | None = None
        self.figures: EpisodeFigures | None = None
        self._status: str | None = None
        self._loading: asyncio.Task[None] | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 6, 0, 0)
        top = QHBoxLayout()
        heading = QLabel("Analytics", self)
        heading.setStyleSheet("font-weight: bold;")
        top.addWidget(heading)
        top.addStretch(1)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setAccessibleName("Read the episode's figures again")
        self.refresh_button.clicked.connect(self.refresh)
        top.addWidget(self.refresh_button)
        outer.addLayout(top)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        shows_value(self.note, "About these figures")
        self.note.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.note)
        self.figures_box = QWidget(self)  # hidden until the episode is published
        self.form = QFormLayout(self.figures_box)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)  # as the facts above
        self.values: dict[str, QLabel] = {}
        for group, name, label in ROWS:
            value = set_value(QLabel(self.figures_box), None, blank="Not known yet")
            self.values[f"{group}.{name}"] = value
            self.form.addRow(label, value)
        outer.addWidget(self.figures_box)
        self.hide()

    def show_episode(self, episode: Episode | None) -> None:
        """Show ``episode``'s figures, read once per episode (and again after its status changed)."""
        if episode is None:
            self.episode_id = None
            self.hide()
            return
        self.show()
        key = str(episode.id)
        if key == self.episode_id and episode.status == self._status:
            return
        self.episode_id, self._status = key, episode.status
        self.figures = None
        if episode.status != "published":
            self._fill(None)
            self.refresh_button.hide()
            self.figures_box.hide()
            self.note.setText("No figures yet: they are counted once the episode is published.")
            return
        self.refresh_button.show()
        self.figures_box.show()
        self.refresh()

    def refresh(self) -> None:
        if self.episode_id is None:
            return
        if self._loading is not None and not self._loading.done():
            self._loading.cancel()
        self.note.setText("Reading the figures…")
        self._loading = self.work.start(
            self._read(self.episode_id), on_error=self._failed, name="episode analytics"
        )

    async def _read(self, episode_id: str) -> None:
        figures = await self.analytics.episode(episode_id)
        if episode_id == self.episode_id:
            self.figures = figures
            self._fill(figures)

    def _failed(self, error: CastdeckError) -> None:
        self.note.setText(f"Could not read the figures: {error_text(error)}")

    def _fill(self, figures: EpisodeFigures | None) -> None:
        if figures is None:
            for value in self.values.values():
                set_value(value, None, blank="Not known")
            return
        data = figures.analytics
        floor = not data.complete
        for key, value in self.values.items():
            group, name = key.split(".")
            number = float(getattr(getattr(data, group), name))
            set_value(value, count_text(number, floor=floor))
        parts = [f"As of {format_time(data.as_of)}." if data.as_of else ""]
        parts.append(
            "Downloads count from the day it was published; video views are rolling windows ending today."
        )
        if floor:
            parts.append(
                "Incomplete: an analytics provider was degraded, so these are floors (at least this many). "
                "Refresh later."
            )
        if figures.offline:
            read = time.strftime("%Y-%m-%d %H:%M", time.localtime(figures.read_at))
            parts.append(f"Offline: the figures read on {read}.")
        self.note.setText(" ".join(p for p in parts if p))

    def text_of(self, label: str) -> str | None:
        """The figure shown for a row label (tests)."""
        for group, name, shown in ROWS:
            if shown == label:
                return self.values[f"{group}.{name}"].text()
        return None
