"""Analytics: how a podcast and its episodes are doing, at a glance (spec 2.10, 4.3).

Pick a podcast: its totals (all-time downloads, video views over 90 days, plays, the last 7 and 30
days), plays by app as a bar chart, and a sortable table of its episodes (double-click opens one
in Episodes). What each number counts is said where it is shown. Incomplete figures are shown as
"at least" with the reason and a Retry; disabled audio analytics are explained; the time the
service computed them is shown. Figures read before are shown offline, marked so. Both tables
export to CSV (the episodes in the order the table shows them).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.services.analytics import Analytics, PodcastFigures
from castdeck.services.analytics_export import APP_HEADER, EPISODE_HEADER, app_rows, episode_rows, write_csv
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from ..accessible import shows_value
from ..analytics.bars import BarChart
from ..analytics.cards import FigureCard, FigureGrid
from ..analytics.episode_table import COLUMNS, EPISODE_ID_ROLE, EpisodeAnalyticsModel
from ..column_fit import ColumnFit
from ..dialogs.episode_dialogs import podcast_label
from ..file_dialogs import use_folder
from ..pickers import ComboPicker, podcast_feed
from ..resource_model import ResourceFilterProxy, format_time
from ..widgets import Banner, alive, heading_label

__all__ = ["DISABLED_TEXT", "INCOMPLETE_TEXT", "MEANING_TEXT", "AnalyticsPane"]

INCOMPLETE_TEXT = (
    "These figures are incomplete: an analytics provider the service relies on was degraded when they "
    "were computed, so every number here is a floor (the real figure is at least this). Try again later."
)
DISABLED_TEXT = (
    "Audio analytics are turned off for this podcast, so its downloads (and the plays made of them) "
    "show as 0. Video views are still counted."
)
NO_APPS_TEXT = "No plays counted by app yet."
MEANING_TEXT = (
    "How these are counted: a play is an audio download or a video view. “First 7 / 30 days” count "
    "from the day each episode was published, so episodes can be compared at the same age; “last 7 / "
    "30 days” are rolling windows ending today. Video views cover the last 90 days; downloads, all time."
)


DOWNLOADS_COLUMN = next(i for i, c in enumerate(COLUMNS) if c.figure == "downloads.total")


class AnalyticsPane(QWidget):
    title = "Analytics"
    openRequested = Signal(str, str)  # kind, id: an episode double-clicked in the table

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        self.session = session
        self.analytics = Analytics(session)
        self.figures: PodcastFigures | None = None
        self.export_dialog: QFileDialog | None = None
        self._sorted = False
        self._loading: asyncio.Task[None] | None = None
        self.setAccessibleName("Analytics")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 4)
        header = QHBoxLayout()
        header.addWidget(heading_label("Analytics", self))
        header.addSpacing(12)
        self.podcast_picker = ComboPicker(podcast_feed(session), podcast_label, name="podcast", parent=self)
        self.podcast_picker.setMinimumWidth(240)
        self.podcast_picker.setToolTip("The podcast whose figures are shown")
        header.addWidget(self.podcast_picker)
        header.addStretch(1)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setAccessibleName("Refresh analytics")
        self.refresh_button.setToolTip("Read the figures again (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        self.export_episodes_button = QPushButton("Export episodes…", self)
        self.export_episodes_button.setAccessibleName("Export the episode table as CSV")
        self.export_episodes_button.setToolTip("Save the episode table as a CSV file for a spreadsheet")
        self.export_episodes_button.clicked.connect(lambda: self.export("episodes"))
        self.export_apps_button = QPushButton("Export apps…", self)
        self.export_apps_button.setAccessibleName("Export plays by app as CSV")
        self.export_apps_button.setToolTip("Save the plays by app as a CSV file for a spreadsheet")
        self.export_apps_button.clicked.connect(lambda: self.export("apps"))
        for button in (self.refresh_button, self.export_episodes_button, self.export_apps_button):
            header.addWidget(button)
        outer.addLayout(header)

        self.banner = Banner(self)
        outer.addWidget(self.banner)
        self.state_banner = Banner(self)  # offline, incomplete or disabled: what the figures are
        self.state_banner.close_button.hide()
        self.retry_button = QPushButton("Retry", self.state_banner)
        self.retry_button.setAccessibleName("Read the figures again")
        self.retry_button.clicked.connect(self.refresh)
        self.state_banner.button_row.insertWidget(1, self.retry_button)
        outer.addWidget(self.state_banner)

        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        body = QWidget(scroll)
        content = QVBoxLayout(body)
        content.setContentsMargins(4, 4, 4, 4)
        content.setSpacing(10)
        self.as_of = QLabel(body)
        shows_value(self.as_of, "When the figures were computed")
        self.as_of.setStyleSheet("color: palette(mid);")
        content.addWidget(self.as_of)
        self.cards = {
            "downloads": FigureCard("Downloads", "Audio downloads, all time", body),
            "video_views": FigureCard("Video views", "Video views in the last 90 days", body),
            "plays": FigureCard("Plays", "Downloads plus video views", body),
            "last_7_days": FigureCard("Last 7 days", "Plays in the 7 days ending today", body),
            "last_30_days": FigureCard("Last 30 days", "Plays in the 30 days ending today", body),
        }
        content.addWidget(FigureGrid(list(self.cards.values()), parent=body))
        self.meaning = QLabel(MEANING_TEXT, body)
        self.meaning.setWordWrap(True)
        shows_value(self.meaning, "How the figures are counted")
        self.meaning.setStyleSheet("color: palette(mid);")
        content.addWidget(self.meaning)

        charts = QHBoxLayout()
        apps_box = QVBoxLayout()
        apps_heading = QLabel("Plays by app", body)
        apps_heading.setStyleSheet("font-weight: bold;")
        apps_box.addWidget(apps_heading)
        self.apps_chart = BarChart("Plays by app", "plays", body)
        self.apps_chart.empty_text = NO_APPS_TEXT
        apps_box.addWidget(self.apps_chart)
        apps_box.addStretch(1)
        charts.addLayout(apps_box, 1)
        content.addLayout(charts)

        table_heading = QLabel("Episodes (double-click or press Enter to open one)", body)
        table_heading.setStyleSheet("font-weight: bold;")
        content.addWidget(table_heading)
        self.model = EpisodeAnalyticsModel(self)
        self.proxy = ResourceFilterProxy(self)  # sorts by value: numbers as numbers
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(body)
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Episode analytics")
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setMinimumHeight(220)
        header_view = self.table.horizontalHeader()
        header_view.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.model.columnCount()):
            header_view.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.column_fit = ColumnFit(self.table)  # narrow: the later figures give way to the title
        self.table.activated.connect(self._open_episode)  # a double-click, or Enter on the row
        content.addWidget(self.table, 1)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        self.status = QLabel(self)
        shows_value(self.status, "Analytics status")
        self.status.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.status)

        self.podcast_picker.changed.connect(self._podcast_changed)
        session.reconnected.connect(self._reconnected)
        self._show(None)

    # --- the window's protocol (Ctrl+N, F5, reveal) ---------------------------------------------------------

    def activate(self) -> None:
        """Shown: read the figures of the chosen podcast (the first one until one is chosen)."""
        if self.figures is None and self._loading is None:
            self._podcast_changed()

    def reveal(self, podcast_id: str) -> None:
        """Show the figures of ``podcast_id`` (the Podcasts pane's "Analytics"); a podcast the
        picker has not read yet (created since) is read with the list again."""
        wanted = str(podcast_id)
        picker = self.podcast_picker
        if wanted in picker.items:
            if picker.selected_id() == wanted:
                self._podcast_changed()
            else:
                picker.set_selected(wanted)  # its change reads the figures
        else:
            picker.reload(podcast_feed(self.session), select=wanted)

    def refresh(self) -> None:
        """F5 and Retry: the figures again, and the list of podcasts (new ones appear)."""
        self._load(self.podcast_picker.selected_id())
        self.podcast_picker.reload(podcast_feed(self.session))

    # --- reading ---------------------------------------------------------------------------------------------

    def _podcast_changed(self) -> None:
        podcast_id = self.podcast_picker.selected_id()
        if podcast_id is None:
            return
        shown = self.figures.analytics.podcast_id if self.figures is not None else None
        if podcast_id != shown or self._loading is None:
            self._load(podcast_id)

    def _reconnected(self) -> None:
        if self.figures is not None and self.figures.offline:
            self.refresh()

    def _load(self, podcast_id: str | None) -> None:
        if podcast_id is None:
            return
        if self._loading is not None and not self._loading.done():
            self._loading.cancel()
        self.banner.hide()
        self.status.setText("Reading the figures…")
        self.refresh_button.setEnabled(False)
        self._loading = self.work.start(self._read(podcast_id), on_error=self._failed, name="read analytics")

    async def _read(self, podcast_id: str) -> None:
        try:
            figures = await self.analytics.podcast(podcast_id)
        finally:
            self.refresh_button.setEnabled(True)
        if podcast_id == self.podcast_picker.selected_id():
            self._show(figures)

    def _failed(self, error: CastdeckError) -> None:
        self.status.setText("")
        self.banner.show_error(error, "Could not read the figures")

    # --- showing ---------------------------------------------------------------------------------------------

    def _show(self, figures: PodcastFigures | None) -> None:
        self.figures = figures
        self.model.set_figures(figures)
        has = figures is not None
        self.export_episodes_button.setEnabled(has and self.model.rowCount() > 0)
        self.export_apps_button.setEnabled(has and bool(figures and figures.analytics.plays_by_app))
        if figures is None:
            for card in self.cards.values():
                card.set_value(None)
            self.apps_chart.set_bars([])
            self.as_of.setText("Choose a podcast to see how it is doing.")
            self.state_banner.hide()
            self.status.setText("")
            return
        data = figures.analytics
        floor = not data.complete
        totals = data.totals
        for name, card in self.cards.items():
            card.set_value(float(getattr(totals, name)), floor=floor)
        apps = sorted(data.plays_by_app.items(), key=lambda item: (-item[1], item[0]))
        empty = (
            NO_APPS_TEXT
            if data.analytics_enabled
            else "Audio analytics are off for this podcast: no plays by app."
        )
        self.apps_chart.set_bars(
            [(name, float(value)) for name, value in apps], floor=floor, empty_text=empty
        )
        computed = format_time(data.as_of) if data.as_of else "an unknown time"
        self.as_of.setText(f"Figures as of {computed}, as the service computed them.")
        self._show_state(figures)
        if not self._sorted:  # most downloaded first, until the creator sorts by another column:
            self._sorted = True  # the proxy keeps that order for every read (Refresh reset it)
            self.table.sortByColumn(DOWNLOADS_COLUMN, Qt.SortOrder.DescendingOrder)
        count = self.model.rowCount()
        read = time.strftime("%Y-%m-%d %H:%M", time.localtime(figures.read_at))
        self.status.setText(f"{count:,} episode{'s' if count != 1 else ''} · read {read}")

    def _show_state(self, figures: PodcastFigures) -> None:
        data = figures.analytics
        parts: list[str] = []
        kind = "info"
        if figures.offline:
            read = time.strftime("%Y-%m-%d %H:%M", time.localtime(figures.read_at))
            parts.append(
                f"Offline: these are the figures read on {read}. They are read again when the service returns."
            )
            kind = "offline"
        if not data.complete:
            parts.append(INCOMPLETE_TEXT)
            kind = "warning"
        if not data.analytics_enabled:
            parts.append(DISABLED_TEXT)
        if not parts:
            self.state_banner.hide()
            return
        self.retry_button.setVisible(not data.complete or figures.offline)
        self.state_banner.show_message("\n".join(parts), kind=kind)

    def _open_episode(self, index: QModelIndex) -> None:
        episode_id = self.proxy.data(index, EPISODE_ID_ROLE)
        if episode_id:
            self.openRequested.emit("episode_figures", str(episode_id))  # its figures, in its details

    # --- export ----------------------------------------------------------------------------------------------

    def export(self, what: str) -> None:
        """Ask where, then save the episode table (``episodes``) or the plays by app (``apps``)."""
        figures = self.figures
        if figures is None:
            return
        title = self.podcast_picker.currentText() or "podcast"
        stem = "".join(ch if ch.isalnum() or ch in " -_" else "_" for ch in title).strip() or "podcast"
        old = self.export_dialog
        if old is not None and alive(old):
            old.deleteLater()  # each export's dialog stayed a hidden child of the pane for good
        dialog = QFileDialog(self, "Export as CSV", "", "CSV files (*.csv)")
        use_folder(
            self.session.runtime.settings,
            dialog,
            "exports",
            f"{stem} - {'episodes' if what == 'episodes' else 'plays by app'}.csv",
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("csv")
        dialog.setObjectName("export_dialog")
        dialog.fileSelected.connect(lambda path: self.save_csv(what, Path(path)))
        self.export_dialog = dialog
        dialog.open()

    def save_csv(self, what: str, path: Path) -> None:
        """Write the CSV off the UI thread; the banner says where it went (or why it could not)."""
        figures = self.figures
        if figures is None:
            return
        if what == "episodes":  # in the order the table shows them (sorted as the creator chose)
            shown = [
                str(self.proxy.index(row, 0).data(EPISODE_ID_ROLE)) for row in range(self.proxy.rowCount())
            ]
            header, rows = EPISODE_HEADER, episode_rows(figures, shown)
        else:
            header, rows = APP_HEADER, app_rows(figures)
        self.work.start(self._save(path, header, rows), name="export analytics")

    async def _save(self, path: Path, header: list[str], rows: list[list[str | int]]) -> None:
        try:
            await self.session.on_disk(write_csv, path, header, rows)
        except OSError as error:
            self.banner.show_message(f"Could not save {path.name}: {error.strerror or error}", kind="error")
            return
        self.banner.show_message(f"Saved {len(rows):,} row{'s' if len(rows) != 1 else ''} to {path}.")
