"""An address the app cannot hand to a browser is offered to copy, never dropped in silence, and
Qt never prints it (with its signature) to the terminal."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from castdeck.startup import _qt_messages
from castdeck.ui.details_panel import link_label
from castdeck.ui.widgets import browser_reachable, open_web_link
from tests.gui.conftest import until

SIGNED = "https://files.example.org/media/ep.mp3?X-Amz-Signature=abc123SECRET"


@pytest.mark.asyncio
async def test_a_link_with_no_browser_to_open_it_is_offered_to_copy(qtbot: QtBot, capfd: Any) -> None:
    assert not browser_reachable()  # the tests' offscreen screen has no desktop to ask
    holder = QWidget()
    qtbot.addWidget(holder)
    label = link_label(SIGNED, "Audio file")
    label.setParent(holder)
    holder.show()
    label.linkActivated.emit(SIGNED)  # what a click on the link does
    box = await until(lambda: holder.findChild(QMessageBox, "no_browser"))
    assert box.isVisible() and "No web browser" in box.text()
    copy = next(b for b in box.buttons() if b.text() == "Copy address")
    QApplication.clipboard().clear()
    copy.click()
    assert QApplication.clipboard().text() == SIGNED
    await until(lambda: holder.findChild(QMessageBox, "no_browser") is None)
    assert "SECRET" not in capfd.readouterr().err  # Qt was not asked, so it printed nothing


def test_a_link_with_no_parent_to_speak_in_only_answers_false(capfd: Any) -> None:
    assert open_web_link(SIGNED) is False
    assert open_web_link("file:///etc/passwd") is False  # only web addresses, ever
    assert "SECRET" not in capfd.readouterr().err


def test_qt_messages_reach_the_terminal_without_the_signature(capsys: Any) -> None:
    from PySide6.QtCore import QMessageLogContext, QtMsgType

    _qt_messages(
        QtMsgType.QtWarningMsg,
        QMessageLogContext(),
        f"This plugin does not support openUrl() for '{SIGNED}'.",
    )
    err = capsys.readouterr().err
    assert "https://files.example.org/media/ep.mp3?…" in err and "SECRET" not in err
