"""The card view of a pane: the same rows as its table, as a grid of cards with pictures.

A :class:`CardView` is a ``QListView`` on the pane's proxy (so the filter box, the sort, the paging
by ``fetchMore`` when scrolled to the end, and the shared selection model all work as for the
table), laid out as a wrapping grid of uniform items: list mode with ``uniformItemSizes`` and a
batched layout keeps ten thousand cards as cheap as the ones on screen. :class:`CardDelegate`
draws each card (a square picture, the title on up to two lines, a subtitle line) with no widget
per item; elided title lines are kept per (title, width) so a repaint only draws.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from .cover_delegate import PictureSource, draw_picture, item_id_of
from .resource_model import ITEM_ROLE

__all__ = ["CardDelegate", "CardView"]

AnyIndex = QModelIndex | QPersistentModelIndex


def _mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0..1) of the way towards ``b``."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * amount,
        a.greenF() + (b.greenF() - a.greenF()) * amount,
        a.blueF() + (b.blueF() - a.blueF()) * amount,
        1.0,
    )


class CardDelegate(QStyledItemDelegate):
    """Paints one card: picture on top, then the title (two lines at most) and a subtitle."""

    MIN_PICTURE = 128
    MAX_PICTURE = 176
    STEP = 16
    """Pictures grow and shrink in steps of 16 px (sizes a pane's picture cache can keep)."""
    PAD = 8
    GAP = 8  # between the picture and the title

    def __init__(self, source: PictureSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self._lines: OrderedDict[tuple[str, int], tuple[str, str]] = OrderedDict()
        self._font_key = ""
        self.title_font = QFont()
        self.subtitle_font = QFont()
        self._title_height = 0
        self._subtitle_height = 0
        self.picture_side = 144
        self.cell: QSize | None = None
        """The grid cell the view gives each card (its share of the width); the card is centred in it."""

    # --- geometry ------------------------------------------------------------------------------------------

    def set_font(self, font: QFont) -> None:
        """The fonts follow the view's font (called when it changes)."""
        key = font.toString()
        if key == self._font_key:
            return
        self._font_key = key
        self.title_font = QFont(font)
        self.title_font.setWeight(QFont.Weight.DemiBold)
        self.subtitle_font = QFont(font)
        if font.pointSizeF() > 0:
            self.subtitle_font.setPointSizeF(font.pointSizeF() * 0.92)
        self._title_height = QFontMetrics(self.title_font).lineSpacing()
        self._subtitle_height = QFontMetrics(self.subtitle_font).lineSpacing()
        self._lines.clear()

    def card_size(self) -> QSize:
        width = self.picture_side + 2 * self.PAD
        text = 2 * self._title_height + 2 + self._subtitle_height
        height = self.PAD + self.picture_side + self.GAP + text + self.PAD
        return QSize(width, height)

    def card_rect(self, cell: QRect) -> QRect:
        """The card inside the cell the view gives it (centred across, at the top)."""
        size = self.card_size()
        x = cell.x() + max(0, (cell.width() - size.width()) // 2)
        return QRect(x, cell.y(), size.width(), size.height())

    def picture_rect(self, cell: QRect) -> QRect:
        card = self.card_rect(cell)
        return QRect(card.x() + self.PAD, card.y() + self.PAD, self.picture_side, self.picture_side)

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        return self.cell if self.cell is not None else self.card_size()

    # --- text ----------------------------------------------------------------------------------------------

    def title_lines(self, title: str, width: int) -> tuple[str, str]:
        """The title on two lines at most, the second elided (kept per title and width)."""
        key = (title, width)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        metrics = QFontMetrics(self.title_font)
        if metrics.horizontalAdvance(title) <= width:
            lines = (title, "")
        else:
            layout = QTextLayout(title, self.title_font)
            option = QTextOption()
            option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
            layout.setTextOption(option)
            layout.beginLayout()
            first = layout.createLine()
            first.setLineWidth(width)
            layout.endLayout()
            cut = first.textStart() + first.textLength()
            rest = title[cut:].strip()
            lines = (title[:cut].rstrip(), metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width))
        self._lines[key] = lines
        if len(self._lines) > 4096:
            self._lines.popitem(last=False)
        return lines

    # --- painting ------------------------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        item = index.data(ITEM_ROLE)
        if item is None:
            return
        state = option.state
        palette: QPalette = option.palette
        enabled = bool(state & QStyle.StateFlag.State_Enabled)
        active = bool(state & QStyle.StateFlag.State_Active)
        group = (
            QPalette.ColorGroup.Disabled
            if not enabled
            else (QPalette.ColorGroup.Active if active else QPalette.ColorGroup.Inactive)
        )
        selected = bool(state & QStyle.StateFlag.State_Selected)
        hovered = bool(state & QStyle.StateFlag.State_MouseOver)
        focused = bool(state & QStyle.StateFlag.State_HasFocus)
        card = self.card_rect(option.rect)
        text_color = palette.color(group, QPalette.ColorRole.Text)
        base = palette.color(group, QPalette.ColorRole.Base)

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        frame = QRectF(card).adjusted(1, 1, -1, -1)
        if selected:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(palette.color(group, QPalette.ColorRole.Highlight))
            painter.drawRoundedRect(frame, 8, 8)
        elif hovered:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_mix(base, text_color, 0.08))
            painter.drawRoundedRect(frame, 8, 8)
        if focused:
            ring = QColor(
                palette.color(
                    group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
                )
            )
            pen = painter.pen()
            pen.setColor(ring)
            pen.setWidthF(1.5)
            pen.setStyle(Qt.PenStyle.SolidLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            inset = 3.0 if selected else 1.0
            painter.drawRoundedRect(QRectF(card).adjusted(inset, inset, -inset, -inset), 7, 7)
        painter.restore()

        picture_rect = QRect(card.x() + self.PAD, card.y() + self.PAD, self.picture_side, self.picture_side)
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        title = self.source.card_title(item)
        picture = self.source.picture(item, picture_rect.size())
        draw_picture(painter, picture_rect, picture, item_id_of(item), title, ratio, self.source.tiles)

        width = card.width() - 2 * self.PAD
        x = card.x() + self.PAD
        y = picture_rect.bottom() + 1 + self.GAP
        if selected:
            title_color = palette.color(group, QPalette.ColorRole.HighlightedText)
            subtitle_color = _mix(title_color, palette.color(group, QPalette.ColorRole.Highlight), 0.2)
        else:
            title_color = text_color
            subtitle_color = _mix(text_color, base, 0.38)
        first, second = self.title_lines(title, width)
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine
        painter.save()
        painter.setFont(self.title_font)
        painter.setPen(title_color)
        painter.drawText(QRect(x, y, width, self._title_height), flags, first)
        if second:
            painter.drawText(QRect(x, y + self._title_height, width, self._title_height), flags, second)
        subtitle = self.source.card_subtitle(item)
        if subtitle:
            painter.setFont(self.subtitle_font)
            painter.setPen(subtitle_color)
            shown = QFontMetrics(self.subtitle_font).elidedText(subtitle, Qt.TextElideMode.ElideRight, width)
            top = y + 2 * self._title_height + 2
            painter.drawText(QRect(x, top, width, self._subtitle_height), flags, shown)
        painter.restore()


class CardView(QListView):
    """A wrapping grid of cards over ``model`` (the pane's proxy), one card per row of column 0."""

    SPACING = 10

    def __init__(self, source: PictureSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.delegate = CardDelegate(source, self)
        self.delegate.set_font(self.font())
        self.setItemDelegate(self.delegate)
        # List mode with left-to-right wrapping is a grid whose layout stays linear and batched:
        # icon mode would place (and index) every item in a tree.
        self.setViewMode(QListView.ViewMode.ListMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setUniformItemSizes(True)
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(200)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.verticalScrollBar().setSingleStep(24)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setDragEnabled(False)
        self.setMouseTracking(True)
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_Hover, True)
        self.setSpacing(0)
        self._columns = 0
        self._fit_grid()

    def setModel(self, model: QAbstractItemModel | None) -> None:
        super().setModel(model)
        self.setModelColumn(0)

    def changeEvent(self, event: Any) -> None:
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.StyleChange):
            self.delegate.set_font(self.font())
            self._columns = 0
            self._fit_grid()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._fit_grid()
        super().resizeEvent(event)

    def _fit_grid(self) -> None:
        """As many columns as cards of the smallest size fit, the cards as large as their share of
        the width allows (in steps), each centred in an equal cell. The width counted never depends
        on whether the scroll bar shows, so showing it cannot change the columns and loop."""
        delegate = self.delegate
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        available = max(0, self.width() - 2 * self.frameWidth() - bar - 1)
        frame = 2 * delegate.PAD + self.SPACING
        columns = max(1, available // (delegate.MIN_PICTURE + frame))
        share = available // columns - frame
        side = max(delegate.MIN_PICTURE, min(delegate.MAX_PICTURE, share - share % delegate.STEP))
        if side != delegate.picture_side:
            delegate.picture_side = side
        card = delegate.card_size()
        cell = QSize(max(card.width() + self.SPACING, available // columns), card.height() + self.SPACING)
        if columns != self._columns or self.gridSize() != cell:
            self._columns = columns
            delegate.cell = cell
            self.setGridSize(cell)  # lays the items out again, with the new size

    # --- for the pane and tests ----------------------------------------------------------------------------

    def shown_rows(self) -> range:
        """The model rows whose cards are (at least partly) in the viewport: the grid is row by row,
        ``columns`` cards a row, one cell high each."""
        model, cell = self.model(), self.gridSize()
        if model is None or cell.height() <= 0 or self._columns <= 0:
            return range(0)
        first_line = max(0, self.verticalOffset() // cell.height())
        lines = self.viewport().height() // cell.height() + 2
        return range(
            min(first_line * self._columns, model.rowCount()),
            min((first_line + lines) * self._columns, model.rowCount()),
        )

    def picture_rect(self, index: QModelIndex) -> QRect:
        """Where the picture of the card at ``index`` is drawn, in viewport coordinates."""
        return self.delegate.picture_rect(self.visualRect(index))

    def card_rect(self, index: QModelIndex) -> QRect:
        return self.delegate.card_rect(self.visualRect(index))
