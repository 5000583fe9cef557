"""The episodes of a podcast's analytics as a sortable table model: one row per episode, whole
numbers right-aligned, sorted by value (not by text), each column explained in its header tooltip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from castdeck.api.models import PodcastEpisodeAnalytics
from castdeck.services.analytics import PodcastFigures

from ..resource_model import SORT_ROLE, format_time

__all__ = ["COLUMNS", "EPISODE_ID_ROLE", "SORT_ROLE", "EpisodeAnalyticsModel"]

EPISODE_ID_ROLE = Qt.ItemDataRole.UserRole + 2
AnyIndex = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Column:
    title: str
    explained: str
    figure: str | None = None  # "downloads.first_7_days" and the like; None for text columns


COLUMNS = (
    Column("Episode", "The episode's title"),
    Column("Published", "When the episode was published"),
    Column("Downloads 7 d", "Audio downloads in the first 7 days after publishing", "downloads.first_7_days"),
    Column("Downloads 30 d", "Audio downloads in the first 30 days after publishing", "downloads.first_30_days"),
    Column("Downloads", "Audio downloads since publishing (all time)", "downloads.total"),
    Column("Views 7 d", "Video views in the last 7 days (a rolling window ending today)", "video_views.last_7_days"),
    Column("Views 30 d", "Video views in the last 30 days (a rolling window ending today)", "video_views.last_30_days"),
    Column("Views 90 d", "Video views in the last 90 days (the service keeps 90 days of views)", "video_views.total"),
)  # fmt: skip


def figure_of(entry: PodcastEpisodeAnalytics, path: str) -> int:
    group, name = path.split(".")
    return round(float(getattr(getattr(entry, group), name)))


class EpisodeAnalyticsModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[PodcastEpisodeAnalytics] = []
        self._figures: PodcastFigures | None = None

    def set_figures(self, figures: PodcastFigures | None) -> None:
        self.beginResetModel()
        self._figures = figures
        self._rows = list(figures.analytics.episodes) if figures is not None else []
        self.endResetModel()

    @property
    def floor(self) -> bool:
        return self._figures is not None and not self._figures.analytics.complete

    def episode_id(self, row: int) -> str:
        return self._rows[row].episode_id

    def title_of(self, entry: PodcastEpisodeAnalytics) -> str:
        line = self._figures.episodes.get(entry.episode_id) if self._figures is not None else None
        return (line.title if line is not None else None) or f"Episode {entry.episode_id[:8]}"

    def published_of(self, entry: PodcastEpisodeAnalytics) -> str:
        line = self._figures.episodes.get(entry.episode_id) if self._figures is not None else None
        if line is None:
            return ""
        if line.published_at:
            return format_time(line.published_at)[:10]
        return (line.status or "").capitalize()

    # --- Qt model interface --------------------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        entry = self._rows[index.row()]
        column = COLUMNS[index.column()]
        if role == EPISODE_ID_ROLE:
            return entry.episode_id
        if column.figure is None:
            text = self.title_of(entry) if index.column() == 0 else self.published_of(entry)
            if role == Qt.ItemDataRole.DisplayRole:
                return text
            if role == SORT_ROLE:
                line = self._figures.episodes.get(entry.episode_id) if self._figures is not None else None
                return text.lower() if index.column() == 0 else ((line.published_at or "") if line else "")
            if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
                return text
            return None
        value = figure_of(entry, column.figure)
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{value:,}"
        if role == SORT_ROLE:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            prefix = "At least " if self.floor else ""
            return f"{prefix}{value:,}: {column.explained.lower()}"
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < len(COLUMNS)):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].explained
        return None
