"""Publish several episodes at once: now, or scheduled as a series, with every date shown first.

The creator selects episodes in the list and opens this from the details ("Publish or schedule…").
Choosing "Publish now" or "Schedule as a series", a first date and time in their own time zone, and
every N days or weekly on chosen weekdays, fills a preview: each episode in the order the list
shows it with its date, or the reason it is left out (never rendered, still generating, already
published or scheduled). Nothing is sent before the button is pressed. Then each episode's outcome
shows in its row as it comes; the sending runs on the pane's work, so closing the dialog stops
nothing, and the pane says how it ended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from PySide6.QtCore import QDate, QDateTime, Qt, QTime, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDateTimeEdit,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.models import Episode
from castdeck.services.season import (
    MAX_EVERY_DAYS,
    WEEKDAYS,
    Cadence,
    Outcome,
    SeasonPlan,
    SeasonPublisher,
    Status,
    plan_season,
    tally,
    wall_time,
)

from ..accessible import shows_value
from ..palette import tone
from ..screen_fit import FittedDialog

__all__ = ["SeasonDialog", "outcome_summary", "zone_label"]

COLUMNS = ("#", "Episode", "When", "Outcome")
BLANKS = ("Left out, no number", "Untitled", "No date", "Not sent yet")
"""What a blank cell of each column reads as."""
WHEN_FORMAT = "%a %d %b %Y, %H:%M"

_STATUSES: tuple[Status, ...] = ("published", "scheduled", "waiting", "refused", "failed")
"""The order a summary counts outcomes in."""


def zone_label(zone: tzinfo, at: datetime) -> str:
    """``Europe/Berlin (UTC+01:00)``: the zone's name and its offset at ``at``."""
    name = zone.key if isinstance(zone, ZoneInfo) else at.astimezone(zone).tzname() or "local time"
    return f"{name} ({_utc_offset(at.astimezone(zone))})"


def _utc_offset(moment: datetime) -> str:
    """``UTC+02:00``."""
    offset = moment.strftime("%z") or "+0000"
    return f"UTC{offset[:3]}:{offset[3:]}"


def outcome_summary(outcomes: list[Outcome], left_out: int) -> str:
    """``6 scheduled, 1 waiting for rendering, 1 refused; 2 left out``."""
    counts = tally(outcomes)
    parts = [f"{counts[status]} {status}" for status in _STATUSES if counts.get(status)]
    text = ", ".join(parts) if parts else "Nothing sent"
    return text + (f"; {left_out} left out" if left_out else "")


