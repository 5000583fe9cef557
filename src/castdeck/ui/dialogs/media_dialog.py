"""Create a Video, Short or Voiceover (spec 2.9), built from the collection's ``options``.

Videos and Shorts start from a prompt or from a finished script (which needs a style and takes
its speakers from bracketed labels, so hosts and research sources are not offered). Voiceovers
narrate uploaded visuals in the order the user ticks them. Every rule is checked as the user
types with the input models of ``castdeck.api.models.media``.

Create goes through the session's outbox: the request is stored with its idempotency key before it
is sent, so a network failure as the user presses Create leaves it kept and resent with the same
key (the service starts it once) while a job card follows it. A definite rejection is shown under
the fields; the corrected input goes out as a new request with a new key.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from castdeck.api.models import FieldError, MediaOptions, Source
from castdeck.api.models.limits import (
    MAX_MEDIA_HOSTS,
    MAX_MEDIA_PROMPT_CHARS,
    MAX_MEDIA_SCRIPT_CHARS,
    MAX_RESEARCH_SOURCES,
    MAX_VOICEOVER_DIRECTION_CHARS,
    MAX_VOICEOVER_SOURCES,
    MAX_VOICEOVER_VISUALS,
)
from castdeck.api.models.media import (
    ShortCreateInput,
    ShortScriptCreateInput,
    VideoCreateInput,
    VideoScriptCreateInput,
    VoiceoverCreateInput,
)
from castdeck.services.background import Background
from castdeck.services.media_actions import COLLECTIONS, MediaActions, MediaCollection, format_duration
from castdeck.services.session import Session
from castdeck.services.source_use import (
    is_research_source,
    is_visual_source,
    visual_count,
    visual_source_problem,
)
from castdeck.services.starting import Started

from ..accessible import shows_value
from ..forms import FieldRow, FormDialog
from ..pickers import CheckPicker, ComboPicker, host_feed, host_label, source_feed, source_label
from .visual_drop import VisualDrop

__all__ = [
    "COLLECTIONS",
    "MediaCollection",
    "MediaCreateDialog",
    "format_duration",
    "is_research_source",
    "is_visual_source",
    "visual_count",
    "visual_source_problem",
]


ORIENTATIONS = (
    ("AUTO", "Auto"),
    ("LANDSCAPE", "Landscape (16:9)"),
    ("PORTRAIT", "Portrait (9:16)"),
    ("SQUARE", "Square (1:1)"),
)
VISUAL_MOTIONS = (
    ("static", "Static: every visual holds still"),
    ("dynamic", "Dynamic: every visual slowly zooms"),
    ("auto", "Auto: document pages still, images zoomed"),
)


# --- which sources fit (the rules: castdeck.services.source_use) ------------------------------------------


def _metadata(source: Source) -> dict[str, Any]:
    return source.metadata if isinstance(source.metadata, dict) else {}


def visual_source_label(source: Source) -> str:
    problem = visual_source_problem(source)
    name = source.title or source.id
    if problem:
        return f"{name} — {problem}"
    count = visual_count(source)
    file_name = _metadata(source).get("file_name")
    return f"{name} — {count} visual{'s' if count != 1 else ''}" + (f" ({file_name})" if file_name else "")


# --- friendlier messages -----------------------------------------------------------------------------------


def _friendly(field: str, message: str, voiceover: bool) -> str:
    top = field.split(".")[0]
    text = message.lower()
    if top == "host_ids" and "at most" in text:
        return f"Choose at most {MAX_MEDIA_HOSTS} hosts."
    if top in ("host_ids", "source_ids") and "unique" in text:
        return "Each item may be chosen only once."
    if top == "source_ids" and voiceover and ("at least" in text or "required" in text):
        return "Tick at least one visuals source."
    if top == "source_ids" and "at most" in text and "items" in text:
        limit = MAX_VOICEOVER_SOURCES if voiceover else MAX_RESEARCH_SOURCES
        return f"Choose at most {limit} sources."
    if top == "style_id" and "required" in text:
        return "A finished script needs a style: choose one."
    if top == "prompt" and ("required" in text or "blank" in text):
        return "Describe what the video should be about."
    if top == "script" and ("required" in text or "blank" in text):
        return "Paste the finished script."
    return message


def _combo(parent: QWidget, items: list[tuple[Any, str]], selected: Any = None) -> QComboBox:
    combo = QComboBox(parent)
    for value, label in items:
        combo.addItem(label, value)
    index = combo.findData(selected)
    combo.setCurrentIndex(index if index >= 0 else 0)
    return combo


def _text_edit(parent: QWidget, placeholder: str, height: int) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setFixedHeight(height)
    return edit


class MediaCreateDialog(FormDialog):
    """The create dialog of one collection; ``result_value`` is the :class:`Accepted` answer, or the
    kept :class:`OutboxEntry` when the service has not answered yet (the outbox resends it)."""

    def __init__(
        self,
        session: Session,
        background: Background,
        collection: str,
        options: MediaOptions,
        parent: QWidget | None = None,
    ) -> None:
        self.info = COLLECTIONS[collection]
        super().__init__(
            f"New {self.info.noun}",
            self._send_create,
            submit_label=f"Create {self.info.noun}",
            parent=parent,
        )
        self.setObjectName(f"{collection}-create")
        self.session = session
        self.background = background
        self.options = options
        self.media_actions = MediaActions(
            session, background.jobs, background.starter, background.downloads, collection
        )
        self.attempts = 0
        self._fresh: set[str] = set()
        self.voiceover = self.info.kind == "voiceover"
        if self.voiceover:
            self._build_voiceover()
        else:
            self._build_prompt_modes()
        self._fit()

    def _fit(self) -> None:
        """As tall as the visible fields need (no gaps where hidden rows were), and wide enough to read.
        The width first: the hints under the fields wrap to fewer lines once wide, and a height
        measured at the narrower width left a gap in the fields."""
        width = max(self.width(), 760)
        self.resize(width, self.height())
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the fields take that width before their height is measured
        self.area.updateGeometry()  # its height at that width (its layout kept the one from before)
        self.fit_to_fields(width)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self._fit()  # laid out at its real width now: fitted to it before it is first painted

    # --- building ------------------------------------------------------------------------------------------

    def _holder_of(self, row: FieldRow) -> QWidget:
        holder = row.widget.parentWidget()
        assert holder is not None
        return holder

    def _add_below(self, row: FieldRow, label: QLabel) -> None:
        """An extra line under a field's widget (a style description, the presentation order)."""
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setStyleSheet("color: palette(mid);")
        layout = self._holder_of(row).layout()
        assert isinstance(layout, QVBoxLayout)  # FormDialog.add_field stacks each field in one
        layout.insertWidget(1, label)

    def _add_picker(self, name: str, label: str, picker: CheckPicker, hint: str) -> FieldRow:
        """A picker's first fill is not the user's doing: its errors wait until the user ticks something."""
        picker.loaded.connect(lambda: self._fresh.add(name))
        row = self.add_field(name, label, picker, hint=hint)
        picker.changed.connect(lambda: self._settle_loaded(name))
        return row

    def _settle_loaded(self, name: str) -> None:
        if name in self._fresh:
            self._fresh.discard(name)
            self.rows[name].touched = False
            self.revalidate()

    def _duration_combo(self, automatic: str | None) -> QComboBox:
        default = self.options.default_duration_seconds
        items: list[tuple[Any, str]] = []
        if automatic is not None or default is None:
            items.append((None, automatic or "The saved setting"))
        for seconds in self.options.supported_duration_seconds:
            items.append((seconds, format_duration(seconds) + (" (default)" if seconds == default else "")))
        return _combo(self, items, default)

    def _orientation_combo(self) -> QComboBox:
        items = [(value, f"Auto: {self.info.auto_orientation}" if value == "AUTO" else label)
                 for value, label in ORIENTATIONS]  # fmt: skip
        return _combo(self, items, "AUTO")

    def _language_combo(self) -> QComboBox:
        from ..panes.voices import LANGUAGES  # here: the panes package imports this module

        default = self.options.default_language or "en"
        items: list[tuple[Any, str]] = [
            (code, f"{name} ({code})") for code, name in LANGUAGES.items() if code
        ]
        if default not in LANGUAGES:
            items.insert(0, (default, default))
        items = [(code, label + (" (default)" if code == default else "")) for code, label in items]
        return _combo(self, items, default)

    def _build_prompt_modes(self) -> None:
        noun = self.info.noun
        self.mode = _combo(self, [("prompt", "From a prompt"), ("script", "From a finished script")])
        self.add_field(
            "mode", "Start from", self.mode,
            hint="A finished script needs a style; its [Speaker] labels choose the hosts, so hosts and "
                 "research sources are not used.",
        )  # fmt: skip
        self.prompt = _text_edit(self, f"What should the {noun} be about? Topic, angle, audience, tone…", 110)
        self.add_field("prompt", "Prompt", self.prompt, limit=(1, MAX_MEDIA_PROMPT_CHARS))
        self.script = _text_edit(
            self, "[Alex Rivera]\nWelcome! Today we look at…\n\n[Maya Chen]\nThanks, Alex…", 150
        )
        self.add_field(
            "script", "Script", self.script, limit=(1, MAX_MEDIA_SCRIPT_CHARS),
            hint="Put each speaker label such as [Alex Rivera] on its own line before their words; "
                 "labels must match saved hosts.",
        )  # fmt: skip

        self.style_combo = QComboBox(self)
        self.style_combo.addItem("No style: use the saved setting", None)
        for style in self.options.styles:
            self.style_combo.addItem(style.name or style.id, style.id)
            self.style_combo.setItemData(
                self.style_combo.count() - 1, style.description or "", Qt.ItemDataRole.ToolTipRole
            )
        default_style = self.style_combo.findData(self.options.default_style_id)
        self.style_combo.setCurrentIndex(default_style if default_style >= 0 else 0)
        style_row = self.add_field("style_id", "Style", self.style_combo)
        self.style_description = QLabel(self)
        shows_value(self.style_description, "Style description")
        self._add_below(style_row, self.style_description)
        self.style_combo.currentIndexChanged.connect(self._style_changed)
        self._style_changed()

        self.duration = self._duration_combo(None)
        self.add_field("target_duration_seconds", "Length", self.duration)
        self.orientation = self._orientation_combo()
        self.add_field(
            "orientation", "Orientation", self.orientation,
            hint=f"Auto makes {self.info.title.lower()} {self.info.auto_orientation}.",
        )  # fmt: skip
        self.language = self._language_combo()
        self.add_field("language", "Language", self.language)

        self.hosts = CheckPicker(host_feed(self.session), host_label, maximum=MAX_MEDIA_HOSTS, name="hosts")
        self.hosts.list.setMaximumHeight(110)
        self._add_picker(
            "host_ids", "Hosts", self.hosts,
            f"Tick 1 to {MAX_MEDIA_HOSTS} hosts, or none: the organization's saved narrator speaks.",
        )  # fmt: skip
        self.sources = CheckPicker(
            source_feed(self.session), source_label, accepts=is_research_source,
            maximum=MAX_RESEARCH_SOURCES, name="research sources",
        )  # fmt: skip
        self.sources.list.setMaximumHeight(130)
        self._add_picker(
            "source_ids", "Research sources", self.sources,
            f"Optional, up to {MAX_RESEARCH_SOURCES}. Sources that failed or were never uploaded are greyed out.",
        )  # fmt: skip
        if self.info.kind == "short":
            self.music = QCheckBox("Play music under the narration", self)
            self.add_field("background_music", "Background music", self.music)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self._mode_changed()

    def _build_voiceover(self) -> None:
        self.visuals = CheckPicker(
            source_feed(self.session), visual_source_label, accepts=is_visual_source,
            maximum=MAX_VOICEOVER_SOURCES, name="visuals",
        )  # fmt: skip
        self.visuals.list.setMaximumHeight(150)
        visuals_row = self._add_picker(
            "source_ids", "Visuals", self.visuals,
            f"Tick 1 to {MAX_VOICEOVER_SOURCES} uploaded files with prepared visuals, in the order they are "
            f"shown (at most {MAX_VOICEOVER_VISUALS} pages or images in total). Other sources are greyed out.",
        )  # fmt: skip
        self.order = QLabel(self)
        shows_value(self.order, "Presentation order")
        self._add_below(visuals_row, self.order)
        # files dropped on the list are uploaded as prepared visuals and ticked when ready
        self.visual_drop = VisualDrop(
            self.session, self.background, self.visuals, label=visual_source_label, accepts=is_visual_source,
            count=visual_count, parent=self,
        )  # fmt: skip
        holder_layout = self._holder_of(visuals_row).layout()
        assert isinstance(holder_layout, QVBoxLayout)
        holder_layout.insertWidget(2, self.visual_drop)
        self.visuals.changed.connect(self._order_changed)
        self._order_changed()

        self.direction = _text_edit(self, "Optional: tone, pace, what to point out on each visual…", 100)
        self.add_field("direction", "Direction", self.direction, limit=(0, MAX_VOICEOVER_DIRECTION_CHARS))
        self.duration = self._duration_combo("Automatic: from the content")
        self.add_field(
            "target_duration_seconds", "Length", self.duration,
            hint="The plan sets the longest Voiceover; only the lengths it allows are listed.",
        )  # fmt: skip
        self.captions = QCheckBox("Show captions of the narration", self)
        self.add_field("captions_enabled", "Captions", self.captions)
        self.motion = _combo(self, list(VISUAL_MOTIONS), "static")
        self.add_field("visual_motion", "Visual motion", self.motion)
        self.host = ComboPicker(
            host_feed(self.session), host_label, none_label="The saved narrator", name="host"
        )
        self.add_field(
            "host_id", "Host", self.host, hint="One host narrates; the saved narrator when none is chosen."
        )
        self.language = self._language_combo()
        self.add_field("language", "Language", self.language)
        self.orientation = self._orientation_combo()
        self.add_field(
            "orientation", "Orientation", self.orientation,
            hint=f"Auto makes voiceovers {self.info.auto_orientation}; portrait and square are supported too.",
        )  # fmt: skip

    def _style_changed(self, *_: object) -> None:
        style_id = self.style_combo.currentData()
        style = next((s for s in self.options.styles if s.id == style_id), None)
        self.style_description.setText(style.description or "" if style else "")
        self.style_description.setVisible(bool(style and style.description))

    def _mode_changed(self, *_: object) -> None:
        script = self.script_mode
        for name, visible in (("prompt", not script), ("script", script), ("host_ids", not script),
                              ("source_ids", not script)):  # fmt: skip
            self.form.setRowVisible(self._holder_of(self.rows[name]), visible)
        self.revalidate()
        self._fit()

    def _order_changed(self) -> None:
        ids = self.visuals.selected_ids()
        if not ids:
            self.order.setText("Presentation order: tick the visuals in the order they should appear.")
            return
        names = [self.visuals.items[i].title or i for i in ids if i in self.visuals.items]
        total = sum(visual_count(self.visuals.items[i]) for i in ids if i in self.visuals.items)
        self.order.setText(
            "Presentation order: "
            + ", ".join(f"{n}. {name}" for n, name in enumerate(names, 1))
            + f"  ({total} of at most {MAX_VOICEOVER_VISUALS} visuals)"
        )

    @property
    def script_mode(self) -> bool:
        return not self.voiceover and self.mode.currentData() == "script"

    # --- the body ------------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        return self._collect_voiceover() if self.voiceover else self._collect_prompt_modes()

    def _common(self, body: dict[str, Any]) -> None:
        duration = self.duration.currentData()
        if duration is not None:
            body["target_duration_seconds"] = int(duration)
        body["orientation"] = self.orientation.currentData()
        if self.language.currentData():
            body["language"] = self.language.currentData()

    def _collect_prompt_modes(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.script_mode:
            body["script"] = self.script.toPlainText()
        else:
            body["prompt"] = self.prompt.toPlainText()
        if self.style_combo.currentData():
            body["style_id"] = self.style_combo.currentData()
        self._common(body)
        if not self.script_mode:
            if hosts := self.hosts.selected_ids():
                body["host_ids"] = hosts
            if sources := self.sources.selected_ids():
                body["source_ids"] = sources
        if self.info.kind == "short":
            body["background_music"] = self.music.isChecked()
        return body

    def _collect_voiceover(self) -> dict[str, Any]:
        body: dict[str, Any] = {"source_ids": self.visuals.selected_ids()}
        direction = self.direction.toPlainText()
        if direction.strip():
            body["direction"] = direction
        self._common(body)
        body["captions_enabled"] = self.captions.isChecked()
        body["visual_motion"] = self.motion.currentData()
        if host_id := self.host.selected_id():
            body["host_id"] = host_id
        return body

    def validate(self, body: dict[str, Any]) -> Any:
        if self.voiceover:
            return VoiceoverCreateInput.model_validate(body)
        script = "script" in body
        if self.info.kind == "short":
            return (ShortScriptCreateInput if script else ShortCreateInput).model_validate(body)
        return (VideoScriptCreateInput if script else VideoCreateInput).model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        if not self.voiceover:
            return []
        chosen = [self.visuals.items[i] for i in body.get("source_ids") or [] if i in self.visuals.items]
        total = sum(visual_count(s) for s in chosen)
        if total > MAX_VOICEOVER_VISUALS:
            message = f"These sources hold {total} visuals; at most {MAX_VOICEOVER_VISUALS} in total."
            return [FieldError(field="source_ids", message=message)]
        return []

    def check(self) -> tuple[Any, list[FieldError]]:
        value, errors = super().check()
        return value, [
            FieldError(field=e.field, message=_friendly(e.field, e.message, self.voiceover)) for e in errors
        ]

    # --- sending -------------------------------------------------------------------------------------------

    async def _send_create(self, payload: Any) -> Started:
        """Through the outbox: the accepted job, or the kept request when no answer came (it is
        resent with its key by itself). A refusal raises here; correcting it sends a new key."""
        self.attempts += 1
        return await self.media_actions.create(payload)
