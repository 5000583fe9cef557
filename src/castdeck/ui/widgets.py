"""Small widgets every pane and dialog shares: the error banner, safe rich text, await-able dialogs."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, QStandardPaths, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QTextBrowser,
    QToolButton,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.services.messages import MESSAGE_LIMIT, clip, error_text
from castdeck.services.safe_html import clip_text, looks_like_html, safe_html

from .accessible import shows_value
from .palette import is_dark, retone, tone

__all__ = [
    "DISPLAY_LIMIT",
    "Banner",
    "ElidedButton",
    "SafeTextBrowser",
    "alive",
    "ask",
    "browser_reachable",
    "describe_error",
    "display_text",
    "follow_palette",
    "heading_label",
    "name_clear_button",
    "offer_to_copy",
    "open_web_link",
    "run_dialog",
]


REQUEST_ID_LIMIT = 120
"""A request id longer than this is not one a person can quote: it is shown (and copied) clipped."""
BANNER_LIMIT = 2 * MESSAGE_LIMIT
"""A banner holds its context and one message; anything longer is clipped (a title or a message
quoted from the service must not become a megabyte of label)."""


DISPLAY_LIMIT = 2_000
"""Characters of one value from the service shown in a label, a table cell or a tooltip: a title
of a megabyte is clipped (laying out a megabyte of label text takes seconds, every time)."""


_LONG_WORD = re.compile(r"\S{60,}")


def display_text(value: object) -> str:
    """``value`` as the text of a label or a cell, clipped to :data:`DISPLAY_LIMIT`; a word of 60
    characters or more gets a place to wrap every 20 (a zero-width space): a wrapping label cannot
    break a word, and one unbroken title would make the details wider than the window."""
    text = clip(value if isinstance(value, str) else str(value), DISPLAY_LIMIT)
    if len(text) < 60:
        return text
    return _LONG_WORD.sub(lambda word: "\u200b".join(_pieces(word.group(), 20)), text)


def _pieces(word: str, size: int) -> list[str]:
    return [word[i : i + size] for i in range(0, len(word), size)]


def describe_error(error: BaseException) -> tuple[str, str | None]:
    """A message a creator can act on, and the request id to quote (when there is one)."""
    request_id = getattr(error, "request_id", None) if isinstance(error, CastdeckError) else None
    if not isinstance(request_id, str) or not request_id.strip():
        request_id = None
    return error_text(error), clip(request_id, REQUEST_ID_LIMIT) if request_id else None


NO_ACTION = "Nothing to do about this message"
"""The name of the banner's action button while the message offers none (it is hidden then)."""


class Banner(QFrame):
    """A non-blocking message strip with an optional copyable request id and a close button."""

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Message")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.button_row = layout
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(
            self.label.textInteractionFlags() | self.label.textInteractionFlags().TextSelectableByMouse
        )
        self.copy_button = QPushButton("Copy request ID", self)
        self.copy_button.setAccessibleName("Copy request ID")
        self.copy_button.clicked.connect(self._copy)
        self.close_button = QPushButton("Dismiss", self)
        self.close_button.setAccessibleName("Dismiss message")
        self.close_button.clicked.connect(self.dismiss)
        self.action_button = QPushButton(self)
        """What the message offers to do about it (such as "Undo"); shown with that message only."""
        self.action_button.setAccessibleName(NO_ACTION)
        self.action_button.clicked.connect(self._act)
        self.action_button.hide()
        self._action: Callable[[], object] | None = None
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action_button)
        layout.addWidget(self.copy_button)
        layout.addWidget(self.close_button)
        self.request_id: str | None = None
        self.kind = "info"
        self.hide()

    @property
    def text(self) -> str:
        return self.label.text()

    def show_message(
        self,
        text: str,
        *,
        kind: str = "info",
        request_id: str | None = None,
        action: tuple[str, Callable[[], object]] | None = None,
    ) -> None:
        """``action``: a button's label and what it does, offered beside this message (once: the
        button goes when pressed, or with the next message)."""
        self.kind = kind
        self._action = action[1] if action is not None else None
        self.action_button.setText(action[0] if action is not None else "")
        self.action_button.setAccessibleName(action[0] if action is not None else NO_ACTION)
        self.action_button.setVisible(action is not None)
        request_id = (request_id or "").strip()
        self.request_id = clip(request_id, REQUEST_ID_LIMIT) if request_id else None
        shown = clip(text, BANNER_LIMIT) + (f"\nRequest ID: {self.request_id}" if self.request_id else "")
        self.label.setText(shown)
        self.copy_button.setVisible(bool(self.request_id))
        self.setProperty("kind", kind)
        tones = {"error": "problem", "warning": "warning", "info": "info", "offline": "quiet"}
        color = tone(tones.get(kind, "info"), self.palette())
        self.setStyleSheet(
            f"QFrame#banner {{ border: 1px solid {color}; border-left: 4px solid {color}; border-radius: 3px; }}"
        )
        self.show()

    def show_error(self, error: BaseException, context: str = "") -> None:
        text, request_id = describe_error(error)
        self.show_message(f"{context}: {text}" if context else text, kind="error", request_id=request_id)

    def dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()

    def _act(self) -> None:
        action, self._action = self._action, None
        self.action_button.hide()
        if action is not None:
            action()

    def _copy(self) -> None:
        if self.request_id:
            QGuiApplication.clipboard().setText(self.request_id)


