"""The sandbox's time: the machine's, plus whatever a test moved it forward by.

Every moment the sandbox reasons about comes from here: timestamps, signed addresses' and upload
slots' expiry, the idempotency window, scheduled publishing, the analytics' ages, and the floors
of simulated work (:meth:`Clock.sleep`). Started with ``--test-clock``, the sandbox answers
``POST /_sandbox/clock`` with ``{"advance_seconds": N}``: its time jumps N seconds ahead, and work
sleeping past the new time wakes at once. So a test sees a window lapse or a schedule come due
without waiting for it; without the flag nothing moves the clock but the machine's.

One clock per sandbox process (:data:`CLOCK`): the process is one sandbox, and its timestamps,
expiries and work must agree on the time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime

__all__ = ["CLOCK", "Clock"]


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0
        """Seconds this clock is ahead of the machine's."""
        self._moved: asyncio.Event | None = None

    def time(self) -> float:
        """Seconds since the epoch (as :func:`time.time`)."""
        return time.time() + self.offset

    def monotonic(self) -> float:
        """A clock that never goes back (as :func:`time.monotonic`), moved with the offset."""
        return time.monotonic() + self.offset

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), UTC)

    def advance(self, seconds: float) -> None:
        """Move the time ``seconds`` ahead (never back); work sleeping past it wakes."""
        if seconds < 0:
            raise ValueError("the clock never goes back")
        self.offset += seconds
        moved, self._moved = self._moved, None
        if moved is not None:
            moved.set()

    async def sleep(self, seconds: float) -> None:
        """Until ``seconds`` of this clock's time have passed (the machine's, or an advance)."""
        end = self.monotonic() + seconds
        while (left := end - self.monotonic()) > 0:
            if self._moved is None:
                self._moved = asyncio.Event()
            moved = self._moved
            with contextlib.suppress(TimeoutError):  # the time came by itself
                await asyncio.wait_for(moved.wait(), timeout=left)


CLOCK = Clock()
