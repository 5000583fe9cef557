"""One job card: what the job is, its progress and phase, how long it has run, and what to do next.

:func:`job_view` and :func:`entry_view` turn a tracked :class:`Job` or an outbox entry (a write not
answered yet, or refused) into a :class:`CardView`, plain data the tests can read; :class:`JobCard`
shows one and emits ``actionRequested(action)`` for its buttons.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.jobs import still_running_text
from castdeck.services.outbox_names import job_kind_of, title_of
from castdeck.services.work import work_key
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

from ..palette import tone

__all__ = ["ACTION_LABELS", "CardView", "JobCard", "elapsed_text", "entry_view", "job_view"]

KIND_LABELS = {
    "episode": "Episode",
    "publish": "Publish",
    "video": "Video",
    "short": "Short",
    "voiceover": "Voiceover",
    "source": "Source",
}

ACTION_LABELS = {
    "open": "Open",
    "play": "Play",
    "download": "Download…",
    "retry": "Retry",
    "studio": "Open in studio",
    "copy_error": "Copy error",
    "check_again": "Check again",
    "send_now": "Send now",
    "dismiss": "Dismiss",
}

ENDED_STATES = ("completed", "failed", "rejected")
"""A card's states once its work has ended (:attr:`CardView.ended`)."""
STATE_TONES = {"failed": "problem", "rejected": "problem", "completed": "success", "still_running": "warning"}

RECOVERY_ADVICE = {
    "correct_input": "Correct the input and start it again (a new request with a new key).",
    "choose_characters": "Match the script's speakers to saved characters, then import it again.",
    "check_account": "Check the plan and the credit balance under Account, then start it again.",
    "poll_content": "The service is still working on something this needs; wait, then try again.",
    "open_studio": "Finish this in the studio application.",
    "check_content": "Check the content the request refers to, then start it again.",
    "reconnect": "Reconnect, then start it again.",
    "retry": "Start it again.",
    "check_result": "Check whether the job already exists before starting it again.",
}


@dataclass(frozen=True)
class CardView:
    """Everything a card shows, as plain data."""

    key: str
    kind: str  # episode, video, short, voiceover, source
    title: str
    state: str  # running, completed, failed, still_running, sending, waiting, rejected
    status: str
    progress: float | None = None  # percent; None: busy (unknown) or hidden when ended
    started_at: float = 0.0
    ended_at: float | None = None
    detail: str | None = None  # error, advice, how it was sent
    request_id: str | None = None
    actions: tuple[str, ...] = ()
    links: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def ended(self) -> bool:
        return self.state in ENDED_STATES

    @property
    def busy(self) -> bool:
        return self.state in ("running", "sending", "waiting")


def humanize(value: str | None) -> str:
    return (value or "").replace("_", " ").replace("-", " ").strip().capitalize()


def elapsed_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _sent_note(job: Job) -> str | None:
    attempts = job.extra.get("attempts")
    if isinstance(attempts, int) and attempts > 1:
        return f"Sent {attempts} times with one idempotency key; the service started it once."
    return None


