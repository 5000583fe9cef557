"""Create or edit a podcast (spec 2.2): title, description, episode order, language, visibility, hosts.

Creating checks the body with ``PodcastCreate`` (visibility public or private); editing sends only
the fields the user changed, checked with ``PodcastUpdate`` (where ``unlisted`` is also allowed).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QWidget

from castdeck.api.models import FieldError, Podcast, PodcastCreate, PodcastUpdate
from castdeck.api.models.limits import DEFAULT_PODCAST_LANGUAGE, MAX_PODCAST_TITLE_CHARS
from castdeck.services import catalog
from castdeck.services.session import Session

from ..pickers import CheckPicker, host_feed, host_label
from .episode_dialogs import SessionDialog
from .host_dialog import _rich, html_to_text

__all__ = ["EPISODE_ORDERS", "VISIBILITIES", "PodcastDialog"]

EPISODE_ORDERS = {
    "serial": "Serial — listened to in order, oldest first",
    "episodic": "Episodic — any order, newest first",
}
VISIBILITIES = {
    "public": "Public — listed, with a website and an RSS feed",
    "private": "Private — only your organization",
    "unlisted": "Unlisted — reachable by link, not listed",
}


def _combo(options: dict[str, str], parent: QWidget) -> QComboBox:
    combo = QComboBox(parent)
    for value, label in options.items():
        combo.addItem(label, value)
    return combo


class PodcastDialog(SessionDialog):
    """``podcast=None`` creates a podcast; otherwise edits it (only changed fields are sent)."""

    def __init__(
        self, session: Session, podcast: Podcast | None = None, parent: QWidget | None = None
    ) -> None:
        editing = podcast is not None
        super().__init__(
            session,
            "Edit podcast" if editing else "New podcast",
            lambda payload: self._send_podcast(payload),
            submit_label="Save changes" if editing else "Create podcast",
            parent=parent,
        )
        self.podcast = podcast
        self.resize(640, 600)

        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("The show's name, such as The Curious Current")
        self.add_field("title", "Title", self.title_edit, limit=(1, MAX_PODCAST_TITLE_CHARS))
        self.description_edit = QPlainTextEdit(self)
        self.description_edit.setPlaceholderText("What the show is about (plain text or HTML)")
        self.description_edit.setTabChangesFocus(True)
        self.description_edit.setMinimumHeight(90)
        hint = "Plain text or HTML. Blank lines separate paragraphs."
        if podcast is not None and _rich(podcast.description):
            hint = "The description has formatting and is shown as HTML; edit the markup with care."
        self.add_field("description", "Description", self.description_edit, hint=hint)
        self.order_combo = _combo(EPISODE_ORDERS, self)
        self.add_field("episode_order", "Episode order", self.order_combo)
        self.language_edit = QLineEdit(self)
        self.language_edit.setPlaceholderText("en")
        self.language_edit.setMaxLength(8)
        self.language_edit.setMaximumWidth(120)
        self.add_field(
            "language",
            "Language",
            self.language_edit,
            hint="Two or three letters (ISO 639), such as en, de, fil.",
        )
        options = dict(VISIBILITIES) if editing else {k: VISIBILITIES[k] for k in ("public", "private")}
        self.visibility_combo = _combo(options, self)
        self.add_field(
            "visibility",
            "Visibility",
            self.visibility_combo,
            hint=None if editing else "A podcast can be made unlisted once it exists.",
        )
        self.messages["language"] = "Use two or three letters, such as en, de or fil."
        self.messages["host_ids"] = "Choose at least one host."
        self.hosts_picker = CheckPicker(host_feed(session), host_label, name="hosts", parent=self)
        self.hosts_picker.setMinimumHeight(150)
        self.add_picker("host_ids", "Hosts", self.hosts_picker, hint="At least one host.")

        self._original: dict[str, Any] = {}
        if podcast is not None:
            description = podcast.description or ""
            self.title_edit.setText(podcast.title or "")
            self.description_edit.setPlainText(
                description if _rich(description) else html_to_text(description)
            )
            self._select(self.order_combo, podcast.episode_order)
            self.language_edit.setText((podcast.languages or [""])[0] if podcast.languages else "")
            self._select(self.visibility_combo, podcast.visibility)
            host_ids = [str(h) for h in podcast.host_ids or []]
            self.hosts_picker.set_selected(host_ids)
            # what the form shows before the user changes anything: only differences are sent
            self._original = {**self._values(), "host_ids": host_ids}
        else:
            self.language_edit.setText(DEFAULT_PODCAST_LANGUAGE)
        for row in self.rows.values():
            row.touched = False
        self.title_edit.setFocus()

    @staticmethod
    def _select(combo: QComboBox, value: str | None) -> None:
        index = combo.findData(value)
        if index < 0 and value:  # a value this app does not know: keep it, as sent
            combo.addItem(value, value)
            index = combo.count() - 1
        combo.setCurrentIndex(max(index, 0))

    # --- the body ------------------------------------------------------------------------------------------

    def _values(self) -> dict[str, Any]:
        return {
            "title": self.title_edit.text().strip(),
            "description": self.description_edit.toPlainText().strip(),
            "episode_order": self.order_combo.currentData(),
            "language": self.language_edit.text().strip(),
            "visibility": self.visibility_combo.currentData(),
            "host_ids": self.hosts_picker.selected_ids(),
        }

    def collect(self) -> dict[str, Any]:
        values = self._values()
        if self.podcast is None:
            body = {k: v for k, v in values.items() if k not in ("description", "language")}
            if values["description"]:
                body["description"] = values["description"]
            body["language"] = values["language"]
            return body
        body = {}
        for name, value in values.items():
            original = self._original.get(name)
            if name == "host_ids":
                # hosts the list does not offer (archived) cannot be ticked: compare what can be
                known = set(self.hosts_picker.items)
                if not known or value == [h for h in original or [] if h in known]:
                    continue
            if value != original:
                body[name] = value
        return body

    def validate(self, body: dict[str, Any]) -> PodcastCreate | PodcastUpdate:
        if self.podcast is None:
            return PodcastCreate.model_validate(body)
        return PodcastUpdate.model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        if self.podcast is not None and not body:
            return [FieldError(field="", message="Nothing has changed yet.")]
        return []

    # --- sending -------------------------------------------------------------------------------------------

    async def _send_podcast(self, payload: PodcastCreate | PodcastUpdate) -> Podcast:
        podcast = self.podcast
        if podcast is None:
            assert isinstance(payload, PodcastCreate)
            return await catalog.create_podcast(self.session, payload)
        assert isinstance(payload, PodcastUpdate)
        return await catalog.update_podcast(self.session, podcast.id, payload)
