"""The welcome of the very first run: try the sandbox (one click starts it and connects), or connect
the studio's own account (the connect dialog), or not now.

It is shown only while nothing else says how to connect (no saved profile, no connection in the
environment, neither ``--sandbox`` nor ``--profile``) and only until it has been left once, any
way (``Settings.welcome_done``); the app decides that.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.sandbox_process import SandboxError
from castdeck.services.tasks import TaskScope

from .accessible import shows_value
from .icons import icon
from .screen_fit import FittedDialog
from .widgets import heading_label

__all__ = ["ChoiceButton", "Glyph", "WelcomeDialog"]

SANDBOX_TEXT = (
    "A local copy of the service runs on this computer, with a demo studio: hosts, podcasts and "
    "episodes to play with. Speech is real. Nothing leaves this computer. One click starts it."
)
ACCOUNT_TEXT = (
    "Use your studio on the service with its API key (from the studio's developer settings, "
    "Creator plan or higher). The key is checked, then kept in the system keychain."
)


class Glyph(QLabel):
    """One of Castdeck's icons as a label's picture, drawn again in the new colours when the
    palette changes (a picture set once keeps the colours it was drawn in: black on a dark window)."""

    def __init__(self, name: str, size: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._size = size
        self.setFixedSize(size, size)
        self._draw()

    def _draw(self) -> None:
        self.setPixmap(icon(self._name).pixmap(QSize(self._size, self._size)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._draw()


class ChoiceButton(QPushButton):
    """A big button: an icon, a bold title and a wrapped explanation (its accessible description)."""

    def __init__(self, icon_name: str, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(title)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = self._layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(14)
        self.glyph = Glyph(icon_name, 32, self)
        words = QVBoxLayout()
        words.setSpacing(3)
        self.heading = heading_label(title, self, 1.15)
        self.explanation = QLabel(text, self)
        self.explanation.setWordWrap(True)
        for label in (self.glyph, self.heading, self.explanation):
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        words.addWidget(self.heading)
        words.addWidget(self.explanation)
        layout.addWidget(self.glyph, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(words, 1)

    def sizeHint(self) -> QSize:
        layout = self._layout
        width = max(420, super().sizeHint().width())
        height = (
            layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.sizeHint().height()
        )
        return QSize(width, max(height, super().sizeHint().height()))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


class WelcomeDialog(FittedDialog):
    """``choice`` is ``"sandbox"`` (started and connected: ``result_value`` holds what
    ``start_sandbox`` returned) or ``"account"``; the dialog is rejected for "Not now"."""

    def __init__(self, start_sandbox: Callable[[], Awaitable[Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setWindowTitle("Welcome to Castdeck")
        self.setAccessibleName("Welcome to Castdeck")
        self._start_sandbox = start_sandbox
        self._scope = TaskScope(self)
        self._starting: asyncio.Task[None] | None = None
        self.choice: str | None = None
        self.result_value: Any = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 22, 24, 18)
        layout.setSpacing(12)
        top = QHBoxLayout()
        top.setSpacing(12)
        mark = Glyph("welcome", 36, self)
        top.addWidget(mark, 0, Qt.AlignmentFlag.AlignTop)
        heading = heading_label("Welcome to Castdeck", self, 1.6)
        top.addWidget(heading, 1)
        layout.addLayout(top)
        intro = QLabel(
            "Castdeck makes podcast episodes, videos, shorts and voiceovers with the service. "
            "Start in the sandbox to look around, or connect your studio's account.",
            self,
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.sandbox_button = ChoiceButton("play", "Try the sandbox", SANDBOX_TEXT, self)
        self.sandbox_button.setObjectName("try_sandbox")
        self.sandbox_button.clicked.connect(self.try_sandbox)
        self.account_button = ChoiceButton("account", "Connect my account", ACCOUNT_TEXT, self)
        self.account_button.setObjectName("connect_account")
        self.account_button.clicked.connect(self.connect_account)
        layout.addWidget(self.sandbox_button)
        layout.addWidget(self.account_button)

        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: the sandbox says when it listens, not how far it is
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.setAccessibleName("Starting the sandbox")
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        shows_value(self.status, "Status")
        self.status.hide()
        layout.addWidget(self.progress)
        layout.addWidget(self.status)

        row = QHBoxLayout()
        note = QLabel("You can connect an account later with File → Switch profile.", self)
        note.setWordWrap(True)
        row.addWidget(note, 1)
        self.not_now = QPushButton("Not now", self)
        self.not_now.setAccessibleName("Not now")
        self.not_now.setToolTip("Close Castdeck without connecting")
        self.not_now.setAutoDefault(False)
        self.not_now.clicked.connect(self.reject)
        row.addWidget(self.not_now)
        layout.addLayout(row)
        self.sandbox_button.setDefault(True)
        self.sandbox_button.setFocus()
        self.setMinimumWidth(560)

    @property
    def starting(self) -> bool:
        return self._starting is not None and not self._starting.done()

    def try_sandbox(self) -> None:
        if self.starting:
            return
        self.sandbox_button.setEnabled(False)
        self.account_button.setEnabled(False)
        self.progress.show()
        self._say("Starting the sandbox on this computer…")
        self._starting = self._scope.start(self._run_sandbox(), name="start the sandbox")

    async def _run_sandbox(self) -> None:
        try:
            self.result_value = await self._start_sandbox()
        except (SandboxError, OSError) as error:
            self.progress.hide()
            if isinstance(error, OSError):
                reason = f"its data folder {error.filename} cannot be made ({error.strerror})"
            else:
                reason = str(error)
            self._say(f"The sandbox did not start: {reason}")
            self.sandbox_button.setEnabled(True)
            self.account_button.setEnabled(True)
            return
        self.choice = "sandbox"
        self.accept()

    def connect_account(self) -> None:
        if self.starting:
            return
        self.choice = "account"
        self.accept()

    def reject(self) -> None:
        """Not now (or Escape, or the window's close button): a sandbox still starting is left."""
        self._scope.close()
        self.choice = None
        super().reject()

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.show()
