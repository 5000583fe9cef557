"""Figure cards: one number, what it counts, and over which window; "at least" when the service
said its figures are incomplete."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

__all__ = ["FigureCard", "FigureGrid", "count_text"]


def count_text(value: float, *, floor: bool = False) -> str:
    """A count as people read it: whole, with thousands separators; "at least" for a floor."""
    text = f"{round(value):,}"
    return f"at least {text}" if floor else text


class FigureCard(QFrame):
    def __init__(self, label: str, explained: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("figureCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "QFrame#figureCard { border: 1px solid palette(mid); border-radius: 6px; background: palette(base); }"
        )
        self.label_text = label
        self.explained = explained
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 10)
        layout.setSpacing(2)
        self.label = QLabel(label, self)
        self.label.setStyleSheet("color: palette(mid); font-weight: bold;")
        self.value = QLabel("—", self)
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.9)
        font.setBold(True)
        self.value.setFont(font)
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption = QLabel(explained, self)
        self.caption.setWordWrap(True)
        self.caption.setStyleSheet("color: palette(mid);")
        for widget in (self.label, self.value, self.caption):
            layout.addWidget(widget)
        layout.addStretch(1)  # a card beside one with a longer caption: its figure at the same height
        self.setToolTip(explained)
        self.set_value(None)

    def set_value(self, value: float | None, *, floor: bool = False) -> None:
        if value is None:
            self.value.setText("—")
            self.setAccessibleName(f"{self.label_text}: not known")
            return
        shown = count_text(value, floor=floor)
        self.value.setText(shown.replace("at least ", "≥ "))
        self.value.setToolTip(f"{shown} ({self.explained.rstrip('.').lower()})")
        self.setAccessibleName(f"{self.label_text}: {shown}")

    @property
    def text(self) -> str:
        return self.value.text()


class FigureGrid(QWidget):
    """Cards side by side, wrapping onto a second row when the pane is narrow."""

    def __init__(self, cards: list[FigureCard], columns: int = 5, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setHorizontalSpacing(10)
        layout.setVerticalSpacing(10)
        self.cards = cards
        for index, card in enumerate(cards):
            card.setParent(self)
            layout.addWidget(card, index // columns, index % columns)
