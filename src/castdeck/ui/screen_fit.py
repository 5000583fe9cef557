"""Every window and dialog fits the screen it opens on, and Ctrl+Enter submits a dialog.

Castdeck is built for a 1366×768 laptop, whose desktop leaves about 1280×720 to windows. A window
asks for the size it would like (the main window 1280×800, a form as tall as its fields); what it
gets is that size within the available area of its screen, less the window manager's frame, and
placed so the whole frame is on that screen. Forms scroll inside (:class:`castdeck.ui.forms.FormDialog`),
so their buttons stay visible however little room there is.

Every dialog derives from :class:`FittedDialog`, which does it when shown and whenever the dialog
grows while shown, and gives Ctrl+Enter to its default button (a form's own submit says what to
fix when its button is disabled); the windows call :func:`fit_window` when shown. A test holds
every dialog class in the app to that base and opens each at laptop size.

Light on purpose (QtCore, QtGui, QtWidgets): the early window uses it before the rest has loaded.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QMargins, QPoint, QRect, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import QApplication, QDialog, QMainWindow, QPushButton, QWidget

__all__ = [
    "LAPTOP",
    "SUBMIT_KEYS",
    "TITLE_BAR",
    "FittedDialog",
    "available_area",
    "fit_window",
    "fitted_height",
    "placed",
    "release_when_hidden",
    "restore_main_window",
    "submit_on_keys",
]

LAPTOP = QSize(1280, 720)
"""The smallest area a desktop leaves to windows that Castdeck is built for (a 1366×768 screen)."""

TITLE_BAR = 32
"""Room kept for a window manager's title bar while the real frame is not known yet (before the
window is mapped, a window's frame geometry is its geometry)."""

SUBMIT_KEYS = ("Ctrl+Return", "Ctrl+Enter")
SUBMIT_KEYS_PROPERTY = "castdeckSubmitKeys"
"""Set on a dialog once its :data:`SUBMIT_KEYS` are given."""


def frame_margins(window: QWidget) -> QMargins:
    """The window manager's frame around ``window``, with at least :data:`TITLE_BAR` above it
    while the frame is not known."""
    frame, inner = window.frameGeometry(), window.geometry()
    margins = QMargins(
        inner.left() - frame.left(),
        inner.top() - frame.top(),
        frame.right() - inner.right(),
        frame.bottom() - inner.bottom(),
    )
    if margins.top() <= 0:
        margins.setTop(TITLE_BAR)
    return margins


def available_area(window: QWidget) -> QRect:
    """The part of the window's screen (its parent's before it is shown) that windows may use."""
    screen = window.screen() or QApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(QPoint(0, 0), LAPTOP)


def placed(inner: QRect, available: QRect, margins: QMargins) -> QRect:
    """``inner`` (a window's geometry without its frame) made small enough and moved so that the
    window with its frame lies inside ``available``."""
    width = min(inner.width(), available.width() - margins.left() - margins.right())
    height = min(inner.height(), available.height() - margins.top() - margins.bottom())
    room = available.marginsRemoved(margins)
    x = max(room.left(), min(inner.x(), room.right() + 1 - width))
    y = max(room.top(), min(inner.y(), room.bottom() + 1 - height))
    return QRect(x, y, max(width, 1), max(height, 1))


def fitted_height(window: QWidget, wanted: int) -> int:
    """The height ``window`` can have on its screen: ``wanted`` or less."""
    margins = frame_margins(window)
    return min(wanted, available_area(window).height() - margins.top() - margins.bottom())


def fit_window(window: QWidget) -> None:
    """Shrink and move ``window`` so that it lies on its screen; nothing when it already does.
    A maximised or full-screen window is the window manager's to place."""
    if window.windowState() & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen):
        return
    inner = window.geometry()
    target = placed(inner, available_area(window), frame_margins(window))
    if target.size() != inner.size():
        window.resize(target.size())
    if target.topLeft() != inner.topLeft() and window.isVisible():
        window.move(target.topLeft() - (inner.topLeft() - window.pos()))


def restore_main_window(window: QMainWindow, settings: QSettings) -> None:
    """The size, place and docks the main window had when it was last closed, brought onto the
    screen it opens on now (the last one may have been larger, or another)."""
    geometry, state = settings.value("window/geometry"), settings.value("window/state")
    if isinstance(geometry, QByteArray):
        window.restoreGeometry(geometry)
    if isinstance(state, QByteArray):
        window.restoreState(state)
    fit_window(window)


def _press_default(dialog: QDialog) -> None:
    for button in dialog.findChildren(QPushButton):
        if button.isDefault() and button.isVisible():
            if button.isEnabled():
                button.click()
            else:
                QApplication.beep()
            return


def submit_on_keys(dialog: QDialog, submit: Callable[[], object] | None = None) -> None:
    """Ctrl+Enter (either Enter key) runs ``submit``, or presses the dialog's default button (a
    beep when it is disabled). Once per dialog: the first call decides."""
    if dialog.property(SUBMIT_KEYS_PROPERTY):
        return
    dialog.setProperty(SUBMIT_KEYS_PROPERTY, True)
    action = submit if submit is not None else (lambda: _press_default(dialog))
    for keys in SUBMIT_KEYS:
        shortcut = QShortcut(QKeySequence(keys), dialog)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(action)


def release_when_hidden(window: QWidget) -> None:
    """Once the event loop turns, give back a hidden window's native window and its backing store
    (the image it is painted into: width × height × 4 bytes, 2.5 MB for a 900×700 dialog). Qt keeps
    both for as long as the widget lives, hidden or not, and a pane keeps its last dialog (the next
    one deletes it) and the Episodes pane its Listen window. Shown again, the window gets new ones."""

    def release() -> None:
        if window.isWindow() and not window.isVisible() and window.windowHandle() is not None:
            window.destroy()

    QTimer.singleShot(0, window, release)


class FittedDialog(QDialog):
    """The base of every Castdeck dialog: it fits its screen when shown and whenever it grows,
    and Ctrl+Enter presses its default button (see :func:`submit_on_keys`). Answered, it gives back
    its native window (:func:`release_when_hidden`)."""

    def showEvent(self, event: QShowEvent) -> None:
        fit_window(self)
        submit_on_keys(self)
        super().showEvent(event)

    def done(self, result: int) -> None:
        super().done(result)
        release_when_hidden(self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.isVisible():
            fit_window(self)
