"""Progress figures of the upload queue: :class:`Transfer` (bytes sent, total, speed and time left
of one item or of the whole queue) and :class:`SpeedMeter`, the smoothed speed behind them."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["SPEED_HALF_LIFE", "SpeedMeter", "Transfer"]

SPEED_HALF_LIFE = 2.0
"""Seconds over which the speed estimate forgets half of its past."""


@dataclass(frozen=True)
class Transfer:
    """Progress of one item or of the whole queue."""

    sent: int
    total: int
    speed: float | None  # bytes per second, smoothed; None when unknown
    eta: float | None  # seconds left; None when unknown


class SpeedMeter:
    """A smoothed speed: an exponentially weighted average of the rate between progress reports."""

    def __init__(self) -> None:
        self.speed: float | None = None
        self._last: tuple[float, int] | None = None

    def note(self, sent: int) -> None:
        now = time.monotonic()
        if self._last is None or sent < self._last[1]:
            self._last = (now, sent)
            return
        then, before = self._last
        elapsed = now - then
        if elapsed < 0.1:
            return
        rate = (sent - before) / elapsed
        weight = 1.0 - 0.5 ** (elapsed / SPEED_HALF_LIFE)
        self.speed = rate if self.speed is None else self.speed + weight * (rate - self.speed)
        self._last = (now, sent)
