"""Every window and dialog fits a laptop's screen: opened within 1280×720 with room for a title
bar, moved and shrunk onto a smaller or other screen, its buttons in view; Ctrl+Enter submits."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import QByteArray, QMargins, QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialog, QPushButton, QWidget
from pytestqt.qtbot import QtBot

import castdeck.ui
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.dialogs.episode_dialogs import (
    SessionDialog,
)
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.dialogs.host_dialog import HostDialog
from castdeck.ui.dialogs.podcast_dialog import PodcastDialog
from castdeck.ui.forms import FormDialog
from castdeck.ui.listen.listen_window import ListenWindow
from castdeck.ui.main_window import MainWindow
from castdeck.ui.pane_failed import WindowFailed
from castdeck.ui.screen_fit import LAPTOP, TITLE_BAR, FittedDialog, placed
from castdeck.ui.scripts.dialogs import RenameDialog
from castdeck.ui.widgets import alive
from tests.gui.conftest import quiet, until
from tests.gui.every_window import every_dialog

W = TypeVar("W", bound=QWidget)


def on_its_screen(window: QWidget) -> None:
    """``window`` with a title bar above it lies on its screen."""
    inner, screen = window.geometry(), window.screen().availableGeometry()
    assert screen.contains(inner.adjusted(0, -TITLE_BAR, 0, 0)), (window.windowTitle(), inner, screen)


def fits_a_laptop(window: QWidget) -> None:
    """``window`` with a title bar above it fits in 1280×720, and lies on its screen."""
    inner = window.geometry()
    assert inner.width() <= LAPTOP.width(), f"{window.windowTitle()!r} is {inner.width()} px wide"
    assert inner.height() + TITLE_BAR <= LAPTOP.height(), (
        f"{window.windowTitle()!r} is {inner.height()} px tall"
    )
    on_its_screen(window)


def buttons_in_view(dialog: QDialog) -> list[str]:
    """The texts of the dialog's visible push buttons; each lies wholly inside the dialog."""
    texts = []
    for button in dialog.findChildren(QPushButton):
        if not button.isVisibleTo(dialog) or button.parent() is None:
            continue
        if button.window() is not dialog:
            continue
        where = QRect(button.mapTo(dialog, QPoint(0, 0)), button.size())
        assert dialog.rect().contains(where), f"{button.text()!r} of {dialog.windowTitle()!r} is cut off"
        texts.append(button.text())
    return texts


def dialog_classes() -> set[type[QDialog]]:
    """Every dialog class the app defines (its modules imported first)."""
    for module in pkgutil.walk_packages(castdeck.ui.__path__, "castdeck.ui."):
        importlib.import_module(module.name)
    found: set[type[QDialog]] = set()
    waiting: list[type[QDialog]] = [QDialog]
    while waiting:
        for sub in waiting.pop().__subclasses__():
            waiting.append(sub)
            if sub.__module__.startswith("castdeck."):
                found.add(sub)
    return found


# --- the rule ------------------------------------------------------------------------------------------------


def test_a_window_too_tall_is_shrunk_and_moved_onto_the_screen() -> None:
    screen = QRect(0, 0, 1366, 768)
    title = QMargins(0, TITLE_BAR, 0, 0)
    assert placed(QRect(43, 0, 1280, 800), screen, title) == QRect(43, TITLE_BAR, 1280, 768 - TITLE_BAR)
    # a window that fits stays where it is, as it is
    assert placed(QRect(100, 100, 720, 600), screen, title) == QRect(100, 100, 720, 600)
    # last closed on a larger screen to the right: brought back whole
    assert placed(QRect(2200, 300, 1800, 1000), screen, title) == QRect(0, TITLE_BAR, 1366, 768 - TITLE_BAR)
    # a second screen's area that does not start at 0, 0, with a panel on its left
    other = QRect(1366, 0, 1920, 1080).adjusted(48, 0, 0, 0)
    assert placed(QRect(1000, 900, 900, 700), other, title) == QRect(1414, 1080 - 700, 900, 700)


