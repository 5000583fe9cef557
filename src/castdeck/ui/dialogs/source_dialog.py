"""Create a url, youtube or text source (spec 2.8), checked with ``parse_source_create`` as the user
types. The type switches the fields: an address for web pages and YouTube videos, the text itself
for a text source; the title is optional for all three."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.models import Source
from castdeck.api.models.limits import MAX_TEXT_SOURCE_CHARS
from castdeck.api.models.sources import SourceCreateInput, parse_source_create
from castdeck.services import catalog
from castdeck.services.session import Session

from ..forms import FieldRow, FormDialog

__all__ = ["SOURCE_TYPES", "SourceDialog", "SourceTypeChoice"]

SOURCE_TYPES = {"url": "Web page", "youtube": "YouTube video", "text": "Text"}

_URL_HINTS = {
    "url": ("https://example.com/article", "The address of a public web page (http or https)."),
    "youtube": (
        "https://www.youtube.com/watch?v=…",
        "The address of a video on youtube.com or youtu.be.",
    ),
}


def _holder(row: FieldRow) -> QWidget:
    """The widget that holds a form row's field, counter, hint and error (shown or hidden as one)."""
    holder = row.widget.parentWidget()
    assert holder is not None
    return holder


class SourceTypeChoice(QWidget):
    """Three radio buttons: web page, YouTube video or text. ``changed`` fires on a new choice."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for value, label in SOURCE_TYPES.items():
            button = QRadioButton(label, self)
            button.setAccessibleName(f"Source type: {label}")
            self.group.addButton(button)
            self.buttons[value] = button
            layout.addWidget(button)
            button.toggled.connect(self._toggled)
        layout.addStretch(1)
        self.buttons["url"].setChecked(True)

    def _toggled(self, on: bool) -> None:
        if on:
            self.changed.emit()

    def value(self) -> str:
        return next((value for value, button in self.buttons.items() if button.isChecked()), "url")

    def set_value(self, value: str) -> None:
        self.buttons[value].setChecked(True)


class SourceDialog(FormDialog):
    def __init__(self, session: Session, parent: QWidget | None = None, *, kind: str = "url") -> None:
        self.session = session  # before the form is built: building it revalidates, which reads it
        super().__init__(
            "New source",
            lambda payload: self._send_source(payload),
            submit_label="Add source",
            parent=parent,
        )
        self.resize(680, 460)

        self.type_choice = SourceTypeChoice(self)
        self.add_field("type", "Type", self.type_choice)
        self.url_edit = QLineEdit(self)
        self.url_row = self.add_field("url", "Address", self.url_edit)
        self.url_hint = QLabel(self)
        self.url_hint.setWordWrap(True)
        self.url_hint.setStyleSheet("color: palette(mid);")
        self.url_hint.setAccessibleName("Address hint")
        holder_layout = _holder(self.url_row).layout()
        assert isinstance(holder_layout, QVBoxLayout)
        holder_layout.insertWidget(1, self.url_hint)
        self.content_edit = QPlainTextEdit(self)
        self.content_edit.setTabChangesFocus(True)
        self.content_edit.setPlaceholderText("Paste or type the text the episodes should draw on.")
        self.content_edit.setMinimumHeight(200)
        self.content_row = self.add_field(
            "content", "Text", self.content_edit, limit=(1, MAX_TEXT_SOURCE_CHARS)
        )
        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("Optional: the service names it from the address or the text")
        self.add_field("title", "Title", self.title_edit)
        for name, row in self.rows.items():
            grows = name == "content"
            _holder(row).setSizePolicy(
                QSizePolicy.Policy.Preferred,
                QSizePolicy.Policy.Expanding if grows else QSizePolicy.Policy.Fixed,
            )

        self.type_choice.changed.connect(self._type_changed)
        self.type_choice.set_value(kind)
        self._type_changed()
        session.stateChanged.connect(self._state_changed)
        self._state_changed()

    def _type_changed(self) -> None:
        kind = self.type_choice.value()
        is_text = kind == "text"
        self.form.setRowVisible(_holder(self.url_row), not is_text)
        self.form.setRowVisible(_holder(self.content_row), is_text)
        if not is_text:
            placeholder, hint = _URL_HINTS[kind]
            self.url_edit.setPlaceholderText(placeholder)
            self.url_hint.setText(hint)
        self.revalidate()
        QTimer.singleShot(0, self._fit_type)

    def _fit_type(self) -> None:
        """Tall for a text, compact for an address."""
        self.fit_to_fields(at_least=460 if self.type_choice.value() == "text" else 0)

    # --- the body ------------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        kind = self.type_choice.value()
        body: dict[str, Any] = {"type": kind}
        if kind == "text":
            content = self.content_edit.toPlainText()
            if content.strip():
                body["content"] = content
        else:
            url = self.url_edit.text().strip()
            if url:
                body["url"] = url
        title = self.title_edit.text().strip()
        if title:
            body["title"] = title
        return body

    def validate(self, body: dict[str, Any]) -> SourceCreateInput:
        return parse_source_create(body)

    # --- sending -------------------------------------------------------------------------------------------

    async def _send_source(self, payload: SourceCreateInput) -> Source:
        return await catalog.create_source(self.session, payload)

    def revalidate(self) -> bool:
        ok = super().revalidate()
        if self.session.write_block_reason:
            self.submit_button.setEnabled(False)
        return ok

    def _state_changed(self, *_: object) -> None:
        self.set_writable(self.session.write_block_reason)
