"""The player's icons, drawn in the palette's button text colour (the style's own media icons are
dark on every palette, which a dark scheme makes hard to see)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPalette, QPen, QPixmap

__all__ = ["media_icon"]

SIZE = 64


def _triangle(
    path: QPainterPath, left: float, top: float, right: float, bottom: float, *, point_left: bool
) -> None:
    middle = (top + bottom) / 2
    if point_left:
        path.moveTo(right, top)
        path.lineTo(left, middle)
        path.lineTo(right, bottom)
    else:
        path.moveTo(left, top)
        path.lineTo(right, middle)
        path.lineTo(left, bottom)
    path.closeSubpath()


def media_icon(kind: str, palette: QPalette) -> QIcon:
    """``play``, ``pause``, ``back``, ``forward``, ``volume`` or ``muted``."""
    # the enabled state's colour, whatever the widget's state now: the icon's disabled mode is
    # drawn from it (read while the bar is disabled, the current group's grey stayed once enabled)
    color = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)
    icon = QIcon()
    for mode, alpha in ((QIcon.Mode.Normal, 1.0), (QIcon.Mode.Disabled, 0.35)):
        pixmap = QPixmap(SIZE, SIZE)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        shade = QColor(color)
        shade.setAlphaF(alpha)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(shade)
        path = QPainterPath()
        if kind == "play":
            _triangle(path, 18, 12, 52, 52, point_left=False)
        elif kind == "pause":
            path.addRoundedRect(QRectF(16, 12, 11, 40), 2, 2)
            path.addRoundedRect(QRectF(37, 12, 11, 40), 2, 2)
        elif kind in ("back", "forward"):
            left = kind == "back"
            _triangle(path, 6, 16, 32, 48, point_left=left)
            _triangle(path, 32, 16, 58, 48, point_left=left)
        elif kind in ("volume", "muted"):
            path.moveTo(8, 24)
            path.lineTo(20, 24)
            path.lineTo(34, 12)
            path.lineTo(34, 52)
            path.lineTo(20, 40)
            path.lineTo(8, 40)
            path.closeSubpath()
        painter.drawPath(path)
        pen = QPen(shade, 4.5)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if kind == "volume":
            painter.drawArc(QRectF(30, 22, 14, 20), -60 * 16, 120 * 16)
            painter.drawArc(QRectF(30, 14, 26, 36), -60 * 16, 120 * 16)
        elif kind == "muted":
            painter.drawLine(QPointF(42, 24), QPointF(56, 40))
            painter.drawLine(QPointF(56, 24), QPointF(42, 40))
        painter.end()
        icon.addPixmap(pixmap, mode)
    return icon
