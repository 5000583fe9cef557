"""``PaneFailed``: what stands in a pane's place when the pane could not be built.

A pane that raises while it is built (a library missing from the system, a bug) must not leave the
window half switched: the sidebar shows the pane selected, so the stack shows this in its place.
It says which pane, why (with the command that installs a missing library, where the error names
one), and offers to try again (after installing, say) and to copy a report for the developers
(what failed, the versions, the traceback), which is also in the log.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from castdeck.failures import failure_reason, failure_report

from .accessible import shows_value
from .screen_fit import fit_window
from .widgets import heading_label

__all__ = ["PaneFailed", "WindowFailed"]


class PaneFailed(QWidget):
    """Stands in for the pane ``title`` that raised ``error`` while it was built. ``retry`` builds
    it again (the window puts the pane in this one's place when that works)."""

    def __init__(
        self,
        title: str,
        error: BaseException,
        retry: Callable[[], object],
        parent: QWidget | None = None,
        *,
        noun: str = "pane",
    ) -> None:
        """``noun``: what could not be built, for the report ("pane", "window")."""
        super().__init__(parent)
        self.setObjectName("pane_failed")
        self.title = title
        self.error = error
        self.setAccessibleName(f"{title} could not be opened")
        self.report = failure_report(f"the {title} {noun} could not be opened", error)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addStretch(1)
        self.heading = heading_label(f"{title} could not be opened", self)
        self.heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.heading)
        reason = failure_reason(error)
        self.reason = QLabel(reason[:1].upper() + reason[1:], self)
        shows_value(self.reason, "Why")
        self.reason.setTextFormat(Qt.TextFormat.PlainText)
        self.reason.setWordWrap(True)
        self.reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.reason)
        self.note = QLabel(
            "The other panes work as usual. The details are in Castdeck's log; “Copy report” puts them "
            "on the clipboard for a bug report.",
            self,
        )
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.note)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.retry_button = QPushButton("Try again", self)
        self.retry_button.setAccessibleName(f"Try to open {title} again")
        self.retry_button.clicked.connect(lambda _checked=False: retry())
        buttons.addWidget(self.retry_button)
        self.copy_button = QPushButton("Copy report", self)
        self.copy_button.setAccessibleName(f"Copy a report of why {title} could not be opened")
        self.copy_button.clicked.connect(self.copy_report)
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        outer.addLayout(buttons)
        self.copied = QLabel("", self)
        shows_value(self.copied, "Report status")
        self.copied.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.copied)
        outer.addStretch(2)

    def copy_report(self) -> None:
        QGuiApplication.clipboard().setText(self.report)
        self.copied.setText("The report is on the clipboard: paste it into your message to support.")


class WindowFailed(QWidget):
    """A window of its own in place of one that could not be built (the Listen window): the same
    reason, Try again and Copy report as :class:`PaneFailed`. Try again closes it and builds anew."""

    def __init__(
        self, title: str, error: BaseException, retry: Callable[[], object], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("window_failed")
        self.setWindowTitle(f"{title} — could not be opened")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        def again() -> None:
            self.close()
            retry()

        self.failed = PaneFailed(title, error, again, self, noun="window")
        self.failed.note.setText(
            "The rest of Castdeck works as usual. The details are in Castdeck's log; “Copy report” puts "
            "them on the clipboard for a bug report."
        )
        layout.addWidget(self.failed)
        self.resize(640, 360)

    def showEvent(self, event: QShowEvent) -> None:
        fit_window(self)
        super().showEvent(event)
