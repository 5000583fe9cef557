"""Files dropped onto the Voiceover dialog's visuals list: uploaded as prepared visuals, then ticked.

``VisualDrop`` watches the visuals picker's list for dropped files and folders, puts them into the
session's upload queue with ``prepare_visuals`` (the narrower list of visual types), and shows one
line per dropped file: uploading (with progress), processing, ready, refused or failed with the
reason. When a file's source finishes processing, the picker's list is read again and the new
visual is ticked, dropped files in drop order after the ones the user ticked, as long as the
dialog's limits (sources, visuals in total) allow.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QLabel, QListWidgetItem, QVBoxLayout, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Source
from castdeck.api.models.limits import MAX_VOICEOVER_SOURCES, MAX_VOICEOVER_VISUALS
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope
from castdeck.services.uploads import UploadQueue
from castdeck.store.jobs import Job
from castdeck.store.uploads import UploadItem

from ..palette import tone
from ..pickers import ID_ROLE, CheckPicker, source_feed

__all__ = ["VisualDrop"]

HINT = "Drop PDF, PowerPoint (.pptx), PNG, JPEG or WebP files on the list to upload them as visuals."


def _local_paths(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[Path]:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]


class VisualDrop(QWidget):
    """The drop handling and the per-file lines under a Voiceover dialog's visuals picker."""

    def __init__(
        self,
        session: Session,
        background: Background,
        picker: CheckPicker,
        *,
        label: Callable[[Source], str],
        accepts: Callable[[Source], bool],
        count: Callable[[Source], int],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        self.session = session
        self.background = background
        self.picker = picker
        self._label, self._accepts, self._count = label, accepts, count
        self.items: list[UploadItem] = []  # dropped files in drop order (latest copy)
        self._states: dict[str, str] = {}  # source id -> job state (running, completed, failed)
        self._errors: dict[str, str | None] = {}
        self._ready: list[str] = []  # source ids that finished processing, not yet offered for ticking
        self._offered: set[str] = set()  # source ids already ticked once (the user may untick them)
        self._skipped: set[str] = set()  # ready, but the dialog's limits left no room to tick them
        self._connected: UploadQueue | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.hint = QLabel(HINT, self)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.hint)
        self.box = QWidget(self)  # one wrapped line per dropped file
        self.box.setAccessibleName("Dropped visuals")
        self._box_layout = QVBoxLayout(self.box)
        self._box_layout.setContentsMargins(0, 2, 0, 2)
        self._box_layout.setSpacing(1)
        self._lines: list[QLabel] = []
        self.box.hide()
        layout.addWidget(self.box)
        viewport = picker.list.viewport()
        viewport.setAcceptDrops(True)
        viewport.installEventFilter(self)
        picker.list.setAccessibleDescription(HINT)

    # --- drops -----------------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(
            event, QDragEnterEvent | QDragMoveEvent
        ):
            if _local_paths(event):
                event.acceptProposedAction()
            else:
                event.ignore()
            return True
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            paths = _local_paths(event)
            if not paths:
                event.ignore()
                return True
            event.acceptProposedAction()
            self.drop(paths)
            return True
        return super().eventFilter(watched, event)

    def _queue(self) -> UploadQueue | None:
        background = self.background
        queue = background.uploads
        if queue.closed:
            return None
        if self._connected is not queue:
            self._connected = queue
            queue.itemChanged.connect(self._item_changed)
            background.jobs.jobChanged.connect(self._job_changed)
            background.jobs.jobFinished.connect(self._job_changed)
        return queue

    def drop(self, paths: list[Path]) -> None:
        """Queue files (and folders) as prepared visuals; their lines appear as they are checked."""
        queue = self._queue()
        if queue is None:
            self.hint.setText(
                "The upload queue has stopped (the app is closing or the account changed): nothing was queued."
            )
            self.hint.setStyleSheet(f"color: {tone('problem', self.palette())};")
            return
        self.work.start(self._add(queue, paths), on_error=self._failed, name="queue dropped visuals")

    async def _add(self, queue: UploadQueue, paths: list[Path]) -> None:
        added = await queue.add_paths(paths, prepare_visuals=True)
        if not added:
            self.hint.setText("No files were found in what was dropped (hidden files are skipped).")
            return
        self.hint.setText(HINT)
        self.hint.setStyleSheet("color: palette(mid);")
        for item in added:
            current = queue.item(item.id) or item
            self.items.append(current)
        self._render()

    def _failed(self, error: CastdeckError) -> None:
        self.hint.setText(f"Could not queue the dropped files: {error}")
        self.hint.setStyleSheet(f"color: {tone('problem', self.palette())};")

    # --- following the files -----------------------------------------------------------------------------

    def _index_of(self, item_id: str) -> int:
        return next((i for i, item in enumerate(self.items) if item.id == item_id), -1)

    def _item_changed(self, item: UploadItem) -> None:
        index = self._index_of(item.id)
        if index >= 0:
            self.items[index] = item
            self._render_row(index)

    def _job_changed(self, job: Job) -> None:
        if job.kind != "source" or not any(item.source_id == job.resource_id for item in self.items):
            return
        before = self._states.get(job.resource_id)
        self._states[job.resource_id] = job.state
        self._errors[job.resource_id] = job.error
        for index, item in enumerate(self.items):
            if item.source_id == job.resource_id:
                self._render_row(index)
        if job.state == "completed" and before != "completed":
            self._ready.append(job.resource_id)
            self.work.start(self.reload(), on_error=self._failed, name="reload visuals")

    def line(self, item: UploadItem) -> tuple[str, str | None, bool]:
        """(text, tooltip, is a problem) for one dropped file."""
        state = self._states.get(item.source_id or "")
        name = item.name
        if item.state == "refused":
            return f"{name}: refused, {item.error or 'not a supported visual'}", item.error, True
        if item.state == "failed":
            return f"{name}: upload failed, {item.error or 'no reason given'}", item.error, True
        if item.state == "cancelled":
            return f"{name}: cancelled", None, False
        if item.state == "paused":
            return f"{name}: paused (resume it in the Sources pane's upload list)", None, False
        if item.state == "done":
            if state == "completed":
                note = self._note(item.source_id)
                return f"{name}: ready{note}", None, False
            if state == "failed":
                error = self._errors.get(item.source_id or "")
                return f"{name}: processing failed, {error or 'no reason given'}", error, True
            return f"{name}: uploaded, processing…", None, False
        if item.state == "uploading" and self._connected is not None:
            transfer = self._connected.transfer(item.id)
            total = transfer.total or item.size
            percent = int(transfer.sent * 100 / total) if total else 0
            return f"{name}: uploading {percent} %", None, False
        if item.state == "completing":
            return f"{name}: finishing the upload…", None, False
        return f"{name}: waiting to upload", None, False

    def _note(self, source_id: str | None) -> str:
        if source_id is None:
            return ""
        if source_id in self.picker.selected_ids():
            return ", ticked"
        if source_id in self._skipped:
            return ", not ticked: the voiceover's limit of sources or visuals is reached"
        return ""

    def _render(self) -> None:
        while len(self._lines) < len(self.items):
            label = QLabel(self.box)
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)  # file names and reasons are never markup
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._box_layout.addWidget(label)
            self._lines.append(label)
        for index in range(len(self.items)):
            self._render_row(index)
        self.box.setVisible(bool(self.items))

    def _render_row(self, index: int) -> None:
        if index >= len(self._lines):
            return
        label = self._lines[index]
        text, tip, problem = self.line(self.items[index])
        label.setText(text)
        label.setAccessibleName(text)
        label.setToolTip(tip or "")
        label.setStyleSheet(f"color: {tone('problem', self.palette())};" if problem else "")

    def lines(self) -> list[str]:
        """The text of every line (tests)."""
        return [label.text() for label in self._lines]

    # --- reloading the picker ------------------------------------------------------------------------------

    async def reload(self) -> None:
        """Read the sources again, keep the user's ticks, and tick the visuals that just became ready."""
        await self.picker.wait_loaded()  # its first fill would add its rows after ours
        feed = source_feed(self.session)
        fresh: list[Source] = []
        while feed.has_more and len(fresh) < 2_000:
            page = await feed.next_page()
            fresh.extend(page.items)
        picker = self.picker
        chosen = picker.selected_ids()
        picker.list.blockSignals(True)
        picker.list.clear()
        picker.items.clear()
        for source in fresh:
            key = str(source.id)
            picker.items[key] = source
            row = QListWidgetItem(self._label(source))
            row.setData(ID_ROLE, key)
            flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
            if self._accepts(source):
                flags |= Qt.ItemFlag.ItemIsEnabled
            row.setFlags(flags)
            row.setCheckState(Qt.CheckState.Unchecked)
            picker.list.addItem(row)
        picker.list.blockSignals(False)
        picker.set_selected(self._order(chosen))
        if picker.search.text():
            picker.search.textChanged.emit(picker.search.text())  # the filter applies to the new rows
        self._render()

    def _order(self, chosen: list[str]) -> list[str]:
        """The user's ticks, then the dropped visuals (drop order): ticked before, or ready now and fitting."""
        items = self.picker.items
        dropped = [item.source_id for item in self.items if item.source_id]
        mine = [key for key in chosen if key not in dropped and key in items]
        ready = set(self._ready)
        self._ready = []
        order = list(mine)
        total = sum(self._count(items[key]) for key in order)
        for key in dropped:
            if key not in items:
                continue
            if key in chosen:
                order.append(key)
                total += self._count(items[key])
            elif key in ready and key not in self._offered:
                source = items[key]
                if not self._accepts(source):
                    continue
                if len(order) >= MAX_VOICEOVER_SOURCES or total + self._count(source) > MAX_VOICEOVER_VISUALS:
                    continue
                order.append(key)
                total += self._count(source)
                self._offered.add(key)
        self._skipped |= {key for key in ready if key not in order and key not in self._offered}
        return order
