"""Castdeck's own line icons (the SVG files beside this module), drawn in the palette's colours.

``icon(name)`` gives a QIcon whose engine draws the SVG at paint time in the colour of the current
application palette: WindowText for the Normal and Active modes, the disabled WindowText for
Disabled, HighlightedText for Selected (a selected sidebar row). Nothing has to be re-set when the
system turns dark: the next paint uses the new palette. Rendered pixmaps are cached per (name,
colour, size, device pixel ratio); the cache is emptied when the palette or the colour scheme
changes (:func:`palette_changed`, called by the main window and by QStyleHints).

The drawings are 24×24 line drawings with ``stroke="currentColor"``; they are made for Castdeck.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt, qWarning
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QIconEngine, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

__all__ = ["ICON_FOLDER", "icon", "icon_names", "palette_changed", "tint"]

log = logging.getLogger(__name__)

ICON_FOLDER = Path(__file__).resolve().parent
"""Where the SVG files are (inside the package, and inside the bundle as castdeck/ui/icons)."""

DESIGN_SIZE = 24
_pixmaps: dict[tuple[str, int, int, int, float], QPixmap] = {}
_hooked = False


@cache
def icon_names() -> tuple[str, ...]:
    """Every icon there is, by name (the SVG files' stems)."""
    return tuple(sorted(path.stem for path in ICON_FOLDER.glob("*.svg")))


@cache
def _renderer(name: str) -> QSvgRenderer:
    # The drawing in black; the colour is laid over its shape afterwards (see _render).
    data = (ICON_FOLDER / f"{name}.svg").read_bytes().replace(b"currentColor", b"#000000")
    renderer = QSvgRenderer(QByteArray(data))
    if not renderer.isValid():
        raise ValueError(f"the icon {name!r} is not an SVG drawing Qt can read")
    return renderer


HIGHLIGHTED_MENU_STYLES = ("fusion", "windows")
"""Styles that draw a hovered menu item in the highlight colour with the highlighted text colour
(others, such as windows11 or Breeze, keep the text colour on a light hover)."""


def _menu_hover_highlights() -> bool:
    from PySide6.QtWidgets import QApplication

    return isinstance(app := QApplication.instance(), QApplication) and (
        app.style().name().lower() in HIGHLIGHTED_MENU_STYLES
    )


def tint(mode: QIcon.Mode, palette: QPalette | None = None, *, menu: bool = False) -> QColor:
    """The colour an icon is drawn in for ``mode`` with ``palette`` (the application's by default).
    A ``menu`` icon's Active mode (its item hovered) takes the hovered text's colour; elsewhere
    Active is a focused button or a hovered tool button, drawn on the window's colours."""
    palette = palette or QGuiApplication.palette()
    role = QPalette.ColorRole
    if mode == QIcon.Mode.Selected or (mode == QIcon.Mode.Active and menu and _menu_hover_highlights()):
        return palette.color(QPalette.ColorGroup.Active, role.HighlightedText)
    normal = palette.color(QPalette.ColorGroup.Active, role.WindowText)
    if mode == QIcon.Mode.Disabled:
        disabled = QColor(palette.color(QPalette.ColorGroup.Disabled, role.WindowText))
        if disabled.rgba() == normal.rgba():  # a palette without a disabled shade: fade the normal one
            disabled.setAlphaF(0.4)
        return disabled
    return normal


def _render(name: str, color: QColor, size: QSize, ratio: float) -> QPixmap:
    key = (name, color.rgba(), size.width(), size.height(), ratio)
    cached = _pixmaps.get(key)
    if cached is not None:
        return cached
    pixels = QSize(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
    image = QImage(pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    side = min(pixels.width(), pixels.height())  # square drawing, centred in a non-square size
    target = QRectF((pixels.width() - side) / 2, (pixels.height() - side) / 2, side, side)
    _renderer(name).render(painter, target)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(image.rect(), color)
    painter.end()
    pixmap = QPixmap.fromImage(image)
    pixmap.setDevicePixelRatio(ratio)
    _pixmaps[key] = pixmap
    return pixmap


class SvgIconEngine(QIconEngine):
    """Draws one of the icons in the current palette's colour for the mode asked."""

    def __init__(self, name: str, *, menu: bool = False) -> None:
        super().__init__()
        self.name = name
        self.menu = menu

    def clone(self) -> QIconEngine:
        return SvgIconEngine(self.name, menu=self.menu)

    def key(self) -> str:
        return "castdeck-svg"

    def iconName(self) -> str:
        return self.name

    def isNull(self) -> bool:
        return False

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = min(size.width(), size.height())
        return QSize(side, side)

    def availableSizes(self, mode: QIcon.Mode = QIcon.Mode.Normal, state: QIcon.State = QIcon.State.Off) -> list[QSize]:  # fmt: skip
        return [QSize(DESIGN_SIZE, DESIGN_SIZE)]

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        if size.isEmpty():
            return QPixmap()
        return _render(self.name, tint(mode, menu=self.menu), size, scale)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        side = min(rect.width(), rect.height())
        if side <= 0:
            return
        pixmap = _render(self.name, tint(mode, menu=self.menu), QSize(side, side), ratio)
        corner = rect.topLeft() + QPoint((rect.width() - side) // 2, (rect.height() - side) // 2)
        painter.drawPixmap(corner, pixmap)


def icon(name: str, *, menu: bool = False, strict: bool = False) -> QIcon:
    """The icon ``name`` (one of :func:`icon_names`), in the palette's text colour; ``menu`` for an
    action shown in menus (a hovered item's icon turns with its text).

    An unknown name raises KeyError with ``strict``; otherwise the app goes on with an empty icon,
    and says so in the log and as a Qt warning (which fails any GUI test that meets it)."""
    if name not in icon_names():
        if strict:
            raise KeyError(name)
        log.error("no icon named %r", name)
        qWarning(f"castdeck: no icon named {name!r}")
        return QIcon()
    _follow_color_scheme()
    return QIcon(SvgIconEngine(name, menu=menu))


def palette_changed() -> None:
    """Forget the pixmaps drawn in the old palette's colours (the next paint draws them anew)."""
    _pixmaps.clear()


def _follow_color_scheme() -> None:
    global _hooked
    if _hooked:
        return
    app = QGuiApplication.instance()
    if isinstance(app, QGuiApplication):
        QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _scheme: palette_changed())
        _hooked = True
