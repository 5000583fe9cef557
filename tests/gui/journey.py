"""What every journey test does the way a creator does it: open the real main window on the laptop's
screen, click a pane in the sidebar, double-click a row, check that every window shown lies within
the screen, and keep a screenshot of a step in the light and the dark scheme."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QWidget
from pytestqt.qtbot import QtBot

from castdeck.ui.main_window import MainWindow
from castdeck.ui.screen_fit import TITLE_BAR
from tests.gui.conftest import OnLine, until
from tests.gui.helpers import dark_palette

__all__ = [
    "both_schemes",
    "choose_by_keys",
    "click_link",
    "click_sidebar",
    "double_click_row",
    "every_window_on_screen",
    "link_position",
    "open_main_window",
    "scheme",
]


def every_window_on_screen() -> None:
    """Every visible window and dialog lies within its screen's available area, its title bar too."""
    for window in QApplication.topLevelWidgets():
        if not window.isVisible() or window.windowType() not in (Qt.WindowType.Window, Qt.WindowType.Dialog):
            continue
        inner, screen = window.geometry(), window.screen().availableGeometry()
        assert screen.contains(inner.adjusted(0, -TITLE_BAR, 0, 0)), (window.windowTitle(), inner, screen)


async def open_main_window(qtbot: QtBot, on_line: OnLine) -> MainWindow:
    window = MainWindow(on_line.session, on_line.background)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    await until(window.isActiveWindow)
    every_window_on_screen()
    return window


def click_sidebar(qtbot: QtBot, window: MainWindow, title: str) -> Any:
    """Click the pane's row in the sidebar, as a creator does; the pane shown."""
    row = next(r for r in range(window.sidebar.count()) if window.sidebar.item(r).text() == title)
    where = window.sidebar.visualItemRect(window.sidebar.item(row)).center()
    qtbot.mouseClick(window.sidebar.viewport(), Qt.MouseButton.LeftButton, pos=where)
    pane = window.current_pane()
    assert window.sidebar.currentRow() == row and pane is window.pane(title)
    return pane


def double_click_row(qtbot: QtBot, view: Any, row: int) -> None:
    index = view.model().index(row, 0)
    view.scrollTo(index)
    where = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)


def both_schemes(shot: Callable[[QWidget, str], Path], widget: QWidget, name: str) -> list[Path]:
    """Screenshots of ``widget`` as it is now, in the light scheme and in the dark one (what the
    platform gives when the system turns dark), saved as ``<name>-light.png`` and ``<name>-dark.png``;
    the light palette is back afterwards."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    saved = [shot(widget, f"{name}-light")]
    app.setPalette(dark_palette())
    try:
        # Qt posts the palette change to every widget: delivered now (no nested event loop, which
        # never returns inside a qasync task), or the "dark" screenshot shows the light palette
        QCoreApplication.sendPostedEvents(None, QEvent.Type.ApplicationPaletteChange)
        saved.append(shot(widget, f"{name}-dark"))
    finally:
        app.setPalette(light)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.ApplicationPaletteChange)
    return saved


def scheme(palette: QPalette) -> None:
    """The system's scheme turns to ``palette``, and every widget hears of it now (Qt posts the
    change to each widget; only those posted events are delivered, no nested event loop)."""
    QApplication.setPalette(palette)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.ApplicationPaletteChange)


def link_position(window: QWidget, label: QLabel, href: str) -> QPoint:
    """Where the link to ``href`` is drawn in ``label``: found with the pointer, as a person finds
    it (the label says which link is under the pointer as it moves)."""
    hovered: list[str] = []
    label.linkHovered.connect(hovered.append)
    try:
        QTest.mouseMove(window, QPoint(window.width() - 2, window.height() - 2))
        area = label.contentsRect()
        for y in range(area.top() + 2, area.bottom(), 4):
            for x in range(area.left() + 1, area.right(), 3):
                QTest.mouseMove(label, QPoint(x, y))
                if hovered and hovered[-1] == href:
                    return QPoint(x, y)
    finally:
        label.linkHovered.disconnect(hovered.append)
    raise AssertionError(f"the link to {href} could not be found under the pointer in {label.text()!r}")


def click_link(qtbot: QtBot, label: QLabel, href: str) -> None:
    """Click the link to ``href`` in ``label`` with the mouse, where it is drawn."""
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=link_position(label.window(), label, href))


def choose_by_keys(combo: QComboBox, text: str) -> None:
    """Focus the list and press Down until it shows ``text``, as a keyboard user does."""
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(combo.count()):
        if combo.currentText() == text:
            break
        QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText() == text, [combo.itemText(i) for i in range(combo.count())]
