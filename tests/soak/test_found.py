"""Bugs the soak found, each pinned down by the smallest test that shows it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from castdeck.ui.forms import FormDialog


class _Named(BaseModel):
    name: str


class _NameDialog(FormDialog):
    def __init__(self) -> None:
        async def send(value: Any) -> Any:
            return value

        super().__init__("Name", send)
        self.edit = QLineEdit(self)
        self.add_field("name", "Name", self.edit)

    def collect(self) -> dict[str, Any]:
        return {"name": self.edit.text()} if self.edit.text() else {}

    def validate(self, body: dict[str, Any]) -> _Named:
        return _Named.model_validate(body)


def test_a_form_dialog_deleted_right_after_showing_its_errors_raises_nothing(qtbot: QtBot) -> None:
    """The soak replaced a dialog (a pane's next Edit…) in the same loop turn as the old one showed
    its field errors: the old one's deferred height fit then ran on a deleted dialog and raised
    RuntimeError in a slot (ui/forms.py)."""
    dialog = _NameDialog()
    dialog.show()
    dialog.try_submit()  # no name: shows the error, which fits the height in the next loop turn
    assert dialog.rows["name"].error.isVisibleTo(dialog)
    dialog.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.wait(50)  # the loop turns: a fit still pending on the deleted dialog would run now
