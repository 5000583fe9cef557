"""The upload queue on screen: the table of :class:`UploadQueueModel` rows with their states.

``UploadQueueView`` is the table with a drawn progress bar, a totals line, the per-row and
for-all actions (buttons, context menu, keyboard shortcuts) and the "Uploads at a time" setting.
Under the table, the whole reason of the selected file that was refused or failed (its cell cuts
it at the column's width); on a narrow window the time-left and speed columns give way to the
state. When given the job tracker, rows of uploaded files also say whether the service finished
processing them.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.jobs import JobTracker
from castdeck.services.settings import Settings
from castdeck.services.uploads import UploadQueue
from castdeck.store.jobs import Job
from castdeck.store.uploads import UploadItem

from .accessible import shows_value
from .column_fit import ColumnFit
from .upload_queue_model import (
    ETA,
    FILE,
    ITEM_ROLE,
    PROGRESS,
    PROGRESS_ROLE,
    SIZE,
    SPEED,
    STATE,
    UploadQueueModel,
    format_bytes,
    format_eta,
    format_speed,
    state_text,
)

__all__ = [
    "ITEM_ROLE",
    "PROGRESS_ROLE",
    "UploadQueueModel",
    "UploadQueueView",
    "format_bytes",
    "format_eta",
    "format_speed",
    "state_text",
]


STATE_AT_LEAST = 300
"""The narrowest the state column becomes while a lesser column could give way (pixels)."""


class ProgressDelegate(QStyledItemDelegate):
    """Draws the progress column as a progress bar (plain text where there is no bar)."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        percent = index.data(PROGRESS_ROLE)
        if not isinstance(percent, int) or percent < 0:
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(3, 3, -3, -3)
        bar.minimum = 0
        bar.maximum = 100
        bar.progress = percent
        bar.text = f"{percent} %"
        bar.textVisible = True
        bar.state = option.state | QStyle.StateFlag.State_Horizontal
        bar.palette = option.palette
        bar.fontMetrics = option.fontMetrics
        bar.direction = option.direction
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        if option.state & QStyle.StateFlag.State_Selected:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget)
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)


