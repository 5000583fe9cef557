"""Episode dialogs (spec 2.3): create an empty episode, edit one, publish it now or schedule it.

``SessionDialog`` is the base of the podcast and episode dialogs: a :class:`FormDialog` whose submit
button is disabled, with the reason, while the session cannot write (offline, key refused).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from PySide6.QtCore import QDateTime, Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QDateTimeEdit,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.api.models import (
    Episode,
    EpisodeCreate,
    EpisodeUpdate,
    FieldError,
    PublishInput,
)
from castdeck.api.models.limits import MAX_EPISODE_DESCRIPTION_CHARS, MAX_EPISODE_TITLE_CHARS
from castdeck.services import catalog
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session

from ..accessible import shows_value
from ..cells import podcast_label
from ..forms import FormDialog
from ..pickers import CheckPicker, ComboPicker, host_feed, host_label, podcast_feed

__all__ = [
    "EpisodeCreateDialog",
    "EpisodeEditDialog",
    "PublishDialog",
    "SessionDialog",
    "local_datetime",
    "podcast_label",
]


def local_datetime(moment: QDateTime) -> datetime:
    """A date-time picked in local time as an aware ``datetime`` (sent as ISO 8601 with its offset)."""
    return datetime.fromtimestamp(moment.toSecsSinceEpoch(), tz=UTC).astimezone()


_PLAIN_MESSAGES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^String should have at least 1 character$"), "Required."),
    (re.compile(r"^String should have at least (\d+) characters$"), "At least {0} characters."),
    (re.compile(r"^String should have at most (\d+) characters$"), "At most {0} characters."),
    (re.compile(r"^List should have at least 1 item"), "Choose at least one."),
    (re.compile(r"^this field is required$"), "Required."),
]


def plain_message(error: FieldError, overrides: dict[str, str] | None = None) -> FieldError:
    """The input model's message in words a creator reads at a glance (the field's own wording first)."""
    if overrides and error.field in overrides:
        return FieldError(field=error.field, message=overrides[error.field])
    for pattern, wording in _PLAIN_MESSAGES:
        found = pattern.search(error.message)
        if found:
            return FieldError(field=error.field, message=wording.format(*found.groups()))
    return error


def _text_edit(parent: QWidget, placeholder: str, height: int) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setTabChangesFocus(True)
    edit.setMinimumHeight(height)
    return edit


def _zone_hint() -> str:
    here = datetime.now().astimezone()
    offset = here.strftime("%z")
    utc = f"UTC{offset[:3]}:{offset[3:]}"
    name = here.tzname() or ""
    zone = utc if not name or name.startswith(("UTC", "+", "-")) else f"{name}, {utc}"
    return f"In your local time ({zone}); sent with its offset."


class SessionDialog(FormDialog):
    """A form that sends through ``session``; writing is disabled with the reason while impossible."""

    def __init__(
        self,
        session: Session,
        title: str,
        submit: Callable[[Any], Awaitable[Any]],
        *,
        submit_label: str = "Save",
        parent: QWidget | None = None,
    ) -> None:
        async def send(value: Any) -> Any:
            try:
                return await submit(value)
            except CastdeckError:
                # the form re-enables its button after a failure; not while writing is impossible
                QTimer.singleShot(0, self._block_if_unwritable)
                raise

        self.session = session  # before the form is built: building it revalidates, which reads it
        super().__init__(title, send, submit_label=submit_label, parent=parent)
        self.messages: dict[str, str] = {}
        """Wording for a field's other rule breaks (such as a pattern), by field name."""
        self._refills: list[tuple[ComboPicker | CheckPicker, Callable[[], ListFeed[Any]], str | None]] = []
        session.stateChanged.connect(self._state_changed)
        session.reconnected.connect(self._read_lists_again)

    def refill_when_back(
        self, picker: ComboPicker | CheckPicker, feed: Callable[[], ListFeed[Any]], wanted: str | None = None
    ) -> None:
        """Read ``picker``'s list again when the service comes back, if it could not be read (opened
        offline with nothing kept): the form would otherwise wait for a choice there is none of,
        or offer no host and no source to tick."""
        self._refills.append((picker, feed, wanted))

    def _read_lists_again(self) -> None:
        for picker, feed, wanted in self._refills:
            if picker.items:
                continue
            if isinstance(picker, CheckPicker):
                picker.reload(feed())
            else:
                picker.reload(feed(), select=picker.selected_id() or wanted)

    def check(self) -> tuple[Any, list[FieldError]]:
        value, errors = super().check()
        return value, [plain_message(error, self.messages) for error in errors]

    def add_picker(self, name: str, label: str, picker: CheckPicker, *, hint: str | None = None) -> None:
        """A checkable list as a field: its inline error shows once the user ticks something (filling
        the list or ticking items for the user does not count), or when they try to submit."""
        row = self.add_field(name, label, picker, hint=hint)
        ticked: list[bool] = []
        picker.list.itemChanged.connect(lambda *_: ticked.append(True))  # blocked while filling

        def changed() -> None:
            row.touched = bool(ticked)
            self.revalidate()

        picker.changed.connect(changed)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.session.write_block_reason:
            self.set_writable(self.session.write_block_reason)

    def revalidate(self) -> bool:
        ok = super().revalidate()
        if self.session.write_block_reason:
            self.submit_button.setEnabled(False)
        return ok

    def _block_if_unwritable(self) -> None:
        reason = self.session.write_block_reason
        if reason:
            self.submit_button.setEnabled(False)
            self.submit_button.setToolTip(reason)

    def _state_changed(self, *_: object) -> None:
        self.set_writable(self.session.write_block_reason)


