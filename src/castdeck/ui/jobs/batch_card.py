"""A batch's card in the Jobs dock: one card for a season sent at once ("7 of 12 accepted, 3
finished, 1 refused"), its scripts listed in order with how each stands, each opening what it
became (its episode) or, while it has none, its draft (refused ones say why)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.batch_plan import BatchItem, BatchProgress

from ..accessible import shows_value
from ..palette import tone

__all__ = ["BatchCard", "BatchCards", "item_text"]

STATE_WORDS = {
    "waiting": "waiting its turn",
    "sending": "sending",
    "accepted": "accepted, being made",
    "finished": "finished",
    "failed": "generation failed",
    "refused": "refused",
    "removed": "draft deleted",
}


def item_text(item: BatchItem) -> str:
    """``3. Slack water — refused: no host is called …``."""
    text = f"{item.index + 1}. {item.title} — {STATE_WORDS.get(item.state, item.state)}"
    if item.state == "refused" and item.message:
        text += f": {item.message}"
    return text


class BatchCard(QFrame):
    """One batch: its title, how far it is, and its scripts (shown on demand)."""

    openRequested = Signal(str, str)  # ("episode" | "draft", id)
    dismissRequested = Signal(str)  # batch id

    def __init__(self, progress: BatchProgress, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("batch_card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.batch_id = progress.id
        self.progress = progress
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.title = QLabel(self)
        self.title.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.title)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        shows_value(self.summary, "Batch progress")
        layout.addWidget(self.summary)
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Scripts accepted")
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        layout.addWidget(self.bar)
        self.items = QListWidget(self)
        self.items.setAccessibleName("Scripts of the batch")
        self.items.setWordWrap(True)
        self.items.itemActivated.connect(self._activated)
        self.items.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.items.hide()
        layout.addWidget(self.items)
        row = QHBoxLayout()
        self.toggle_button = QPushButton("Show scripts", self)
        self.toggle_button.setAccessibleName("Show the batch's scripts")
        self.toggle_button.clicked.connect(self.toggle)
        self.open_button = QPushButton("Open", self)
        self.open_button.setAccessibleName("Open the selected script's episode or draft")
        self.open_button.clicked.connect(self.open_current)
        self.open_button.hide()
        self.dismiss_button = QPushButton("Dismiss", self)
        self.dismiss_button.setAccessibleName("Dismiss the batch's card")
        self.dismiss_button.setToolTip("The batch has ended: take its card away")
        self.dismiss_button.clicked.connect(lambda: self.dismissRequested.emit(self.batch_id))
        row.addWidget(self.toggle_button)
        row.addWidget(self.open_button)
        row.addStretch(1)
        row.addWidget(self.dismiss_button)
        layout.addLayout(row)
        self.show_progress(progress)

    def show_progress(self, progress: BatchProgress) -> None:
        self.progress = progress
        self.title.setText(progress.title)
        self.summary.setText(progress.summary())
        refused = progress.count("refused", "failed")
        self.summary.setStyleSheet(f"color: {tone('problem')};" if refused else "")
        self.bar.setRange(0, max(1, progress.size))
        self.bar.setValue(progress.accepted)
        self.setAccessibleName(f"{progress.title}: {progress.summary()}")
        current = self.items.currentRow()
        self.items.clear()
        for item in progress.items:
            entry = QListWidgetItem(item_text(item))
            entry.setData(Qt.ItemDataRole.UserRole, item.draft_id)
            if item.state in ("refused", "failed"):
                entry.setForeground(QBrush(QColor(tone("problem"))))
            self.items.addItem(entry)
        if 0 <= current < self.items.count():
            self.items.setCurrentRow(current)
        self.items.setFixedHeight(min(8, max(1, len(progress.items))) * (self.fontMetrics().height() + 6) + 6)
        self.dismiss_button.setVisible(progress.ended)
        self._update_buttons()

    def toggle(self) -> None:
        shown = not self.items.isVisible()
        self.items.setVisible(shown)
        self.toggle_button.setText("Hide scripts" if shown else "Show scripts")
        self._update_buttons()

    def _item(self) -> BatchItem | None:
        row = self.items.currentRow()
        return self.progress.items[row] if 0 <= row < len(self.progress.items) else None

    def _update_buttons(self) -> None:
        item = self._item()
        self.open_button.setVisible(self.items.isVisible())
        self.open_button.setEnabled(item is not None and item.state != "removed")
        if item is not None:
            self.open_button.setText("Open episode" if item.episode_id else "Open draft")

    def open_current(self) -> None:
        item = self._item()
        if item is None or item.state == "removed":
            return
        if item.episode_id:
            self.openRequested.emit("episode", item.episode_id)
        else:
            self.openRequested.emit("draft", item.draft_id)

    def _activated(self, _entry: QListWidgetItem) -> None:
        self.open_current()


class BatchCards(QWidget):
    """The cards of every batch the drafts remember, newest on top (hidden while there are none)."""

    openRequested = Signal(str, str)
    dismissRequested = Signal(str)
    countChanged = Signal()  # a batch's card came or went

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Batches")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self.cards: dict[str, BatchCard] = {}
        self.hide()

    def show_batches(self, batches: list[BatchProgress]) -> None:
        """Every batch, newest first (the dock was bound to a session)."""
        for card in self.cards.values():
            card.deleteLater()
        self.cards = {}
        for progress in reversed(batches):
            self.show_progress(progress)
        self.setVisible(bool(self.cards))
        self.countChanged.emit()

    def show_progress(self, progress: BatchProgress) -> None:
        card = self.cards.get(progress.id)
        if card is not None and progress.items:
            card.show_progress(progress)
            return
        if card is not None:  # dismissed
            del self.cards[progress.id]
            self._layout.removeWidget(card)
            card.deleteLater()
        elif progress.items:
            card = BatchCard(progress, self)
            card.openRequested.connect(self.openRequested)
            card.dismissRequested.connect(self.dismissRequested)
            self._layout.insertWidget(0, card)
            self.cards[progress.id] = card
        else:
            return
        self.setVisible(bool(self.cards))
        self.countChanged.emit()

    def card(self, batch_id: str) -> BatchCard | None:
        return self.cards.get(batch_id)