class UploadQueueView(QWidget):
    """The queue table, its totals and its controls. ``rowsPresent`` says whether there is anything to show."""

    rowsPresent = Signal(bool)

    def __init__(
        self,
        queue: UploadQueue,
        settings: Settings,
        jobs: JobTracker | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setObjectName("uploadQueue")
        self.setAccessibleName("Upload queue")
        self.queue = queue
        self.model = UploadQueueModel(queue, self)
        self._menu: QMenu | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 4, 0, 0)
        top = QHBoxLayout()
        title = QLabel("Uploads", self)
        title.setStyleSheet("font-weight: bold;")
        top.addWidget(title)
        self.totals = QLabel(self)
        shows_value(self.totals, "Upload totals")
        self.totals.setTextFormat(Qt.TextFormat.PlainText)
        top.addWidget(self.totals, 1)
        self.concurrency_label = QLabel("Uploads at a time:", self)
        top.addWidget(self.concurrency_label)
        self.concurrency = QSpinBox(self)
        self.concurrency.setRange(1, 8)
        self.concurrency.setAccessibleName("Uploads at a time")
        self.concurrency.setToolTip("How many files are sent at the same time (1 to 8)")
        self.concurrency_label.setBuddy(self.concurrency)
        top.addWidget(self.concurrency)
        outer.addLayout(top)

        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setAccessibleName("Uploads list")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setItemDelegateForColumn(PROGRESS, ProgressDelegate(self.table))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(STATE, QHeaderView.ResizeMode.Stretch)
        for column, width in ((FILE, 220), (SIZE, 80), (PROGRESS, 130), (SPEED, 90), (ETA, 110)):
            header.resizeSection(column, width)
        # narrow (a laptop with the Jobs dock open): the time left and the speed (the totals line
        # says both for all files) give way before a state, and a refusal's reason, shrinks to "Refu…"
        self.column_fit = ColumnFit(self.table, title=STATE, keep=(FILE,), at_least=STATE_AT_LEAST)
        outer.addWidget(self.table, 1)
        self.reason = QLabel(self)
        self.reason.setObjectName("uploadReason")
        shows_value(self.reason, "What went wrong with the selected file")
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason.hide()
        outer.addWidget(self.reason)

        self.actions_by_name: dict[str, QAction] = {}
        self.buttons: dict[str, QToolButton] = {}
        row = QHBoxLayout()
        specs = [
            ("pause", "Pause", "Ctrl+P", "Pause the selected uploads", self.pause_selected),
            ("resume", "Resume", "Ctrl+R", "Resume the selected uploads", self.resume_selected),
            ("cancel", "Cancel", "Del", "Cancel the selected uploads", self.cancel_selected),
            ("retry", "Retry", "Ctrl+T", "Check and send the selected files again", self.retry_selected),
            None,
            ("pause_all", "Pause all", "Ctrl+Alt+P", "Pause every upload", queue.pause_all),
            ("resume_all", "Resume all", "Ctrl+Alt+R", "Resume every paused upload", queue.resume_all),
            ("cancel_all", "Cancel all", "Ctrl+Shift+Del", "Cancel every unfinished upload", queue.cancel_all),
            ("retry_failed", "Retry failed", "Ctrl+Shift+T", "Send every failed file again", queue.retry_all),
            ("clear", "Clear finished", "Ctrl+Shift+L", "Remove uploaded, cancelled and refused rows",
             self.clear_finished),
        ]  # fmt: skip
        for spec in specs:
            if spec is None:
                row.addSpacing(12)
                continue
            name, text, keys, tip, slot = spec
            action = QAction(text, self)
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut_text = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({shortcut_text})")
            action.triggered.connect(lambda _checked=False, s=slot: s())
            self.addAction(action)
            self.actions_by_name[name] = action
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setAccessibleName(text)
            button.setAccessibleDescription(tip)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            row.addWidget(button)
            self.buttons[name] = button
        row.addStretch(1)
        outer.addLayout(row)

        wanted = settings.upload_concurrency(queue.concurrency)
        self.concurrency.setValue(wanted)
        if queue.concurrency != wanted:
            queue.concurrency = wanted
        self.concurrency.valueChanged.connect(self._concurrency_changed)

        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.setInterval(120)
        self._refresh.timeout.connect(self.update_summary)
        self.model.dataChanged.connect(self._schedule)
        # while files are sent, their speed and time left are read again every second even when
        # no byte moves (a stalled transfer said "about 1 s left" for as long as it stalled)
        self._ticker = QTimer(self)
        self._ticker.setObjectName("upload speeds")
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self.model.moving_figures_changed)
        self._states: dict[str, str] = {}
        queue.itemChanged.connect(self._item_changed)
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._rows_changed)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.update_actions())
        if jobs is not None:
            jobs.jobChanged.connect(self._job)
            jobs.jobFinished.connect(self._job)
        self.update_summary()

    # --- selection -----------------------------------------------------------------------------------------

    def selected_items(self) -> list[UploadItem]:
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.model.item(row) for row in rows if row < self.model.rowCount()]

    def select_ids(self, ids: list[str]) -> None:
        """Select rows by item id (tests and callers that point at a file)."""
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for item_id in ids:
            row = self.model.row_of(item_id)
            if row >= 0:
                self.table.selectRow(row)
        self.table.setSelectionMode(mode)
        self.update_actions()

    def pause_selected(self) -> None:
        for item in self.selected_items():
            if item.can_pause:
                self.queue.pause(item.id)

    def resume_selected(self) -> None:
        for item in self.selected_items():
            if item.can_resume:
                self.queue.resume(item.id)

    def cancel_selected(self) -> None:
        for item in self.selected_items():
            if item.can_cancel:
                self.queue.cancel(item.id)

    def retry_selected(self) -> None:
        for item in self.selected_items():
            if item.can_retry:
                self.queue.retry(item.id)

    def clear_finished(self) -> None:
        self.queue.clear_finished()

    # --- summary and controls ------------------------------------------------------------------------------

    def _rows_changed(self, *_: object) -> None:
        self.rowsPresent.emit(self.model.rowCount() > 0)  # at once: the pane shows or hides the queue
        self.update_actions()
        self._schedule()

    def _item_changed(self, item: UploadItem) -> None:
        """A change of state enables and disables the actions at once; byte progress waits for the timer."""
        if self._states.get(item.id) != item.state:
            self._states[item.id] = item.state
            self.update_actions()

    def _schedule(self, *_: object) -> None:
        if not self._refresh.isActive():
            self._refresh.start()

    def update_summary(self) -> None:
        self.totals.setText(self.summary_text())
        self.update_actions()
        self.rowsPresent.emit(self.model.rowCount() > 0)
        sending = any(item.state == "uploading" for item in self.model.items())
        if sending != self._ticker.isActive():
            if sending:
                self._ticker.start()
            else:
                self._ticker.stop()

    def summary_text(self) -> str:
        """``3 of 10 files · 45 MB of 120 MB · 5.2 MB/s · about 20 s left`` (plus refused and failed counts)."""
        items = self.model.items()
        if not items:
            return "No uploads. Drop files or folders above, or choose Add files…"
        counted = [i for i in items if i.state not in ("refused", "cancelled")]
        done = sum(1 for i in counted if i.state == "done")
        parts = [f"{done} of {len(counted)} file{'s' if len(counted) != 1 else ''}"]
        totals = self.queue.totals()
        if counted:
            parts.append(f"{format_bytes(totals.sent)} of {format_bytes(totals.total)}")
        if any(i.state == "uploading" for i in items):
            if totals.speed:
                parts.append(format_speed(totals.speed))
            if totals.eta is not None:
                parts.append(f"{format_eta(totals.eta)} left")
        paused = sum(1 for i in items if i.state == "paused")
        failed = sum(1 for i in items if i.state == "failed")
        refused = sum(1 for i in items if i.state == "refused")
        for count, word in ((paused, "paused"), (failed, "failed"), (refused, "refused")):
            if count:
                parts.append(f"{count} {word}")
        return " · ".join(parts)

    def update_actions(self) -> None:
        selected = self.selected_items()
        items = self.model.items()
        enabled = {
            "pause": any(i.can_pause for i in selected),
            "resume": any(i.can_resume for i in selected),
            "cancel": any(i.can_cancel for i in selected),
            "retry": any(i.can_retry for i in selected),
            "pause_all": any(i.can_pause for i in items),
            "resume_all": any(i.can_resume for i in items),
            "cancel_all": any(i.can_cancel for i in items),
            "retry_failed": any(i.state == "failed" for i in items),
            "clear": any(i.finished for i in items),
        }
        for name, on in enabled.items():
            self.actions_by_name[name].setEnabled(on)
        self._show_reason(selected)

    def _show_reason(self, selected: list[UploadItem]) -> None:
        """The whole reason of the first selected file that was refused or failed, under the table
        (its cell cuts it at the column's width)."""
        for item in selected:
            text = self.model.explanation(item)
            if text is not None:
                self.reason.setText(f"{item.name}: {text}")
                self.reason.show()
                return
        self.reason.hide()

    def _concurrency_changed(self, value: int) -> None:
        self.queue.concurrency = value
        self.settings.set_upload_concurrency(value)

    def _context_menu(self, pos: QPoint) -> None:
        menu = self.build_menu(pos)
        menu.popup(self.table.viewport().mapToGlobal(pos))  # never exec(): the loop keeps running

    def build_menu(self, pos: QPoint) -> QMenu:
        """The context menu for the row at ``pos`` (selected first when it was not)."""
        index = self.table.indexAt(pos)
        if index.isValid() and not self.table.selectionModel().isRowSelected(index.row(), QModelIndex()):
            self.table.selectRow(index.row())
        self.update_actions()
        if self._menu is not None:
            self._menu.deleteLater()
        menu = QMenu(self)
        menu.setAccessibleName("Upload actions")
        for name in ("pause", "resume", "cancel", "retry"):
            menu.addAction(self.actions_by_name[name])
        menu.addSeparator()
        for name in ("pause_all", "resume_all", "cancel_all", "retry_failed", "clear"):
            menu.addAction(self.actions_by_name[name])
        self._menu = menu
        return menu

    # --- processing after the upload -----------------------------------------------------------------------

    def _job(self, job: Job) -> None:
        if job.kind == "source":
            self.model.set_processing(job.resource_id, job.state, job.error)
