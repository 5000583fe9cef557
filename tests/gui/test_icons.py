"""Castdeck's own icons: every one draws, in the palette's text colour (light and dark, also when the
palette changes under an open window), and the sidebar and the menus carry them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPalette
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui import icons
from castdeck.ui.icons import ICON_FOLDER, icon, icon_names, tint
from castdeck.ui.main_window import MainWindow
from castdeck.ui.panes import pane_specs
from tests.conftest import wait_for
from tests.gui.conftest import quiet, until
from tests.gui.helpers import dark_palette

NAMES = {
    "podcasts", "episodes", "analytics", "hosts", "voices", "sources", "videos", "shorts", "voiceovers",
    "scripts", "account", "refresh", "new", "table", "cards", "play", "pause", "image", "upload", "folder",
    "warning", "welcome", "jobs", "search", "done",
}  # fmt: skip


def light_palette() -> QPalette:
    palette = QApplication.style().standardPalette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#1d2b36"))  # not plain black: a real tint
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#fffbe0"))
    return palette


@pytest.fixture
def app_palette(qapp: QApplication) -> Iterator[QApplication]:
    """The application palette may be changed by the test; it is put back afterwards."""
    before = qapp.palette()
    yield qapp
    qapp.setPalette(before)
    icons.palette_changed()


def strongest(image: QImage, area: QRect | None = None) -> QColor:
    """The most opaque pixel's colour (the middle of a stroke)."""
    area = area or image.rect()
    best = QColor(0, 0, 0, 0)
    for y in range(area.top(), area.bottom() + 1):
        for x in range(area.left(), area.right() + 1):
            color = image.pixelColor(x, y)
            if color.alpha() > best.alpha():
                best = color
    return best


def nearest(image: QImage, area: QRect, want: QColor) -> int:
    """How far the pixel in ``area`` closest to ``want`` is from it (0: the very colour)."""
    best = 3 * 255
    for y in range(area.top(), area.bottom() + 1):
        for x in range(area.left(), area.right() + 1):
            c = image.pixelColor(x, y)
            best = min(
                best, abs(c.red() - want.red()) + abs(c.green() - want.green()) + abs(c.blue() - want.blue())
            )
    return best


def rgb(color: QColor) -> tuple[int, int, int]:
    return color.red(), color.green(), color.blue()


def test_every_icon_is_there_and_draws_at_every_size() -> None:
    assert set(icon_names()) == NAMES
    for name in icon_names():
        for side in (16, 18, 24, 48):
            pixmap = icon(name).pixmap(QSize(side, side))
            assert not pixmap.isNull() and pixmap.size() == QSize(side, side), name
            image = pixmap.toImage()
            opaque = sum(1 for y in range(side) for x in range(side) if image.pixelColor(x, y).alpha() > 128)
            assert opaque >= side, f"{name} at {side} px draws {opaque} opaque pixels"
        # a high-density screen gets a sharper pixmap, not a stretched one
        sharp = icon(name).pixmap(QSize(18, 18), 2.0)
        assert sharp.devicePixelRatio() == 2.0 and sharp.size() == QSize(36, 36), name


def test_the_colour_follows_the_palette_in_light_and_dark(app_palette: QApplication) -> None:
    for palette in (light_palette(), dark_palette()):
        app_palette.setPalette(palette)
        text = palette.color(QPalette.ColorRole.WindowText)
        selected = palette.color(QPalette.ColorRole.HighlightedText)
        for name in ("podcasts", "refresh", "warning"):
            normal = strongest(icon(name).pixmap(QSize(48, 48)).toImage())
            assert normal.alpha() == 255 and rgb(normal) == rgb(text), (name, normal.name(), text.name())
            chosen = strongest(icon(name).pixmap(QSize(48, 48), QIcon.Mode.Selected).toImage())
            assert rgb(chosen) == rgb(selected), (name, chosen.name(), selected.name())
            disabled = strongest(icon(name).pixmap(QSize(48, 48), QIcon.Mode.Disabled).toImage())
            # the disabled shade of the palette, or the text colour faded where the palette has none
            assert (rgb(disabled), disabled.alpha()) != (rgb(normal), 255)
        assert rgb(tint(QIcon.Mode.Active, palette)) == rgb(text)