def job_view(job: Job, *, online: bool = True) -> CardView:
    kind = job.kind
    title = job.title or KIND_LABELS.get(kind, kind.capitalize())
    links = {k: v for k, v in job.extra.items() if k in ("audio_url", "url", "studio_url") and v}
    note = _sent_note(job)
    common: dict[str, Any] = {
        "key": work_key(kind, job.resource_id), "kind": kind, "title": title, "started_at": job.started_at,
        "request_id": job.request_id, "links": links,
    }  # fmt: skip
    if job.state == "running" and job.extra.get("accepting"):
        # A 409 said an earlier send of this write is still being accepted: followed, never restarted.
        status = "Being accepted by the service"
        if not online:
            status += " · paused while the service cannot be reached"
        detail = ("An earlier answer was lost on the way; the service is still accepting the request. "
                  "Castdeck follows it; it starts only once.")  # fmt: skip
        return CardView(state="running", status=status, progress=None, detail=detail, actions=("open",),
                        **common)  # fmt: skip
    if job.state == "running":
        doing = {"source": "Processing", "publish": "Publishing"}.get(kind, "Generating")
        status = doing + (f" — {humanize(job.phase)}" if job.phase and job.phase != "processing" else "")
        if job.progress is not None:
            status += f" ({job.progress:.0f}%)"
        if not online:
            status += " · paused while the service cannot be reached"
        return CardView(state="running", status=status, progress=job.progress, detail=note,
                        actions=("open",), **common)  # fmt: skip
    if job.state == "still_running":
        return CardView(state="still_running", status="Still running on the service",
                        detail=still_running_text(job), ended_at=job.updated_at,
                        actions=("check_again", "open", "dismiss"), **common)  # fmt: skip
    if job.state == "completed":
        actions: list[str] = ["open"]
        if kind == "episode" and links.get("audio_url"):
            actions += ["play", "download"]
        if kind in ("video", "short", "voiceover"):
            actions.append("download")
        if links.get("studio_url"):
            actions.append("studio")
        actions.append("dismiss")
        status = {"source": "Ready to use", "episode": "Finished: the episode is ready",
                  "publish": "Published" if job.extra.get("publish_status") != "scheduled" else "Scheduled",
                  }.get(kind, "Finished")  # fmt: skip
        return CardView(state="completed", status=status, progress=100.0, ended_at=job.updated_at,
                        detail=note, actions=tuple(actions), **common)  # fmt: skip
    # failed
    actions = []
    if kind in ("video", "short", "voiceover"):
        actions.append("retry")
    actions += ["copy_error", "open"]
    if links.get("studio_url"):
        actions.append("studio")
    actions.append("dismiss")
    return CardView(state="failed", status="Failed", detail=job.error or "The job failed.",
                    ended_at=job.updated_at, actions=tuple(actions), **common)  # fmt: skip


def _what_to_correct(entry: OutboxEntry) -> str:
    problem = entry.problem or {}
    lines = []
    for error in problem.get("errors") or []:
        if isinstance(error, dict) and error.get("message"):
            lines.append(f"• {error.get('field') or 'request'}: {error['message']}")
    recovery = problem.get("recovery") or {}
    action = recovery.get("action") if isinstance(recovery, dict) else None
    advice = RECOVERY_ADVICE.get(action or "") or (
        "Correct what the service named and start it again (a new request with a new key)."
        if problem.get("status") in (400, 422, None) else "Check the message and start it again."
    )  # fmt: skip
    return "\n".join([*lines, advice])


def entry_view(entry: OutboxEntry) -> CardView:
    """A write the service has not accepted: still being sent, waiting to be resent, or refused."""
    kind = job_kind_of(entry)
    common: dict[str, Any] = {
        "key": f"entry:{entry.id}", "kind": kind, "title": title_of(entry), "started_at": entry.created_at,
        "request_id": entry.request_id,
    }  # fmt: skip
    verb = "retry" if entry.kind == "media_retry" else "request"
    if entry.state == "rejected":
        reason = entry.last_error or "The service refused it."
        return CardView(state="rejected", status="Refused by the service; not sent again",
                        detail=f"{reason}\n{_what_to_correct(entry)}", ended_at=entry.updated_at,
                        actions=("copy_error", "dismiss"), **common)  # fmt: skip
    if entry.state == "sending" and entry.attempts <= 1:
        return CardView(state="sending", status=f"Sending the {verb}…", **common)
    tries = f"{entry.attempts} attempt{'s' if entry.attempts != 1 else ''}"
    why = entry.last_error or "no answer yet"
    status = "Sending again…" if entry.state == "sending" else "Waiting to send again"
    return CardView(state="waiting", status=status,
                    detail=f"No answer yet ({tries}; last: {why}). Castdeck sends it again with the same "
                           "idempotency key, so the service starts it only once.",
                    actions=("send_now",), **common)  # fmt: skip


