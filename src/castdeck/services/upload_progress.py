"""Progress figures of the upload queue: :class:`Transfer` (bytes sent, total, speed and time left
of one item or of the whole queue) and :class:`SpeedMeter`, the smoothed speed behind them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SPEED_HALF_LIFE", "STALLED_AFTER", "SpeedMeter", "Transfer"]

SPEED_HALF_LIFE = 2.0
"""Seconds over which the speed estimate forgets half of its past."""

STALLED_AFTER = 3.0
"""Seconds without a byte sent after which the speed is no longer known: a transfer that stalls
went on showing the speed of before, and "about 1 s left", for as long as it stalled."""


@dataclass(frozen=True)
class Transfer:
    """Progress of one item or of the whole queue."""

    sent: int
    total: int
    speed: float | None  # bytes per second, smoothed; None when unknown
    eta: float | None  # seconds left; None when unknown


class SpeedMeter:
    """A smoothed speed: an exponentially weighted average of the rate between progress reports."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._speed: float | None = None
        self._last: tuple[float, int] | None = None
        self._moved_at = clock()
        self._moved = -1

    @property
    def speed(self) -> float | None:
        """Bytes per second; None before it is known, and while no byte was sent for
        :data:`STALLED_AFTER` seconds."""
        if self._speed is None or self._clock() - self._moved_at > STALLED_AFTER:
            return None
        return self._speed

    def note(self, sent: int) -> None:
        now = self._clock()
        if sent != self._moved:
            self._moved, self._moved_at = sent, now
        if self._last is None or sent < self._last[1]:
            self._last = (now, sent)
            return
        then, before = self._last
        elapsed = now - then
        if elapsed < 0.1:
            return
        rate = (sent - before) / elapsed
        weight = 1.0 - 0.5 ** (elapsed / SPEED_HALF_LIFE)
        self._speed = rate if self._speed is None else self._speed + weight * (rate - self._speed)
        self._last = (now, sent)
