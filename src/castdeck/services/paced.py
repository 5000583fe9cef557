"""``PacedWork``: work that must run on the UI thread, but not now: a step a frame.

Building widgets can only happen on the UI thread, and some of it need not happen at once: the
Jobs dock's cards while two hundred jobs start. Done all at once it holds the window; done at
every turn of the event loop it adds to whatever that turn already painted. ``PacedWork`` runs
its owner's step once a frame (:data:`FRAME_MS`) while the step says more remains. In a frame
whose own events already used the event loop's :data:`~castdeck.services.event_loop.TURN_SHARE`
of the main thread (a big repaint), it skips the step, at most :data:`GIVE_WAY_AT_MOST` frames in
a row, so that the work still comes however busy the window is.

The owner says what one step is and whether it is ready; when a step runs is decided here, from
the event loop's turn clock, so no widget reads the loop's timing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from .event_loop import TURN_SHARE, turn_spent

__all__ = ["FRAME_MS", "GIVE_WAY_AT_MOST", "PacedWork"]

FRAME_MS = 16
"""A step a frame, not one at every turn of the event loop."""

GIVE_WAY_AT_MOST = 2
"""Frames in a row a step may give way to a pass of Qt's loop that was long already; then it runs
anyway. In the start burst of ``benchmarks/background_load.py`` a card built in the pass of the
upload queue's first layout and paint made the longest turn of the burst."""


class PacedWork(QObject):
    """Runs ``step`` once a frame from :meth:`start` until it returns False (nothing more to do)
    or :meth:`stop`. ``ready``, when given, is asked first: False waits for the next frame without
    counting as giving way (more of the same is arriving)."""

    ticked = Signal()
    """After each frame's turn, whether it ran the step, gave way or waited (tests count them)."""

    def __init__(
        self,
        step: Callable[[], bool],
        *,
        ready: Callable[[], bool] | None = None,
        name: str,
        parent: QObject,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._step = step
        self._ready = ready
        self._gave_way = 0
        self._timer = QTimer(self)
        self._timer.setObjectName(name)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        """Run a step from the next frame on (nothing changes when already started)."""
        if not self._timer.isActive():
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._gave_way = 0

    def is_active(self) -> bool:
        return self._timer.isActive()

    def _tick(self) -> None:
        if self._ready is not None and not self._ready():
            pass  # not yet: the next frame asks again
        elif turn_spent() >= TURN_SHARE and self._gave_way < GIVE_WAY_AT_MOST:
            self._gave_way += 1  # this pass painted a lot already: the next frame steps
        else:
            self._gave_way = 0
            if not self._step():
                self.stop()
        self.ticked.emit()
