"""The upload queue's item model: one row per queued file (state, progress, speed, time left).

``UploadQueueModel`` mirrors :class:`UploadQueue` row by row (an added item inserts one row, a
change repaints one row, a removal removes one row; never a reset per progress tick). When given
the job tracker, rows of uploaded files also say whether the service finished processing them.
"""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QGuiApplication

from castdeck.services.uploads import PROGRESS_INTERVAL, UploadQueue
from castdeck.store.uploads import UploadItem
from castdeck.ui.palette import is_dark
from castdeck.ui.resource_model import AnyIndex, RoleData, answer_roles, clear_roles, each_role

from .palette import TONES

__all__ = [
    "COLUMNS",
    "ETA",
    "FILE",
    "ITEM_ROLE",
    "NO_BAR",
    "PROGRESS",
    "PROGRESS_ROLE",
    "SIZE",
    "SPEED",
    "STATE",
    "UploadQueueModel",
    "format_bytes",
    "format_eta",
    "format_speed",
    "problem_brush",
    "state_text",
]

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 2
"""Percent 0..100 for the progress bar, or -1 where no bar is drawn."""

COLUMNS = ("File", "Size", "State", "Progress", "Speed", "Time left")
FILE, SIZE, STATE, PROGRESS, SPEED, ETA = range(len(COLUMNS))

STATE_LABELS = {
    "queued": "Waiting",
    "uploading": "Uploading",
    "completing": "Finishing upload…",
    "paused": "Paused",
    "done": "Uploaded",
    "failed": "Failed",
    "refused": "Refused",
    "cancelled": "Cancelled",
}
NO_BAR = frozenset({"refused", "cancelled"})
HINTS = {
    "refused": "The file was not sent. Fix it and choose Retry, or remove it with Clear finished.",
    "failed": "Choose Retry to send it again.",
}
"""What to do about a refused or failed file (its tooltip, and the line under the queue)."""

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ACCESSIBLE = int(Qt.ItemDataRole.AccessibleTextRole)
_ITEM, _PROGRESS = int(ITEM_ROLE), int(PROGRESS_ROLE)
_ANSWERED = frozenset({_DISPLAY, _ALIGNMENT, _PROGRESS, _FOREGROUND, _TOOLTIP, _ITEM, _ACCESSIBLE})
"""The roles the model answers; Qt's delegate asks these and more (fonts, colours, check states)
for every cell it paints. Plain ints: compared for every cell on screen at each paint."""
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_BLANK_READS = {
    SIZE: "Size not known",
    PROGRESS: "No progress: not sent",
    SPEED: "Not sending",
    ETA: "Not sending",
}
"""What a blank cell reads as to a screen reader, by column."""
_PROBLEM_BRUSHES = {dark: QBrush(QColor(TONES["problem"][dark])) for dark in (False, True)}
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


def format_bytes(size: float) -> str:
    """``1234`` → ``1.2 KB``; decimal units as file managers show them."""
    if size < 1000:
        return f"{int(size)} byte{'s' if int(size) != 1 else ''}"
    for unit in ("KB", "MB", "GB"):
        size /= 1000
        if size < 1000 or unit == "GB":
            return f"{size:.1f} {unit}" if size < 100 else f"{size:.0f} {unit}"
    return f"{size:.0f} GB"  # pragma: no cover


def format_speed(speed: float | None) -> str:
    return f"{format_bytes(speed)}/s" if speed else ""


def format_eta(seconds: float | None) -> str:
    """``about 20 s``, ``about 3 min``, ``about 1 h 5 min``; empty when unknown."""
    if seconds is None or seconds < 0:
        return ""
    total = max(1, round(seconds))
    if total < 60:
        return f"about {total} s"
    minutes = round(total / 60)
    if minutes < 60:
        return f"about {minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"about {hours} h" + (f" {rest} min" if rest else "")


def problem_brush() -> QBrush:
    """The colour of a refusal or a failure in the palette of the moment (light or dark)."""
    return _PROBLEM_BRUSHES[is_dark(QGuiApplication.palette())]