class SeasonDialog(FittedDialog):
    """The plan of several episodes, previewed, then sent through ``seasons`` on ``start``."""

    sent = Signal(object)
    """Every outcome once the last episode has been sent (a list of :class:`Outcome`)."""

    def __init__(
        self,
        episodes: list[Episode],
        seasons: SeasonPublisher,
        start: Callable[[Coroutine[Any, Any, Any]], object],
        *,
        zone: tzinfo,
        now: Callable[[], datetime],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.episodes = episodes
        self.seasons = seasons
        self._start = start
        self.zone = zone
        self._now = now
        self.plan: SeasonPlan | None = None
        self.outcomes: list[Outcome] = []
        self.sending = False
        self.setWindowTitle(f"Publish {len(episodes)} episodes")
        self.resize(760, 560)
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)

        choice = QWidget(self)
        row = QHBoxLayout(choice)
        row.setContentsMargins(0, 0, 0, 0)
        self.now_radio = QRadioButton("Now, all at once", choice)
        self.now_radio.setAccessibleName("Publish now")
        self.series_radio = QRadioButton("Scheduled as a series", choice)
        self.series_radio.setAccessibleName("Schedule as a series")
        self._modes = QButtonGroup(choice)
        for radio in (self.now_radio, self.series_radio):
            self._modes.addButton(radio)
            row.addWidget(radio)
        row.addStretch(1)
        form.addRow("Publish", choice)

        self.first_edit = QDateTimeEdit(self)
        self.first_edit.setCalendarPopup(True)
        self.first_edit.setDisplayFormat("ddd d MMM yyyy, HH:mm")
        self.first_edit.setAccessibleName("First date and time")
        tomorrow = (now().astimezone(zone) + timedelta(days=1)).date()
        self.first_edit.setDateTime(
            QDateTime(QDate(tomorrow.year, tomorrow.month, tomorrow.day), QTime(9, 0))
        )
        self.zone_note = QLabel(self)
        self.zone_note.setWordWrap(True)
        first_row = QWidget(self)
        first_line = QHBoxLayout(first_row)
        first_line.setContentsMargins(0, 0, 0, 0)
        first_line.addWidget(self.first_edit)
        first_line.addWidget(self.zone_note, 1)
        form.addRow("First", first_row)

        repeat = QWidget(self)
        repeat_line = QHBoxLayout(repeat)
        repeat_line.setContentsMargins(0, 0, 0, 0)
        self.every_radio = QRadioButton("Every", repeat)
        self.every_radio.setAccessibleName("Every few days")
        self.every_days = QSpinBox(repeat)
        self.every_days.setRange(1, MAX_EVERY_DAYS)
        self.every_days.setValue(7)
        self.every_days.setSuffix(" days")
        self.every_days.setAccessibleName("Days between episodes")
        self.weekly_radio = QRadioButton("Weekly on", repeat)
        self.weekly_radio.setAccessibleName("Weekly on chosen days")
        self._repeats = QButtonGroup(repeat)
        self._repeats.addButton(self.every_radio)
        self._repeats.addButton(self.weekly_radio)
        repeat_line.addWidget(self.every_radio)
        repeat_line.addWidget(self.every_days)
        repeat_line.addSpacing(16)
        repeat_line.addWidget(self.weekly_radio)
        self.weekday_boxes: list[QCheckBox] = []
        for name in WEEKDAYS:
            box = QCheckBox(name, repeat)
            box.setAccessibleName(f"On {name}")
            self.weekday_boxes.append(box)
            repeat_line.addWidget(box)
            box.toggled.connect(self._weekday_toggled)
        repeat_line.addStretch(1)
        form.addRow("Repeat", repeat)
        self.repeat_row = repeat

        self.preview = QTableWidget(0, len(COLUMNS), self)
        self.preview.setHorizontalHeaderLabels(list(COLUMNS))
        self.preview.setAccessibleName("Episodes and their dates")
        self.preview.verticalHeader().hide()
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.preview.setWordWrap(False)
        header = self.preview.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # a reason shares the width
        outer.addWidget(self.preview, 1)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        shows_value(self.summary, "Summary")
        outer.addWidget(self.summary)
        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {tone('problem', self.palette())};")
        shows_value(self.problem, "Problem")
        self.problem.hide()
        outer.addWidget(self.problem)

        buttons = QDialogButtonBox(self)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.reject)
        self.submit_button = QPushButton("Publish", self)
        self.submit_button.setDefault(True)
        buttons.addButton(self.submit_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.submit_button.clicked.connect(self.send)
        outer.addWidget(buttons)

        self.now_radio.setChecked(True)
        self.every_radio.setChecked(True)
        self._modes.buttonToggled.connect(self._changed)
        self._repeats.buttonToggled.connect(self._changed)
        self.first_edit.dateTimeChanged.connect(self._changed)
        self.every_days.valueChanged.connect(self._changed)
        self._changed()

    # --- the plan ----------------------------------------------------------------------------------------

    @property
    def scheduling(self) -> bool:
        return self.series_radio.isChecked()

    def first_time(self) -> datetime:
        """The first date and time as picked, on the wall clock of the creator's zone."""
        picked = self.first_edit.dateTime()
        day, clock = picked.date(), picked.time()
        return wall_time(
            datetime(day.year(), day.month(), day.day(), clock.hour(), clock.minute()), self.zone
        )

    def cadence(self) -> Cadence:
        if self.weekly_radio.isChecked():
            return Cadence(
                weekdays=frozenset(n for n, box in enumerate(self.weekday_boxes) if box.isChecked())
            )
        return Cadence(every_days=self.every_days.value())

    def _weekday_toggled(self, on: bool) -> None:
        if on and not self.weekly_radio.isChecked():
            self.weekly_radio.setChecked(True)  # ticking a day means weekly
        self._changed()

    def _changed(self, *_: object) -> None:
        if self.sending or self.outcomes:
            return
        scheduling = self.scheduling
        for widget in (self.first_edit, self.repeat_row):
            widget.setEnabled(scheduling)
        first = self.first_time()
        self.zone_note.setText(f"{zone_label(self.zone, first)}; each date keeps this time of day.")
        problem: str | None = None
        if (
            scheduling
            and self.weekly_radio.isChecked()
            and not any(b.isChecked() for b in self.weekday_boxes)
        ):
            problem = "Choose the weekdays the episodes come out on."
            undated = plan_season(self.episodes, first=None, cadence=None, now=self._now())
            plan = dataclasses.replace(undated, problem=problem)  # who goes, without dates yet
        else:
            plan = plan_season(self.episodes, first=first if scheduling else None,
                               cadence=self.cadence() if scheduling else None, now=self._now())  # fmt: skip
            problem = plan.problem
        self.plan = plan
        self._fill(plan)
        going = len(plan.items)
        verb = "Schedule" if scheduling else "Publish"
        self.submit_button.setText(f"{verb} {going}" if going else verb)
        self.submit_button.setAccessibleName(f"{verb} {going} episodes")
        self.submit_button.setEnabled(problem is None and going > 0)
        self._say_problem(problem)
        left = len(plan.left_out)
        if scheduling and plan.items and plan.items[0][1] is not None:
            last = plan.items[-1][1]
            assert last is not None
            when = f"from {_when(plan.items[0][1])} to {_when(last)}, {plan.cadence.describe() if plan.cadence else ''}"
            self.summary.setText(
                f"{going} to schedule {when}" + (f"; {left} left out (greyed, with why)." if left else ".")
            )
        else:
            what = "to schedule once the weekdays are chosen" if scheduling else "to publish now"
            self.summary.setText(
                f"{going} {what}" + (f"; {left} left out (greyed, with why)." if left else ".")
            )

    def _say_problem(self, problem: str | None) -> None:
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)

    def _fill(self, plan: SeasonPlan) -> None:
        when_of = {str(episode.id): when for episode, when in plan.items}
        reason_of = {str(left.episode.id): left.reason for left in plan.left_out}
        self.preview.setRowCount(len(self.episodes))
        muted = self.palette().color(self.palette().ColorGroup.Disabled, self.palette().ColorRole.Text)
        first_offset = plan.items[0][1].utcoffset() if plan.items and plan.items[0][1] is not None else None
        undated = "No date yet" if self.scheduling else "Now"
        number = 0
        for row, episode in enumerate(self.episodes):
            key = str(episode.id)
            going = key in when_of
            if going:
                number += 1
            when = when_of.get(key)
            cells = (
                str(number) if going else "",
                episode.title or "(untitled)",
                _when(when, first_offset) if when is not None else (undated if going else "Left out"),
                "" if going else reason_of.get(key, ""),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if not text:  # a blank cell says what blank means
                    item.setData(Qt.ItemDataRole.AccessibleTextRole, BLANKS[column])
                if not going:
                    item.setForeground(muted)
                self.preview.setItem(row, column, item)

    # --- sending -----------------------------------------------------------------------------------------

    def row_texts(self) -> list[tuple[str, ...]]:
        """What each preview row says (tests, the accessible name)."""

        def text(row: int, column: int) -> str:
            item = self.preview.item(row, column)
            return item.text() if item is not None else ""

        return [
            tuple(text(row, column) for column in range(len(COLUMNS)))
            for row in range(self.preview.rowCount())
        ]

    def send(self) -> None:
        plan = self.plan
        if plan is None or plan.problem is not None or not plan.items or self.sending:
            return
        if plan.items[0][1] is not None and plan.items[0][1] <= self._now():  # time passed while it was open
            self._changed()
            return
        self.sending = True
        for widget in (
            self.submit_button,
            self.now_radio,
            self.series_radio,
            self.first_edit,
            self.repeat_row,
        ):
            widget.setEnabled(False)
        self.summary.setText(f"Sending 1 of {len(plan.items)}…")
        self._start(self._send(plan))

    async def _send(self, plan: SeasonPlan) -> None:
        rows = {str(episode.id): row for row, episode in enumerate(self.episodes)}
        total = len(plan.items)

        def arrived(number: int, outcome: Outcome) -> None:
            self.outcomes.append(outcome)
            row = rows[str(outcome.episode.id)]
            text = outcome.message
            if outcome.status in ("refused", "failed"):
                text = f"{outcome.status.capitalize()}: {outcome.message}"
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            if outcome.status in ("refused", "failed"):
                item.setForeground(QColor(tone("problem", self.palette())))
            self.preview.setItem(row, 3, item)
            if number + 1 < total:
                self.summary.setText(f"Sending {number + 2} of {total}…")

        try:
            outcomes = await self.seasons.publish(plan, arrived)
        finally:
            self.sending = False
        self.summary.setText(outcome_summary(outcomes, len(plan.left_out)) + ".")
        self.submit_button.hide()
        self.close_button.setDefault(True)
        self.close_button.setFocus()
        self.sent.emit(outcomes)


def _when(moment: datetime, first_offset: timedelta | None = None) -> str:
    """``Tue 30 Mar 2027, 09:00``, with the offset when it is not the first date's (the clocks
    changed in between: the same time of day, another hour in UTC)."""
    text = moment.strftime(WHEN_FORMAT)
    if first_offset is not None and moment.utcoffset() != first_offset:
        text += f" ({_utc_offset(moment)})"
    return text
