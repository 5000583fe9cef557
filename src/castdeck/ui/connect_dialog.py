"""The connect dialog: choose a saved profile, or add one (name, service address, API key).

A new key is checked with ``GET /v1/account`` before it is saved; a 401 or 403 says what is wrong
under the key field. The key goes to the OS keychain; where there is none, the dialog says so and
the user may keep it for this run only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from castdeck.api.errors import CastdeckError, InputValidationError
from castdeck.api.models import Account, FieldError
from castdeck.services.profiles import KeyStore, Profile, ProfileStore, check_address, check_key, key_problem

from .forms import FormDialog
from .palette import tone

__all__ = ["ConnectDialog", "Connection"]

DEFAULT_URL = "https://"


@dataclass(frozen=True)
class Connection:
    profile: Profile
    api_key: str
    account: Account | None
    stored_in_keychain: bool


class ConnectDialog(FormDialog):
    def __init__(self, profiles: ProfileStore, keys: KeyStore, parent: QWidget | None = None) -> None:
        super().__init__(
            "Connect to the service", self._connect, submit_label="Check key and connect", parent=parent
        )
        self.profiles = profiles
        self.keys = keys
        self.keychain = keys.keychain_available()

        saved = profiles.profiles()
        self.saved_row = QWidget(self)
        row = QHBoxLayout(self.saved_row)
        row.setContentsMargins(0, 0, 0, 0)
        self.saved = QComboBox(self.saved_row)
        self.saved.setAccessibleName("Saved profiles")
        for profile in saved:
            self.saved.addItem(f"{profile.name} — {profile.base_url}", profile.name)
        self.use_saved = QPushButton("Use this profile", self.saved_row)
        self.use_saved.setAccessibleName("Use this profile")
        self.use_saved.clicked.connect(self._use_saved)
        self.remove_saved = QPushButton("Remove", self.saved_row)
        self.remove_saved.setAccessibleName("Remove profile")
        self.remove_saved.clicked.connect(self._remove_saved)
        row.addWidget(self.saved, 1)
        row.addWidget(self.use_saved)
        row.addWidget(self.remove_saved)
        self.form.addRow("Saved profiles", self.saved_row)
        self.form.setRowVisible(self.saved_row, bool(saved))

        self.name = QLineEdit(self)
        self.name.setPlaceholderText("e.g. My studio")
        self.base_url = QLineEdit(DEFAULT_URL, self)
        self.base_url.setPlaceholderText("https://api.example.com")
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("the key from the studio's developer settings")
        self.add_field("name", "Profile name", self.name)
        self.add_field("base_url", "Service address", self.base_url)
        self.add_field(
            "api_key", "API key", self.api_key,
            hint="Checked with the service before it is saved. It is stored in the system keychain, never in a file.",
        )  # fmt: skip
        self.session_only = QCheckBox("Keep the key for this run only", self)
        self.session_only.setToolTip("The key is forgotten when Castdeck quits.")
        self.keychain_note = QLabel(self)
        self.keychain_note.setWordWrap(True)
        if not self.keychain:
            self.keychain_note.setText(
                "No system keychain is available here, so the key cannot be saved. Tick the box to keep "
                "it in memory for this run only; you will be asked again next time."
            )
            self.keychain_note.setStyleSheet(f"color: {tone('warning')};")
            self.form.addRow("", self.keychain_note)
        self.add_field("session_only", "Storage", self.session_only)

    # --- saved profiles ------------------------------------------------------------------------------------

    def _use_saved(self) -> None:
        name = self.saved.currentData()
        profile = self.profiles.get(name) if name else None
        if profile is None:
            return
        key = self.keys.get(profile.name)
        self.name.setText(profile.name)
        self.base_url.setText(profile.base_url)
        if key:
            self.api_key.setText(key)
            self.try_submit()
        else:
            self.api_key.setFocus()
            self.banner.show_message(f"No key is stored for {profile.name}; enter it again.", kind="warning")

    def _remove_saved(self) -> None:
        name = self.saved.currentData()
        if not name:
            return
        self.profiles.remove(name)
        self.keys.delete(name)
        self.saved.removeItem(self.saved.currentIndex())
        self.form.setRowVisible(self.saved_row, self.saved.count() > 0)

    # --- checking ------------------------------------------------------------------------------------------

    def collect(self) -> dict[str, Any]:
        return {
            "name": self.name.text().strip(),
            "base_url": self.base_url.text().strip().rstrip("/"),
            "api_key": self.api_key.text().strip(),
            "session_only": self.session_only.isChecked(),
        }

    def validate(self, body: dict[str, Any]) -> dict[str, Any]:
        errors = [FieldError(field=f, message=m) for f, m in check_address(body["base_url"], body["api_key"])]
        if not body["name"]:
            errors.append(FieldError(field="name", message="give the profile a name"))
        elif len(body["name"]) > 60:
            errors.append(FieldError(field="name", message="at most 60 characters"))
        if not self.keychain and not body["session_only"]:
            errors.append(
                FieldError(field="session_only", message="no keychain: the key can only be kept for this run")
            )
        if errors:
            raise InputValidationError(errors, "Connection")
        return body

    async def _connect(self, body: dict[str, Any]) -> Connection:
        try:
            account = await check_key(body["base_url"], body["api_key"])
        except CastdeckError as error:
            problem = key_problem(error)
            if problem is None:
                raise
            raise InputValidationError(
                [FieldError(field=problem[0], message=problem[1])], "Connection"
            ) from None
        profile = Profile(body["name"], body["base_url"])
        stored = self.keys.save(profile.name, body["api_key"], session_only=body["session_only"])
        self.profiles.save(profile)
        self.profiles.set_last_used(profile.name)
        return Connection(profile, body["api_key"], account, stored)
