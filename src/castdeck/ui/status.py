"""The status bar: connection state, organization, plan, credit balance and network activity."""

from __future__ import annotations

import contextlib

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from castdeck.api.models import Account
from castdeck.services.session import ConnectionState, Session

from .palette import tone
from .widgets import display_text

__all__ = ["StatusBar", "format_credits"]

STATE_TEXT = {
    ConnectionState.CONNECTING: ("Connecting…", "warning"),
    ConnectionState.ONLINE: ("Online", "success"),
    ConnectionState.OFFLINE: ("Offline — reconnecting", "problem"),
    ConnectionState.REJECTED: ("Key refused", "problem"),
}


def format_credits(value: float | int | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


ACTIVITY_LINGER_MS = 400
"""The network activity indicator stays this long after the last request has ended."""


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Status")
        self.connection = QLabel(self)
        # Each label says what it shows ("Plan: Creator"), read as its name; the connection's dot
        # is a colour, so its name says the state in words (set with the state).
        self.organization = QLabel(self)
        self.plan = QLabel(self)
        for label in (self.organization, self.plan):
            label.setTextFormat(Qt.TextFormat.PlainText)  # they quote the service
        self.balance = QLabel(self)
        self.activity = QProgressBar(self)
        self.activity.setAccessibleName("Network activity")
        self.activity.setMaximumWidth(90)
        self.activity.setMaximumHeight(14)
        self.activity.setTextVisible(False)
        self.activity.setRange(0, 0)
        # Shown while requests are in flight, hidden once none has been for a moment: with jobs
        # polling it would otherwise come and go many times a second, and it keeps its room
        # while hidden, so neither relays out the status bar.
        policy = self.activity.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.activity.setSizePolicy(policy)
        self.activity.hide()
        self._activity_tip = ""
        self._quiet = QTimer(self)
        self._quiet.setObjectName("network activity hides")
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(ACTIVITY_LINGER_MS)
        self._quiet.timeout.connect(self.activity.hide)
        for widget in (self.connection, self.organization, self.plan, self.balance):
            self.addPermanentWidget(widget)
        self.addPermanentWidget(self.activity)
        self.session: Session | None = None

    def bind(self, session: Session) -> None:
        if self.session is not None:
            for signal, slot in ((self.session.stateChanged, self._state), (self.session.accountChanged, self._account),
                                 (self.session.activityChanged, self._activity)):  # fmt: skip
                with contextlib.suppress(RuntimeError, TypeError):
                    signal.disconnect(slot)
        self.session = session
        session.stateChanged.connect(self._state)
        session.accountChanged.connect(self._account)
        session.activityChanged.connect(self._activity)
        self._state()
        self._account(session.account)
        self._activity(session.in_flight)

    def _state(self, *_: object) -> None:
        assert self.session is not None
        text, shade = STATE_TEXT[self.session.state]
        self.connection.setText(f'<span style="color:{tone(shade, self.palette())}">●</span> {text}')
        self.connection.setAccessibleName(f"Connection: {text}")
        detail = display_text(self.session.state_detail or self.session.profile.base_url)
        self.connection.setToolTip(GuiQt.convertFromPlainText(detail))  # a service message, never markup

    def _account(self, account: Account | None) -> None:
        if account is None:
            self.organization.setText("Organization: —")
            self.plan.setText("Plan: —")
            self.balance.setText("Credits: —")
            return
        self.organization.setText(f"Organization: {display_text(account.organization_id)}")
        self.plan.setText(f"Plan: {display_text(account.plan.capitalize())}")  # as Account writes it
        self.balance.setText(f"Credits: {format_credits(account.credits.balance)}")

    def hideEvent(self, event: QHideEvent) -> None:  # the window closed: nothing is left to hide later
        self._quiet.stop()
        self.activity.hide()
        super().hideEvent(event)

    def _activity(self, in_flight: int) -> None:
        if in_flight > 0:
            self._quiet.stop()
            if self.activity.isHidden():
                self.activity.show()
            tip = f"{in_flight} request(s) in flight"
            if tip != self._activity_tip:
                self._activity_tip = tip
                self.activity.setToolTip(tip)
        elif not self._quiet.isActive() and not self.activity.isHidden():
            self._quiet.start()
