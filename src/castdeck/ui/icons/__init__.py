"""Castdeck's own line icons (the SVG files beside this module), drawn in the palette's colours.

``icon(name)`` gives a QIcon whose engine draws the SVG at paint time in the colour of the current
application palette: WindowText for the Normal and Active modes, the disabled WindowText for
Disabled, HighlightedText for Selected (a selected sidebar row). Nothing has to be re-set when the
system turns dark: the next paint uses the new palette. Rendered pixmaps are cached per (name,
colour, size, device pixel ratio); the main window empties the cache when the application palette
changes (:func:`palette_changed`; a change of the system's colour scheme reaches it as one). The
colour is part of the key, so a window that meets a new palette first draws right anyway.

The drawings are 24×24 line drawings with ``stroke="currentColor"``; they are made for Castdeck.

Drawing an SVG is the slow part (about 0.4 ms an icon, and loading QtSvg 1 ms): the first window
draws a dozen icons before the creator sees anything. So each drawing's shape (its mask: the
drawing's coverage, at one size in pixels) is also kept in a file in a folder beside the offline
data (:func:`keep_masks_in`, set by the launch), named with the SVG file's size and time, and read
back at the next start instead of drawn; QtSvg is loaded only when a mask has to be drawn. The
file holds the coverage bytes as they are (one byte a pixel, rows padded to four bytes), not an
image format: the first image Qt reads makes it look through its image-format plugins, 3 to 5 ms
before the first paint.
"""

from __future__ import annotations

import logging
import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt, qWarning
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QIconEngine, QImage, QPainter, QPalette, QPixmap

if TYPE_CHECKING:
    from PySide6.QtSvg import QSvgRenderer

__all__ = ["ICON_FOLDER", "forget_drawings", "icon", "icon_names", "keep_masks_in", "palette_changed", "tint"]

log = logging.getLogger(__name__)

ICON_FOLDER = Path(__file__).resolve().parent
"""Where the SVG files are (inside the package, and inside the bundle as castdeck/ui/icons)."""

DESIGN_SIZE = 24
MASK_FORMAT = QImage.Format.Format_ARGB32_Premultiplied
_pixmaps: dict[tuple[str, int, int, int, float], QPixmap] = {}
_masks: dict[tuple[str, int, int], QImage] = {}
_mask_folder: Path | None = None
_mask_lock = threading.Lock()
_unsaved: dict[Path, QImage] = {}


@cache
def icon_names() -> tuple[str, ...]:
    """Every icon there is, by name (the SVG files' stems)."""
    return tuple(sorted(path.stem for path in ICON_FOLDER.glob("*.svg")))


@cache
def _renderer(name: str) -> QSvgRenderer:
    from PySide6.QtSvg import QSvgRenderer  # here: not before the first window has painted its icons

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


def keep_masks_in(folder: Path | None) -> None:
    """Keep the icons' drawn shapes in ``folder`` from now on (None: drawn each start, as before)."""
    global _mask_folder
    _mask_folder = folder


def _mask_file(name: str, pixels: QSize) -> Path | None:
    """Where the shape of ``name`` at ``pixels`` is kept: named with the SVG file's size and time, so
    that a changed drawing is drawn again (and its old files left to be overwritten by no one:
    a few hundred bytes each)."""
    if _mask_folder is None:
        return None
    try:
        drawn = (ICON_FOLDER / f"{name}.svg").stat()
    except OSError:
        return None
    return (
        _mask_folder / f"{name}-{pixels.width()}x{pixels.height()}-{drawn.st_size}-{drawn.st_mtime_ns}.alpha"
    )


def _draw_mask(name: str, pixels: QSize) -> QImage:
    image = QImage(pixels, MASK_FORMAT)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    side = min(pixels.width(), pixels.height())  # square drawing, centred in a non-square size
    target = QRectF((pixels.width() - side) / 2, (pixels.height() - side) / 2, side, side)
    _renderer(name).render(painter, target)
    painter.end()
    return image


def _mask(name: str, pixels: QSize) -> QImage:
    """The drawing of ``name`` in black at ``pixels``: kept in memory, read from its file, or drawn
    (and then written to its file on a thread of its own)."""
    key = (name, pixels.width(), pixels.height())
    mask = _masks.get(key)
    if mask is not None:
        return mask
    path = _mask_file(name, pixels)
    if path is not None and path.is_file():
        mask = _read_coverage(path, pixels)  # None: a broken or foreign file, drawn again
    if mask is None:
        mask = _draw_mask(name, pixels)
        if path is not None:
            _save_later(path, mask)
    _masks[key] = mask
    return mask


def _coverage_stride(width: int) -> int:
    """Bytes a row of a one-byte-a-pixel image takes in Qt: rows are 32-bit aligned."""
    return (width + 3) // 4 * 4


def _read_coverage(path: Path, pixels: QSize) -> QImage | None:
    """The mask kept in ``path`` (see :func:`_coverage_bytes`), or None when the file is not one of
    that size."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    stride = _coverage_stride(pixels.width())
    if len(data) != stride * pixels.height():
        return None
    coverage = QImage(data, pixels.width(), pixels.height(), stride, QImage.Format.Format_Alpha8)
    return coverage.convertToFormat(MASK_FORMAT)  # a copy: nothing refers to ``data`` afterwards


def _coverage_bytes(mask: QImage) -> bytes:
    """The mask's coverage, one byte a pixel, each row padded to four bytes (Qt's own layout)."""
    coverage = mask.convertToFormat(QImage.Format.Format_Alpha8)  # kept: constBits() points into it
    return bytes(coverage.constBits())


def _save_later(path: Path, mask: QImage) -> None:
    with _mask_lock:
        start = not _unsaved
        _unsaved[path] = mask.copy()
    if start:
        threading.Thread(target=_save_masks, name="icon masks", daemon=True).start()


def _save_masks() -> None:
    """Write the masks drawn meanwhile, each to a file of its own through a temporary name (a start
    that ends half-way leaves no half-written mask). A folder that cannot be written is skipped:
    the icons are drawn again at the next start."""
    while True:
        with _mask_lock:
            if not _unsaved:
                return
            path, mask = _unsaved.popitem()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{os.getpid()}.{path.name}")
            partial.write_bytes(_coverage_bytes(mask))
            os.replace(partial, path)
        except OSError as error:
            log.info("icon mask %s not kept: %s", path.name, error)


def _render(name: str, color: QColor, size: QSize, ratio: float) -> QPixmap:
    key = (name, color.rgba(), size.width(), size.height(), ratio)
    cached = _pixmaps.get(key)
    if cached is not None:
        return cached
    pixels = QSize(max(1, round(size.width() * ratio)), max(1, round(size.height() * ratio)))
    image = _mask(name, pixels).copy()
    painter = QPainter(image)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    # A rectangle drawn with the colour as brush, not fillRect: choosing among fillRect's overloads
    # makes QGradient's type and its 180 presets (3 ms, before the first window has painted).
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawRect(image.rect())
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
    return QIcon(SvgIconEngine(name, menu=menu))


def palette_changed() -> None:
    """Forget the pixmaps drawn in the old palette's colours (the next paint draws them anew)."""
    _pixmaps.clear()


def forget_drawings() -> None:
    """Forget every drawing in memory, the shapes too (as at a new start; tests)."""
    _pixmaps.clear()
    _masks.clear()
