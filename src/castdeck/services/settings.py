"""The app's settings, typed: one accessor for each thing remembered, and every key in this module.

:class:`Settings` is built once by the start-up (``castdeck.startup``, which reads it before the
rest of the app has loaded) and handed to the app, which hands it on in its runtime
(``session.runtime.settings``). Each value is read as its type, whatever an edited settings file
holds (a number that is not one reads as the default), and written behind, on a thread of its own:

A ``QSettings().setValue(...)`` on the UI thread writes the settings file when the temporary
object goes away: the file, its lock file and two ``fdatasync`` calls, which under disk load took
up to half a second (``benchmarks/soak.py``). Dragging the volume slider wrote at every step. A
value remembered here is kept in memory at once (read back from there until it is written, so a
reader never sees the old value) and a writer thread writes everything pending in one go: a drag
of the slider becomes one or two writes, none on the UI thread. :meth:`Settings.flush` waits
until all of it is on disk (the app's shutdown; tests before they move the settings). A value
remembered again while it is written is written again afterwards.

Where the settings live is QSettings' own choice (the organisation and application names, and
the tests' temporary folder); each write and each read opens QSettings afresh, so they follow it.
Only QtCore and the standard library: the early window reads here first (:mod:`castdeck.startup`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

__all__ = [
    "CONCURRENCY_KEY",
    "GUIDE_DISMISSED",
    "LAST_PANE",
    "LAST_PODCAST",
    "LAST_PROFILE",
    "MEDIA_CACHE_MEGABYTES",
    "PROFILES_ARRAY",
    "RENDER_KEY",
    "SANDBOX_CHOSEN",
    "STEPS_DONE",
    "VOLUME_KEY",
    "WELCOME_DONE",
    "Settings",
    "folder_key",
    "splitter_key",
    "view_key",
]

# The keys, all of them. Profiles (services.profiles) and the window's geometry
# (ui.window_frame) are QSettings groups of their own, read and written through a QSettings handed in.
PROFILES_ARRAY = "profiles"
LAST_PROFILE = "last_profile"
WELCOME_DONE = "firstrun/welcome_done"
SANDBOX_CHOSEN = "firstrun/sandbox_chosen"
"""Set when the welcome's sandbox was chosen: later starts without a profile open it again."""
GUIDE_DISMISSED = "firstrun/guide_dismissed"
STEPS_DONE = "firstrun/steps_done"
LAST_PANE = "window/last_pane"
VOLUME_KEY = "listen/volume"
CONCURRENCY_KEY = "uploads/concurrency"
"""The files sent at the same time (the upload queue's choice, read at start)."""
RENDER_KEY = "episodes/render"
"""Whether a generation or an import asks the service to render the audio too."""
LAST_PODCAST = "scripts/last_podcast"
"""The podcast the last draft was sent to: the next draft without one of its own goes there."""
MEDIA_CACHE_MEGABYTES = "media/cache_megabytes"


def view_key(kind: str) -> str:
    """A pane's chosen view (table or cards)."""
    return f"panes/{kind}/view"


def folder_key(purpose: str) -> str:
    """The folder a file dialog for ``purpose`` opened last."""
    return f"folders/{purpose}"


def splitter_key(name: str) -> str:
    """The sizes a splitter was left at."""
    return f"splitters/{name}"


def _true(value: object) -> bool:
    """QSettings' INI files read booleans back as text."""
    return value is True or str(value).lower() == "true"


def _number(value: object, default: int, low: int, high: int) -> int:
    try:
        number = int(str(value))
    except ValueError:  # an edited settings file
        return default
    return max(low, min(high, number))


