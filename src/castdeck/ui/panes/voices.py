"""Voices: the browsable catalogue, filtered on the service by language, gender and voice type."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from castdeck.api.models import Voice
from castdeck.services.listing import ListFeed, list_key
from castdeck.services.session import Session

from ..pane import ResourcePane
from ..resource_model import Column

__all__ = ["LANGUAGES", "VoiceFilters", "VoicesPane", "voice_columns", "voice_facts"]

LANGUAGES = {
    "": "Any language", "ar": "Arabic", "de": "German", "en": "English", "es": "Spanish", "fr": "French",
    "hi": "Hindi", "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "pl": "Polish",
    "pt": "Portuguese", "sv": "Swedish", "tr": "Turkish", "zh": "Chinese",
}  # fmt: skip
GENDERS = {"": "Any gender", "female": "Female", "male": "Male", "other": "Other"}
VOICE_TYPES = {"": "Any type", "professional": "Professional", "clone": "Clone", "design": "Design"}


def voice_columns() -> list[Column]:
    return [
        Column("Voice", lambda v: v.description or f"Voice {v.id}"),
        Column("Language", lambda v: v.language),
        Column("Gender", lambda v: (v.gender or "").capitalize()),
        Column("Accent", lambda v: v.accent),
        Column("Type", lambda v: (v.voice_type or "").capitalize()),
        Column(
            "ID",
            lambda v: v.id,
            sort_key=lambda v: (0, v.id) if isinstance(v.id, int) else (1, str(v.id)),
            align_right=True,
        ),
    ]


def voice_facts(voice: Voice | Any) -> list[tuple[str, Any]]:
    language = voice.language or ""
    return [
        ("ID", voice.id),
        ("Language", f"{LANGUAGES.get(language, language)} ({language})" if language else None),
        ("Gender", (voice.gender or "").capitalize()),
        ("Accent", voice.accent),
        ("Voice type", (voice.voice_type or "").capitalize()),
        ("Model", voice.model),
    ]


def _combo(options: dict[str, str], name: str, parent: QWidget) -> QComboBox:
    combo = QComboBox(parent)
    combo.setAccessibleName(name)
    for value, label in options.items():
        combo.addItem(label, value)
    return combo


class VoiceFilters(QWidget):
    """The three server-side voice filters; ``changed`` fires when any of them changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.language = _combo(LANGUAGES, "Voice language filter", self)
        self.gender = _combo(GENDERS, "Voice gender filter", self)
        self.voice_type = _combo(VOICE_TYPES, "Voice type filter", self)
        for combo in (self.language, self.gender, self.voice_type):
            layout.addWidget(combo)
            combo.currentIndexChanged.connect(lambda _i: self.changed.emit())

    def values(self) -> dict[str, str | None]:
        return {
            "language": self.language.currentData() or None,
            "gender": self.gender.currentData() or None,
            "voice_type": self.voice_type.currentData() or None,
        }


def voice_feed(session: Session, filters: dict[str, str | None], page_size: int = 100) -> ListFeed[Voice]:
    return ListFeed(
        session, "voice", list_key("voices", **filters),
        lambda client: client.voices.list(limit=page_size, **filters), Voice,
    )  # fmt: skip


class VoicesPane(ResourcePane):
    title = "Voices"
    kind = "voice"

    _built = False
    """False while the base class builds the pane and already asks it for its list."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.voice_filters = VoiceFilters(self)
        self.filters.addWidget(self.voice_filters)
        self.voice_filters.changed.connect(self.reload)
        self._built = True

    def columns(self) -> list[Column]:
        return voice_columns()

    def open_list(self) -> ListFeed[Voice]:
        filters = self.voice_filters.values() if self._built else {}
        return voice_feed(self.session, filters, self.page_size)

    def show_item(self, item: Voice) -> None:
        self.details.show_facts(item.description or f"Voice {item.id}", voice_facts(item))