class EpisodeCreateDialog(SessionDialog):
    """An empty draft episode in a podcast; nothing is generated."""

    def __init__(
        self, session: Session, podcast_id: str | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(
            session,
            "New episode",
            lambda payload: catalog.create_episode(session, payload),
            submit_label="Create episode",
            parent=parent,
        )
        self.resize(620, 600)
        self.podcast_picker = ComboPicker(podcast_feed(session), podcast_label, name="podcast", parent=self)
        self.podcast_picker.set_selected(podcast_id)
        self.refill_when_back(self.podcast_picker, lambda: podcast_feed(session), podcast_id)
        self.add_field("podcast_id", "Podcast", self.podcast_picker)
        self.podcast_picker.loaded.connect(self.revalidate)
        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("Optional; generation or the studio can fill it in later")
        self.add_field("title", "Title", self.title_edit, limit=(1, MAX_EPISODE_TITLE_CHARS))
        self.description_edit = _text_edit(self, "Optional show notes", 96)
        self.add_field(
            "description", "Description", self.description_edit, limit=(0, MAX_EPISODE_DESCRIPTION_CHARS)
        )
        self.hosts_picker = CheckPicker(host_feed(session), host_label, name="hosts", parent=self)
        self.refill_when_back(self.hosts_picker, lambda: host_feed(session))
        self.add_picker(
            "host_ids", "Hosts", self.hosts_picker, hint="Leave empty to use the podcast's hosts."
        )
        self.image_edit = QLineEdit(self)
        self.image_edit.setPlaceholderText("https://…")
        self.add_field("image", "Cover image URL", self.image_edit, hint="Optional: the address of an image.")
        self.title_edit.setFocus()

    def collect(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.podcast_picker.selected_id():
            body["podcast_id"] = self.podcast_picker.selected_id()
        title = self.title_edit.text().strip()
        if title:
            body["title"] = title
        description = self.description_edit.toPlainText().strip()
        if description:
            body["description"] = description
        if self.hosts_picker.selected_ids():
            body["host_ids"] = self.hosts_picker.selected_ids()
        image = self.image_edit.text().strip()
        if image:
            body["image"] = image
        return body

    def validate(self, body: dict[str, Any]) -> EpisodeCreate:
        return EpisodeCreate.model_validate(body)


class EpisodeEditDialog(SessionDialog):
    """Title, description and cover image URL; only the changed fields are sent."""

    def __init__(self, session: Session, episode: Episode, parent: QWidget | None = None) -> None:
        super().__init__(
            session,
            "Edit episode",
            lambda payload: catalog.update_episode(session, episode.id, payload),
            submit_label="Save changes",
            parent=parent,
        )
        self.episode = episode
        self.resize(620, 420)
        self.title_edit = QLineEdit(episode.title or "", self)
        self.add_field("title", "Title", self.title_edit, limit=(1, MAX_EPISODE_TITLE_CHARS))
        self.description_edit = _text_edit(self, "Show notes", 140)
        self.description_edit.setPlainText(episode.description or "")
        self.add_field(
            "description",
            "Description",
            self.description_edit,
            limit=(0, MAX_EPISODE_DESCRIPTION_CHARS),
            hint="Empty removes the description.",
        )
        self.image_edit = QLineEdit(self)
        self.image_edit.setPlaceholderText("https://…")
        self.image_edit.setText(episode.image_url or "")
        self.add_field("image", "Cover image URL", self.image_edit, hint="Empty removes the cover image.")
        self._original = self._values()
        for row in self.rows.values():
            row.touched = False
        self.title_edit.setFocus()

    def _values(self) -> dict[str, str]:
        return {
            "title": self.title_edit.text().strip(),
            "description": self.description_edit.toPlainText().strip(),
            "image": self.image_edit.text().strip(),
        }

    def collect(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for name, value in self._values().items():
            if value == self._original[name]:
                continue
            body[name] = None if value == "" and name in ("description", "image") else value
        return body

    def validate(self, body: dict[str, Any]) -> EpisodeUpdate:
        return EpisodeUpdate.model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        return [] if body else [FieldError(field="", message="Nothing has changed yet.")]


class PublishDialog(SessionDialog):
    """Publish now, or schedule at a date and time picked in local time (sent with its UTC offset)."""

    def __init__(
        self,
        session: Session,
        episode: Episode,
        submit: Callable[[PublishInput], Awaitable[Any]],
        *,
        schedule: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(session, "Publish episode", submit, submit_label="Publish now", parent=parent)
        self.episode = episode
        self.resize(560, 200)
        heading = QLabel(episode.title or "(untitled)", self)
        heading.setTextFormat(Qt.TextFormat.PlainText)
        heading.setWordWrap(True)
        shows_value(heading, "Episode")
        bold = heading.font()
        bold.setBold(True)
        heading.setFont(bold)
        self.form.addRow("Episode", heading)
        choice = QWidget(self)
        row = QHBoxLayout(choice)
        row.setContentsMargins(0, 0, 0, 0)
        self.now_radio = QRadioButton("Now", choice)
        self.now_radio.setAccessibleName("Publish now")
        self.schedule_radio = QRadioButton("At a date and time", choice)
        self.schedule_radio.setAccessibleName("Schedule")
        self.group = QButtonGroup(choice)
        self.group.addButton(self.now_radio)
        self.group.addButton(self.schedule_radio)
        row.addWidget(self.now_radio)
        row.addWidget(self.schedule_radio)
        row.addStretch(1)
        self.add_field("when", "Publish", choice)
        self.time_edit = QDateTimeEdit(self)
        self.time_edit.setCalendarPopup(True)
        self.time_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        start = QDateTime.currentDateTime().addSecs(3600)
        start.setTime(start.time().addSecs(-(start.time().minute() % 15) * 60 - start.time().second()))
        self.time_edit.setDateTime(start)
        self.add_field("scheduled_time", "Date and time", self.time_edit, hint=_zone_hint())
        self.now_radio.toggled.connect(self._mode_changed)
        (self.schedule_radio if schedule else self.now_radio).setChecked(True)
        self._mode_changed()

    @property
    def scheduling(self) -> bool:
        return self.schedule_radio.isChecked()

    def _mode_changed(self, *_: object) -> None:
        self.time_edit.setEnabled(self.scheduling)
        label = "Schedule" if self.scheduling else "Publish now"
        # "Schedule…" opens it on the date: its title says what it will do
        self.setWindowTitle("Schedule episode" if self.scheduling else "Publish episode")
        self.submit_button.setText(label)
        self.submit_button.setAccessibleName(label)
        self.revalidate()

    def set_time(self, moment: datetime) -> None:
        """Pick ``moment`` (tests; the user picks in the widget)."""
        self.time_edit.setDateTime(QDateTime.fromSecsSinceEpoch(int(moment.timestamp())))

    def collect(self) -> dict[str, Any]:
        if not self.scheduling:
            return {}
        return {"scheduled_time": local_datetime(self.time_edit.dateTime())}

    def validate(self, body: dict[str, Any]) -> PublishInput:
        return PublishInput.model_validate(body)

    def extra_errors(self, body: dict[str, Any]) -> list[FieldError]:
        when = body.get("scheduled_time")
        if isinstance(when, datetime) and when <= datetime.now(UTC) + timedelta(seconds=30):
            return [FieldError(field="scheduled_time", message="Choose a time in the future.")]
        return []