def test_a_tinted_icon_is_its_drawing_in_the_colour_pixel_for_pixel(app_palette: QApplication) -> None:
    """The colour is laid over the drawing's shape: every pixel keeps the shape's opacity, and an
    opaque one is the colour itself."""
    app_palette.setPalette(light_palette())
    color = tint(QIcon.Mode.Normal)
    for name in icon_names():
        shape = icons._mask(name, QSize(24, 24))
        tinted = icon(name).pixmap(QSize(24, 24)).toImage()
        for y in range(24):
            for x in range(24):
                want, got = shape.pixelColor(x, y), tinted.pixelColor(x, y)
                assert got.alpha() == want.alpha(), (name, x, y, got.alpha(), want.alpha())
                assert got.alpha() < 255 or rgb(got) == rgb(color), (name, x, y, got.name())


def test_an_unknown_name_is_a_key_error_and_never_a_crash(qtlog) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyError, match="podcast"):
        icon("podcast", strict=True)  # the icon is "podcasts"
    with qtlog.disabled():  # a Qt warning fails every other test that meets one
        empty = icon("podcast")
    assert empty.isNull()


@pytest.mark.asyncio
async def test_the_sidebar_and_menus_carry_icons_that_follow_a_palette_change(
    qtbot: QtBot, session: Session, background: Background, app_palette: QApplication, shot
) -> None:
    app_palette.setPalette(light_palette())
    window = MainWindow(session, background, start_pane="Hosts")
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    await until(window.isVisible)
    sidebar = window.sidebar
    assert sidebar.iconSize() == QSize(18, 18)
    room = sidebar.viewport().width()
    for row, spec in enumerate(pane_specs()):
        item = sidebar.item(row)
        assert item.text() == spec.title
        assert item.data(Qt.ItemDataRole.AccessibleTextRole) == spec.title
        assert not item.icon().isNull(), spec.title
        # the title fits beside its icon at the sidebar's fixed width (nothing is cut off)
        needed = sidebar.fontMetrics().horizontalAdvance(spec.title) + 18 + 2 * 10 + 8
        assert needed <= room, (spec.title, needed, room)
    for name in ("new", "refresh", "filter", "switch_profile", *(f"go{n}" for n in range(1, 12))):
        assert not window.actions_by_name[name].icon().isNull(), name
    assert not window.jobs_dock.toggleViewAction().icon().isNull()

    def sidebar_icon_area(row: int) -> tuple[QImage, QRect]:
        rect = sidebar.visualItemRect(sidebar.item(row))
        grab = sidebar.viewport().grab().toImage()
        return grab, QRect(rect.left(), rect.top(), 34, rect.height()).intersected(grab.rect())

    hosts_row = [spec.title for spec in pane_specs()].index("Hosts")
    other_row = [spec.title for spec in pane_specs()].index("Podcasts")
    for palette, name in ((light_palette(), "app-icons-light"), (dark_palette(), "app-icons-dark")):
        app_palette.setPalette(palette)  # as the platform does when the system scheme changes
        base = palette.color(QPalette.ColorRole.Base)
        bottom = sidebar.viewport().height() - 5  # below the last row: the bare background
        await until(lambda b=bottom, c=base: sidebar.viewport().grab().toImage().pixelColor(5, b) == c)
        image, area = sidebar_icon_area(other_row)
        assert nearest(image, area, palette.color(QPalette.ColorRole.WindowText)) <= 24, name
        image, area = sidebar_icon_area(hosts_row)  # the selected row: drawn in the highlight's text colour
        assert nearest(image, area, palette.color(QPalette.ColorRole.HighlightedText)) <= 24, name
        shot(window, name)

        # the File menu, Refresh hovered: Fusion lights the item, and the icon turns with the text
        assert QApplication.style().name() == "fusion"
        menu = next(m for m in window.findChildren(QMenu) if m.title() == "&File")
        menu.ensurePolished()  # drawn as it pops up (popping up grabs the keyboard: not offscreen)
        menu.adjustSize()
        refresh = window.actions_by_name["refresh"]
        menu.setActiveAction(refresh)
        grab = menu.grab().toImage()
        row = menu.actionGeometry(refresh)
        glyph = QRect(row.left(), row.top(), 30, row.height())
        assert nearest(grab, glyph, palette.color(QPalette.ColorRole.HighlightedText)) <= 48, name
        calm = menu.actionGeometry(window.actions_by_name["new"])
        glyph = QRect(calm.left(), calm.top(), 30, calm.height())
        assert nearest(grab, glyph, palette.color(QPalette.ColorRole.WindowText)) <= 48, name  # 16 px: thin
        shot(menu, name.replace("app-icons", "menu-icons"))
    await quiet()  # the Hosts pane's first page


