"""Full garbage collections at quiet moments, not in the middle of a scroll.

Python's collector walks every tracked object on a full (generation 2) collection. With ten
thousand episodes loaded that walk took 36 ms on the UI thread, and it came, as the automatic
collector decides, while the list was paging: one long stall of the event loop
(``benchmarks/episodes_scale.py``). The young generations stay automatic (a collection of them
takes a millisecond or two); full collections run from a timer once the user has not touched
the keyboard or the mouse for a moment, or, when the app is never left alone, at most
:attr:`QuietCollector.LONGEST_WAIT` seconds after they became due, so memory stays bounded.

The input is watched (an event filter on the application) only while a full collection waits for
its quiet moment: a Python filter on the application is called for every event the app handles
(timers, paints, sockets), which cost a busy window about a tenth of its main thread
(``benchmarks/background_load.py``). A wait therefore starts as if the user had just been busy.

After each full collection the C heap's free pages go back to the system
(:func:`~castdeck.services.heap.trim_heap`, glibc's ``malloc_trim``). glibc gives memory back on its own only from the top of a heap; what is
freed below live blocks (a dialog's widgets and window image, a decoded picture, a worker
thread's buffers) stayed resident for good: three minutes into the soak (benchmarks/soak.py), one
trim gave back 20-26 MiB of the 94 MiB the process had grown since its warm-up.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer

from .heap import trim_heap

__all__ = ["QuietCollector"]

_INPUT = frozenset(
    int(kind)
    for kind in (
        QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
        QEvent.Type.TouchUpdate,
    )
)
_NEVER = 2**30
"""A generation-2 threshold the automatic collector never reaches."""


class QuietCollector(QObject):
    """Takes over full collections from the automatic collector while started."""

    QUIET_FOR = 1.0
    """Seconds without input after which a due full collection runs."""
    LONGEST_WAIT = 60.0
    """Seconds a due full collection waits at most for a quiet moment."""
    CHECK_EVERY_MS = 250

    def __init__(self, parent: QObject | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._clock = clock
        self._timer = QTimer(self)
        self._timer.setObjectName("quiet collections")
        self._timer.setInterval(self.CHECK_EVERY_MS)
        self._timer.timeout.connect(self.check)
        self._saved: tuple[int, int, int] | None = None
        self._last_input = clock()
        self._due_since: float | None = None
        """When the full collection now waiting became due (None: none waits; input is not watched)."""
        self.collections = 0
        """Full collections run (tests and benchmarks read it)."""

    @property
    def started(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        app = QCoreApplication.instance()
        if self._saved is not None or app is None:
            return
        young, middle, full = gc.get_threshold()
        self._saved = (young, middle, full)
        gc.set_threshold(young, middle, _NEVER)
        self._timer.start()

    def stop(self) -> None:
        """Give full collections back to the automatic collector."""
        if self._saved is None:
            return
        gc.set_threshold(*self._saved)
        self._saved = None
        self._timer.stop()
        self._stop_waiting()

    @property
    def waiting(self) -> bool:
        """A full collection is due and waits for a quiet moment (the input is watched)."""
        return self._due_since is not None

    def _stop_waiting(self) -> None:
        if self._due_since is not None:
            self._due_since = None
            app = QCoreApplication.instance()
            if app is not None:
                app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if int(event.type()) in _INPUT:
            self._last_input = self._clock()
        return False

    def check(self) -> bool:
        """Run a full collection if one is due and the moment is quiet (or it waited too long).
        Returns whether it ran."""
        if self._saved is None:
            return False
        # What the automatic collector counts: middle-generation collections since the last full one.
        if gc.get_count()[2] < self._saved[2]:
            self._stop_waiting()
            return False
        now = self._clock()
        if self._due_since is None:  # due from now: watch the input, counting from a busy moment
            self._due_since = self._last_input = now
            app = QCoreApplication.instance()
            if app is not None:
                app.installEventFilter(self)
            return False
        quiet = now - self._last_input >= self.QUIET_FOR
        if not quiet and now - self._due_since < self.LONGEST_WAIT:
            return False
        self._stop_waiting()
        self.collect()
        return True

    def collect(self) -> None:
        """A full collection now, then the C heap's free pages given back (what :meth:`check`
        runs at a quiet moment; the soak measures memory right after one)."""
        gc.collect()
        trim_heap()
        self.collections += 1