def test_every_dialog_class_derives_from_the_fitted_base() -> None:
    strays = sorted(c.__qualname__ for c in dialog_classes() if not issubclass(c, FittedDialog))
    assert strays == []


# --- every dialog and window, opened on the laptop -----------------------------------------------------------


@pytest.fixture
def opened(qtbot: QtBot) -> Iterator[list[QWidget]]:
    shown: list[QWidget] = []
    yield shown
    for window in shown:
        if alive(window):  # (a window that deletes itself on close may be gone)
            window.close()


async def show(
    qtbot: QtBot, opened: list[QWidget], window: W, check: Callable[[QWidget], None] = fits_a_laptop
) -> W:
    """``window`` shown (closed at the test's end), then checked: by default, that it fits a laptop."""
    qtbot.addWidget(window)
    opened.append(window)
    window.show()
    await until(window.isVisible)
    check(window)
    return window


@pytest.mark.asyncio
async def test_every_dialog_and_window_fits_a_laptop_with_its_buttons_in_view(
    qtbot: QtBot, session: Session, background: Background, opened: list[QWidget], shot: Any
) -> None:
    dialogs = await every_dialog(session, background)
    for dialog in dialogs:
        await show(qtbot, opened, dialog)
        if isinstance(dialog, FormDialog):
            await until(lambda d=dialog: d.area.widget().isVisible())
            assert dialog.submit_button.text() in buttons_in_view(dialog)
        else:
            assert buttons_in_view(dialog)
        shot(dialog, f"fit-{type(dialog).__name__}-{len(opened)}")
    generate = dialogs[2]
    assert isinstance(generate, GenerateDialog)
    # the prompt's fields are taller than a laptop has room for: they scroll, none is squeezed
    bar = generate.area.verticalScrollBar()
    await until(bar.isVisible)
    assert generate.area.widget().height() > generate.area.viewport().height()
    assert generate.sources_picker.list.height() >= generate.sources_picker.list.minimumSizeHint().height()
    for mode in range(generate.mode_combo.count()):  # each mode's rows, fitted again
        generate.mode_combo.setCurrentIndex(mode)
        fits_a_laptop(generate)
        assert generate.submit_button.text() in buttons_in_view(generate)
    abstract = {FittedDialog, FormDialog, SessionDialog}
    assert {type(d) for d in dialogs} == dialog_classes() - abstract  # a new dialog is opened here too

    # its 1280 × 800 within the screen; it works down to its minimum
    main = await show(qtbot, opened, MainWindow(session, background), on_its_screen)
    assert main.minimumWidth() <= LAPTOP.width() and main.minimumHeight() + TITLE_BAR <= LAPTOP.height()
    await show(qtbot, opened, ListenWindow(background.media))
    await show(qtbot, opened, WindowFailed("Listen", RuntimeError("no player"), lambda: None))
    await quiet()  # what the dialogs and the window read


@pytest.mark.asyncio
async def test_a_dialog_grown_while_open_stays_on_the_screen(
    qtbot: QtBot, session: Session, background: Background, opened: list[QWidget]
) -> None:
    dialog = await show(qtbot, opened, HostDialog(session))
    assert isinstance(dialog, HostDialog)
    dialog.resize(900, 1400)  # as a form's own growth or a restored size could ask
    on_its_screen(dialog)
    assert dialog.height() == dialog.screen().availableGeometry().height() - TITLE_BAR
    await quiet()  # the voices it reads
    assert dialog.submit_button.text() in buttons_in_view(dialog)