class Settings:
    """The settings of the app, read and written as their types (see the module's docstring)."""

    def __init__(self, open_settings: Callable[[], QSettings] = QSettings) -> None:
        self._open = open_settings
        self._lock = threading.Condition()
        self._pending: dict[str, Any] = {}
        self._writing: dict[str, Any] = {}
        """What the writer has taken and not yet written (still answered by :meth:`recall`)."""
        self._thread: threading.Thread | None = None
        self._writes: deque[tuple[int, int]] = deque(maxlen=256)
        """The last writes done: the writer's thread id and how many values it wrote (tests)."""

    # --- the values ------------------------------------------------------------------------------------------

    @property
    def volume(self) -> int:
        """The Listen window's volume, 0 to 100."""
        return _number(self.recall(VOLUME_KEY, 80), 80, 0, 100)

    def set_volume(self, value: int) -> None:
        self.remember(VOLUME_KEY, int(value))  # a drag changes it dozens of times

    def upload_concurrency(self, default: int) -> int:
        """Files sent at the same time, 1 to 8 (``default`` when never chosen)."""
        return _number(self.recall(CONCURRENCY_KEY, default), default, 1, 8)

    def set_upload_concurrency(self, value: int) -> None:
        self.remember(CONCURRENCY_KEY, int(value))

    @property
    def render_on_send(self) -> bool:
        """Whether generations and imports ask for the audio too (on unless turned off)."""
        value = self.recall(RENDER_KEY, True)
        if isinstance(value, str):  # QSettings' INI files read booleans back as text
            return value.strip().lower() not in ("false", "0", "no", "off")
        return bool(value)

    def set_render_on_send(self, on: bool) -> None:
        self.remember(RENDER_KEY, bool(on))

    def pane_view(self, kind: str) -> str:
        """The view a pane of ``kind`` was left on: ``table`` or ``cards``."""
        chosen = self.recall(view_key(kind), "table")
        return chosen if chosen in ("table", "cards") else "table"

    def set_pane_view(self, kind: str, mode: str) -> None:
        self.remember(view_key(kind), mode)

    @property
    def steps_done(self) -> frozenset[str]:
        """The first steps ticked off."""
        value = self.recall(STEPS_DONE, "")
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value or "")
        return frozenset(step for step in text.split(",") if step)

    def set_steps_done(self, steps: Iterable[str]) -> None:
        self.remember(STEPS_DONE, ",".join(steps))

    @property
    def guide_dismissed(self) -> bool:
        return _true(self.recall(GUIDE_DISMISSED, False))

    def dismiss_guide(self) -> None:
        self.write_now(GUIDE_DISMISSED, True)

    @property
    def welcome_done(self) -> bool:
        return _true(self.recall(WELCOME_DONE, False))

    def mark_welcome_done(self, *, sandbox: bool = False) -> None:
        """The welcome was answered; ``sandbox``: by choosing the sandbox (opened again later)."""
        self.write_now(WELCOME_DONE, True)
        if sandbox:
            self.write_now(SANDBOX_CHOSEN, True)

    @property
    def last_podcast(self) -> str | None:
        value = self.recall(LAST_PODCAST)
        return str(value) if value else None

    def set_last_podcast(self, podcast_id: str) -> None:
        self.remember(LAST_PODCAST, podcast_id)

    def last_pane(self) -> str | None:
        value = self.recall(LAST_PANE)
        return str(value) if value else None

    def set_last_pane(self, title: str) -> None:
        self.remember(LAST_PANE, title)

    def folder(self, purpose: str) -> str | None:
        """The folder a file dialog for ``purpose`` showed last."""
        value = self.recall(folder_key(purpose))
        return str(value) if value else None

    def set_folder(self, purpose: str, folder: str) -> None:
        self.remember(folder_key(purpose), folder)

    def splitter_state(self, name: str) -> QByteArray | None:
        value = self.recall(splitter_key(name))
        if isinstance(value, bytes) and value:
            return QByteArray(value)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_splitter_state(self, name: str, state: QByteArray) -> None:
        self.remember(splitter_key(name), state)

    @property
    def media_cache_megabytes(self) -> int:
        """How much the audio and media files kept for offline use may take, in MB."""
        return _number(self.recall(MEDIA_CACHE_MEGABYTES, 1024), 1024, 16, 1024 * 1024)

    def qsettings(self) -> QSettings:
        """The settings file itself, for the groups read and written whole (profiles, geometry)."""
        return self._open()

    # --- written behind --------------------------------------------------------------------------------------

    def remember(self, key: str, value: Any) -> None:
        """Keep ``value`` for ``key``: read back at once, written to the settings soon."""
        with self._lock:
            self._pending[key] = value
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._write_forever, name="settings writer", daemon=True
                )
                self._thread.start()
            self._lock.notify_all()

    def write_now(self, key: str, value: Any) -> None:
        """Write ``value`` at once (an answer given once, that the next start reads: the welcome's,
        the guide's dismissal); a value of ``key`` remembered and not yet written gives way to it."""
        with self._lock:
            self._pending.pop(key, None)
        settings = self._open()
        settings.setValue(key, value)
        settings.sync()

    def recall(self, key: str, default: Any = None) -> Any:
        """The value of ``key``: one remembered and not yet written, else the settings', else ``default``."""
        with self._lock:
            for waiting in (self._pending, self._writing):
                if key in waiting:
                    return waiting[key]
        return self._open().value(key, default)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every remembered value is written; False if that took longer than ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending or self._writing:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None or not self._thread.is_alive():
                    return False
                self._lock.wait(left)
        return True

    def writes(self) -> list[tuple[int, int]]:
        """The last writes done (at most 256): (the writing thread's id, values written) each."""
        with self._lock:
            return list(self._writes)

    def _write_forever(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._lock.wait()
                self._writing.update(self._pending)
                self._pending.clear()
                batch = dict(self._writing)
            try:
                settings = self._open()  # afresh each time: it writes where the settings are now
                for key, value in batch.items():
                    settings.setValue(key, value)
                settings.sync()
                del settings
            finally:
                with self._lock:
                    self._writing.clear()
                    self._writes.append((threading.get_ident(), len(batch)))
                    self._lock.notify_all()
