"""Time as the client and the app read it, in one object a test can replace.

Every wait the client and the app's services decide (the gap between two polls, a retry's
backoff, the reconnection probe's delays, a slot's expiry, a job's deadline) is read from a
:class:`Clock`. The app runs on :data:`SYSTEM_CLOCK`; a test gives the client (and the session
built on it) a clock it moves forward itself, so that an expiry or a delay of seconds comes due
at once instead of being waited for.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock", "sleep_until"]


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch (as :func:`time.time`)."""
        ...

    def monotonic(self) -> float:
        """A clock that never goes back (as :func:`time.monotonic`)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Until ``seconds`` of this clock's time have passed."""
        ...


class SystemClock:
    """The machine's time."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


SYSTEM_CLOCK: Clock = SystemClock()


async def sleep_until(moment: float, clock: Clock = SYSTEM_CLOCK) -> None:
    """Sleep until ``clock.monotonic()`` reaches ``moment``: never earlier (some loops' timers,
    Qt's coarse ones among them, may fire a few percent early)."""
    while (left := moment - clock.monotonic()) > 0:
        await clock.sleep(left + 0.001)
