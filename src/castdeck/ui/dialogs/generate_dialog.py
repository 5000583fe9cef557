"""Generate an episode from a prompt, or from a script (spec 2.4: prompt mode and script mode).

Script mode takes a draft of the Scripts workspace or a script file (``.txt``/``.md`` text,
``.json`` structured); its labels become hosts (the draft's mapping, then host names) and
``host_ids`` lists every host that speaks.

Generate goes through the session's outbox: the request is stored with its idempotency key before
it is sent, so a network failure as the user presses Generate leaves it kept and resent with the
same key (the service starts it once) while the dialog closes and a job card follows it. The
credits the generation will hold (30 per narration minute) are estimated against the balance as
the user types.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QPlainTextEdit, QSpinBox, QVBoxLayout, QWidget

from castdeck.api.models import Account, EpisodeGenerateInput, FieldError
from castdeck.api.models.limits import (
    CREDITS_PER_NARRATION_MINUTE,
    DEFAULT_EPISODE_LENGTH_MINUTES,
    MAX_EPISODE_LENGTH_MINUTES,
    MAX_EPISODE_PROMPT_CHARS,
    MIN_EPISODE_LENGTH_MINUTES,
    MIN_EPISODE_PROMPT_CHARS,
)
from castdeck.scripts import HostRef, credits_for
from castdeck.services.background import Background
from castdeck.services.render_choice import RENDER_OFF_MEANS
from castdeck.services.session import Session
from castdeck.services.source_use import is_research_source
from castdeck.services.starting import Started

from ..accessible import shows_value
from ..palette import tone
from ..pickers import CheckPicker, ComboPicker, host_feed, host_label, podcast_feed, source_feed, source_label
from ..status import format_credits
from .episode_dialogs import SessionDialog, podcast_label
from .script_source import DRAFT, FILE, ScriptChoice, ScriptSource

__all__ = ["GenerateDialog", "estimate_credits"]

LENGTH_FIELD = "options.episode_length_minutes"
PROMPT = "prompt"
MODES = ((PROMPT, "A prompt"), (DRAFT, "A script draft"), (FILE, "A script file (.txt, .md, .json)"))


def estimate_credits(minutes: int) -> int:
    """Credits a prompt-mode generation holds: narration minutes times the rate (rendering is free)."""
    return minutes * CREDITS_PER_NARRATION_MINUTE


class GenerateDialog(SessionDialog):
    """``result_value`` is the :class:`Accepted` answer (the episode's acknowledgement and the key),
    or the kept :class:`OutboxEntry` when the service has not answered yet."""

    def __init__(
        self,
        session: Session,
        background: Background,
        podcast_id: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        self.background = background
        super().__init__(
            session,
            "Generate an episode",
            lambda payload: self._send_generate(payload),
            submit_label="Generate",
            parent=parent,
        )
        self.attempts = 0
        self.resize(720, 640)

        self.mode_combo = QComboBox(self)
        for mode, text in MODES:
            self.mode_combo.addItem(text, mode)
        self.add_field("mode", "Generate from", self.mode_combo,
                       hint="A prompt writes a new script; a script is narrated as written.")  # fmt: skip
        self.podcast_picker = ComboPicker(podcast_feed(session), podcast_label, name="podcast", parent=self)
        self.podcast_picker.set_selected(podcast_id)
        self.refill_when_back(self.podcast_picker, lambda: podcast_feed(session), podcast_id)
        self.add_field("podcast_id", "Podcast", self.podcast_picker)
        self.script_source = ScriptSource(background, parent=self)
        self.add_field("script", "Script", self.script_source,
                       hint="Its speakers become hosts: the hosts chosen under Scripts → Speakers, else by name.")  # fmt: skip
        self.hosts_picker = CheckPicker(host_feed(session), host_label, name="hosts", parent=self)
        self.refill_when_back(self.hosts_picker, lambda: host_feed(session))
        self.hosts_picker.list.setMaximumHeight(150)
        self.add_picker(
            "host_ids",
            "Hosts",
            self.hosts_picker,
            hint="The podcast's hosts are ticked; leave none to use them.",
        )
        self.prompt_edit = QPlainTextEdit(self)
        self.prompt_edit.setPlaceholderText(
            "What the episode is about: the topic, the angle, what listeners should take away."
        )
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setMinimumHeight(120)
        self.add_field(
            "prompt", "Prompt", self.prompt_edit, limit=(MIN_EPISODE_PROMPT_CHARS, MAX_EPISODE_PROMPT_CHARS)
        )
        self.length_spin = QSpinBox(self)
        self.length_spin.setRange(MIN_EPISODE_LENGTH_MINUTES, MAX_EPISODE_LENGTH_MINUTES)
        self.length_spin.setValue(DEFAULT_EPISODE_LENGTH_MINUTES)
        self.length_spin.setSuffix(" min")
        self.length_spin.setMaximumWidth(120)
        self.add_field(LENGTH_FIELD, "Length", self.length_spin)
        self.render_check = QCheckBox("Render audio and video when the script is written", self)
        self.render_check.setChecked(session.runtime.settings.render_on_send)
        self.add_field("render", "Render", self.render_check, hint=RENDER_OFF_MEANS)
        # the optional sources last: what the episode is about, how long and whether it is rendered
        # come first, in view at a laptop's height without scrolling
        self.sources_picker = CheckPicker(
            source_feed(session), source_label, accepts=is_research_source, name="sources", parent=self
        )
        self.refill_when_back(self.sources_picker, lambda: source_feed(session))
        self.sources_picker.list.setMaximumHeight(170)
        self.add_picker(
            "source_ids",
            "Research sources",
            self.sources_picker,
            hint="Optional. Sources that failed to process, or whose upload never finished, cannot be used.",
        )
        # what it holds, beside the Generate button (outside the fields, which scroll): never out of view
        self.estimate = QLabel(self)
        shows_value(self.estimate, "Credit estimate")
        self.estimate.setWordWrap(True)
        outer = self.layout()
        assert isinstance(outer, QVBoxLayout)
        outer.insertWidget(outer.count() - 1, self.estimate)

        self.podcast_picker.loaded.connect(self._podcast_changed)
        self.podcast_picker.currentIndexChanged.connect(self._podcast_changed)
        self.hosts_picker.loaded.connect(self._podcast_changed)
        self.sources_picker.loaded.connect(self.revalidate)
        self.length_spin.valueChanged.connect(self._update_estimate)
        session.accountChanged.connect(self._account_changed)
        self._hosts_by_user = False
        self.hosts_picker.list.itemChanged.connect(self._hosts_ticked)
        self.mode_combo.currentIndexChanged.connect(self._mode_changed)
        self.script_source.changed.connect(self._script_changed)
        self._mode_changed()
        self._update_estimate()
        for row in self.rows.values():
            row.touched = False
        self.prompt_edit.setFocus()

    # --- modes ---------------------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(mode))

    def _mode_changed(self, *_: object) -> None:
        script = self.mode != PROMPT
        for name in ("prompt", "source_ids", LENGTH_FIELD, "host_ids"):
            self._show_row(name, not script)
        self._show_row("script", script)
        if script:
            self.script_source.set_kind(self.mode)
        self._update_estimate()
        self.revalidate()
        self.fit_to_fields(at_least=420)  # no empty space where the prompt's fields were

    def _show_row(self, name: str, visible: bool) -> None:
        holder = self.rows[name].widget.parentWidget()
        if holder is not None:
            self.form.setRowVisible(holder, visible)

    def _script_changed(self) -> None:
        self.rows["script"].touched = True
        self._update_estimate()
        self.revalidate()

    def hosts(self) -> list[HostRef] | None:
        items = self.hosts_picker.items
        return [HostRef(str(h.id), h.name or str(h.id)) for h in items.values()] if items else None

    def script_choice(self) -> ScriptChoice:
        return self.script_source.choice(self.hosts())

    # --- reactions -----------------------------------------------------------------------------------------

    def _hosts_ticked(self, *_: object) -> None:
        self._hosts_by_user = True  # only the user's ticks: filling the list blocks this signal

    def _podcast_changed(self, *_: object) -> None:
        """Tick the chosen podcast's hosts (until the user chooses hosts themselves)."""
        podcast = self.podcast_picker.items.get(self.podcast_picker.selected_id() or "")
        if podcast is not None and not self._hosts_by_user and self.hosts_picker.items:
            self.hosts_picker.set_selected([str(h) for h in podcast.host_ids or []])
        self.revalidate()

    def _account_changed(self, _account: Account) -> None:
        self._update_estimate()
        self.revalidate()

    @property
    def balance(self) -> float | None:
        account = self.session.account
        return None if account is None else float(account.credits.balance)

    def _credits(self) -> tuple[int, str]:
        if self.mode == PROMPT:
            minutes = self.length_spin.value()
            return estimate_credits(minutes), f"{minutes} min"
        choice = self.script_choice()
        self.script_source.describe(choice)
        return credits_for(choice.minutes), f"about {choice.minutes:.1f} min"

    def _update_estimate(self, *_: object) -> None:
        credits, minutes = self._credits()
        balance = self.balance
        text = f"Holds about {credits:,} credits ({minutes} × {CREDITS_PER_NARRATION_MINUTE} per narration minute)"
        if balance is None:
            text += "; the balance is not known yet."
            self.estimate.setStyleSheet("")
        elif credits > balance:
            text += f" — more than the balance of {format_credits(balance)}."
            self.estimate.setStyleSheet(f"color: {tone('problem')};")
        else:
            text += f" of the balance of {format_credits(balance)}."
            self.estimate.setStyleSheet("")
        self.estimate.setText(text)

    # --- the body ------------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        if self.mode != PROMPT:
            return self._collect_script()
        body: dict[str, Any] = {"prompt": self.prompt_edit.toPlainText()}
        if self.podcast_picker.selected_id():
            body["podcast_id"] = self.podcast_picker.selected_id()
        hosts = self.hosts_picker.selected_ids()
        if hosts:
            body["host_ids"] = hosts
        sources = self.sources_picker.selected_ids()
        if sources:
            body["source_ids"] = sources
        body["options"] = {"episode_length_minutes": self.length_spin.value()}
        body["render"] = self.render_check.isChecked()
        return body

    def _collect_script(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.podcast_picker.selected_id():
            body["podcast_id"] = self.podcast_picker.selected_id()
        choice = self.script_choice()
        if choice.script is not None:
            body["script"] = choice.script
            body["host_ids"] = choice.host_ids
        body["render"] = self.render_check.isChecked()
        return body

    def validate(self, body: dict[str, Any]) -> EpisodeGenerateInput:
        return EpisodeGenerateInput.model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        self._update_estimate()
        balance = self.balance
        if self.mode != PROMPT:
            choice = self.script_choice()
            if choice.problem is not None:
                return [FieldError(field="script", message=choice.problem)]
            credits = credits_for(choice.minutes)
            if balance is not None and credits > balance:
                return [FieldError(field="script", message=f"This script holds about {credits:,} credits but the "
                                   f"balance is {format_credits(balance)}.")]  # fmt: skip
            return []
        credits = estimate_credits(self.length_spin.value())
        if balance is not None and credits > balance:
            message = (
                f"This length holds about {credits:,} credits but the balance is {format_credits(balance)}; "
                "choose a shorter episode or add credits."
            )
            return [FieldError(field=LENGTH_FIELD, message=message)]
        return []

    # --- sending -------------------------------------------------------------------------------------------

    async def _send_generate(self, payload: EpisodeGenerateInput) -> Started:
        """The accepted episode; the followed job when the service was still accepting an earlier
        send of it; or the kept request when no answer came (it is resent by itself)."""
        self.attempts += 1
        self.session.runtime.settings.set_render_on_send(
            bool(payload.render)
        )  # the next Generate or Import starts from it
        return await self.background.starter.generate_episode(payload)