@pytest.mark.asyncio
async def test_the_main_window_restored_from_a_larger_screen_opens_on_this_one(
    qtbot: QtBot, session: Session, background: Background, opened: list[QWidget]
) -> None:
    big = MainWindow(session, background)
    qtbot.addWidget(big)
    big.setGeometry(1500, 200, 1800, 1000)  # as it was on a 4K monitor to the right
    QSettings().setValue("window/geometry", big.saveGeometry())
    saved = QSettings().value("window/geometry")
    assert isinstance(saved, QByteArray)

    window = MainWindow(session, background)
    window.restore_geometry()
    await show(qtbot, opened, window, on_its_screen)
    screen = window.screen().availableGeometry()
    assert screen.width() - 4 <= window.width() <= screen.width()  # as wide as it can be here
    assert window.height() <= screen.height() - TITLE_BAR


@pytest.mark.asyncio
async def test_ctrl_enter_submits_a_form_from_inside_a_text_field(
    qtbot: QtBot, session: Session, background: Background, opened: list[QWidget]
) -> None:
    dialog = await show(qtbot, opened, PodcastDialog(session))
    assert isinstance(dialog, PodcastDialog)
    dialog.activateWindow()
    await until(dialog.isActiveWindow)
    dialog.description_edit.setFocus()
    # nothing typed yet: the shortcut says what to fix instead of sending
    qtbot.keyClick(dialog.description_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.isVisible()
    assert dialog.rows["title"].error.isVisible()
    assert dialog.description_edit.toPlainText() == ""  # no line break typed either
    dialog.title_edit.setText("Laptop hours")
    await dialog.hosts_picker.wait_loaded()
    first = dialog.hosts_picker.list.item(0)
    where = dialog.hosts_picker.list.visualItemRect(first)
    qtbot.mouseClick(  # the item's check box, at its left
        dialog.hosts_picker.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=QPoint(where.left() + 10, where.center().y()),
    )
    assert first.checkState() == Qt.CheckState.Checked
    dialog.description_edit.setPlainText("Made with the keyboard alone.")
    qtbot.keyClick(dialog.description_edit, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: not dialog.isVisible())
    assert dialog.result() == QDialog.DialogCode.Accepted, dialog.banner.text
    created = await session.client.podcasts.get(dialog.result_value.id)
    assert created.title == "Laptop hours"


@pytest.mark.asyncio
async def test_ctrl_enter_presses_a_plain_dialogs_default_button(qtbot: QtBot, opened: list[QWidget]) -> None:
    dialog = await show(qtbot, opened, RenameDialog("MAYA"))
    assert isinstance(dialog, RenameDialog)
    dialog.activateWindow()
    await until(dialog.isActiveWindow)
    focus = QApplication.focusWidget()
    assert isinstance(focus, QWidget)
    qtbot.keyClicks(focus, "Maya Chen")
    qtbot.keyClick(focus, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: not dialog.isVisible())
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_no_push_button_is_cut_off_by_the_fields(qtbot: QtBot) -> None:
    """The helper itself notices a button outside its dialog (it would pass anything otherwise)."""
    dialog = FittedDialog()
    qtbot.addWidget(dialog)
    dialog.resize(300, 200)
    button = QPushButton("Outside", dialog)
    button.setGeometry(250, 180, 120, 40)
    dialog.show()
    with pytest.raises(AssertionError, match="Outside"):
        buttons_in_view(dialog)
    assert isinstance(button, QAbstractButton)


@pytest.mark.asyncio
async def test_an_answered_dialog_gives_back_its_window_and_opens_again(
    qtbot: QtBot, opened: list[QWidget]
) -> None:
    """A pane keeps its last dialog until the next one: hidden, it holds no native window, whose
    backing store (the dialog's size × 4 bytes) Qt keeps for as long as the widget lives."""
    dialog = await show(qtbot, opened, RenameDialog("Tide tables"), check=lambda _w: None)
    assert dialog.windowHandle() is not None
    dialog.reject()
    await until(lambda: dialog.windowHandle() is None)
    assert alive(dialog)
    dialog.open()
    await until(dialog.isVisible)
    assert dialog.windowHandle() is not None
    dialog.accept()
    await until(lambda: dialog.windowHandle() is None)
