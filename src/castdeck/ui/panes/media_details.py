"""What the media panes' details say of a Video, Short or Voiceover, beyond its list's columns:
its phase and error as words, its Duration, and the settings it was made with.

These hold no state of the pane. A job's ``error`` may be a sentence or an error object; either
is shown as a sentence. Strings from the service are shown as text, never as markup.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel

from castdeck.api.models import MediaJob
from castdeck.services.media_actions import format_duration

from ..details_panel import DetailsPanel
from .media_length import FROM_FILE, ItemLength
from .voices import LANGUAGES

__all__ = [
    "ORIENTATION_TEXT",
    "finish_facts",
    "phase_text",
    "readable_error",
    "say_duration",
    "settings_rows",
]

ORIENTATION_TEXT = {"LANDSCAPE": "Landscape", "PORTRAIT": "Portrait", "SQUARE": "Square", "AUTO": "Auto"}


def phase_text(phase: str | None) -> str:
    return (phase or "").replace("_", " ").capitalize()


def readable_error(error: Any) -> str:
    """A job's ``error``: a sentence as sent, or the message (and code) of an error object."""
    if error is None or error == "":
        return ""
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or error.get("title") or error.get("reason")
        code = error.get("code") or error.get("type")
        if message:
            return f"{message} ({code})" if code and code != message else str(message)
        if code:
            return str(code)
    return json.dumps(error, ensure_ascii=False, default=str)


def say_duration(label: QLabel, length: ItemLength | None, noun: str, *, readable: bool) -> None:
    """The details' Duration: the item's own length and where it comes from, or why none is known."""
    if length is None:
        label.setText("Not known yet" if readable else "Not given by the service")
        label.setToolTip(
            f"The service gives no length; Castdeck reads it from the file once the {noun} is previewed here."
            if readable
            else f"The service gives no length, and this computer cannot open the {noun} file."
        )
        return
    label.setText(format_duration(length.seconds))
    label.setToolTip(
        "Read from its file on this computer (the service gives no length)"
        if length.source == FROM_FILE
        else "As the service gives it"
    )


def finish_facts(details: DetailsPanel) -> None:
    """Strings from the service are shown as text, never as markup; and the new rows are shown now
    (a layout shows new children of a visible widget only on a later turn of the event loop)."""
    details.heading.setTextFormat(Qt.TextFormat.PlainText)
    details.note.setTextFormat(Qt.TextFormat.PlainText)
    form = details.form
    for row in range(form.rowCount()):
        for role in (QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole):
            item = form.itemAt(row, role)
            widget = item.widget() if item is not None else None
            if widget is None:
                continue
            field = role is QFormLayout.ItemRole.FieldRole
            if field and isinstance(widget, QLabel) and widget.textFormat() == Qt.TextFormat.AutoText:
                widget.setTextFormat(Qt.TextFormat.PlainText)
            widget.show()


def settings_rows(item: MediaJob, kind: str) -> list[tuple[str, Any]]:
    """The rows of the settings it was made with (those the service sends for its kind)."""
    rows: list[tuple[str, Any]] = []
    orientation = getattr(item, "orientation", None)
    if orientation:
        rows.append(("Orientation", ORIENTATION_TEXT.get(str(orientation), str(orientation))))
    language = getattr(item, "language", None)
    if language:
        name = LANGUAGES.get(str(language))
        rows.append(("Language", f"{name} ({language})" if name else str(language)))
    sources = getattr(item, "source_ids", None)
    if isinstance(sources, list):
        label = "Visuals" if kind == "voiceover" else "Research sources"
        rows.append(
            (label, f"{len(sources)} source{'s' if len(sources) != 1 else ''}" if sources else "None")
        )
    for field, label in (("background_music", "Background music"), ("captions_enabled", "Captions")):
        value = getattr(item, field, None)
        if isinstance(value, bool):
            rows.append((label, "On" if value else "Off"))
    motion = getattr(item, "visual_motion", None)
    if motion:
        rows.append(("Visual motion", str(motion).capitalize()))
    return rows
