"""QtMultimedia behind one door: the only module of the app that imports it.

On Linux, QtMultimedia cannot even be imported without PulseAudio's client library
(``libpulse.so.0``), and a machine may lack it. Everything else of the app works without it: so
nothing imports QtMultimedia at module level, and the player, the media previews and the stills
ask :func:`load` when they are built. When it cannot be loaded they say so in place
(:func:`missing`: what failed and the command that installs what is missing), and the Listen
window keeps its transcript.

A lint rule (ruff's banned-api, ``pyproject.toml``) keeps every other module from importing it.
For type annotations, other modules import its classes from here under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import logging
from types import ModuleType
from typing import TYPE_CHECKING

from castdeck.system_packages import install_hint

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QAudioDevice as QAudioDevice
    from PySide6.QtMultimedia import QAudioOutput as QAudioOutput
    from PySide6.QtMultimedia import QMediaDevices as QMediaDevices
    from PySide6.QtMultimedia import QMediaPlayer as QMediaPlayer
    from PySide6.QtMultimedia import QtVideo as QtVideo
    from PySide6.QtMultimedia import QVideoFrame as QVideoFrame
    from PySide6.QtMultimedia import QVideoFrameFormat as QVideoFrameFormat
    from PySide6.QtMultimedia import QVideoSink as QVideoSink

__all__ = ["MultimediaMissing", "available", "forget", "load", "missing", "require"]

log = logging.getLogger(__name__)


class MultimediaMissing(RuntimeError):
    """QtMultimedia could not be loaded; the message says why and what to install."""


class _State:
    tried = False
    module: ModuleType | None = None
    problem: str | None = None


def load() -> ModuleType | None:
    """QtMultimedia, imported the first time it is asked for; None when it cannot be loaded."""
    if not _State.tried:
        _State.tried = True
        try:
            # a plain import statement, so the bundle's analysis (PyInstaller, the bundle check)
            # sees that the app needs QtMultimedia
            import PySide6.QtMultimedia as qt_multimedia

            _State.module = qt_multimedia
        except ImportError as error:
            _State.problem = str(error) or type(error).__name__
            log.warning("QtMultimedia could not be loaded: %s", _State.problem)
    return _State.module


def available() -> bool:
    return load() is not None


def require() -> ModuleType:
    """QtMultimedia, or :class:`MultimediaMissing` with what :func:`missing` says."""
    module = load()
    if module is None:
        raise MultimediaMissing(missing() or "QtMultimedia could not be loaded.")
    return module


def missing(what: str = "Playing") -> str | None:
    """None when QtMultimedia loads; else one message for the user: ``what`` ("Playing",
    "Previews") is not possible on this computer, the reason, and the command that installs what
    is missing."""
    if load() is not None:
        return None
    return (
        f"{what} needs Qt's multimedia support, which could not be loaded ({_State.problem}). "
        f"{install_hint(['player'])}, then start Castdeck again."
    )


def forget() -> None:
    """Ask again at the next :func:`load` (tests that make the import fail, then undo it)."""
    _State.tried = False
    _State.module = None
    _State.problem = None
