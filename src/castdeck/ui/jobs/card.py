"""One job card: what the job is, its progress and phase, how long it has run, and what to do next.

:func:`job_view` and :func:`entry_view` turn a tracked :class:`Job` or an outbox entry (a write not
answered yet, or refused) into a :class:`CardView`, plain data the tests can read; :class:`JobCard`
shows one and emits ``actionRequested(action)`` for its buttons.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from castdeck.services.background import job_kind_of, title_of
from castdeck.services.jobs import still_running_text
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

__all__ = ["ACTION_LABELS", "CardView", "JobCard", "elapsed_text", "entry_view", "job_view"]

KIND_LABELS = {
    "episode": "Episode",
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

RECOVERY_ADVICE = {
    "correct_input": "Correct the input and start it again (a new request with a new key).",
    "choose_characters": "Match the script's speakers to saved characters, then import it again.",
    "check_account": "Check the plan and the credit balance under Account, then start it again.",
    "poll_content": "The service is still working on something this needs; wait, then start it again.",
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
        return self.state in ("completed", "failed", "rejected")

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


def job_key(kind: str, resource_id: str) -> str:
    return f"job:{kind}:{resource_id}"


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
        "key": job_key(kind, job.resource_id), "kind": kind, "title": title, "started_at": job.started_at,
        "request_id": job.request_id, "links": links,
    }  # fmt: skip
    if job.state == "running":
        doing = "Processing" if kind == "source" else "Generating"
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
        status = {"source": "Ready to use", "episode": "Finished: the episode is ready"}.get(kind, "Finished")
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
        self.kind_label = QLabel(self)
        self.kind_label.setStyleSheet("color: palette(mid); font-size: 8pt; font-weight: bold;")
        self.elapsed_label = QLabel(self)
        self.elapsed_label.setStyleSheet("color: palette(mid); font-size: 8pt;")
        self.elapsed_label.setAccessibleName("Elapsed time")
        top.addWidget(self.kind_label)
        top.addStretch(1)
        top.addWidget(self.elapsed_label)
        layout.addLayout(top)
        self.title_label = QLabel(self)
        self.title_label.setWordWrap(True)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        layout.addWidget(self.title_label)
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.status_label)
        self.progress = QProgressBar(self)
        self.progress.setMaximumHeight(10)
        self.progress.setTextVisible(False)
        layout.addWidget(self.progress)
        self.detail_label = QLabel(self)
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextFormat(Qt.TextFormat.PlainText)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.detail_label)
        self.button_row = QHBoxLayout()
        self.button_row.setSpacing(4)
        layout.addLayout(self.button_row)
        self.buttons: dict[str, QPushButton] = {}
        self._shown_actions: tuple[str, ...] | None = None
        self.show_view(view)

    def show_view(self, view: CardView) -> None:
        self.view = view
        self.kind_label.setText(KIND_LABELS.get(view.kind, view.kind).upper())
        self.title_label.setText(view.title)
        self.status_label.setText(view.status)
        colors = {
            "failed": "#c62828",
            "rejected": "#c62828",
            "completed": "#2e7d32",
            "still_running": "#b26a00",
        }
        color = colors.get(view.state)
        self.status_label.setStyleSheet(f"color: {color};" if color else "")
        self.setAccessibleName(f"{KIND_LABELS.get(view.kind, view.kind)} job: {view.title}")
        self.setAccessibleDescription(view.status)
        if view.busy:
            if view.progress is None:
                self.progress.setRange(0, 0)
            else:
                self.progress.setRange(0, 100)
                self.progress.setValue(round(view.progress))
            self.progress.show()
        else:
            self.progress.hide()
        detail = view.detail or ""
        if view.request_id and view.state in ("failed", "rejected"):
            detail += f"\nRequest ID: {view.request_id}"
        self.detail_label.setText(detail.strip())
        self.detail_label.setVisible(bool(detail.strip()))
        if view.state in ("failed", "rejected"):
            self.detail_label.setStyleSheet("color: #c62828;")
        else:
            self.detail_label.setStyleSheet("color: palette(mid);")
        if view.actions != self._shown_actions:
            self._set_actions(view.actions)
        self.update_elapsed()

    def _set_actions(self, actions: tuple[str, ...]) -> None:
        self._shown_actions = actions
        while self.button_row.count():
            item = self.button_row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons = {}
        for name in actions:
            if name == "dismiss":
                self.button_row.addStretch(1)
            button = QPushButton(ACTION_LABELS[name], self)
            button.setAccessibleName(f"{ACTION_LABELS[name].rstrip('…')}: {self.view.title}")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _checked=False, n=name: self.actionRequested.emit(n))
            self.button_row.addWidget(button)
            self.buttons[name] = button
        if "dismiss" not in actions:
            self.button_row.addStretch(1)

    def update_elapsed(self, now: float | None = None) -> None:
        view = self.view
        if not view.started_at:
            self.elapsed_label.clear()
            return
        end = view.ended_at if view.ended and view.ended_at else (now or time.time())
        spent = elapsed_text(end - view.started_at)
        self.elapsed_label.setText(f"took {spent}" if view.ended else spent)
