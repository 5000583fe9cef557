"""Episodes: filtered on the service by podcast and status; details with generation progress;
create, edit, generate, publish now or schedule, unpublish and delete.

The pane polls nothing. An episode that is generating is followed by the job tracker (the pane
asks it to when it shows one it does not follow yet) and its details show the tracker's live
state. Publishing goes through the publish service: while rendering runs, the publish is a job
with a card, and a strip above the list says so with a "Stop waiting" button.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QHeaderView,
    QPushButton,
    QWidget,
)

from castdeck.api.models import Episode, EpisodeAccepted
from castdeck.services import catalog
from castdeck.services.background import Background
from castdeck.services.listing import ListFeed
from castdeck.services.publish import PublishBlocked, never_rendered
from castdeck.services.session import Session
from castdeck.services.starting import Accepted, started_text
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

from ..cells import (
    EPISODE_STATUSES,
    PODCAST_FILTER,
    STATUS_FILTER,
    generation_text,
)
from ..dialogs.episode_dialogs import EpisodeCreateDialog, EpisodeEditDialog, podcast_label
from ..dialogs.generate_dialog import GenerateDialog
from ..forms import FormDialog
from ..pane_failed import WindowFailed
from ..pane_header import fit_filter
from ..pickers import ComboPicker, host_feed, podcast_feed, source_feed
from ..pictured import PicturedPane
from ..resource_model import Column
from ..widgets import alive
from .episode_actions import EpisodeActions
from .episode_cover import CoverReplacer
from .episode_details import audio_row, episode_error, episode_facts, episode_note, episode_subtitle
from .episode_parts import GENERATION_STARTED, PublishWait, episode_columns, generating, selection_facts
from .podcasts import NameBook

if TYPE_CHECKING:
    from ..analytics.episode_box import EpisodeAnalyticsBox
    from ..listen.listen_window import ListenWindow

__all__ = ["STATUSES", "EpisodesPane", "PublishBlocked", "episode_columns", "generation_text"]

log = logging.getLogger(__name__)

STATUSES = EPISODE_STATUSES


class EpisodesPane(PicturedPane):
    title = "Episodes"
    kind = "episode"
    new_label = "New episode"

    _built = False
    """False while the base class builds the pane and already asks it for its filters or write state."""

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        self.background = background
        self.names = NameBook(
            {
                "podcast": lambda: podcast_feed(session),
                "host": lambda: host_feed(session),
                "source": lambda: source_feed(session),
            },
            {
                "podcast": podcast_label,
                "host": lambda h: h.name or h.id,
                "source": lambda s: s.title or s.id,
            },
        )
        super().__init__(session, parent)
        self.setup_pictures()
        self.cover_replacer = CoverReplacer(self)
        self.cover_replacer.on_write_state(session.write_block_reason)
        self.splitter.setSizes([740, 360])
        self.names.setParent(self)
        self.analytics_box: EpisodeAnalyticsBox | None = None  # built with the first details shown
        for label in (self.details.heading, self.details.note, self.banner.label):
            label.setTextFormat(Qt.TextFormat.PlainText)  # they show service text (titles, errors)
        self.names.updated.connect(self._names_arrived)
        self.dialog: FormDialog | None = None
        self.episode_actions = EpisodeActions(self)
        background.jobs.jobChanged.connect(self._job_changed)
        self._active_filters: dict[str, str | None] | None = None

        self.podcast_filter = ComboPicker(
            podcast_feed(session),
            podcast_label,
            none_label="All podcasts",
            name="podcast filter",
            parent=self,
        )
        fit_filter(self.podcast_filter, PODCAST_FILTER[0], PODCAST_FILTER[1])
        self.podcast_filter.setToolTip("Show the episodes of one podcast")
        self.status_filter = QComboBox(self)
        self.status_filter.setAccessibleName("Status filter")
        self.status_filter.setToolTip("Show the episodes with one status")
        for value, shown in STATUSES.items():
            self.status_filter.addItem(shown, value)
        fit_filter(self.status_filter, STATUS_FILTER[0], STATUS_FILTER[1])
        self.filters.addWidget(self.podcast_filter)
        self.filters.addWidget(self.status_filter)
        self.podcast_filter.changed.connect(self._filters_changed)
        self.status_filter.currentIndexChanged.connect(self._filters_changed)

        self.generate_button = QPushButton("Generate…", self)
        self.generate_button.setAccessibleName("Generate episode")
        self.generate_button.setToolTip("Generate an episode from a prompt (Ctrl+G)")
        self.generate_button.clicked.connect(self.generate)
        if self.new_button is not None:
            self.header_row.insertWidget(self.header_row.indexOf(self.new_button), self.generate_button)
        self.writes(self.generate_button)
        shortcut = QShortcut(QKeySequence("Ctrl+G"), self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)  # whenever the pane is shown
        shortcut.activated.connect(self._generate_shortcut)

        def button(text: str, name: str, tip: str, slot: Any) -> QPushButton:
            made = QPushButton(text, self)
            made.setAccessibleName(name)
            made.setToolTip(tip)
            made.clicked.connect(slot)
            made.hide()
            self.writes(made)
            return made

        self.edit_button = button(
            "Edit…", "Edit episode", "Change the title, description or cover", self.edit_current
        )
        acts = self.episode_actions
        self.publish_button = button(
            "Publish now…", "Publish episode", "Publish this episode now", lambda: acts.publish_current(False)
        )
        self.schedule_button = button(
            "Schedule…", "Schedule episode", "Publish at a date and time", lambda: acts.publish_current(True)
        )
        self.unpublish_button = button(
            "Unpublish…", "Unpublish episode", "Take the episode back to draft", acts.unpublish_current
        )
        self.delete_button = button("Delete…", "Delete episode", "Delete this episode", acts.delete_current)
        self.unpublish_many_button = button(
            "Unpublish…",
            "Unpublish the selected episodes",
            "Take the selected episodes back to draft",
            acts.unpublish_selection,
        )
        self.delete_many_button = button(
            "Delete…", "Delete the selected episodes", "Delete the selected episodes", acts.delete_selection
        )
        self.season_button = button(
            "Publish or schedule…",
            "Publish or schedule the selected episodes",
            "Publish the selected episodes now, or schedule them as a series in the order shown",
            acts.publish_selection,
        )
        self.listen_button: QPushButton | None = None
        """The Listen button of the episode shown (in its Audio row; listening works offline too)."""
        listen_shortcut = QShortcut(QKeySequence("Ctrl+L"), self)
        listen_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)  # whenever the pane is shown
        listen_shortcut.activated.connect(self.listen_current)
        self._started_banner: str | None = None
        """The episode the "Generation started" banner speaks of (hidden when its job ends)."""
        self.listen_window: ListenWindow | None = None
        self.listen_failed: WindowFailed | None = None
        """Says why, when the Listen window could not be built."""
        self._built = True

    many = True
    """Several episodes can be selected: published at once or scheduled as a series."""

    # --- ResourcePane --------------------------------------------------------------------------------------

    COLUMN_WIDTHS = (0, 124, 74, 126, 84, 112)
    """Pixels per column; the title (0) takes what is left."""

    @property
    def publish_waits(self) -> dict[str, PublishWait]:
        """The strip above the list of each publish waiting for rendering, by episode id."""
        return self.episode_actions.waits

    def columns(self) -> list[Column]:
        return episode_columns(self.names)

    def _size_columns(self) -> None:
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        for column, width in enumerate(self.COLUMN_WIDTHS):
            if column:
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
                header.resizeSection(column, width)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def filter_values(self) -> dict[str, str | None]:
        if not self._built:  # asked by the base class while it builds, before the filters exist
            return {"podcast_id": None, "status": None}
        return {
            "podcast_id": self.podcast_filter.selected_id(),
            "status": self.status_filter.currentData() or None,
        }

    def open_list(self) -> ListFeed[Episode]:
        filters = self.filter_values()
        self._active_filters = filters
        return catalog.episodes(self.session, self.page_size, filters)

    def _filters_changed(self, *_: object) -> None:
        if self._activated and self.filter_values() != self._active_filters:
            self.reload()

    def reload(self) -> None:
        super().reload()
        self.names.reload()
        self.names.load("podcast")

    async def fetch_item(self, item: Episode) -> Episode:
        return await self.read_item(str(item.id))

    def picture_url(self, item: Episode) -> str | None:
        """The episode's cover, else its podcast's."""
        if item.image_url:
            return item.image_url
        podcast = self.names.get("podcast", item.podcast_id)
        return getattr(podcast, "image_url", None) or None

    def card_subtitle(self, item: Episode) -> str:
        return episode_subtitle(item)

    def on_write_state(self, reason: str | None) -> None:
        if self._built:  # the replacer is told the state when it is made
            self.cover_replacer.on_write_state(reason)

    def show_item(self, item: Episode) -> None:
        for kind in ("podcast", "host", "source"):
            self.names.load(kind)
        self.show_cover(item)
        error = episode_error(item)
        rows = episode_facts(item, self.names, self._live_job(item), error, self._audio_row)
        wait = self.publish_waits.get(str(item.id))
        note, note_kind = episode_note(item, error, wait.text if wait is not None else None)
        self.details.show_facts(item.title or "(untitled)", rows, text=item.description or "", note=note,
                                note_kind=note_kind)  # fmt: skip
        self.details.set_actions(self._actions_for(item))
        self._analytics_of(item)
        self._follow_generation(item)

    def _analytics_of(self, item: Episode) -> None:
        """The episode's figures below its facts (their code loads with the first details shown,
        after the window's first paint)."""
        if self.analytics_box is None:
            from castdeck.services.analytics import Analytics

            from ..analytics.episode_box import EpisodeAnalyticsBox

            self.analytics_box = EpisodeAnalyticsBox(Analytics(self.session), self.details)
            self.details.add_section(self.analytics_box)
        self.analytics_box.show_episode(item)

    def _live_job(self, item: Episode) -> Job | None:
        """The tracker's job of an episode that is generating (its phase and progress are newer than
        the item's). An item whose generation has ended is final: no job state is newer than that."""
        if not generating(item):
            return None
        job = self.background.jobs.job("episode", str(item.id))
        return job if job is not None and job.active else None

    def _audio_row(self, url: str) -> QWidget:
        row, self.listen_button = audio_row(url, self.listen_current)
        return row

    def _actions_for(self, item: Episode) -> list[QAbstractButton]:
        actions: list[QAbstractButton] = [self.edit_button, self.cover_replacer.button]
        if item.status in ("published", "scheduled"):
            actions.append(self.unpublish_button)
        elif str(item.id) not in self.publish_waits and not never_rendered(item):
            actions += [self.publish_button, self.schedule_button]  # never rendered: the note says why not
        actions.append(self.delete_button)
        return actions

    def first_step(self) -> None:
        """The empty list's "Generate episode": the way most episodes are made."""
        self.generate()

    def new_item(self) -> None:
        dialog = EpisodeCreateDialog(self.session, self._podcast_hint(), parent=self)
        self.open_dialog(dialog, self._created)

    # --- dialogs -------------------------------------------------------------------------------------------

    def _podcast_hint(self) -> str | None:
        chosen = self.podcast_filter.selected_id()
        if chosen:
            return chosen
        return self.current.podcast_id if isinstance(self.current, Episode) else None

    def _created(self, dialog: FormDialog) -> None:
        if isinstance(dialog.result_value, Episode):
            self.item_changed(dialog.result_value)
            self.banner.show_message(f"Created the episode “{dialog.result_value.title or 'untitled'}”.")

    def _generate_shortcut(self) -> None:
        if self.generate_button.isEnabled():
            self.generate()

    def generate(self) -> GenerateDialog:
        """Open the generate dialog (the button, Ctrl+G); the accepted episode is shown and selected."""
        dialog = GenerateDialog(self.session, self.background, self._podcast_hint(), parent=self)
        self.open_dialog(dialog, self._generated)
        # the hosts' names read while the creator writes: the new episode's details name its hosts
        # at once (not by their ids until the names arrive)
        self.names.load("host")
        return dialog

    def _generated(self, dialog: FormDialog) -> None:
        accepted = dialog.result_value
        if isinstance(accepted, Accepted) and isinstance(accepted.data, EpisodeAccepted):
            self.banner.show_message(GENERATION_STARTED, kind="info")
            self._started_banner = str(accepted.data.id)
            self.run(self.show_episode(str(accepted.data.id)), "Could not read the new episode")
        elif isinstance(accepted, OutboxEntry | Job):
            text, kind = started_text(accepted)
            self.banner.show_message(text, kind=kind)

    async def read_item(self, episode_id: str) -> Episode:
        """The episode as the service has it now; its generation job (if followed) hears of it too."""
        episode = await catalog.episode(self.session, episode_id)
        self.background.jobs.observe("episode", str(episode.id), episode)
        return episode

    async def show_episode(self, episode_id: str, *, select: bool = True) -> Episode:
        episode = await self.read_item(episode_id)
        self.item_changed(episode, select=select)
        return episode

    def edit_current(self) -> None:
        if isinstance(self.current, Episode):
            dialog = EpisodeEditDialog(self.session, self.current, parent=self)
            self.open_dialog(dialog, self._edited)

    def _edited(self, dialog: FormDialog) -> None:
        if isinstance(dialog.result_value, Episode):
            self.item_changed(dialog.result_value)

    def show_figures(self, episode_id: str) -> None:
        """Select the episode (read from the service when the list has not loaded it) and scroll its
        details to its figures: a row of the Analytics table, opened."""
        self.activate()
        if self.select_id(episode_id):
            self._scroll_to_figures()
            return
        self.run(self._show_figures(episode_id), "Could not read the episode to show its figures")

    async def _show_figures(self, episode_id: str) -> None:
        self.item_changed(await self.read_item(episode_id))
        self._scroll_to_figures()

    def _scroll_to_figures(self) -> None:
        box = self.analytics_box
        if box is None or self.current is None:
            return
        layout = self.details.layout()
        if layout is not None:
            layout.activate()  # the details just shown: their rows placed before the box is found
        self.details_scroll.verticalScrollBar().setValue(box.mapTo(self.details, QPoint(0, 0)).y())

    def listen_to(self, episode_id: str) -> None:
        """Select the episode (read from the service when the list has not loaded it), then open
        its player and transcript: a job card's Play."""
        self.activate()
        if self.select_id(episode_id):
            self.listen_current()
            return
        self.run(self._listen_to(episode_id), "Could not read the episode to play it")

    async def _listen_to(self, episode_id: str) -> None:
        self.item_changed(await self.read_item(episode_id))
        self.listen_current()

    def listen_current(self) -> ListenWindow | None:
        """Open the player and transcript of the selected episode (one window, reused)."""
        episode = self.current
        if not isinstance(episode, Episode) or not episode.audio_url:
            return None
        window = self.listen_window
        if window is None or not alive(window):
            try:
                from ..listen.listen_window import ListenWindow

                window = self.listen_window = ListenWindow(self.background.media, self)
            except Exception as error:  # never a half-built window: one that says why, and a report
                log.exception("the Listen window could not be built")
                self.listen_failed = WindowFailed("Listen", error, self.listen_current, self)
                self.listen_failed.show()
                return None
        window.open_episode(episode)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    # --- publish, schedule, unpublish and delete (episode_actions) ----------------------------------------

    def publish_current(self, schedule: bool = False) -> None:
        self.episode_actions.publish_current(schedule)

    def show_many(self, items: list[Any]) -> None:
        """Several episodes selected: what can be published of them, and the one action for all."""
        episodes = [item for item in items if isinstance(item, Episode)]
        heading, rows, note = selection_facts(episodes)
        self.details.show_facts(heading, rows, note=note, picture=False)
        if self.analytics_box is not None:
            self.analytics_box.show_episode(None)
        actions = [self.season_button]
        if any(episode.status in ("published", "scheduled") for episode in episodes):
            actions.append(self.unpublish_many_button)
        self.details.set_actions([*actions, self.delete_many_button])

    def _note_if_current(self, key: str, text: str) -> None:
        if isinstance(self.current, Episode) and str(self.current.id) == key:
            self.details.note.setStyleSheet("color: palette(text);")
            self.details.note.setText(text)
            self.details.note.show()

    def refresh_if_current(self, key: str) -> None:
        if isinstance(self.current, Episode) and str(self.current.id) == key:
            self.show_item(self.current)

    # --- following a generation: the tracker's job ----------------------------------------------------------

    def _follow_generation(self, item: Episode) -> None:
        """An episode shown while it generates is followed by the tracker (never by the pane)."""
        if generating(item) and self.background.jobs.job("episode", str(item.id)) is None:
            self.background.jobs.track("episode", str(item.id), title=item.title or None)

    def _job_changed(self, job: Job) -> None:
        if not alive(self):
            return
        if job.kind == "publish":
            self.episode_actions.publish_changed(job)
            return
        if job.kind != "episode":
            return
        if job.finished:
            if self._started_banner == job.resource_id:  # "Generation started" is over
                self._started_banner = None
                if self.banner.isVisible() and self.banner.text == GENERATION_STARTED:
                    self.banner.hide()
            if self.model.row_of(job.resource_id) >= 0:
                self.run(self.show_episode(job.resource_id, select=False), "Could not read the episode")
            return
        self.refresh_if_current(job.resource_id)

    def _names_arrived(self) -> None:
        rows = self.model.rowCount()
        if rows:
            self.model.dataChanged.emit(self.model.index(0, 1), self.model.index(rows - 1, 1))
        if isinstance(self.current, Episode):
            self.show_item(self.current)
