"""Desktop notifications: each job that finishes or fails, and each write the service refuses.

A notification goes through the system tray (``QSystemTrayIcon.showMessage``) where the desktop
has one; elsewhere (some Linux desktops, the offscreen platform) it is shown in the window's
status bar instead. Jobs only announce an end they were seen reaching during this run: jobs that
had already ended before a restart stay quiet.
"""

from __future__ import annotations

import collections
import contextlib
from dataclasses import dataclass

from PySide6.QtCore import QObject
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMainWindow, QSystemTrayIcon

from castdeck.services.background import Background
from castdeck.services.messages import quoted
from castdeck.services.outbox_names import title_of
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry

from .card import KIND_LABELS

__all__ = ["Notification", "Notifier"]

SHOWN_MS = 8000


@dataclass(frozen=True)
class Notification:
    title: str
    text: str
    failed: bool
    line: str = ""
    """The notification in one line, where there is no tray to show its title above its text (the
    status bar): "Video “Tide clocks” has finished." rather than the title and the text joined."""

    @property
    def one_line(self) -> str:
        return self.line or f"{self.title}: {self.text}"


def job_notification(job: Job) -> Notification:
    noun = KIND_LABELS.get(job.kind, job.kind.capitalize())
    name = quoted(job.title) if job.title else ""
    subject = f"{noun} {name}" if name else noun  # "Video “Tide clocks”"
    if job.state == "completed":
        ready = "is ready to use" if job.kind == "source" else "has finished"
        return Notification(f"{noun} finished", f"{name or noun} {ready}.", False, f"{subject} {ready}.")
    reason = job.error or "no reason given"
    return Notification(
        f"{noun} failed",
        f"{name or noun}: {job.error or 'the job failed.'}",
        True,
        f"{subject} failed: {reason}",
    )


class Notifier(QObject):
    """Announces ends of jobs of the bound :class:`Background`; ``history`` keeps the last
    :attr:`HISTORY_KEPT` announcements shown (a day of work announces thousands)."""

    HISTORY_KEPT = 100

    def __init__(self, window: QMainWindow, icon: QIcon | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.history: collections.deque[Notification] = collections.deque(maxlen=self.HISTORY_KEPT)
        self.background: Background | None = None
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(icon or window.windowIcon(), self)
            self.tray.setToolTip("Castdeck")
            self.tray.messageClicked.connect(self._raise_window)
            self.tray.show()

    def bind(self, background: Background | None) -> None:
        old = self.background
        if old is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                old.jobs.jobFinished.disconnect(self._job_finished)
                old.outbox.entryChanged.disconnect(self._entry_changed)
        self.background = background
        if background is not None:
            background.jobs.jobFinished.connect(self._job_finished)
            background.outbox.entryChanged.connect(self._entry_changed)

    def _job_finished(self, job: Job) -> None:
        self.notify(job_notification(job))

    def _entry_changed(self, entry: OutboxEntry) -> None:
        if entry.state == "rejected":
            self.notify(
                Notification("Not started", f"{title_of(entry)}: {entry.last_error or 'refused'}", True)
            )

    def notify(self, note: Notification) -> None:
        self.history.append(note)
        if self.tray is not None:
            icon = (
                QSystemTrayIcon.MessageIcon.Warning
                if note.failed
                else QSystemTrayIcon.MessageIcon.Information
            )
            self.tray.showMessage(note.title, note.text, icon, SHOWN_MS)
        else:
            self.window.statusBar().showMessage(note.one_line, SHOWN_MS)

    def _raise_window(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def close(self) -> None:
        self.bind(None)
        if self.tray is not None:
            self.tray.hide()
