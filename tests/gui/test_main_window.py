"""The main window: every pane loads, keyboard shortcuts, accessible names, screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.start_choice import start_pane
from castdeck.ui.details_panel import link_label
from castdeck.ui.main_window import MainWindow
from castdeck.ui.palette import TONES
from castdeck.ui.pane import ResourcePane
from castdeck.ui.panes import pane_specs
from tests.gui.conftest import quiet, until
from tests.gui.helpers import dark_palette
from tests.gui.journey import scheme

CONTROLS = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QPlainTextEdit,
    QTextEdit,
)


def unnamed_controls(root: QWidget) -> list[str]:
    missing = []
    for control in root.findChildren(QWidget):
        if (
            not isinstance(control, CONTROLS)
            or isinstance(control, QHeaderView)
            or not control.isVisibleTo(root)
        ):
            continue
        if control.parent() is not None and type(control.parent()).__name__ in (
            "QComboBox",
            "QAbstractSpinBox",
        ):
            continue
        text = control.text() if isinstance(control, QAbstractButton) else ""
        if not (control.accessibleName() or text):
            missing.append(
                f"{type(control).__name__} {control.objectName()!r} in {type(control.parent()).__name__}"
            )
    return missing


async def open_window(qtbot: QtBot, session: Session, background: Background) -> MainWindow:
    window = MainWindow(session, background)
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    window.activateWindow()
    await until(window.isActiveWindow)
    return window


@pytest.mark.asyncio
async def test_every_pane_loads_with_named_controls_and_a_screenshot(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    window = await open_window(qtbot, session, background)
    for spec in pane_specs():
        pane = window.show_pane(spec.title)
        if isinstance(pane, ResourcePane):
            await until(lambda p=pane: p.model.rowCount() > 0 and not p.model.loading, timeout=30)
            assert not pane.banner.isVisible(), pane.banner.text
            pane.table.selectRow(0)
            await until(lambda p=pane: p.current is not None)
            await pane.model.wait_idle()
        await quiet()
        assert unnamed_controls(window) == [], spec.title
        shot(window, f"app-{spec.title.lower()}")
    await quiet()


@pytest.mark.asyncio
async def test_keyboard_switches_panes_refreshes_filters_and_creates(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    window = await open_window(qtbot, session, background)
    for number, spec in enumerate(pane_specs()[:10], start=1):
        qtbot.keyClick(window, getattr(Qt.Key, f"Key_{number % 10}"), Qt.KeyboardModifier.ControlModifier)
        assert window.stack.currentWidget() is window.pane(spec.title), spec.title
    voices = window.show_pane("Voices")
    await until(lambda: voices.model.rowCount() == 24 and not voices.model.loading)
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert voices.filter_edit.hasFocus()
    qtbot.keyClicks(voices.filter_edit, "scottish")
    assert voices.proxy.rowCount() == 2
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert voices.model.loading  # read again from the start
    assert voices.model.rowCount() == 0
    await until(lambda: voices.model.rowCount() == 24 and not voices.model.loading)
    for spec in pane_specs():
        pane = window.show_pane(spec.title)
        if isinstance(pane, ResourcePane) and pane.new_button is not None:
            await until(lambda p=pane: p.new_button.isEnabled())
            window.activateWindow()  # a closed dialog hands activation back (the offscreen platform does not)
            await until(window.isActiveWindow)
            qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
            dialog = await until(lambda p=pane: getattr(p, "dialog", None), timeout=10)
            await until(dialog.isVisible)
            dialog.reject()
            await until(lambda d=dialog: not d.isVisible())
    await quiet()


@pytest.mark.asyncio
async def test_a_dark_system_palette_reaches_every_part(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    app.setPalette(dark_palette())  # what the platform does when the system turns dark
    try:
        window = await open_window(qtbot, session, background)
        pane = window.show_pane("Episodes")
        await until(lambda: pane.model.rowCount() > 0 and not pane.model.loading)
        pane.table.selectRow(0)
        await until(lambda: pane.current is not None)
        # only rows like the selected one stay listed, so the bottom of the list is its bare
        # background (however many episodes other tests left in the shared sandbox)
        pane.filter_edit.setText(pane.current.title)
        await until(lambda: 1 <= pane.proxy.rowCount() < 10)
        await quiet()
        image = window.grab().toImage()
        for widget in (window.sidebar, pane.table.viewport(), pane.details_scroll.viewport()):
            point = widget.mapTo(window, widget.rect().bottomLeft()) + QPoint(4, -4)
            assert image.pixelColor(point).lightness() < 80, type(
                widget
            ).__name__  # no light backgrounds forced
        shot(window, "app-dark")
    finally:
        app.setPalette(light)


def settings_bytes() -> bytes | None:
    """The settings file as it is on disk (None: not written yet)."""
    path = Path(QSettings().fileName())
    return path.read_bytes() if path.exists() else None


@pytest.mark.asyncio
async def test_the_window_comes_back_as_it_was_left(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    first = await open_window(qtbot, session, background)
    first.jobs_dock.show()
    before = settings_bytes()
    first.show_pane("Voices")
    first.show_pane("Hosts")
    first.show_pane("Voices")
    # a switch writes nothing (each settings write ends in two fdatasync calls on the UI thread)
    assert settings_bytes() == before
    first.close()
    assert start_pane() == "Voices"  # as the next start reads it
    second = MainWindow(session, background, start_pane=start_pane())
    qtbot.addWidget(second)
    second.restore_geometry()
    second.show()
    # (the size itself is the platform's to restore: the offscreen one used here keeps its own)
    assert second.jobs_dock.isVisible()
    assert second.current_pane() is second.pane("Voices")
    await quiet()


@pytest.mark.asyncio
async def test_every_pane_in_each_of_its_views_light_and_dark(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    """The gallery looked at side by side with the panes as they were (artifacts/look-*.png): each
    pane in the table and, where it has them, the cards, in a light and a dark palette. Each view
    lists the pane's items on the palette's own background."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    window = await open_window(qtbot, session, background)
    try:
        for scheme, palette, shades in (
            ("light", light, range(171, 256)),
            ("dark", dark_palette(), range(80)),
        ):
            app.setPalette(palette)
            for spec in pane_specs():
                pane = window.show_pane(spec.title)
                if not isinstance(pane, ResourcePane):
                    await quiet()
                    shot(window, f"look-{spec.title.lower()}-{scheme}")
                    continue
                await until(lambda p=pane: p.model.rowCount() > 0 and not p.model.loading, timeout=30)
                modes = ("table", "cards") if pane.views.offers_cards else ("table",)
                for mode in modes:
                    pane.views.set_view(mode, remember=False)
                    view = pane.views.view
                    assert view.isVisible() and view.model() is pane.proxy, (spec.title, mode)
                    view.viewport().repaint()  # pictures are asked for as they are painted
                    await quiet()
                    image = window.grab().toImage()
                    corner = view.viewport().mapTo(window, view.viewport().rect().bottomRight()) - QPoint(
                        3, 3
                    )
                    shade = image.pixelColor(corner).lightness()
                    assert shade in shades, (spec.title, mode, scheme, shade)
                    if pane.views.offers_cards:  # the switch's other half turns with the palette too
                        other = pane.views.cards_button if mode == "table" else pane.views.table_button
                        assert other is not None
                        inside = other.mapTo(window, QPoint(3, other.height() // 2))
                        assert image.pixelColor(inside).lightness() in shades, (spec.title, mode, scheme)
                    shot(window, f"look-{spec.title.lower()}-{mode}-{scheme}")
                pane.views.set_view("table", remember=False)
    finally:
        app.setPalette(light)
    await quiet()


@pytest.mark.asyncio
async def test_the_network_indicator_shows_while_requests_run_and_lingers_without_moving_the_status_bar(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """Polling jobs start and end requests many times a second: the indicator shows while any is in
    flight, stays a moment after the last, and keeps its room while hidden (no relayout)."""
    window = await open_window(qtbot, session, background)
    status = window.status
    await quiet()
    await until(lambda: status.activity.isHidden(), timeout=5)

    def room() -> tuple[int, QRect]:
        """Where the balance beside the indicator ends, and the indicator's own room. (Not the
        balance's whole geometry: jobs of earlier tests settle on the shared sandbox, and a new
        balance text is wider or narrower.)"""
        return status.balance.geometry().right(), status.activity.geometry()

    room_at = room()
    seen: list[bool] = []
    session.activityChanged.connect(lambda n: seen.append(n > 0 and status.activity.isVisible()))
    await session.refresh_account()  # a request through the session
    assert True in seen  # shown while the request was in flight
    assert status.activity.isVisible()  # and still, just after the last ended
    assert room() == room_at
    await until(lambda: status.activity.isHidden(), timeout=5)
    assert room() == room_at  # its room kept: nothing beside it moved
    assert status.activity.toolTip() == "1 request(s) in flight"
    await quiet()


def link_colours(label: QWidget) -> set[str]:
    """The saturated colours a label's pixels hold (its link's, not the grey of its anti-aliasing)."""
    image = label.grab().toImage()
    return {
        image.pixelColor(x, y).name()
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).saturation() > 120 and image.pixelColor(x, y).value() > 120
    }


@pytest.mark.asyncio
async def test_links_and_tones_take_the_colours_of_a_scheme_changed_while_open(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    """A label's link keeps the colour of the palette its text was parsed in (dark blue on the
    dark window after the system turned dark), and a style sheet the shade it was set with,
    unless the window sets them again."""
    light = QApplication.palette()
    window = await open_window(qtbot, session, background)
    pane = window.show_pane("Episodes")
    label = link_label("https://studio.example.org/episodes/1", "Audio file")
    pane.details.layout().addWidget(label)
    await until(label.isVisible)
    await until(lambda: "Online" in window.status.connection.text())
    assert TONES["success"][0] in window.status.connection.text()  # the light scheme's green dot
    window.banner.show_message("Could not load episodes", kind="error")
    assert TONES["problem"][0] in window.banner.styleSheet()
    before = link_colours(label)
    blue = light.color(QPalette.ColorRole.Link).hue()  # 240; the dark palette's link is 212
    assert before and all(abs(QColor(c).hue() - blue) < 8 for c in before)
    scheme(dark_palette())  # the system turns dark while the window is open
    try:
        after = link_colours(label)
        link = dark_palette().color(QPalette.ColorRole.Link).hue()
        assert after and all(abs(QColor(c).hue() - link) < 8 for c in after)
        assert TONES["success"][1] in window.status.connection.text()  # the dark scheme's own
        assert TONES["problem"][1] in window.banner.styleSheet()
        assert TONES["problem"][0] not in window.banner.styleSheet()
    finally:
        scheme(light)
    await quiet()