class SafeTextBrowser(QTextBrowser):
    """Shows text or HTML from the service without loading anything: no remote or local resources,
    no scripts (Qt's rich text has none), links open in the browser only when they are http(s).
    HTML goes through :func:`~castdeck.services.safe_html.safe_html` first (text markup only,
    tables nested at most three deep, the text clipped), so no description can freeze the layout."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(lambda url: open_web_link(url, self))

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return None

    def set_service_text(self, text: str | None) -> None:
        value = text or ""
        if looks_like_html(value):
            self.setHtml(safe_html(value))
        else:
            self.setPlainText(clip_text(value))


class ElidedButton(QPushButton):
    """A push button for a changing one-line status: it takes the width its layout gives it and
    never asks for more, cutting its text with "…" when the text is wider. The whole text is its
    accessible description and the first line of its tool tip (``action`` says what a click does).

    A plain button asks its layout for its text's width: a status that grows (a count, a time left)
    then widens a dock, which moves the main window's pane beside it and repaints the whole window."""

    def __init__(self, parent: QWidget | None = None, *, action: str = "") -> None:
        super().__init__(parent)
        self._full = ""
        self._action = action
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setToolTip(action)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        if text == self._full:
            return
        self._full = text
        self.setToolTip("\n".join(part for part in (text, self._action) if part))
        self.setAccessibleDescription(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        metrics = self.fontMetrics()
        advance = metrics.horizontalAdvance(self._full)
        option = QStyleOptionButton()
        self.initStyleOption(option)
        size = QSize(advance, metrics.height())  # the text's; the style adds its padding
        needed = self.style().sizeFromContents(QStyle.ContentsType.CT_PushButton, option, size, self).width()
        shown = self._full
        if needed > self.width():
            room = self.width() - (needed - advance)
            shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        self.setText(shown)  # Qt skips an unchanged text


def laid_out(layout: QLayout) -> list[QWidget]:
    """The widgets ``layout`` holds itself (not those of layouts inside it), in its order.

    Read with ``indexOf``, never ``QLayout.itemAt``: PySide (6.11) keeps the Python wrapper of every
    item ``itemAt`` returns for as long as the layout lives, still registered under the item's
    address after Qt deletes the item (its widget removed or deleted). The next object Qt makes at
    that address is then taken for the old item, and destroying it crashes the app
    (tests/gui/test_layout_items.py). ``QFormLayout.itemAt(row, role)`` does not keep its item."""
    owner = layout.parentWidget()
    if owner is None:
        return []
    placed = [
        (layout.indexOf(child), child)
        for child in owner.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
    ]
    return [child for index, child in sorted(placed, key=lambda pair: pair[0]) if index >= 0]


class _WidthRepaints(QObject):
    """Repaints the watched viewport in full when its width changes (see :func:`rows_stay_put`)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(watched, QWidget):
            assert isinstance(event, QResizeEvent)
            if event.size().width() != event.oldSize().width():
                watched.update()
        return False


def rows_stay_put(viewport: QWidget) -> None:
    """A list's viewport whose rows keep their place when it changes height (the upload queue or a
    banner coming or going above or below it): Qt then paints only what a resize uncovers
    (``WA_StaticContents``), not every row in view again. A change of width repaints it in full, as
    before: the stretched last column and the elided texts change with it, and Qt would repaint
    that column only in its next pass (and in a right-to-left layout every row moves with the
    right edge)."""
    viewport.setAttribute(Qt.WidgetAttribute.WA_StaticContents)
    viewport.installEventFilter(_WidthRepaints(viewport))


def follow_palette(root: QWidget) -> None:
    """The system's scheme changed: what Qt does not redraw in the new palette by itself, in
    ``root`` and every widget under it, is set again. A widget with a style sheet keeps the
    palette it had when the sheet was set (Qt does not polish it again); a label's links keep the
    link colour of the palette their text was parsed in (dark blue on a dark window); and the
    app's tones (``palette.tone``) in either take the new scheme's shade."""
    dark = is_dark(QGuiApplication.palette())
    for widget in (root, *root.findChildren(QWidget)):
        sheet = widget.styleSheet()
        if sheet:
            widget.setStyleSheet(retone(sheet, dark))  # a tone's shade in the new scheme's
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText:
            text = widget.text()
            if "<a " in text or "color:" in text:
                widget.setText("")  # the same text again is not parsed again
                widget.setText(retone(text, dark))


def name_clear_button(edit: QLineEdit, name: str, tip: str | None = None) -> None:
    """Turn on the clear button of ``edit`` (the ✕ shown while it holds text) with ``name`` as the
    name a screen reader says and ``tip`` (else the name) as its tooltip: Qt's own has neither."""
    edit.setClearButtonEnabled(True)
    clear = next((a for a in edit.findChildren(QAction) if a.objectName() == "_q_qlineeditclearaction"), None)
    if clear is None:  # (a Qt that names it otherwise: its button stays as Qt made it)
        return
    clear.setText(name)
    clear.setToolTip(tip or name)
    for button in edit.findChildren(QToolButton):
        if button.defaultAction() is clear:
            button.setAccessibleName(name)
            # a changed action shows its button: hidden again while there is nothing to clear, as
            # Qt keeps it (it shows and hides it itself as text comes and goes)
            button.setVisible(bool(edit.text()))


