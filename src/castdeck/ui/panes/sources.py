"""Sources: the organization's research sources with their processing status and errors; add web
pages, YouTube videos and texts, delete unused sources.

Sources are processed asynchronously: while the pane is shown, rows that are ``processing`` are read
again every few seconds until they complete or fail. Files and folders dropped on the drop area (or
chosen with "Add files…") go into the session's upload queue, shown under the list while it has
rows; uploaded files appear in the list and update as the service processes them. The banner
about a drop's refused files follows them (a file retried and sent leaves its count; once none is
listed, it goes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QWidget,
)

from castdeck.api.errors import NotFoundError
from castdeck.api.models import Source
from castdeck.services import catalog
from castdeck.services.background import Background
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session
from castdeck.services.uploads import UploadQueue
from castdeck.store.jobs import Job
from castdeck.store.uploads import UploadItem

from ..accessible import name_grips
from ..dialogs.source_dialog import SourceDialog
from ..file_dialogs import UPLOAD_FILTER, use_folder
from ..pane import ResourcePane, link_label
from ..resource_model import Column, format_time
from ..upload_queue import UploadQueueView
from ..widgets import alive, ask
from .hosts import plain_value
from .source_drop import Refusal, SourceDropArea

__all__ = ["SourceDropArea", "SourcesPane", "metadata_summary", "source_columns"]

STATUS_LABELS = {
    "processing": "Processing…",
    "completed": "Ready",
    "error": "Failed",
    "awaiting_upload": "Not uploaded",
}
TYPE_LABELS = {"url": "Web page", "youtube": "YouTube", "text": "Text", "upload": "File"}
POLLED_STATUSES = frozenset({"processing"})
STATUS_COLUMN = 2


def status_label(status: str | None) -> str:
    return STATUS_LABELS.get(status or "", (status or "unknown").replace("_", " ").capitalize())


def type_label(kind: str | None) -> str:
    return TYPE_LABELS.get(kind or "", (kind or "").capitalize())


def _first_line(text: str | None, limit: int = 120) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def source_columns() -> list[Column]:
    return [
        Column("Title", lambda s: s.title or f"Source {s.id}"),
        Column("Type", lambda s: type_label(s.type)),
        Column("Status", lambda s: status_label(s.status)),
        Column(
            "Error",
            lambda s: _first_line(s.error_message),
            tooltip=lambda s: s.error_message,
            blank="No error",
        ),
        Column("Created", lambda s: format_time(s.created_at), sort_key=lambda s: s.created_at or ""),
    ]


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return f"{value:,}"
    if isinstance(value, str):
        return format_time(value) if len(value) > 18 and value[4:5] == "-" and "T" in value else value
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 160 else text[:159] + "…"


def metadata_summary(metadata: Any, limit: int = 12) -> str | None:
    """The source's metadata (any JSON) as a few plain lines a person can read."""
    if metadata in (None, "", {}, []):
        return None
    if isinstance(metadata, dict):
        lines = [
            f"{str(key).replace('_', ' ').capitalize()}: {_value_text(value)}"
            for key, value in metadata.items()
        ]
        if len(lines) > limit:
            lines = [*lines[:limit], f"… and {len(lines) - limit} more"]
        return "\n".join(lines)
    if isinstance(metadata, list):
        return f"{len(metadata)} item{'s' if len(metadata) != 1 else ''}: {_value_text(metadata)}"
    return _value_text(metadata)


