"""What the command-line companions that talk to the service share: the connection (the
environment, else a saved profile with its key) and the problem that ends a command with its exit
status."""

from __future__ import annotations

import os

__all__ = ["Problem", "connection", "profile_connection"]


class Problem(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def connection(profile_name: str | None) -> tuple[str, str]:
    """The service address and key: the environment, else the saved profile."""
    _name, base_url, key = profile_connection(profile_name)
    return base_url, key


def profile_connection(profile_name: str | None) -> tuple[str, str, str]:
    """The profile's name (``ENV_PROFILE`` for the environment's), the service address and key:
    the environment, else the saved profile. The app keeps its outbox and jobs under that name."""
    from castdeck.services.profiles import KeyStore, ProfileStore, environment_profile

    env = environment_profile()
    if env is not None and profile_name is None:
        return env[0].name, env[0].base_url, env[1]
    from PySide6.QtCore import QCoreApplication

    QCoreApplication.setOrganizationName("Castdeck")  # the app's settings, where its profiles are
    QCoreApplication.setApplicationName("Castdeck")
    profiles = ProfileStore()
    name = profile_name or profiles.last_used()
    if not name:
        raise Problem(
            "no connection: set CASTDECK_BASE_URL and CASTDECK_API_KEY, or connect once in the app", 2
        )
    profile = profiles.get(name)
    if profile is None:
        raise Problem(f"no saved profile named {name!r}", 2)
    key = os.environ.get("CASTDECK_API_KEY") or KeyStore().get(profile.name)
    if not key:
        raise Problem(f"no API key for the profile {name!r}: set CASTDECK_API_KEY", 2)
    return profile.name, profile.base_url, key