def alive(widget: QWidget) -> bool:
    """False once Qt has deleted the widget under its Python wrapper."""
    try:
        widget.objectName()
    except RuntimeError:
        return False
    return True


def player_missing_label(text: str, parent: QWidget) -> QLabel:
    """What stands in a player's place when nothing can be played on this computer: ``text`` (why,
    and the command that installs what is missing), selectable so the command can be copied."""
    label = QLabel(text, parent)
    label.setObjectName("player_missing")
    shows_value(label, "Player unavailable")
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


def heading_label(text: str, parent: QWidget, scale: float = 1.5) -> QLabel:
    """A pane's bold title."""
    heading = QLabel(text, parent)
    font = heading.font()
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(True)
    heading.setFont(font)
    return heading


def browser_reachable() -> bool:
    """Whether asking the desktop to open an address can work here: not on a platform without a
    desktop (offscreen, minimal), nor on Linux without ``xdg-open`` (or ``$BROWSER``). Qt would
    answer False there too, after printing the whole address to the terminal."""
    if QGuiApplication.platformName() in ("offscreen", "minimal", ""):
        return False
    if sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return bool(QStandardPaths.findExecutable("xdg-open") or os.environ.get("BROWSER"))
    return True


def open_web_link(url: QUrl | str, parent: QWidget | None = None) -> bool:
    """Open an http(s) address in the browser. When no browser can be asked or it refuses, and a
    ``parent`` is given, a message there says so and offers to copy the address (never a silent
    nothing). Returns whether the browser was asked successfully."""
    target = QUrl(url) if isinstance(url, str) else url
    if target.scheme() not in ("http", "https"):
        return False
    if browser_reachable() and QDesktopServices.openUrl(target):
        return True
    if parent is not None and alive(parent):
        offer_to_copy(target.toString(), parent)
    return False


def offer_to_copy(address: str, parent: QWidget) -> QMessageBox:
    """ "No browser could open it": the address offered on the clipboard (one box at a time)."""
    old = parent.findChild(QMessageBox, "no_browser")
    if old is not None:
        old.close()
    box = QMessageBox(parent)
    box.setObjectName("no_browser")
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("No browser to open the address")
    box.setText("No web browser could be opened on this computer for this address.")
    box.setInformativeText("Copy the address to open it in a browser elsewhere.")
    copy = box.addButton("Copy address", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Close)
    box.setDefaultButton(copy)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def clicked(button: QAbstractButton) -> None:
        if button is copy:
            QGuiApplication.clipboard().setText(address)

    box.buttonClicked.connect(clicked)
    box.open()
    return box


async def run_dialog(dialog: QDialog) -> int:
    """Show a dialog window-modally with ``open()`` and wait for its result (never ``exec()``)."""
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not future.done():
            future.set_result(result)

    dialog.finished.connect(finished)
    dialog.open()
    try:
        return await future
    finally:
        dialog.finished.disconnect(finished)


async def ask(parent: QWidget, title: str, text: str, confirm: str, *, destructive: bool = True) -> bool:
    """A confirmation question; True when the user confirms."""
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)  # the question may quote names from the service
    box.setText(text)
    box.setIcon(QMessageBox.Icon.Warning if destructive else QMessageBox.Icon.Question)
    yes = box.addButton(
        confirm, QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    )
    no = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(no)
    box.setObjectName("confirm")
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    return clicked is yes
