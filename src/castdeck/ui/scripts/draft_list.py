"""The list of local drafts: title, words, minutes, last edited, and state (draft, queued, imported
or generated, with its episode)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from castdeck.store.drafts import DRAFT, GENERATED, IMPORTED, QUEUED, Draft

__all__ = ["COLUMNS", "DraftDelegate", "DraftListModel", "edited_text", "state_text"]

COLUMNS = ("Title", "Words", "Minutes", "Last edited", "State")
Index = QModelIndex | QPersistentModelIndex


def state_text(draft: Draft) -> str:
    if draft.state == QUEUED:
        return "Queued"
    if draft.state == IMPORTED:
        return "Imported ↗"
    if draft.state == GENERATED:
        return "Generated ↗"
    if draft.state == DRAFT and draft.problem:
        return "Draft: refused"
    return "Draft"


def edited_text(moment: float, now: float | None = None) -> str:
    age = (now or time.time()) - moment
    if age < 60:
        return "just now"
    if age < 3600:
        return f"{int(age // 60)} min ago"
    stamp = datetime.fromtimestamp(moment)
    if age < 86400:
        return stamp.strftime("%H:%M")
    return stamp.strftime("%Y-%m-%d")


class DraftListModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.drafts: list[Draft] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.drafts)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.drafts):
            return None
        draft = self.drafts[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (draft.title, f"{draft.words:,}", f"{draft.minutes:.1f}", edited_text(draft.updated_at),
                    state_text(draft))[column]  # fmt: skip
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 4 and draft.episode_id:
                return f"Episode {draft.episode_id} — double-click to open it in Episodes"
            if column == 4 and draft.problem:
                return str(draft.problem.get("message") or "")
            if column == 0 and draft.file_path:
                return draft.file_path
            if column == 3:
                return datetime.fromtimestamp(draft.updated_at).strftime("%Y-%m-%d %H:%M:%S")
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (1, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return draft.id
        return None

    def set_drafts(self, drafts: list[Draft]) -> None:
        self.beginResetModel()
        self.drafts = list(drafts)
        self.endResetModel()

    def row_of(self, draft_id: str) -> int:
        return next((i for i, d in enumerate(self.drafts) if d.id == draft_id), -1)

    def update_draft(self, draft: Draft) -> None:
        """One draft changed (a save, a new state): its row is updated in place (its text is not kept)."""
        row = self.row_of(draft.id)
        if row < 0:
            return
        self.drafts[row] = draft.evolve(text="")
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))


class DraftDelegate(QStyledItemDelegate):
    """Two lines per draft: its title, then words, minutes, when it was last edited and its state."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        height = option.fontMetrics.height()
        return QSize(option.rect.width(), height * 2 + 12)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        model = index.model()
        if not isinstance(model, DraftListModel) or not 0 <= index.row() < len(model.drafts):
            super().paint(painter, option, index)
            return
        draft = model.drafts[index.row()]
        style = option.widget.style() if option.widget is not None else QApplication.style()
        background = QStyleOptionViewItem(option)
        self.initStyleOption(background, index)
        background.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, option.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        text_color = palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        rect = option.rect.adjusted(8, 5, -8, -5)
        metrics = option.fontMetrics
        painter.save()
        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(text_color)
        title = QFontMetrics(title_font).elidedText(draft.title, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect.x(), rect.y() + metrics.ascent(), title)
        painter.setFont(option.font)
        detail_color = QColor(text_color)
        detail_color.setAlpha(200 if selected else 150)
        painter.setPen(detail_color)
        details = (f"{draft.words:,} words · {draft.minutes:.1f} min · {edited_text(draft.updated_at)} · "
                   f"{state_text(draft)}")  # fmt: skip
        painter.drawText(rect.x(), rect.y() + metrics.height() + 2 + metrics.ascent(),
                         metrics.elidedText(details, Qt.TextElideMode.ElideRight, rect.width()))  # fmt: skip
        painter.restore()
