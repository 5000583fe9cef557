"""Settings the user changes often, written to disk on a thread of their own.

A ``QSettings().setValue(...)`` on the UI thread writes the settings file when the temporary
object goes away: the file, its lock file and two ``fdatasync`` calls, which under disk load took
up to half a second (``benchmarks/soak.py``). Dragging the volume slider wrote at every step.

:func:`remember` keeps the value in memory at once (:func:`recall` answers it from there until it
is written, so a reader never sees the old value) and wakes a writer thread that writes everything
pending in one go: a drag of the slider becomes one or two writes, none on the UI thread.
:func:`flush` waits until all of it is on disk (the app's shutdown; tests before they change the
settings' location). A value remembered again while it is written is written again afterwards.

Only QtCore and the standard library: the early window reads through :func:`recall` before the
rest of the app has loaded (:mod:`castdeck.startup`).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections import deque
from typing import Any

from PySide6.QtCore import QSettings

__all__ = ["flush", "recall", "remember", "writes"]

_lock = threading.Condition()
_pending: dict[str, Any] = {}
_writing: dict[str, Any] = {}
"""What the writer has taken and not yet written (still answered by :func:`recall`)."""
_thread: threading.Thread | None = None
_writes: deque[tuple[int, int]] = deque(maxlen=256)
"""The last writes done: the writer's thread id and how many values it wrote (tests read it)."""


def remember(key: str, value: Any) -> None:
    """Keep ``value`` for ``key``: visible to :func:`recall` now, written to the settings soon."""
    global _thread
    with _lock:
        _pending[key] = value
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_write_forever, name="settings writer", daemon=True)
            _thread.start()
        _lock.notify_all()


def recall(key: str, default: Any = None, settings: QSettings | None = None) -> Any:
    """The value of ``key``: one remembered and not yet written, else what ``settings`` (the
    app's settings when None) hold, else ``default``."""
    with _lock:
        for waiting in (_pending, _writing):
            if key in waiting:
                return waiting[key]
    return (settings if settings is not None else QSettings()).value(key, default)


def flush(timeout: float = 5.0) -> bool:
    """Wait until every remembered value is written; False if that took longer than ``timeout``."""
    deadline = time.monotonic() + timeout
    with _lock:
        while _pending or _writing:
            left = deadline - time.monotonic()
            if left <= 0 or _thread is None or not _thread.is_alive():
                return False
            _lock.wait(left)
    return True


def writes() -> list[tuple[int, int]]:
    """The last writes done (at most 256): (the writing thread's id, values written) each."""
    with _lock:
        return list(_writes)


def _write_forever() -> None:
    while True:
        with _lock:
            while not _pending:
                _lock.wait()
            _writing.update(_pending)
            _pending.clear()
            batch = dict(_writing)
        try:
            # A new object each time: it writes where the settings are now (tests move them).
            settings = QSettings()
            for key, value in batch.items():
                settings.setValue(key, value)
            settings.sync()
            del settings
        finally:
            with _lock:
                _writing.clear()
                _writes.append((threading.get_ident(), len(batch)))
                _lock.notify_all()


atexit.register(flush)
