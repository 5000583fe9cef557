"""The banner's offered action (such as Undo): pressed once it does its work and goes; the next
message without one takes it away unpressed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from castdeck.ui.widgets import Banner


def test_an_offered_action_runs_once_and_goes_with_the_next_message(qtbot: QtBot) -> None:
    banner = Banner()
    qtbot.addWidget(banner)
    banner.show()
    pressed: list[str] = []
    banner.show_message("3 episodes are drafts again.", action=("Undo", lambda: pressed.append("undo")))
    assert banner.action_button.isVisible() and banner.action_button.accessibleName() == "Undo"
    qtbot.mouseClick(banner.action_button, Qt.MouseButton.LeftButton)
    assert pressed == ["undo"] and not banner.action_button.isVisible()
    banner.action_button.click()  # hidden, and its action spent: nothing runs twice
    assert pressed == ["undo"]

    banner.show_message("Deleted it.", action=("Undo", lambda: pressed.append("late")))
    banner.show_message("Something else happened.")
    assert not banner.action_button.isVisible()
    banner.action_button.click()
    assert pressed == ["undo"] and banner.text == "Something else happened."
