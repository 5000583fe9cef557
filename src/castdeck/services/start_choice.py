"""What a start opens, decided from the command line, the environment and QSettings alone (no
keychain, no network, no models): which connection, which pane, whether the first steps show.

The app's start (:meth:`castdeck.app.CastdeckApp.open`) and the early window painted before the
rest of the app has loaded (:mod:`castdeck.startup`) both ask here, so they never disagree about
the profile whose cache the early window shows. This module imports QtCore only: it runs before
pydantic and httpx are loaded.
"""

from __future__ import annotations

import os
from typing import Literal, NamedTuple

from PySide6.QtCore import QSettings

from .settings import GUIDE_DISMISSED, LAST_PANE, LAST_PROFILE, PROFILES_ARRAY, SANDBOX_CHOSEN, WELCOME_DONE

__all__ = [
    "ENV_PROFILE",
    "SANDBOX_PROFILE",
    "STARTUP_PROBE",
    "StartChoice",
    "first_steps_pending",
    "saved_profile_names",
    "start_choice",
    "start_pane",
]

ENV_PROFILE = "Environment"
"""The profile ``CASTDECK_BASE_URL`` and ``CASTDECK_API_KEY`` make (as :mod:`.profiles` names it)."""
SANDBOX_PROFILE = "Sandbox"
"""The profile of the embedded sandbox."""
STARTUP_PROBE = "CASTDECK_STARTUP_PROBE"
"""Benchmarks: a pane title to start on; the app prints "painted N" once its first rows show."""
DEFAULT_PANE = "Episodes"


class StartChoice(NamedTuple):
    """``kind``: ``sandbox`` (``--sandbox``, or the sandbox chosen in the welcome), ``environment``,
    ``saved`` (a saved profile: its key is looked up next, and without one the connect dialog
    asks), ``welcome`` (the very first run) or ``ask`` (the connect dialog). ``profile``: the
    profile whose cache the start will use, when it is known before any dialog."""

    kind: Literal["sandbox", "environment", "saved", "welcome", "ask"]
    profile: str | None = None


def _true(value: object) -> bool:
    return str(value).lower() == "true"


def saved_profile_names(settings: QSettings) -> list[str]:
    """The names of the saved profiles (as ``ProfileStore.profiles`` reads them)."""
    names: list[str] = []
    size = settings.beginReadArray(PROFILES_ARRAY)
    for i in range(size):
        settings.setArrayIndex(i)
        name, url = settings.value("name"), settings.value("base_url")
        if isinstance(name, str) and isinstance(url, str) and name and url:
            names.append(name)
    settings.endArray()
    return names


def start_choice(*, sandbox: bool, profile: str | None, settings: QSettings | None = None) -> StartChoice:
    """What ``castdeck [--sandbox] [--profile NAME]`` connects to."""
    if sandbox:
        return StartChoice("sandbox", SANDBOX_PROFILE)
    if os.environ.get("CASTDECK_BASE_URL") and os.environ.get("CASTDECK_API_KEY"):
        return StartChoice("environment", ENV_PROFILE)
    settings = settings if settings is not None else QSettings()
    names = saved_profile_names(settings)
    last = settings.value(LAST_PROFILE)
    name = profile or (last if isinstance(last, str) and last else None)
    if name is not None and name in names:
        return StartChoice("saved", name)
    if not profile and not names:
        if not _true(settings.value(WELCOME_DONE, "false")):
            return StartChoice("welcome")
        if settings.value(SANDBOX_CHOSEN, False) in (True, "true"):
            return StartChoice("sandbox", SANDBOX_PROFILE)
    return StartChoice("ask")


def start_pane(settings: QSettings | None = None) -> str:
    """The pane the window opens on: the probe's, else the one shown last, else Episodes."""
    probe = os.environ.get(STARTUP_PROBE)
    if probe:
        return probe
    value = (settings if settings is not None else QSettings()).value(LAST_PANE)
    return value if isinstance(value, str) and value else DEFAULT_PANE


def first_steps_pending(settings: QSettings | None = None) -> bool:
    """Whether the window will show the first-steps strip (after the welcome, until dismissed)."""
    settings = settings if settings is not None else QSettings()
    return _true(settings.value(WELCOME_DONE, "false")) and not _true(
        settings.value(GUIDE_DISMISSED, "false")
    )
