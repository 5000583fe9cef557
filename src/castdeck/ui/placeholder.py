"""The tile shown where a picture is missing or still loading: a soft colour chosen from the item's
id (the same item always gets the same colour) and the initials of its title."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QLinearGradient, QPainter, QPainterPath, QPixmap

__all__ = ["initials", "placeholder_tile", "tile_color"]


def initials(title: str | None) -> str:
    """Up to two letters from the first words of ``title`` ("Tidal Power Works" -> "TP")."""
    words = [word for word in (title or "").replace("-", " ").split() if word[:1].isalnum()]
    if not words:
        return "·"
    letters = "".join(word[0] for word in words[:2]).upper()
    return letters


def tile_color(seed: str) -> QColor:
    """A muted colour, legible under white text on light and dark windows, fixed for ``seed``."""
    digest = hashlib.blake2b(seed.encode(), digest_size=2).digest()
    hue = int.from_bytes(digest, "big") % 360
    return QColor.fromHsl(hue, 92, 104)


@lru_cache(maxsize=512)
def _tile(text: str, seed: str, width: int, height: int, radius: int, ratio: float) -> QPixmap:
    pixmap = QPixmap(round(width * ratio), round(height * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    base = tile_color(seed)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = QPainterPath()
    path.addRoundedRect(QRectF(0, 0, width, height), radius, radius)
    gradient = QLinearGradient(0, 0, width, height)
    gradient.setColorAt(0, base.lighter(118))
    gradient.setColorAt(1, base.darker(125))
    painter.fillPath(path, gradient)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(8, round(min(width, height) * (0.36 if len(text) > 1 else 0.44))))
    painter.setFont(font)
    painter.setPen(QColor(255, 255, 255, 235))
    painter.drawText(QRectF(0, 0, width, height), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def placeholder_tile(title: str | None, seed: str, width: int, height: int | None = None, *,
                     radius: int | None = None, ratio: float = 1.0) -> QPixmap:  # fmt: skip
    """A tile of ``width`` x ``height`` logical pixels (made once per size and kept)."""
    height = width if height is None else height
    corner = max(2, min(width, height) // 10) if radius is None else radius
    return _tile(initials(title), seed, width, height, corner, ratio)
