"""Connection profiles (name and address, in QSettings) and their API keys (in the OS keychain).

The key is read from ``CASTDECK_API_KEY`` first, then from the keychain through ``keyring``. Where
no keychain backend exists, the key can be kept in memory for this run only. It is never written to
QSettings, the cache database or a log.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSettings

from castdeck.api import (
    APIConnectionError,
    Client,
    ForbiddenError,
    InvalidResponseError,
    NotFoundError,
    UnauthorizedError,
)
from castdeck.api.models import Account

from .settings import LAST_PROFILE, PROFILES_ARRAY

__all__ = [
    "ENV_PROFILE",
    "KeyStore",
    "Profile",
    "ProfileStore",
    "check_address",
    "check_key",
    "environment_profile",
    "key_problem",
]

log = logging.getLogger(__name__)

KEYRING_SERVICE = "castdeck"
ENV_PROFILE = "Environment"


@dataclass(frozen=True)
class Profile:
    name: str
    base_url: str
    sandbox: bool = False


def environment_profile() -> tuple[Profile, str] | None:
    """The profile given by ``CASTDECK_BASE_URL`` and ``CASTDECK_API_KEY``, when both are set."""
    url, key = os.environ.get("CASTDECK_BASE_URL"), os.environ.get("CASTDECK_API_KEY")
    if url and key:
        return Profile(ENV_PROFILE, url.rstrip("/")), key
    return None


class ProfileStore:
    """Saved profiles and the last one used. Only names and addresses: never keys."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings or QSettings()

    def profiles(self) -> list[Profile]:
        out: list[Profile] = []
        size = self._settings.beginReadArray(PROFILES_ARRAY)
        for i in range(size):
            self._settings.setArrayIndex(i)
            name, url = self._settings.value("name"), self._settings.value("base_url")
            if isinstance(name, str) and isinstance(url, str) and name and url:
                out.append(Profile(name, url))
        self._settings.endArray()
        return out

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.profiles() if p.name == name), None)

    def save(self, profile: Profile) -> None:
        kept = [p for p in self.profiles() if p.name != profile.name] + [profile]
        self._write(kept)

    def remove(self, name: str) -> None:
        self._write([p for p in self.profiles() if p.name != name])
        if self.last_used() == name:
            self._settings.remove(LAST_PROFILE)

    def last_used(self) -> str | None:
        value = self._settings.value(LAST_PROFILE)
        return value if isinstance(value, str) and value else None

    def set_last_used(self, name: str) -> None:
        self._settings.setValue(LAST_PROFILE, name)
        self._settings.sync()

    def _write(self, profiles: list[Profile]) -> None:
        self._settings.remove(PROFILES_ARRAY)
        self._settings.beginWriteArray(PROFILES_ARRAY, len(profiles))
        for i, profile in enumerate(profiles):
            self._settings.setArrayIndex(i)
            self._settings.setValue("name", profile.name)
            self._settings.setValue("base_url", profile.base_url)
        self._settings.endArray()
        self._settings.sync()


def _keyring() -> Any:
    """``keyring``, imported when a key is first needed (it scans its backends: ~80 ms at start-up)."""
    import keyring
    import keyring.errors

    return keyring


class KeyStore:
    """API keys by profile name: the OS keychain, or memory for this run when there is none."""

    def __init__(self) -> None:
        self._session_only: dict[str, str] = {}

    @staticmethod
    def keychain_available() -> bool:
        try:
            backend = _keyring().get_keyring()
        except Exception:  # a broken keyring configuration is "no keychain", never a crash
            return False
        priority = getattr(backend, "priority", 0)
        module = type(backend).__module__
        return not module.startswith("keyring.backends.fail") and not module.startswith(
            "keyring.backends.null"
        ) and (priority is None or priority > 0)  # fmt: skip

    def get(self, profile: str) -> str | None:
        if profile in self._session_only:
            return self._session_only[profile]
        keyring = _keyring()
        try:
            key: str | None = keyring.get_password(KEYRING_SERVICE, profile)
            return key
        except (keyring.errors.KeyringError, RuntimeError) as error:
            log.warning("the keychain could not be read: %s", type(error).__name__)
            return None

    def save(self, profile: str, key: str, *, session_only: bool = False) -> bool:
        """Keep the key; returns False when it could only be kept for this run."""
        if session_only or not self.keychain_available():
            self._session_only[profile] = key
            return False
        keyring = _keyring()
        try:
            keyring.set_password(KEYRING_SERVICE, profile, key)
        except (keyring.errors.KeyringError, RuntimeError) as error:
            log.warning("the keychain refused the key: %s", type(error).__name__)
            self._session_only[profile] = key
            return False
        self._session_only.pop(profile, None)
        return True

    def delete(self, profile: str) -> None:
        self._session_only.pop(profile, None)
        keyring = _keyring()
        with contextlib.suppress(keyring.errors.KeyringError, RuntimeError):
            keyring.delete_password(KEYRING_SERVICE, profile)


def check_address(base_url: str, api_key: str) -> list[tuple[str, str]]:
    """Problems with an address and a key before anything is sent: ``(field, message)`` pairs."""
    from castdeck.api.transport import Transport

    problems: list[tuple[str, str]] = []
    try:
        Transport(base_url.strip(), api_key.strip() or "x")
    except ValueError as error:
        problems.append(("base_url", str(error)))
    key = api_key.strip()
    if not key:
        problems.append(("api_key", "the API key is required"))
    elif any(c.isspace() or ord(c) < 32 for c in key):
        problems.append(("api_key", "the API key contains spaces or control characters"))
    return problems


async def check_key(base_url: str, api_key: str) -> Account:
    """Prove a key with ``GET /v1/account`` (before it is saved)."""
    async with Client(base_url.strip().rstrip("/"), api_key.strip(), timeout=15.0, max_retries=1) as client:
        return await client.account.get()


def key_problem(error: Exception) -> tuple[str, str] | None:
    """Which field a failed key check points at, and what to tell the user."""
    if isinstance(error, UnauthorizedError):
        return "api_key", (
            "The service does not accept this key (401). Check that it was copied whole from the "
            "API keys section of the studio's developer settings."
        )
    if isinstance(error, ForbiddenError):
        return "api_key", (
            "This key has no API access (403). API access needs the Creator plan or higher, and a "
            "key from a member allowed to manage keys."
        )
    if isinstance(error, APIConnectionError):
        return "base_url", f"The service cannot be reached at this address: {error}"
    if isinstance(error, NotFoundError):
        return "base_url", "This address answers, but not as the service (404 for /v1/account)."
    if isinstance(error, InvalidResponseError):
        return "base_url", f"This address does not answer as the service: {error}"
    return None