class SourcesPane(ResourcePane):
    title = "Sources"
    kind = "source"
    new_label = "New source"

    def __init__(self, session: Session, background: Background, parent: QWidget | None = None) -> None:
        self.background = background
        super().__init__(session, parent)
        background.jobs.jobFinished.connect(self._source_job_finished)
        self.dialog: SourceDialog | None = None
        self.drop_area = SourceDropArea(self)
        self.drop_area.filesDropped.connect(self._files_dropped)
        drop_row = QHBoxLayout()
        drop_row.addWidget(self.drop_area, 1)
        self.prepare_visuals = QCheckBox("Prepare visuals (for voiceovers)", self)
        self.prepare_visuals.setAccessibleName("Prepare visuals for voiceovers")
        self.prepare_visuals.setToolTip(
            "Upload the next files dropped or added as Voiceover visuals. Only PDF, PowerPoint (.pptx), "
            "PNG, JPEG and WebP files are accepted then."
        )
        drop_row.addWidget(self.prepare_visuals)
        self.add_files_button = QPushButton("Add files…", self)
        self.add_files_button.setAccessibleName("Add files to upload")
        self.add_files_button.setToolTip("Choose files to upload as sources (Ctrl+O)")
        self.add_files_button.clicked.connect(self.add_files)
        drop_row.addWidget(self.add_files_button)
        self.extra_top.addLayout(drop_row)
        add_shortcut = QShortcut(
            QKeySequence.StandardKey.Open, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut
        )
        add_shortcut.activated.connect(self.add_files)
        self.file_dialog: QFileDialog | None = None
        self.queue_view: UploadQueueView | None = None
        self._queue_shown = False
        self._refusal: Refusal | None = None
        # the list and its details above, the upload queue below (shown while it has rows)
        self.queue_splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.queue_splitter.setChildrenCollapsible(False)
        layout = self.layout()
        assert layout is not None
        layout.replaceWidget(self.splitter, self.queue_splitter)
        self.queue_splitter.addWidget(self.splitter)
        self.queue_splitter.setStretchFactor(0, 3)
        self._attach_queue()
        self.delete_button = QPushButton("Delete…", self)
        self.delete_button.setAccessibleName("Delete source")
        self.delete_button.setToolTip("Delete this source, when no episode or media uses it (Delete)")
        self.delete_button.clicked.connect(self.delete_current)
        self.writes(self.delete_button)
        shortcut = QShortcut(
            QKeySequence.StandardKey.Delete, self.table, context=Qt.ShortcutContext.WidgetShortcut
        )
        shortcut.activated.connect(self.delete_current)
        self.delete_button.hide()
        self.model.pageLoaded.connect(lambda _added: self.ensure_polling())
        # narrow (a laptop with the Jobs dock open): the status ("Ready", "Failed") stays; the
        # creation time and the type give way first (the status went before the error column did)
        self.column_fit.keep = frozenset({0, STATUS_COLUMN})

    # --- ResourcePane --------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        return source_columns()

    def open_list(self) -> ListFeed[Source]:
        return catalog.sources(self.session, self.page_size)

    async def fetch_item(self, item: Source) -> Source:
        return await catalog.source(self.session, item.id)

    def show_item(self, item: Source) -> None:
        note, note_kind = None, "info"
        if item.status == "error":
            note, note_kind = (
                "Processing failed: " + (item.error_message or "the service gave no reason."),
                "error",
            )
        elif item.status in POLLED_STATUSES:
            note = "The service is still processing this source; this page updates by itself."
        elif item.status == "awaiting_upload":
            note, note_kind = (
                "The file was never uploaded to this source; upload it again as a new source.",
                "warning",
            )
        rows: list[tuple[str, Any]] = [
            ("Status", status_label(item.status)),
            ("Type", type_label(item.type)),
        ]
        address = item.metadata.get("url") if isinstance(item.metadata, dict) else None
        if isinstance(address, str) and address.lower().startswith(("http://", "https://")):
            link = link_label(address)
            link.setWordWrap(True)
            rows.append(("Address", link))
        rows += [
            ("Error", plain_value(item.error_message)),
            ("Details", plain_value(metadata_summary(item.metadata))),
            ("Source ID", plain_value(item.id)),
            ("Created", format_time(item.created_at)),
            ("Updated", format_time(item.updated_at)),
        ]
        self.details.show_facts(item.title or f"Source {item.id}", rows, note=note, note_kind=note_kind)
        self.details.set_actions([self.delete_button])
        self.ensure_polling()

    STRETCH_COLUMN = 3  # the name is sized to its text; the error takes what is left

    def _size_columns(self) -> None:
        super()._size_columns()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.table.resizeColumnToContents(0)
        header.resizeSection(0, min(max(header.sectionSize(0) + 8, 120), 280))
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # the error takes what is left
        # sized to the first page's statuses ("Ready", "Failed"), an upload's "Processing…" read "Processin…"
        widest = max(self.table.fontMetrics().horizontalAdvance(t) for t in STATUS_LABELS.values()) + 12
        header.resizeSection(STATUS_COLUMN, max(header.sectionSize(STATUS_COLUMN), widest))

    def new_item(self) -> None:
        self.dialog = self.open_dialog(SourceDialog(self.session, parent=self), self._created)

    def _created(self, dialog: SourceDialog) -> None:
        if isinstance(dialog.result_value, Source):
            self.item_changed(dialog.result_value)
            self.ensure_polling()

    # --- delete --------------------------------------------------------------------------------------------

    def delete_current(self) -> None:
        source = self.current
        if (
            isinstance(source, Source)
            and self.delete_button.isEnabled()
            and not self.delete_button.isHidden()
        ):
            self.run(self._delete(source), "Could not delete the source")

    async def _delete(self, source: Source) -> None:
        name = source.title or source.id
        confirmed = await ask(
            self,
            "Delete source",
            # the first line holds no service text, so the box never reads the title as markup
            f"Delete this source?\n\n“{name}” is removed for good. The service refuses when an episode, "
            "video, short or voiceover uses it.",
            "Delete",
        )
        if not confirmed:
            return
        await catalog.delete_source(self.session, source.id)
        self.item_removed(str(source.id))
        self.banner.show_message(f"Deleted the source “{name}”.", kind="info")

    # --- uploads -------------------------------------------------------------------------------------------

    def _attach_queue(self) -> UploadQueue | None:
        """The session's upload queue, with its view placed under the list (None once it has stopped,
        as it does while the app closes or the account changes)."""
        background = self.background
        queue = background.uploads
        if queue.closed:
            return None
        if self.queue_view is not None and self.queue_view.queue is queue:
            return queue
        if self.queue_view is not None:
            self.queue_view.hide()
            self.queue_view.deleteLater()
        view = UploadQueueView(queue, self.session.runtime.settings, background.jobs, self.queue_splitter)
        self.queue_splitter.addWidget(view)
        self.queue_splitter.setStretchFactor(1, 2)
        name_grips(self.queue_splitter, "Divider between the sources and the upload queue")
        self.queue_view = view
        self._queue_shown = False
        view.setVisible(False)
        view.rowsPresent.connect(self._show_queue)
        self._show_queue(view.model.rowCount() > 0)
        queue.sourceUploaded.connect(self._source_uploaded)
        queue.itemChanged.connect(self._refusal_changed)
        queue.itemRemoved.connect(self._refusal_changed)
        return queue

    def _show_queue(self, present: bool) -> None:
        view = self.queue_view
        if view is None or present == self._queue_shown:
            return
        self._queue_shown = present
        view.setVisible(present)
        if present:
            total = sum(self.queue_splitter.sizes()) or self.queue_splitter.height()
            self.queue_splitter.setSizes([max(total - 230, total * 3 // 5), min(230, total * 2 // 5)])

    def _files_dropped(self, paths: list[Path]) -> None:
        self.queue_files(paths)

    def queue_files(self, paths: list[Path]) -> None:
        """Put files and folders into the upload queue (checked and expanded off the UI thread)."""
        queue = self._attach_queue()
        if queue is None:
            count = len(paths)
            what = f"“{paths[0].name}” was" if count == 1 else f"{count} items were"
            self.banner.show_message(
                f"The upload queue has stopped (the app is closing or the account changed), so {what} not "
                f"uploaded. Drop them again once the app is open on an account.",
                kind="warning",
            )
            return
        visuals = self.prepare_visuals.isChecked()
        self.run(self._queue_files(queue, paths, visuals), "Could not queue the files")

    async def _queue_files(self, queue: UploadQueue, paths: list[Path], visuals: bool) -> None:
        items = await queue.add_paths(paths, prepare_visuals=visuals)
        if not items:
            self.banner.show_message(
                "Nothing was queued: no files were found in what was dropped (hidden files and "
                "empty folders are skipped).",
                kind="warning",
            )
            return
        refusal = Refusal(queue, items, visuals)
        said = refusal.text()
        if said is not None:
            self._refusal = refusal
            refusal.said = said
            self.banner.show_message(said, kind="warning")

    def _refusal_changed(self, changed: UploadItem | str) -> None:
        """The banner about a drop's refused files follows them: a file retried and sent leaves the
        count, and once none is left in the list (sent, or cleared) the banner goes."""
        refusal = self._refusal
        item_id = changed if isinstance(changed, str) else changed.id
        if refusal is None or item_id not in refusal.ids:
            return
        if not (self.banner.isVisible() and self.banner.text == refusal.said):
            self._refusal = None  # dismissed, or another message took its place
            return
        refusal.follow(item_id)
        said = refusal.text()
        if said is None:
            self._refusal = None
            self.banner.hide()
        elif said != refusal.said:
            refusal.said = said
            self.banner.show_message(said, kind="warning")

    def show_uploads(self) -> None:
        """The Jobs dock's "Uploads" line: the upload queue with its list focused and, unless one
        is selected already, the first file that needs attention (refused or failed) selected, so
        that its reason shows."""
        view = self.queue_view
        if view is None or view.model.rowCount() == 0:
            return
        attention = [i.id for i in view.model.items() if i.state in ("refused", "failed")]
        if attention and not any(i.id in attention for i in view.selected_items()):
            view.select_ids(attention[:1])
        view.table.setFocus()

    def first_step(self) -> None:
        """The empty list's "Add files…"."""
        self.add_files()

    def add_files(self) -> None:
        """Ctrl+O: choose files in a (non-blocking) file dialog; they go into the queue like a drop."""
        old = self.file_dialog
        if old is not None and alive(old):
            if old.isVisible():
                old.raise_()
                return
            old.deleteLater()
        dialog = use_folder(
            self.session.runtime.settings,
            QFileDialog(self, "Add files to upload", "", UPLOAD_FILTER),
            "uploads",
        )
        dialog.setObjectName("addFilesDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.filesSelected.connect(lambda files: self.queue_files([Path(f) for f in files]))
        self.file_dialog = dialog
        dialog.open()

    def _source_uploaded(self, item: UploadItem, source: Source) -> None:
        if not isinstance(source, Source):
            return
        self.item_changed(source, select=False)
        self._update_status()  # the count under the list includes the new row
        self.ensure_polling()

    def _source_job_finished(self, job: Job) -> None:
        if job.kind != "source":
            return
        ours = self.model.row_of(job.resource_id) >= 0 or any(
            item.source_id == job.resource_id
            for item in (self.queue_view.model.items() if self.queue_view else [])
        )
        if ours:
            self.run(self._reread(job.resource_id), "Could not read the uploaded source")

    async def _reread(self, source_id: str) -> None:
        try:
            fresh = await self.read_item(source_id)
        except NotFoundError:
            self.item_removed(source_id)
            return
        self.item_changed(fresh, select=False)

    # --- rows that are processing: followed by the job tracker ---------------------------------------------

    def processing_ids(self) -> list[str]:
        return [str(s.id) for s in self.model.items if s.status in POLLED_STATUSES]

    @property
    def polling(self) -> bool:
        """Whether the tracker follows a row of this list that is still processing."""
        jobs = self.background.jobs
        return any(jobs.is_following("source", source_id) for source_id in self.processing_ids())

    def ensure_polling(self) -> None:
        """Hand the rows still processing to the job tracker (the pane itself never polls); each
        row is read again once its job ends."""
        jobs = self.background.jobs
        for source in self.model.items:
            source_id = str(source.id)
            if source.status in POLLED_STATUSES and not jobs.is_following("source", source_id):
                known = jobs.job("source", source_id)
                if known is None or not known.finished:
                    jobs.track("source", source_id, title=f"Source: {source.title or source_id}")

    async def read_item(self, source_id: str) -> Source:
        """One source read fresh from the service (a job card's "Open" reveals it with this)."""
        return await catalog.source(self.session, source_id)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.ensure_polling()