@pytest.fixture
def mask_folder(tmp_path: Path) -> Iterator[Path]:
    """Masks kept in a folder of the test's own, and none in memory before or after."""
    folder = tmp_path / "icon-masks"
    icons.keep_masks_in(folder)
    icons.forget_drawings()
    yield folder
    icons.keep_masks_in(None)
    icons.forget_drawings()


def drawn(name: str, side: int) -> QImage:
    return icon(name).pixmap(QSize(side, side)).toImage().convertToFormat(QImage.Format.Format_ARGB32)


def test_kept_masks_are_read_back_at_the_next_start_and_draw_the_same_pixels(mask_folder: Path) -> None:
    first = drawn("episodes", 20)
    kept = wait_for(lambda: list(mask_folder.glob("episodes-20x20-*.alpha")), timeout=30, interval=0.01)
    assert len(kept) == 1 and not list(mask_folder.glob(".*"))  # no file half-written
    svg = (ICON_FOLDER / "episodes.svg").stat()
    assert kept[0].name == f"episodes-20x20-{svg.st_size}-{svg.st_mtime_ns}.alpha"
    assert kept[0].stat().st_size == 20 * 20  # one byte a pixel (rows of 20: already a multiple of 4)

    icons.forget_drawings()  # as a new start: nothing in memory, the file on disk
    assert drawn("episodes", 20) == first

    # the shape really comes from the file: a full square written in its place is what shows
    kept[0].write_bytes(bytes([255]) * (20 * 20))
    icons.forget_drawings()
    assert strongest(drawn("episodes", 20), QRect(0, 0, 2, 2)).alpha() == 255  # a corner: no stroke there
    assert strongest(first, QRect(0, 0, 2, 2)).alpha() == 0

    # a broken file, or one of another size, is drawn again from the SVG (and written again)
    for bad in (b"not a mask", bytes(24 * 24)):
        kept[0].write_bytes(bad)
        icons.forget_drawings()
        assert drawn("episodes", 20) == first
        wait_for(lambda: kept[0].stat().st_size == 20 * 20, timeout=30, interval=0.01)


def test_kept_masks_of_every_icon_and_size_read_back_pixel_for_pixel(mask_folder: Path) -> None:
    """Widths that are not a multiple of four too (the rows are padded in the file)."""
    for side in (16, 18, 21, 30):
        for name in icon_names():
            first = drawn(name, side)
            kept = wait_for(lambda n=name, s=side: list(mask_folder.glob(f"{n}-{s}x{s}-*.alpha")), timeout=30,
                            interval=0.01)  # fmt: skip
            assert kept[0].stat().st_size == (side + 3) // 4 * 4 * side, (name, side)
            icons.forget_drawings()
            assert drawn(name, side) == first, (name, side)


def test_a_folder_that_cannot_be_written_leaves_the_icons_drawn(tmp_path: Path) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    icons.keep_masks_in(blocked / "icon-masks")
    icons.forget_drawings()
    try:
        first = drawn("sources", 16)
        assert strongest(first).alpha() > 0
        icons.forget_drawings()
        assert drawn("sources", 16) == first
    finally:
        icons.keep_masks_in(None)
        icons.forget_drawings()
