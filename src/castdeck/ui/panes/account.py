"""Account: the organization, its plan, the credit balance and what things cost."""

from __future__ import annotations

import time

from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from castdeck.api.models import Account
from castdeck.api.models.limits import (
    CREDITS_PER_IMAGE,
    CREDITS_PER_NARRATION_MINUTE,
    CREDITS_PER_VIDEO_CLIP,
)
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from ..status import format_credits
from ..widgets import Banner, display_text, heading_label

__all__ = ["AccountPane"]


class AccountPane(QWidget):
    title = "Account"

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        self.session = session
        self.setAccessibleName("Account")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        header = QHBoxLayout()
        heading = heading_label("Account", self)
        header.addWidget(heading)
        header.addStretch(1)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setAccessibleName("Refresh account")
        self.refresh_button.clicked.connect(self.refresh)
        header.addWidget(self.refresh_button)
        outer.addLayout(header)
        self.banner = Banner(self)
        outer.addWidget(self.banner)

        account_box = QGroupBox("Account", self)
        form = QFormLayout(account_box)  # each row's label labels its value (read "Plan: Creator")
        self.organization = QLabel("—", account_box)
        self.plan = QLabel("—", account_box)
        self.balance = QLabel("—", account_box)
        bold = self.balance.font()
        bold.setPointSizeF(bold.pointSizeF() * 1.3)
        bold.setBold(True)
        self.balance.setFont(bold)
        self.service = QLabel(session.profile.base_url, account_box)
        self.checked = QLabel("—", account_box)
        form.addRow("Organization", self.organization)
        form.addRow("Plan", self.plan)
        form.addRow("Credit balance", self.balance)
        form.addRow("Service", self.service)
        form.addRow("Last checked", self.checked)
        outer.addWidget(account_box)

        rates = QGroupBox("Credit rates", self)
        rates_form = QFormLayout(rates)
        for label, value in (
            ("Narration", f"{CREDITS_PER_NARRATION_MINUTE} credits per minute"),
            ("Generated image", f"{CREDITS_PER_IMAGE} credits each"),
            ("Generated video clip", f"{CREDITS_PER_VIDEO_CLIP} credits each"),
            ("Rendering audio and video", "free"),
        ):
            rates_form.addRow(label, QLabel(value, rates))  # the row's label labels the rate
        note = QLabel(
            "Generation holds the credits it may use when it starts and settles the real cost when it ends.",
            rates,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(mid);")
        rates_form.addRow(note)
        outer.addWidget(rates)
        outer.addStretch(1)

        session.accountChanged.connect(self._show)
        self._show(session.account)

    def activate(self) -> None:
        if self.session.account is None:
            self.refresh()

    def refresh(self) -> None:
        self.banner.hide()
        self.work.start(
            self.session.refresh_account(),
            on_error=lambda e: self.banner.show_error(e, "Could not read the account"),
        )

    def _show(self, account: Account | None) -> None:
        if account is None:
            return
        self.organization.setText(display_text(account.organization_id))
        self.plan.setText(display_text(account.plan.capitalize()))
        self.balance.setText(f"{format_credits(account.credits.balance)} credits")
        self.checked.setText(time.strftime("%H:%M:%S"))
