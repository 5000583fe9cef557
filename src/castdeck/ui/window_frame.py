"""The main window's frame pieces the early window draws too: the sandbox strip, the navigation
sidebar and its rows.

Light on purpose (QtCore, QtGui, QtWidgets and the icons only): the early window builds the same
frame before the rest of the app has loaded (:mod:`castdeck.ui.early`), and both must look alike
to the pixel (``tests/gui/test_early_paint.py``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QWidget

from . import icons
from .accessible import shows_value

__all__ = ["SANDBOX_TEXT", "SIDEBAR_ICON_SIZE", "pane_icon", "sandbox_strip", "sidebar", "sidebar_item"]

SIDEBAR_ICON_SIZE = QSize(18, 18)
SANDBOX_TEXT = "SANDBOX — the embedded local service with demo data; nothing here reaches the real service"


def pane_icon(title: str, *, menu: bool = False) -> QIcon:
    """A pane's icon: the one named like it ("Podcasts" -> ``podcasts``), or none."""
    name = title.lower()
    return icons.icon(name, menu=menu) if name in icons.icon_names() else QIcon()


def sandbox_strip(parent: QWidget) -> QLabel:
    """The strip across the top that says the window works on the sandbox."""
    strip = QLabel(SANDBOX_TEXT, parent)
    strip.setObjectName("sandbox_strip")
    shows_value(strip, "Sandbox")
    strip.setAlignment(Qt.AlignmentFlag.AlignCenter)
    strip.setStyleSheet(
        "QLabel#sandbox_strip { background: #f9a825; color: #000; font-weight: bold; padding: 3px; }"
    )
    return strip


def sidebar(parent: QWidget) -> QListWidget:
    """The navigation list, empty (rows: :func:`sidebar_item`)."""
    navigation = QListWidget(parent)
    navigation.setObjectName("sidebar")
    navigation.setAccessibleName("Navigation")
    navigation.setFixedWidth(180)
    navigation.setSpacing(1)
    navigation.setIconSize(SIDEBAR_ICON_SIZE)
    navigation.setStyleSheet("QListWidget#sidebar { border: none; padding-top: 6px; font-size: 11pt; }"
                             "QListWidget#sidebar::item { padding: 6px 10px; }")  # fmt: skip
    navigation.itemSelectionChanged.connect(lambda: _follow_selection(navigation))
    return navigation


def _follow_selection(navigation: QListWidget) -> None:
    """A row selected without becoming current (a screen reader's "select" action on the row,
    which Qt carries out as a selection alone) becomes current: its pane opens, as on a click."""
    chosen = navigation.selectedItems()
    if len(chosen) == 1 and navigation.row(chosen[0]) != navigation.currentRow():
        navigation.setCurrentRow(navigation.row(chosen[0]))


def sidebar_item(number: int, title: str) -> QListWidgetItem:
    """The sidebar's row of the ``number``-th pane (from 1), with its icon and its shortcut."""
    shortcut = f"Ctrl+{number % 10}" if number <= 10 else ""
    item = QListWidgetItem(pane_icon(title), title)
    item.setToolTip(f"{title} ({shortcut})" if shortcut else title)
    item.setData(Qt.ItemDataRole.AccessibleTextRole, title)
    return item
