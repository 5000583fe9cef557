"""A horizontal bar chart painted with QPainter: names on the left, bars in the palette's highlight
colour, whole-number ticks on a labelled value axis, the exact value at each bar's end and in its
tooltip. It follows the light or dark palette (no fixed colours) and describes itself in words for
screen readers."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QHelpEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

__all__ = ["BarChart", "nice_ticks"]

BAR_HEIGHT = 22
GAP = 8
AXIS_SPACE = 40  # below the bars: tick labels and the axis title


def nice_ticks(largest: float, wanted: int = 5) -> list[int]:
    """Whole-number ticks from 0 that cover ``largest``, at steps of 1, 2 or 5 times a power of ten
    (never a fraction: a count of plays has none)."""
    if largest <= 0:
        return [0, 1]
    raw = largest / max(1, wanted - 1)
    power = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = next((m * power for m in (1, 2, 5, 10) if m * power >= raw), 10 * power)
    step = max(1, int(step))
    top = math.ceil(largest / step) * step
    return list(range(0, top + 1, step))


class BarChart(QWidget):
    def __init__(self, title: str, unit: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.unit = unit
        self._bars: list[tuple[str, float]] = []
        self._floor = False
        self.empty_text = "Nothing to show yet."
        self.setAccessibleName(title)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._update_description()

    # --- data ----------------------------------------------------------------------------------------------

    def set_bars(
        self, bars: list[tuple[str, float]], *, floor: bool = False, empty_text: str | None = None
    ) -> None:
        """``bars``: (name, value) in the order shown. ``floor``: the values are lower bounds
        (incomplete figures): labels and tooltips say "at least". ``empty_text``: what to say when
        there are none."""
        self._bars = [(name, max(0.0, float(value))) for name, value in bars]
        self._floor = floor
        if empty_text is not None:
            self.empty_text = empty_text
        self._update_description()
        self.updateGeometry()
        self.update()

    @property
    def bars(self) -> list[tuple[str, float]]:
        return list(self._bars)

    def value_text(self, value: float) -> str:
        text = f"{round(value):,}"
        return f"≥ {text}" if self._floor else text

    def _update_description(self) -> None:
        if not self._bars:
            self.setAccessibleDescription(self.empty_text)
            return
        prefix = "at least " if self._floor else ""
        parts = [f"{name}: {prefix}{round(value):,} {self.unit}" for name, value in self._bars]
        self.setAccessibleDescription(f"{self.title}. " + "; ".join(parts))

    # --- geometry ------------------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        rows = max(1, len(self._bars))
        return QSize(420, GAP + rows * (BAR_HEIGHT + GAP) + AXIS_SPACE)

    def minimumSizeHint(self) -> QSize:
        return QSize(260, self.sizeHint().height())

    def _label_width(self, metrics: QFontMetrics) -> int:
        widest = max((metrics.horizontalAdvance(name) for name, _ in self._bars), default=0)
        return min(max(widest + 12, 60), max(60, self.width() // 3))

    def _plot(self, metrics: QFontMetrics) -> tuple[QRectF, list[int]]:
        ticks = nice_ticks(max((v for _, v in self._bars), default=0.0))
        value_room = metrics.horizontalAdvance(self.value_text(ticks[-1])) + 10
        left = self._label_width(metrics)
        right = max(left + 40, self.width() - value_room)
        height = len(self._bars) * (BAR_HEIGHT + GAP)
        return QRectF(left, GAP, right - left, height), ticks

    def bar_rect(self, index: int) -> QRectF:
        """Where bar ``index`` is drawn (tooltips and tests)."""
        metrics = QFontMetrics(self.font())
        plot, ticks = self._plot(metrics)
        value = self._bars[index][1]
        width = plot.width() * (value / ticks[-1]) if ticks[-1] else 0.0
        top = plot.top() + index * (BAR_HEIGHT + GAP)
        return QRectF(plot.left(), top, max(width, 1.0 if value > 0 else 0.0), BAR_HEIGHT)

    def bar_at(self, point: QPoint) -> int | None:
        metrics = QFontMetrics(self.font())
        plot, _ticks = self._plot(metrics)
        for index in range(len(self._bars)):
            top = plot.top() + index * (BAR_HEIGHT + GAP)
            if top <= point.y() <= top + BAR_HEIGHT and 0 <= point.x() <= self.width():
                return index
        return None

    def tooltip_for(self, index: int) -> str:
        name, value = self._bars[index]
        total = sum(v for _, v in self._bars)
        share = f" ({value / total:.1%} of all {self.unit})" if total else ""
        prefix = "at least " if self._floor else ""
        return f"{name}: {prefix}{round(value):,} {self.unit}{share}"

    # --- events --------------------------------------------------------------------------------------------

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = self.bar_at(event.pos())
            if index is None:
                QToolTip.hideText()
                event.ignore()
            else:
                QToolTip.showText(event.globalPos(), self.tooltip_for(index), self)
            return True
        return super().event(event)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        metrics = QFontMetrics(self.font())
        if not self._bars:
            painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.empty_text)
            painter.end()
            return
        plot, ticks = self._plot(metrics)
        grid = QColor(palette.color(QPalette.ColorRole.Mid))
        grid.setAlpha(110)
        axis_y = plot.bottom() + 2
        # gridlines and whole-number tick labels
        for tick in ticks:
            x = plot.left() + plot.width() * (tick / ticks[-1])
            painter.setPen(grid)
            painter.drawLine(round(x), round(plot.top()), round(x), round(axis_y))
            label = f"{tick:,}"
            width = metrics.horizontalAdvance(label)
            painter.setPen(text)
            painter.drawText(round(x - width / 2), round(axis_y + metrics.ascent() + 4), label)
        painter.setPen(text)
        painter.drawLine(round(plot.left()), round(axis_y), round(plot.right()), round(axis_y))
        title = f"{self.unit.capitalize()}" + (" (figures are floors)" if self._floor else "")
        painter.drawText(
            QRectF(plot.left(), axis_y + metrics.height() + 6, plot.width(), metrics.height()),
            Qt.AlignmentFlag.AlignHCenter,
            title,
        )
        bar_color = palette.color(QPalette.ColorRole.Highlight)
        for index, (name, value) in enumerate(self._bars):
            rect = self.bar_rect(index)
            painter.setPen(text)
            label = metrics.elidedText(name, Qt.TextElideMode.ElideRight, round(plot.left()) - 10)
            painter.drawText(
                QRectF(0, rect.top(), plot.left() - 8, BAR_HEIGHT),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(bar_color)
            painter.drawRoundedRect(rect, 3, 3)
            painter.setPen(text)
            painter.drawText(
                QRectF(rect.right() + 6, rect.top(), self.width() - rect.right() - 6, BAR_HEIGHT),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self.value_text(value),
            )
        painter.end()
