"""Create or edit a host (spec 2.6): name, title, guest, backstory, personality and the voice.

Creating checks the body with ``HostCreate``; editing sends only the fields the user changed and
checks them with ``HostUpdate``. The voice is chosen in a :class:`VoiceBrowser`.
"""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtWidgets import QCheckBox, QLineEdit, QPlainTextEdit, QSizePolicy, QWidget

from castdeck.api.models import FieldError, Host, HostCreate, HostUpdate
from castdeck.api.models.limits import (
    MAX_HOST_BACKSTORY_CHARS,
    MAX_HOST_NAME_CHARS,
    MAX_HOST_PERSONALITY_CHARS,
    MAX_HOST_TITLE_CHARS,
    MIN_HOST_BACKSTORY_CHARS,
)
from castdeck.services import catalog
from castdeck.services.session import Session

from ..forms import TALLEST, FieldRow, FormDialog
from ..voice_browser import VoiceBrowser

__all__ = ["HostDialog", "html_to_text"]

_TAG = re.compile(r"<[^>]+>")
_SIMPLE_TAGS = re.compile(r"</?(p|br)\s*/?>", re.I)


def html_to_text(markup: str | None) -> str:
    """Text to edit from a backstory the service returns as HTML (paragraphs become blank lines)."""
    if not markup:
        return ""
    if not _TAG.search(markup):
        return markup
    text = re.sub(r"</p\s*>", "\n\n", markup, flags=re.I)
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
    text = html.unescape(_TAG.sub("", text))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _rich(markup: str | None) -> bool:
    """Whether the text has formatting beyond paragraphs and line breaks (lost when edited as text)."""
    return bool(markup) and bool(_TAG.search(_SIMPLE_TAGS.sub("", markup or "")))


def _holder(row: FieldRow) -> QWidget:
    """The widget that holds a form row's field, counter, hint and error (shown or hidden as one)."""
    holder = row.widget.parentWidget()
    assert holder is not None
    return holder


def _text_edit(parent: QWidget, placeholder: str, height: int) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setFixedHeight(height)
    return edit


class HostDialog(FormDialog):
    """``host=None`` creates a host; otherwise edits ``host`` (only changed fields are sent)."""

    def __init__(self, session: Session, host: Host | None = None, parent: QWidget | None = None) -> None:
        editing = host is not None
        self.session = session  # before the form is built: building it revalidates, which reads it
        super().__init__(
            "Edit host" if editing else "New host",
            lambda payload: self._send_host(payload),
            submit_label="Save changes" if editing else "Create host",
            parent=parent,
        )
        self.host = host
        self.resize(800, TALLEST)

        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText("The name listeners hear, such as Maya Chen")
        self.add_field("name", "Name", self.name_edit, limit=(1, MAX_HOST_NAME_CHARS))
        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("Optional, such as Science editor")
        self.add_field("title", "Title", self.title_edit, limit=(1, MAX_HOST_TITLE_CHARS))
        self.guest_check = QCheckBox("A guest rather than a regular host", self)
        self.add_field("is_guest", "Guest", self.guest_check)
        self.backstory_edit = _text_edit(self, "Who the host is: background, expertise, how they talk.", 96)
        backstory_hint = None
        if host is not None and _rich(host.backstory):
            backstory_hint = (
                "The current backstory has formatting; a changed backstory is saved as plain text."
            )
        self.add_field(
            "backstory",
            "Backstory",
            self.backstory_edit,
            limit=(MIN_HOST_BACKSTORY_CHARS, MAX_HOST_BACKSTORY_CHARS),
            hint=backstory_hint,
        )
        self.personality_edit = _text_edit(self, "Optional: temperament, humour, quirks.", 64)
        self.add_field(
            "personality", "Personality", self.personality_edit, limit=(1, MAX_HOST_PERSONALITY_CHARS)
        )
        self.voice_browser = VoiceBrowser(session, self)
        self.add_field("voice_id", "Voice", self.voice_browser)
        for name, row in self.rows.items():  # extra height goes to the voice list, not between rows
            grows = name == "voice_id"
            _holder(row).setSizePolicy(
                QSizePolicy.Policy.Preferred,
                QSizePolicy.Policy.Expanding if grows else QSizePolicy.Policy.Fixed,
            )

        self._original: dict[str, Any] = {}
        if host is not None:
            self._original = {
                "name": host.name or "",
                "title": host.title or "",
                "backstory": html_to_text(host.backstory),
                "personality": html_to_text(host.personality),
                "is_guest": bool((host.model_extra or {}).get("is_guest")),
                "voice_id": host.voice_id,
            }
            self.name_edit.setText(self._original["name"])
            self.title_edit.setText(self._original["title"])
            self.backstory_edit.setPlainText(self._original["backstory"])
            self.personality_edit.setPlainText(self._original["personality"])
            self.guest_check.setChecked(self._original["is_guest"])
            if host.voice_id is not None:
                self.voice_browser.select_voice(host.voice_id, host.voice)
            for row in self.rows.values():
                row.touched = False

        session.stateChanged.connect(self._state_changed)
        self._state_changed()

    # --- the body ------------------------------------------------------------------------------------------

    def _values(self) -> dict[str, Any]:
        return {
            "name": self.name_edit.text().strip(),
            "title": self.title_edit.text().strip(),
            "backstory": self.backstory_edit.toPlainText().strip(),
            "personality": self.personality_edit.toPlainText().strip(),
            "is_guest": self.guest_check.isChecked(),
            "voice_id": self.voice_browser.selected_voice_id(),
        }

    def collect(self) -> dict[str, Any]:
        values = self._values()
        if self.host is None:
            body = {k: v for k, v in values.items() if k != "is_guest" and v not in ("", None)}
            if values["is_guest"]:
                body["is_guest"] = True
            return body
        body = {}
        for name, value in values.items():
            original = self._original.get(name)
            if name in ("title", "personality") and value == "":
                continue  # clearing is refused by the service (see extra_errors)
            if value != original and not (name == "voice_id" and value is None):
                body[name] = value
        return body

    def validate(self, body: dict[str, Any]) -> HostCreate | HostUpdate:
        if self.host is None:
            return HostCreate.model_validate(body)
        return HostUpdate.model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        if self.host is None:
            return []
        errors = []
        values = self._values()
        for name, what in (("title", "a title"), ("personality", "a personality")):
            if values[name] == "" and self._original.get(name):
                message = f"The service cannot remove {what} once set; type a new one or undo the change."
                errors.append(FieldError(field=name, message=message))
        if not body and not errors:
            errors.append(FieldError(field="", message="Nothing has changed yet."))
        return errors

    # --- sending -------------------------------------------------------------------------------------------

    async def _send_host(self, payload: HostCreate | HostUpdate) -> Host:
        host = self.host
        if host is None:
            assert isinstance(payload, HostCreate)
            return await catalog.create_host(self.session, payload)
        assert isinstance(payload, HostUpdate)
        return await catalog.update_host(self.session, host.id, payload)

    def revalidate(self) -> bool:
        ok = super().revalidate()
        if self.session.write_block_reason:
            self.submit_button.setEnabled(False)
        return ok

    def _state_changed(self, *_: object) -> None:
        self.set_writable(self.session.write_block_reason)
