"""Videos, Shorts and Voiceovers: one pane class over the three media collections (spec 2.9, 3.1, 4.6).

Each lists its jobs with status and phase; the details show the error of a failed job, the hosts,
style and lengths, and offer: Retry (failed or idle jobs, after a confirmation; the client sends a
new idempotency key each time), Download (the three delivery kinds shown distinctly), Open in
studio, and Refresh status (one ``GET …/status``; its ``poll_after_seconds`` is shown as a hint).

A finished item's details open with its preview (:mod:`castdeck.ui.preview`): the file played
with the Listen window's controls, its still until it plays, or what the service says instead
(still preparing, or no file: the studio). The list asks :meth:`MediaPane.picture` for the stills.

The pane polls nothing: a job shown while it generates is handed to the job tracker, and rows and
details follow the tracker's live state (its card in the Jobs dock reads the same job). Whatever
the pane reads itself (details, Refresh status) is handed to the tracker too.
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QAbstractButton, QLabel, QPushButton, QVBoxLayout, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Host, MediaJob, MediaOptions
from castdeck.services.background import Background
from castdeck.services.listing import ListFeed
from castdeck.services.media_actions import (
    COLLECTIONS,
    MediaActions,
    format_duration,
    format_seconds,
    started_note,
    status_text,
)
from castdeck.services.session import Session
from castdeck.services.starting import started_text
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

from ..dialogs.media_dialog import MediaCreateDialog
from ..download_saver import DownloadSaver
from ..pane import ResourcePane, link_label
from ..pickers import host_feed
from ..preview.preview import MediaPreview
from ..preview.stills import Stills
from ..resource_model import Column, format_time
from ..widgets import alive
from .media_details import finish_facts, phase_text, readable_error, say_duration, settings_rows
from .media_download import DownloadState, DownloadView
from .media_item_actions import MediaItemActions
from .media_length import ItemLength, clock_text, item_length, length_tip

__all__ = [
    "DownloadState",
    "DownloadView",
    "MediaPane",
    "ShortsPane",
    "VideosPane",
    "VoiceoversPane",
    "format_seconds",
    "readable_error",
    "status_text",
]


class MediaPane(ResourcePane):
    """The pane of one collection: ``videos``, ``shorts`` or ``voiceovers``."""

    def __init__(
        self, session: Session, background: Background, parent: QWidget | None = None, *, collection: str
    ) -> None:
        self.background = background
        self.info = COLLECTIONS[collection]
        self.media_actions = MediaActions(
            session, background.jobs, background.starter, background.downloads, collection
        )
        """What the pane asks of the service: reads, status checks, retries, downloads."""
        self.title = self.info.title
        self.kind = self.info.kind
        self.new_label = f"New {self.info.noun}"
        self.dialog: MediaCreateDialog | None = None
        self.options: MediaOptions | None = None
        self.deliveries: dict[str, DownloadState] = {}
        self.status_notes: dict[str, str] = {}
        self.download_view: DownloadView | None = None
        self.duration_label: QLabel | None = None
        """The details' Duration (it changes when the file's length is read with its still)."""
        self.retry_button: QPushButton | None = None
        self.download_button: QPushButton | None = None
        self.studio_button: QPushButton | None = None
        self.status_button: QPushButton | None = None
        self._host_names: dict[str, str] = {}
        self._style_names: dict[str, str] = {}
        self._lookups_started = False
        # before the base builds the list: it may ask for pictures as soon as rows arrive
        self.stills = Stills(
            background.media_files, self.info.kind, self._start_quietly, session.runtime.pictures_memory
        )
        super().__init__(session, parent)
        self.saver = DownloadSaver(
            background.downloads, session.runtime.settings, self
        )  # saves where the creator says
        self.saver.said.connect(lambda text, kind: self.banner.show_message(text, kind=kind))
        self.item_actions = MediaItemActions(self)
        """Retry, Download, Open in studio and Refresh status (``media_item_actions``)."""
        self.stills.setParent(self)
        self.stills.stillReady.connect(self._still_arrived)
        self.stills.lengthKnown.connect(self._length_known)
        self.splitter.setSizes([665, 435])  # room for titles; the details still fit their four actions
        background.jobs.jobChanged.connect(self._job_changed)
        # the preview of a finished item, under its title (above the actions and facts)
        self.preview = MediaPreview(background.media_files, self.stills, self.info.noun, self._start_quietly)
        details = self.details.layout()
        assert isinstance(details, QVBoxLayout)
        details.insertWidget(details.indexOf(self.details.actions_box), self.preview)
        self.details.placeholder.installEventFilter(self)  # the details were cleared: nothing to preview

    def _start_quietly(self, coro: Any, name: str) -> Any:
        """Preview and still work, ended with the pane; what fails is said in the preview itself."""
        return self.work.start(coro, on_error=lambda _error: None, name=name)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.details.placeholder and event.type() == QEvent.Type.ShowToParent:
            self.preview.leave()
        return super().eventFilter(watched, event)

    # --- pictures of the list --------------------------------------------------------------------------------

    def picture(self, item: MediaJob, size: QSize) -> QPixmap | None:
        """The still of a finished item scaled to ``size`` when known; else ``None`` (and it is made
        meanwhile from the item's kept file, at most two at a time, the ones asked for last first;
        the list never downloads a file for a still: previewing an item keeps it)."""
        if (item.status or "").lower() != "completed":
            return None
        return self.stills.picture(str(item.id), size)

    def picture_text(self, item: MediaJob) -> str:
        if str(item.id) in self.stills.audio_only:
            return f"Waveform of {self.title_of(item)} (sound only)"
        return f"Still from {self.title_of(item)}"

    def card_subtitle(self, item: MediaJob) -> str:
        parts = [self.info.noun.capitalize(), (item.status or "").replace("_", " ").lower()]
        length = self._length(item)
        seconds = length.seconds if length is not None else item.target_duration_seconds
        if isinstance(seconds, int | float) and seconds > 0:
            parts.append(clock_text(seconds))
        return " · ".join(part for part in parts if part)

    def _still_arrived(self, media_id: str) -> None:
        self.pictures_changed(lambda item: str(item.id) == media_id)

    def _length_known(self, media_id: str) -> None:
        """Its file's length was read with its still: the row, its card and the details say it."""
        row = self.model.row_of(media_id)
        if row >= 0:
            self.model.dataChanged.emit(
                self.model.index(row, 0), self.model.index(row, self.model.columnCount() - 1)
            )
        label = self.duration_label
        if (
            self.current is not None
            and str(self.current.id) == media_id
            and label is not None
            and alive(label)
        ):
            say_duration(label, self._length(self.current), self.info.noun, readable=self.lengths_readable)

    # --- list ----------------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        columns = [
            Column("Title", self.title_of, tooltip=self.title_of),
            Column(
                "Status", lambda j: status_text(j.status), tooltip=lambda j: readable_error(j.error) or None
            ),
            Column("Phase", lambda j: phase_text(j.phase), blank="No phase: not in progress"),
            Column(
                "Length",
                self._length_text,
                sort_key=self._length_seconds,
                tooltip=self._length_tip,
                align_right=True,
                blank="Length not known yet",
            ),
            Column("Style", lambda j: self._style_name(j.style_id), blank="No style"),
            Column("Created", lambda j: format_time(j.created_at), sort_key=lambda j: j.created_at or ""),
        ]
        if self.info.kind == "voiceover":  # a voiceover has no style: it shows the creator's visuals
            columns = [c for c in columns if c.title != "Style"]
        return columns

    def _length(self, job: MediaJob) -> ItemLength | None:
        """Its own length: the service's, else its kept file's (read when its still was made)."""
        return item_length(job, self.stills.length(str(job.id)))

    def _length_seconds(self, job: MediaJob) -> float:
        length = self._length(job)
        return length.seconds if length is not None else float(job.target_duration_seconds or 0)

    def _length_text(self, job: MediaJob) -> str:
        """How long it is once made (6:36); before that, the length asked for (7 min)."""
        length = self._length(job)
        if length is not None:
            return clock_text(length.seconds)
        return format_duration(job.target_duration_seconds) or (
            "Automatic" if self.info.kind == "voiceover" else ""
        )

    @property
    def lengths_readable(self) -> bool:
        """Whether the files' lengths can be read here (the player that makes the stills loads)."""
        return self.preview.player_problem is None

    def _length_tip(self, job: MediaJob) -> str | None:
        return length_tip(job, self._length(job), self.info.noun, readable=self.lengths_readable)

    def open_list(self) -> ListFeed[MediaJob]:
        return self.media_actions.feed(self.page_size)

    async def fetch_item(self, item: MediaJob) -> MediaJob:
        return await self.read_item(str(item.id))

    def title_of(self, job: MediaJob) -> str:
        return job.title or f"Untitled {self.info.noun}"

    def _style_name(self, style_id: str | None) -> str:
        if not style_id:
            return ""
        return self._style_names.get(style_id, style_id)

    # --- names of hosts and styles -------------------------------------------------------------------------

    def activate(self) -> None:
        super().activate()
        if not self._lookups_started:
            self._lookups_started = True
            self.work.start(self._load_lookups(), on_error=lambda _e: None, name=f"{self.info.name} lookups")

    async def _load_lookups(self) -> None:
        with contextlib.suppress(CastdeckError):
            self._set_options(await self.media_actions.options())
        feed = host_feed(self.session)
        hosts: list[Host] = []
        while feed.has_more and len(hosts) < 2_000:
            page = await feed.next_page()
            hosts.extend(page.items)
        self._host_names = {str(h.id): h.name or str(h.id) for h in hosts}
        self._names_changed()

    def _set_options(self, options: MediaOptions) -> None:
        self.options = options
        self._style_names = {s.id: s.name or s.id for s in options.styles}
        self._names_changed()

    def _names_changed(self) -> None:
        rows = self.model.rowCount()
        if rows:
            self.model.dataChanged.emit(
                self.model.index(0, 0), self.model.index(rows - 1, self.model.columnCount() - 1)
            )
        if self.current is not None:
            self.show_item(self.current)

    def _host_text(self, job: MediaJob) -> str:
        ids = getattr(job, "host_ids", None) or ([job.host_id] if job.host_id else [])
        return ", ".join(self._host_names.get(str(i), str(i)) for i in ids)

    # --- details -------------------------------------------------------------------------------------------

    def show_item(self, item: MediaJob) -> None:
        noun = self.info.noun
        status = (item.status or "").lower()
        error = readable_error(item.error)
        rows: list[tuple[str, Any]] = [
            ("Status", status_text(item.status)),
            ("Phase", phase_text(item.phase)),
        ]
        if error:
            rows.append(("Error", error))
        hosts = getattr(item, "host_ids", None) or []
        rows.append(("Hosts" if len(hosts) > 1 else "Host", self._host_text(item)))
        if self.info.kind != "voiceover":
            rows.append(("Style", self._style_name(item.style_id)))
        rows.append(("Target duration", format_duration(item.target_duration_seconds) or "Automatic"))
        self.duration_label = None
        if status == "completed" or self._length(item) is not None:
            self.duration_label = QLabel()
            self.duration_label.setTextFormat(Qt.TextFormat.PlainText)  # its row's label labels it
            say_duration(
                self.duration_label, self._length(item), self.info.noun, readable=self.lengths_readable
            )
            rows.append(("Duration", self.duration_label))
        rows.extend(settings_rows(item, self.info.kind))
        rows.append(("Generation ID", item.generation_id))
        rows.append(("Created", format_time(item.created_at)))
        rows.append(("Updated", format_time(item.updated_at)))
        rows.append(
            ("Studio", link_label(item.studio_url, "Open in the studio") if item.studio_url else None)
        )
        key = str(item.id)
        if key in self.status_notes:
            rows.append(("Status check", self.status_notes[key]))
        self.download_view = None
        if key in self.deliveries:
            view = DownloadView(self.deliveries[key], noun, item.studio_url)
            if view.check_again is not None:
                view.check_again.clicked.connect(lambda: self.item_actions.start_download(key))
            self.download_view = view
            rows.append(("Download", view))

        note, note_kind = None, "info"
        if status == "failed":
            reason = (error or "no reason given").rstrip(". ")
            note, note_kind = f"This {noun} failed: {reason}. Retry starts a new attempt.", "error"
        elif status == "idle":
            note = f"This {noun} has not started. Retry starts it."
        elif status == "generating":
            note = (
                f"Generating{': ' + phase_text(item.phase).lower() if item.phase else ''}. "
                "These details and its card in Jobs (Ctrl+J) follow it."
            )
        self.details.show_facts(self.title_of(item), rows, note=note, note_kind=note_kind)
        finish_facts(self.details)
        self.details.set_actions(self._actions(item))
        self.preview.show_item(item)
        if status == "generating":
            self._follow(item)

    def _actions(self, item: MediaJob) -> list[QAbstractButton]:
        made = self.item_actions.buttons(item)
        self.retry_button, self.download_button, self.studio_button, self.status_button = made
        return [button for button in made if button is not None]

    async def read_item(self, media_id: str) -> MediaJob:
        """The job as the service has it now (the tracker hears of it too)."""
        return await self.media_actions.read(media_id)

    # --- the tracker's live state ----------------------------------------------------------------------------

    def _follow(self, item: MediaJob) -> None:
        """A job shown while it generates is followed by the tracker (never by the pane)."""
        jobs = self.background.jobs
        key = str(item.id)
        if not jobs.is_following(self.info.kind, key):
            known = jobs.job(self.info.kind, key)
            if known is None or known.finished:
                jobs.track(self.info.kind, key, title=f"{self.info.noun.capitalize()}: {self.title_of(item)}")

    def _job_changed(self, job: Job) -> None:
        if not alive(self) or job.kind != self.info.kind:
            return
        key = job.resource_id
        item = self.item_of(key)
        if item is None:
            return
        if job.finished:
            # "Started at …; the service suggests checking in 10 s" is over: the item says how it ended
            self.status_notes.pop(key, None)
            self.run(self._reread(key), f"Could not read the {self.info.noun}")
        elif job.state == "running" and (item.status != "generating" or item.phase != job.phase):
            self.item_changed(
                item.model_copy(update={"status": "generating", "phase": job.phase}), select=False
            )

    async def _reread(self, key: str) -> None:
        # What Download said stays shown with the time it was asked ("Check again" asks anew).
        self.item_changed(await self.read_item(key), select=False)

    def item_of(self, key: str) -> MediaJob | None:
        if self.current is not None and str(self.current.id) == key:
            return self.current  # type: ignore[no-any-return]
        row = self.model.row_of(key)
        return self.model.item(row) if row >= 0 else None

    def reshow(self, key: str) -> None:
        if self.current is not None and str(self.current.id) == key:
            self.show_item(self.current)

    # --- create --------------------------------------------------------------------------------------------

    def new_item(self) -> None:
        if self.dialog is not None and alive(self.dialog) and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            return
        self.run(self._open_create(), f"Could not open the {self.info.noun} form")

    async def _open_create(self) -> None:
        options = await self.media_actions.options()
        self._set_options(options)
        old = self.dialog
        dialog = MediaCreateDialog(self.session, self.background, self.info.name, options, parent=self)
        self.dialog = dialog
        if old is not None and alive(old):
            old.deleteLater()
        dialog.accepted.connect(lambda: self._created(dialog))
        dialog.open()
        reason = self.session.write_block_reason
        if reason:
            dialog.set_writable(reason)

    def _created(self, dialog: MediaCreateDialog) -> None:
        accepted = dialog.result_value
        if isinstance(accepted, OutboxEntry | Job):
            text, kind = started_text(accepted)
            self.banner.show_message(text, kind=kind)
            return
        if accepted is None:
            return
        job: MediaJob = accepted.data
        self.status_notes[str(job.id)] = started_note(accepted)
        self.item_changed(job)

    def on_write_state(self, reason: str | None) -> None:
        dialog = self.dialog
        if dialog is not None and alive(dialog) and dialog.isVisible():
            dialog.set_writable(reason)


class VideosPane(MediaPane):
    title = "Videos"
    kind = "video"
    new_label = "New video"

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(session, background, parent, collection="videos")


class ShortsPane(MediaPane):
    title = "Shorts"
    kind = "short"
    new_label = "New short"

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(session, background, parent, collection="shorts")


class VoiceoversPane(MediaPane):
    title = "Voiceovers"
    kind = "voiceover"
    new_label = "New voiceover"

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        super().__init__(session, background, parent, collection="voiceovers")
