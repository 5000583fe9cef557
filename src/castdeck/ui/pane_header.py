"""Pieces of a pane's header: the Table/Cards switch (and where each pane's chosen view is kept),
and the sizing of the filter boxes beside the heading.

The header fits the window's narrowest width (900 px, the sidebar beside it): the switch shows
its icons (its names are in the tooltips and the accessible names), and the filter boxes may
shrink to a few characters when the window is narrow (their lists show the whole names).

Light on purpose (QtCore, QtWidgets and the icons only): the early window draws the same header
before the rest of the app has loaded (:mod:`castdeck.ui.early`); :class:`castdeck.ui.pane_views.PaneViews`
wires the switch to the views.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QButtonGroup, QComboBox, QHBoxLayout, QToolButton, QWidget

from . import icons

__all__ = [
    "SWITCH_STYLE",
    "TOGGLE_SHORTCUT",
    "VIEWS",
    "ViewSwitch",
    "view_switch",
]

TOGGLE_SHORTCUT = "Ctrl+Shift+V"
VIEWS = ("table", "cards")
SWITCH_STYLE = """
QToolButton { padding: 2px 8px; border: 1px solid palette(mid); background: palette(button);
              color: palette(button-text); }
QToolButton#viewSwitchFirst { border-top-left-radius: 4px; border-bottom-left-radius: 4px; border-right: none; }
QToolButton#viewSwitchLast { border-top-right-radius: 4px; border-bottom-right-radius: 4px; }
QToolButton:hover:!checked { background: palette(alternate-base); }
QToolButton:checked { background: palette(highlight); color: palette(highlighted-text);
                      border-color: palette(highlight); }
QToolButton:focus { border: 1px solid palette(highlight); }
QToolButton#viewSwitchFirst:focus { border-right: none; }
"""
"""A two-part switch that shows the chosen view in the palette's highlight, light or dark."""


class ViewSwitch(NamedTuple):
    widget: QWidget
    table_button: QToolButton
    cards_button: QToolButton


def view_switch(parent: QWidget, title: str) -> ViewSwitch:
    """The switch of the pane titled ``title``: two checkable, exclusive buttons, Table checked."""
    switch = QWidget(parent)
    switch.setAccessibleName(f"{title} view")
    row = QHBoxLayout(switch)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(0)
    group = QButtonGroup(switch)
    group.setExclusive(True)
    names = icons.icon_names()
    buttons = []
    for mode, text, name, tip in (
        ("table", "Table", "Table view", "Show as a table"),
        ("cards", "Cards", "Card view", "Show as cards with pictures"),
    ):
        button = QToolButton(switch)
        button.setText(text)
        button.setCheckable(True)
        button.setAccessibleName(name)
        button.setToolTip(f"{tip} ({TOGGLE_SHORTCUT})")
        button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        button.setAutoRaise(False)
        if mode in names:  # the icon alone; the text stays the button's name
            button.setIcon(icons.icon(mode))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        group.addButton(button)
        row.addWidget(button)
        buttons.append(button)
    table_button, cards_button = buttons
    table_button.setObjectName("viewSwitchFirst")
    cards_button.setObjectName("viewSwitchLast")
    switch.setStyleSheet(SWITCH_STYLE)
    table_button.setChecked(True)
    return ViewSwitch(switch, table_button, cards_button)


def fit_filter(combo: QComboBox, chars: int, least: int) -> None:
    """Size a header's filter box for about ``chars`` characters, and let it shrink to ``least``
    pixels when the window is narrow (the closed box elides; its list shows the whole names)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    combo.setMinimumWidth(least)