def state_text(item: UploadItem, processing: tuple[str, str | None] | None = None) -> str:
    """What the state column says; refused and failed rows carry their reason."""
    label = STATE_LABELS.get(item.state, item.state.capitalize())
    if item.state in ("refused", "failed") and item.error:
        return f"{label}: {item.error}"
    if item.state == "done" and processing is not None:
        state, error = processing
        if state == "completed":
            return "Uploaded · ready"
        if state == "failed":
            return "Uploaded · processing failed" + (f": {error}" if error else "")
        return "Uploaded · processing…"
    return label


class UploadQueueModel(QAbstractTableModel):
    """The queue's items in queue order; updated one row at a time from the queue's signals."""

    def __init__(self, queue: UploadQueue, parent: Any = None) -> None:
        super().__init__(parent)
        self.queue = queue
        self._items: list[UploadItem] = list(queue.items())
        self._rows: dict[str, int] = {}
        self._processing: dict[str, tuple[str, str | None]] = {}  # source id -> (job state, error)
        self._moved: set[str] = set()
        """Items whose bytes sent moved since the last repaint of the progress cells."""
        self._flush_moved = QTimer(self)
        self._flush_moved.setSingleShot(True)
        self._flush_moved.setInterval(round(PROGRESS_INTERVAL * 1000))
        self._flush_moved.timeout.connect(self._moved_bytes)
        self._reindex()
        queue.itemAdded.connect(self._added)
        queue.itemChanged.connect(self._changed)
        queue.itemRemoved.connect(self._removed)

    # --- Qt model ------------------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.TextAlignmentRole and section in (SIZE, SPEED, ETA):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _FLAGS

    def data(self, index: AnyIndex, role: int = _DISPLAY) -> Any:
        row = index.row()  # (an invalid index has row -1)
        if role not in _ANSWERED or not 0 <= row < len(self._items):
            return None
        return self._value(self._items[row], index.column(), role)

    def multiData(self, index: AnyIndex, roleDataSpan: RoleData) -> None:
        """Every role Qt's delegate asks for one cell (six at each paint), in one call into Python."""
        asked = each_role(roleDataSpan)
        row = index.row()
        if 0 <= row < len(self._items):
            answer_roles(asked, _ANSWERED, self._value, self._items[row], index.column())
        else:
            clear_roles(asked)

    def _value(self, item: UploadItem, column: int, role: int) -> Any:
        if role == _DISPLAY:
            return self._display(item, column)
        if role == _ALIGNMENT:
            return _RIGHT if column in (SIZE, SPEED, ETA) else None
        if role == _PROGRESS:
            return self.percent(item) if column == PROGRESS else None
        if role == _FOREGROUND:
            return problem_brush() if column == STATE and self._is_problem(item) else None
        if role == _TOOLTIP:
            return self._tooltip(item, column)
        if role == _ITEM:
            return item
        # the accessible text: the progress bar reads as its percent, a blank cell as what blank means
        blank = _BLANK_READS.get(column)
        return None if blank is None else (self._display(item, column) or blank)

    # --- contents ------------------------------------------------------------------------------------------

    def item(self, row: int) -> UploadItem:
        return self._items[row]

    def items(self) -> list[UploadItem]:
        return list(self._items)

    def row_of(self, item_id: str) -> int:
        return self._rows.get(item_id, -1)

    def processing_state(self, item: UploadItem) -> tuple[str, str | None] | None:
        return self._processing.get(item.source_id) if item.source_id else None

    def percent(self, item: UploadItem) -> int:
        if item.state in NO_BAR:
            return -1
        if item.state == "done":
            return 100
        transfer = self.queue.transfer(item.id)
        total = transfer.total or item.size
        if total <= 0:
            return 0
        return max(0, min(100, int(transfer.sent * 100 / total)))

    def _is_problem(self, item: UploadItem) -> bool:
        if item.state in ("refused", "failed"):
            return True
        processing = self.processing_state(item)
        return item.state == "done" and processing is not None and processing[0] == "failed"

    def _display(self, item: UploadItem, column: int) -> str:
        if column == FILE:
            return item.name
        if column == SIZE:
            return "" if item.state == "refused" and not item.size else format_bytes(item.size)
        if column == STATE:
            return state_text(item, self.processing_state(item))
        if column == PROGRESS:
            percent = self.percent(item)
            return "" if percent < 0 else f"{percent} %"
        if item.state != "uploading":
            return ""
        transfer = self.queue.transfer(item.id)
        if column == SPEED:
            return format_speed(transfer.speed)
        if column == ETA:
            return format_eta(transfer.eta)
        return ""

    def explanation(self, item: UploadItem) -> str | None:
        """What went wrong with a refused or failed file (or with its processing) and what to do,
        whole: the state column cuts it at its width. None for a file without a problem."""
        if not self._is_problem(item):
            return None
        hint = HINTS.get(item.state)
        text = state_text(item, self.processing_state(item))
        return f"{text} {hint}" if hint else text

    def _tooltip(self, item: UploadItem, column: int) -> str:
        if column == FILE:
            return item.path + ("\nUploaded as a Voiceover visual" if item.prepare_visuals else "")
        if column in (STATE, PROGRESS):
            text = state_text(item, self.processing_state(item))
            hint = HINTS.get(item.state)
            if hint:
                text += f"\n{hint}"
            if item.request_id:
                text += f"\nRequest ID: {item.request_id}"
            return text
        return ""

    # --- following the queue -------------------------------------------------------------------------------

    def _reindex(self) -> None:
        self._rows = {item.id: row for row, item in enumerate(self._items)}

    def _added(self, item: UploadItem) -> None:
        if item.id in self._rows:
            self._changed(item)
            return
        positions = [i.position for i in self._items]
        row = bisect.bisect_right(positions, item.position)
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.insert(row, item)
        self._reindex()
        self.endInsertRows()

    def _changed(self, item: UploadItem) -> None:
        row = self._rows.get(item.id, -1)
        if row < 0:
            self._added(item)
            return
        before, self._items[row] = self._items[row], item
        if replace(before, sent=item.sent, updated_at=item.updated_at) == item:
            # Only bytes moved: the cells that show them repaint, not the row (with several files
            # sending, whole rows made each frame repaint most of the table), and the rows whose
            # bytes moved repaint together at the queue's own pace. Each transfer reports eight
            # times a second, out of step with the others: ten files sending repainted the
            # table nearly every frame (benchmarks/background_load.py).
            self._moved.add(item.id)
            if not self._flush_moved.isActive():
                self._flush_moved.start()
            return
        self._moved.discard(item.id)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _moved_bytes(self) -> None:
        rows = [row for item_id in self._moved if (row := self._rows.get(item_id, -1)) >= 0]
        self._moved.clear()
        if rows:
            self.dataChanged.emit(self.index(min(rows), PROGRESS), self.index(max(rows), ETA))

    def _removed(self, item_id: str) -> None:
        row = self._rows.get(item_id, -1)
        if row < 0:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._items[row]
        self._reindex()
        self.endRemoveRows()

    def moving_figures_changed(self) -> None:
        """The speed and time left of the files being sent, read again (they change with time
        alone: a transfer that stalls loses its speed)."""
        rows = [row for row, item in enumerate(self._items) if item.state == "uploading"]
        if rows:
            self.dataChanged.emit(self.index(min(rows), SPEED), self.index(max(rows), ETA))

    def set_processing(self, source_id: str, state: str, error: str | None = None) -> None:
        """The job tracker's word on an uploaded file's source (running, completed, failed)."""
        self._processing[source_id] = (state, error)
        for row, item in enumerate(self._items):
            if item.source_id == source_id:
                self.dataChanged.emit(self.index(row, STATE), self.index(row, PROGRESS))