class CardText(QWidget):
    """Text in a fixed number of lines, wrapped and elided to the width when painted.

    A card's height never depends on its width, so two hundred cards lay out with plain
    arithmetic: word-wrapped labels made every change re-measure every card's text (stalls of
    hundreds of milliseconds). The full text is in the tooltip and the accessible name (a screen
    reader reads the value; the description, set by the card, says what it is: "State").
    """

    def __init__(self, parent: QWidget | None = None, *, lines: int = 1, bold: bool = False,
                 small: bool = False, muted: bool = False, right: bool = False) -> None:  # fmt: skip
        super().__init__(parent)
        self._right = right
        self._text = ""
        self._tip = ""
        self._max_lines = lines
        self._tone: str | None = None
        self._muted = muted
        self._laid: tuple[tuple[str, int, int], list[tuple[int, str]]] | None = None  # see _rows
        font = self.font()
        if bold:
            font.setBold(True)
        if small:
            font.setPointSizeF(font.pointSizeF() * 0.85)
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text == self._text:
            return
        lines_before = self._lines()
        self._text = text
        tip = text if len(text) > 40 or "\n" in text else ""
        if tip != self._tip:  # each set sends the widget an event: the elapsed times change every second
            self._tip = tip
            self.setToolTip(tip)
        self.setAccessibleName(text)  # read as its value; its description says what it is ("State")
        if self._lines() != lines_before:
            self.updateGeometry()
        self.update()

    def clear(self) -> None:
        self.setText("")

    def set_tone(self, name: str | None) -> None:
        """Draw the text in the tone ``name`` (``palette.TONES``), in the shade of the palette
        it is painted with; ``None``: the palette's text colour."""
        if name != self._tone:
            self._tone = name
            self.update()

    def _lines(self) -> int:
        if not self._text:
            return 1
        wanted = sum(max(1, -(-len(line) // 48)) for line in self._text.splitlines())
        return max(1, min(self._max_lines, wanted))

    def sizeHint(self) -> QSize:
        return QSize(120, self._lines() * self.fontMetrics().lineSpacing())

    def minimumSizeHint(self) -> QSize:
        return QSize(20, self.sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._laid = None
        super().changeEvent(event)

    def _rows(self, metrics: QFontMetrics) -> list[tuple[int, str]]:
        """The rows to paint, each with its x: wrapped once for a text and a size. A card repaints
        whenever the cards around it move (a job ends above it); its text seldom changes."""
        width, limit = self.width(), self.height() // max(1, metrics.lineSpacing())
        key = (self._text, width, limit)
        if self._laid is None or self._laid[0] != key:
            rows = wrap_lines(self._text, metrics, width, limit)
            self._laid = (
                key,
                [(width - metrics.horizontalAdvance(r) if self._right else 0, r) for r in rows],
            )
        return self._laid[1]

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        if self._tone is not None:
            painter.setPen(QColor(tone(self._tone, self.palette())))
        elif self._muted:
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        metrics = self.fontMetrics()
        for number, (x, row) in enumerate(self._rows(metrics)):
            painter.drawText(x, number * metrics.lineSpacing() + metrics.ascent(), row)


def wrap_lines(text: str, metrics: QFontMetrics, width: int, limit: int) -> list[str]:
    """``text`` wrapped at word boundaries to ``width`` in at most ``limit`` lines, the last elided."""
    rows: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if not line or metrics.horizontalAdvance(candidate) <= width:
                line = candidate
            else:
                rows.append(line)
                line = word
        rows.append(line)
    keep = max(1, limit)
    if len(rows) > keep:  # the last line holds the rest, elided (a long word shows as far as it fits)
        rest = " ".join(rows[keep - 1 :])
        rows = [*rows[: keep - 1], rest]
        if metrics.horizontalAdvance(rest) <= width:
            rows[-1] = rest + " …"
    return [metrics.elidedText(row, Qt.TextElideMode.ElideRight, width) for row in rows]


class ProgressLine(QWidget):
    """A thin, still progress bar. QProgressBar in the Fusion style animates its stripes without
    end, and with many cards those repaints alone kept the event loop busy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = 0
        self.setFixedHeight(6)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Progress")

    def value(self) -> int:
        return self._value

    def setValue(self, value: int) -> None:
        value = max(0, min(100, value))
        if value != self._value:
            self._value = value
            self.setAccessibleDescription(f"{value}%")
            self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        rect = self.rect()
        painter.fillRect(rect, palette.color(QPalette.ColorRole.Midlight))
        done = rect.adjusted(0, 0, -round(rect.width() * (100 - self._value) / 100), 0)
        painter.fillRect(done, palette.color(QPalette.ColorRole.Highlight))


class JobCard(QFrame):
    """Shows one :class:`CardView`; buttons emit ``actionRequested(name)``."""

    actionRequested = Signal(str)

    def __init__(self, view: CardView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("job_card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.view = view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(4)
        top = QHBoxLayout()
        self.kind_label = CardText(self, bold=True, small=True, muted=True)
        self.elapsed_label = CardText(self, small=True, muted=True, right=True)
        self.elapsed_label.setAccessibleDescription("Elapsed time")
        self.elapsed_label.setFixedWidth(
            self.elapsed_label.fontMetrics().horizontalAdvance("took 00 min 00 s") + 4
        )
        self.dismiss_button = QToolButton(self)
        self.dismiss_button.setText("✕")
        self.dismiss_button.setAutoRaise(True)
        self.dismiss_button.setToolTip("Dismiss this card")
        self.dismiss_button.clicked.connect(lambda: self.actionRequested.emit("dismiss"))
        self.dismiss_button.hide()
        top.addWidget(self.kind_label, 1)
        top.addWidget(self.elapsed_label)
        top.addWidget(self.dismiss_button)
        layout.addLayout(top)
        self.title_label = CardText(self, bold=True)
        self.title_label.setAccessibleDescription("Job")
        layout.addWidget(self.title_label)
        self.status_label = CardText(self)
        self.status_label.setAccessibleDescription("State")
        layout.addWidget(self.status_label)
        self.progress = ProgressLine(self)
        layout.addWidget(self.progress)
        self.detail_label = CardText(self, lines=4, small=True, muted=True)
        self.detail_label.setAccessibleDescription("Details")
        layout.addWidget(self.detail_label)
        # Up to three buttons a row, so that a card fits a narrow dock.
        self.button_rows = [QHBoxLayout(), QHBoxLayout()]
        for row in self.button_rows:
            row.setSpacing(4)
            row.addStretch(1)  # kept: the buttons go in before it
            layout.addLayout(row)
        self.buttons: dict[str, QToolButton] = {}
        self._shown_actions: tuple[str, ...] | None = None
        self._shown: CardView | None = None
        self.show_view(view)

    def show_view(self, view: CardView) -> None:
        self.view = view  # its links may be new
        if view == self._shown:  # most polls of a running job change nothing a card shows
            return
        self._shown = view
        self.kind_label.setText(KIND_LABELS.get(view.kind, view.kind).upper())
        self.title_label.setText(view.title)
        self.status_label.setText(view.status)
        self.status_label.set_tone(STATE_TONES.get(view.state))
        self.setAccessibleName(f"{KIND_LABELS.get(view.kind, view.kind)} job: {view.title}")
        self.setAccessibleDescription(view.status)
        if view.busy:
            # Never the animated busy bar: two hundred of them repaint all the time. The status
            # line and the ticking elapsed time show that it lives.
            self.progress.setValue(round(view.progress or 0))
            self.progress.show()
        else:
            self.progress.hide()
        detail = view.detail or ""
        if view.request_id and view.state in ("failed", "rejected"):
            detail += f"\nRequest ID: {view.request_id}"
        self.detail_label.setText(detail.strip())
        self.detail_label.setVisible(bool(detail.strip()))
        self.detail_label.set_tone("problem" if view.state in ("failed", "rejected") else None)
        if view.actions != self._shown_actions:
            self._set_actions(view.actions)
        self.update_elapsed()

    def _set_actions(self, actions: tuple[str, ...]) -> None:
        self._shown_actions = actions
        # removeWidget, not takeAt: Qt deletes the layout's item itself (an item taken with takeAt
        # is the taker's to delete, and its Python wrapper does not)
        for name, button in self.buttons.items():
            if name != "dismiss":
                for row in self.button_rows:
                    row.removeWidget(button)
                button.deleteLater()
        self.buttons = {}
        self.dismiss_button.setVisible("dismiss" in actions)
        self.dismiss_button.setAccessibleName(f"Dismiss: {self.view.title}")
        if "dismiss" in actions:
            self.buttons["dismiss"] = self.dismiss_button
        shown = [name for name in actions if name != "dismiss"]
        for number, name in enumerate(shown):
            button = QToolButton(self)
            button.setText(ACTION_LABELS[name])
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            button.setAccessibleName(f"{ACTION_LABELS[name].rstrip('…')}: {self.view.title}")
            button.clicked.connect(lambda _checked=False, n=name: self.actionRequested.emit(n))
            row = self.button_rows[min(number // 3, 1)]
            row.insertWidget(row.count() - 1, button)
            # Shown now, not by the call Qt's layout queues for a new child: the card would be laid
            # out (and the list under it moved and repainted) once without its buttons, then again.
            button.show()
            self.buttons[name] = button

    def update_elapsed(self, now: float | None = None) -> None:
        view = self.view
        if not view.started_at:
            self.elapsed_label.clear()
            return
        end = view.ended_at if view.ended and view.ended_at else (now or time.time())
        spent = elapsed_text(end - view.started_at)
        self.elapsed_label.setText(f"took {spent}" if view.ended else spent)
