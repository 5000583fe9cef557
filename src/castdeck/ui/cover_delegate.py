"""Pictures of list items (cover art, thumbnails): the placeholder tile, the decoding of a picture
at about the size it is shown, its drawing into a rounded square, and the delegate that puts a small picture before the text of a table's
first column.

A pane supplies the pictures through its hooks (:class:`PictureSource`): ``picture(item, size)``
returns a ready pixmap or ``None`` while it loads or when there is none; then a placeholder tile is
drawn: a muted colour chosen from the item's id with the title's initials. Placeholder pixmaps are
rendered once per (initials, colour, size, device pixel ratio) and kept by the pane's
:class:`Tiles` (within the app's budget for pictures), so painting a row or a card seldom renders
text into a pixmap again.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QImageReader, QPainter, QPainterPath, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyledItemDelegate,
    QWidget,
)

from castdeck.services.memory_budget import MemoryBudget

from .pixmap_lru import PixmapLRU

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyleOptionViewItem

__all__ = [
    "PICTURE_ROW_HEIGHT",
    "PLACEHOLDER_COLORS",
    "CoverDelegate",
    "PictureSource",
    "Tiles",
    "decode_picture",
    "draw_picture",
    "initials",
    "placeholder_color",
]

AnyIndex = QModelIndex | QPersistentModelIndex

PLACEHOLDER_COLORS = tuple(
    QColor(value)
    for value in (
        "#5b7db1",  # slate blue
        "#4f8f7a",  # sage
        "#b0704f",  # clay
        "#8467a6",  # lavender
        "#3f8c99",  # teal
        "#a85d74",  # rose
        "#6f8547",  # olive
        "#a7812f",  # ochre
        "#5d7486",  # steel
        "#8d6452",  # walnut
        "#6270b3",  # indigo
        "#4c8a55",  # fern
    )
)
"""Muted, mid-light hues: they stand out from a white and from a dark background alike, and white
initials on them keep a contrast of 3:1 or more (large text)."""

PLACEHOLDER_TEXT = QColor("#ffffff")
_ARTICLES = {"the", "a", "an"}
_CACHE_LIMIT = 512
"""Tiles each kind keeps at most (a few screens of rows and cards; a card's tile is about 0.1 MiB):
their pixels are charged to the budget the :class:`Tiles` are given."""


class PictureSource(Protocol):
    """What a delegate asks the pane for (the picture hooks of ``ResourcePane``)."""

    @property
    def tiles(self) -> Tiles: ...

    def picture(self, item: Any, size: QSize) -> QPixmap | None: ...

    def picture_text(self, item: Any) -> str: ...

    def card_title(self, item: Any) -> str: ...

    def card_subtitle(self, item: Any) -> str: ...


def placeholder_color(item_id: object) -> QColor:
    """The tile colour of an item: always the same for the same id."""
    return QColor(PLACEHOLDER_COLORS[_color_index(str(item_id or ""))])


@functools.lru_cache(maxsize=4096)
def _color_index(key: str) -> int:
    return zlib.crc32(key.encode("utf-8")) % len(PLACEHOLDER_COLORS)


@functools.lru_cache(maxsize=4096)  # asked on every paint of every row
def initials(title: str) -> str:
    """Up to two letters for a title ("The Curious Current" -> "CC", "Tides 101" -> "T")."""
    words = re.findall(r"\w+", title or "")
    if len(words) > 1 and words[0].lower() in _ARTICLES:
        words = words[1:]
    lettered = [word for word in words if word[0].isalpha()] or words
    return "".join(word[0] for word in lettered[:2]).upper() or "?"


def _radius(side: int) -> float:
    return max(3.0, side * 0.08)


def _kept(
    cache: PixmapLRU[Any, QPixmap], key: Any, side: int, ratio: float, draw: Callable[[QPainter], None]
) -> QPixmap:
    """The square pixmap kept in ``cache`` under ``key``, or a transparent one ``side`` logical
    pixels square that ``draw`` paints, then kept (the most recently used, within the cache's bounds)."""
    found = cache.get(key)
    if found is not None:
        return found
    pixels = max(1, round(side * ratio))
    pixmap = QPixmap(pixels, pixels)
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    draw(painter)
    painter.end()
    cache.put(key, pixmap)
    return pixmap


class Tiles:
    """The placeholder tiles and the small (row-sized) pictures one owner draws, made once per
    look and size and kept, their pixels charged to ``budget`` (the app's one budget for
    pictures). A pane owns one (:attr:`ResourcePane.tiles`); what it kept stops counting once
    ``owner`` is destroyed."""

    def __init__(self, budget: MemoryBudget, owner: QObject | None = None) -> None:
        self._placeholders: PixmapLRU[tuple[str, int, int, float], QPixmap] = PixmapLRU(_CACHE_LIMIT, budget)
        self._small: PixmapLRU[tuple[int, int, float], QPixmap] = PixmapLRU(_CACHE_LIMIT, budget)
        if owner is not None:
            owner.destroyed.connect(self.clear)

    def clear(self) -> None:
        self._placeholders.clear()
        self._small.clear()

    @property
    def bytes(self) -> int:
        """Pixels kept (tests)."""
        return self._placeholders.bytes + self._small.bytes

    def placeholder(self, letters: str, color: QColor, side: int, ratio: float) -> QPixmap:
        """A rounded tile of ``color`` with ``letters`` in large type, ``side`` logical pixels square."""

        def draw(painter: QPainter) -> None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            radius = _radius(side)
            painter.drawRoundedRect(QRectF(0, 0, side, side), radius, radius)
            font = QFont(QApplication.font())
            scale = 0.34 if side < 64 else 0.28  # small tiles need the letters relatively larger
            font.setPixelSize(max(6, round(side * (scale * 1.2 if len(letters) < 2 else scale))))
            font.setWeight(QFont.Weight.DemiBold)
            painter.setFont(font)
            painter.setPen(PLACEHOLDER_TEXT)
            painter.drawText(QRectF(0, 0, side, side), Qt.AlignmentFlag.AlignCenter, letters)

        return _kept(self._placeholders, (letters, color.rgba(), side, ratio), side, ratio, draw)

    def small(
        self, picture: QPixmap | None, item_id: object, title: str, side: int, ratio: float = 1.0
    ) -> QPixmap:
        """``picture`` as :func:`draw_picture` draws it into a ``side`` square (cropped, rounded), or
        the item's placeholder tile; made once per picture and size and kept."""
        if picture is None or picture.isNull():
            return self.placeholder(initials(title), placeholder_color(item_id), side, ratio)
        return _kept(
            self._small,
            (picture.cacheKey(), side, ratio),
            side,
            ratio,
            lambda painter: draw_picture(
                painter, QRect(0, 0, side, side), picture, item_id, title, ratio, self
            ),
        )


def draw_picture(
    painter: QPainter,
    rect: QRect,
    picture: QPixmap | None,
    item_id: object,
    title: str,
    ratio: float,
    tiles: Tiles,
) -> None:
    """Draw ``picture`` cropped to fill the square ``rect`` with rounded corners, or the item's
    placeholder tile (kept by ``tiles``) when there is no picture."""
    side = min(rect.width(), rect.height())
    if side <= 0:
        return
    target = QRect(rect.x(), rect.y(), side, side)
    if picture is None or picture.isNull():
        painter.drawPixmap(
            target, tiles.placeholder(initials(title), placeholder_color(item_id), side, ratio)
        )
        return
    width, height = picture.width(), picture.height()  # device pixels
    crop = min(width, height)
    source = QRectF((width - crop) / 2, (height - crop) / 2, crop, crop)  # fill the square, centred
    path = QPainterPath()
    radius = _radius(side)
    path.addRoundedRect(QRectF(target), radius, radius)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    painter.setClipPath(path)
    painter.drawPixmap(QRectF(target), picture, source)
    painter.restore()


def item_id_of(item: Any) -> str:
    return str(getattr(item, "id", "") or "")


def decode_picture(path: Path, size: QSize, *, crop: bool = True) -> QImage:
    """The picture at ``path`` scaled to cover ``size`` (cropped to it when ``crop``), decoded at
    about that size where the format allows (JPEG). Runs on any thread. Raises ``ValueError`` when
    the file is not a picture Qt can read."""
    reader = QImageReader(str(path))
    reader.setAutoTransform(True)
    original = reader.size()
    if original.isValid() and original.width() > 0 and original.height() > 0:
        mode = Qt.AspectRatioMode.KeepAspectRatioByExpanding if crop else Qt.AspectRatioMode.KeepAspectRatio
        target = original.scaled(size, mode)
        if target.width() < original.width():
            reader.setScaledSize(target)
    image = reader.read()
    if image.isNull():
        raise ValueError(reader.errorString() or "not a picture")
    if (
        image.width() > size.width() * 2 or image.height() > size.height() * 2
    ):  # formats without scaled decoding
        mode = Qt.AspectRatioMode.KeepAspectRatioByExpanding if crop else Qt.AspectRatioMode.KeepAspectRatio
        image = image.scaled(size, mode, Qt.TransformationMode.SmoothTransformation)
    if crop and (image.width() > size.width() or image.height() > size.height()):
        x = max(0, (image.width() - size.width()) // 2)
        y = max(0, (image.height() - size.height()) // 2)
        image = image.copy(QRect(x, y, min(size.width(), image.width()), min(size.height(), image.height())))
    return image


class CoverDelegate(QStyledItemDelegate):
    """A table's first column: the item's picture (about 36 px, rounded) before the text.

    The picture comes from the model (``ResourceTableModel.decorate``, the decoration role) and
    Qt's own delegate draws it with the text, the selection and the focus: this class overrides
    nothing that runs while a row is painted (a Python ``paint`` cost a third of each repaint of
    the list, ``benchmarks/episodes_scale.py``). It gives the row its height and says where the
    picture is (tests, drops)."""

    SIDE = 36
    MARGIN = 3

    def __init__(self, source: PictureSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.size = QSize(self.SIDE, self.SIDE)

    def decoration(self, item: Any) -> QPixmap:
        """What the model answers for the first column's decoration role."""
        return self.source.tiles.small(
            self.source.picture(item, self.size), item_id_of(item), self.source.card_title(item), self.SIDE
        )

    def picture_rect(self, view: QAbstractItemView, index: QModelIndex) -> QRect:
        """Where the picture of ``index`` is drawn in ``view``'s viewport."""
        # Here, not at the top: making QStyle's many enums costs about 6 ms, and the early window
        # imports this module before its first paint (castdeck.startup).
        from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

        opt = QStyleOptionViewItem()
        opt.rect = view.visualRect(index)
        opt.widget = view
        opt.font = view.font()
        opt.palette = view.palette()
        opt.direction = view.layoutDirection()
        self.initStyleOption(opt, index)
        return view.style().subElementRect(QStyle.SubElement.SE_ItemViewItemDecoration, opt, view)

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(hint.width(), max(hint.height(), self.SIDE + 2 * self.MARGIN))


PICTURE_ROW_HEIGHT = CoverDelegate.SIDE + 2 * CoverDelegate.MARGIN
"""The row height of a table with pictures (its vertical header's default section size)."""
