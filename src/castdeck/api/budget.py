"""One request budget for all background reads of a service: pollers share it, so tracking a
thousand jobs cannot flood the service, and a 429 met by one slows all of them.

:class:`RequestBudget` is a token bucket (``rate`` requests a second, bursts of ``burst``) that
every poll awaits before it asks. It also listens to every answer the client gets (the transport
calls :meth:`RequestBudget.observe`): the service's ``RateLimit-*`` headers (or the combined
``RateLimit: limit=…, remaining=…, reset=…`` field) lower the rate to what the service allows,
keeping a reserve for the user's own requests, and a 429 pauses every waiting poll until its
``Retry-After`` has passed. Requests a person asked for (opening a pane, pressing a button) never
wait here; they are only counted by the service.
"""

from __future__ import annotations

import asyncio
import collections
import re
import time
from collections.abc import Callable, Mapping

__all__ = ["DEFAULT_BURST", "DEFAULT_RATE", "RequestBudget"]

DEFAULT_RATE = 10.0
"""Background requests a second when the service says nothing about its limits."""
DEFAULT_BURST = 2.0
"""Background requests let through at once after a lull. Small on purpose: the answers of polls let
through together arrive together, and the app reads each on its UI thread (about 1-2 ms each, the
connection pool's book-keeping with it); ten at once made one turn of 20-40 ms under
``benchmarks/background_load.py``. The rate over a second is the same."""
RESERVE = 0.25
"""The share of the service's stated allowance left for requests a person makes."""
MIN_RATE = 0.05
"""Never slower than one request in 20 s (a broken header must not stop polling for good)."""
DEFAULT_PAUSE = 1.0
"""A 429 without ``Retry-After`` pauses everyone this long."""
MAX_PAUSE = 300.0


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return (
        number if number == number and number not in (float("inf"), float("-inf")) and number >= 0 else None
    )


_FIELD = re.compile(r"(limit|remaining|reset|r|t)\s*=\s*([0-9.]+)", re.IGNORECASE)


def parse_rate_limit(
    headers: Mapping[str, str],
) -> tuple[float | None, float | None, float | None, float | None]:
    """``(limit, remaining, reset_seconds, window_seconds)`` from the ``RateLimit-*`` headers the
    service may send (each None when absent or unusable)."""
    limit = _number(headers.get("ratelimit-limit"))
    remaining = _number(headers.get("ratelimit-remaining"))
    reset = _number(headers.get("ratelimit-reset"))
    combined = headers.get("ratelimit")
    if combined:
        for name, value in _FIELD.findall(combined):
            number = _number(value)
            key = name.lower()
            if key == "limit" and limit is None:
                limit = number
            elif key in ("remaining", "r") and remaining is None:
                remaining = number
            elif key in ("reset", "t") and reset is None:
                reset = number
    window = None
    policy = headers.get("ratelimit-policy")
    if policy:
        match = re.search(r"w\s*=\s*([0-9.]+)", policy)
        window = _number(match.group(1)) if match else None
    return limit, remaining, reset, window


class RequestBudget:
    """Shared throttle of one client's background requests (no Qt; any asyncio loop)."""

    def __init__(
        self,
        rate: float = DEFAULT_RATE,
        burst: float = DEFAULT_BURST,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a request budget needs a positive rate and a burst of at least 1")
        self.rate = float(rate)
        self.burst = float(burst)
        self._clock = clock
        self._tokens = self.burst
        self._updated = clock()
        self._paused_until = 0.0
        self._service_rate: float | None = None
        self._service_rate_until = 0.0
        self._lock: asyncio.Lock | None = None
        self._recent: collections.deque[float] = collections.deque()
        self.granted = 0
        """Requests let through so far."""
        self.peak_per_second = 0
        """The most requests let through within any one second."""
        self.rate_limited = 0
        """429 answers seen."""

    # --- what pollers call ---------------------------------------------------------------------------------

    async def acquire(self) -> None:
        """Wait for a turn: first come, first served; never during a pause a 429 asked for."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            while True:
                now = self._clock()
                if now < self._paused_until:
                    await asyncio.sleep(self._paused_until - now)
                    continue
                self._refill(now)
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    self._count(now)
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.current_rate)

    @property
    def current_rate(self) -> float:
        """Requests a second allowed now: the own rate, lowered by what the service said."""
        if self._service_rate is not None and self._clock() < self._service_rate_until:
            return max(MIN_RATE, min(self.rate, self._service_rate))
        return self.rate

    @property
    def paused_for(self) -> float:
        """Seconds until a 429's pause ends (0 when none)."""
        return max(0.0, self._paused_until - self._clock())

    # --- what the transport reports ----------------------------------------------------------------------

    def observe(self, status: int, headers: Mapping[str, str], retry_after: float | None = None) -> None:
        """Learn from an answer of the service: its rate-limit headers, and a 429's pause."""
        now = self._clock()
        limit, remaining, reset, window = parse_rate_limit(headers)
        rates: list[float] = []
        if limit is not None and window:
            rates.append(limit * (1.0 - RESERVE) / window)
        if remaining is not None and reset is not None:
            spare = remaining - (limit * RESERVE if limit is not None else 1.0)
            if spare <= 0 and reset > 0:
                self._pause(now, min(reset, MAX_PAUSE))
            elif reset > 0:
                rates.append(spare / reset)
        if rates:
            self._service_rate = max(MIN_RATE, min(rates))
            self._service_rate_until = now + max(reset or 0.0, window or 0.0, 1.0)
        if status == 429:
            self.rate_limited += 1
            self._pause(now, min(retry_after if retry_after is not None else DEFAULT_PAUSE, MAX_PAUSE))

    def pause(self, seconds: float) -> None:
        """Hold every background request for ``seconds`` (longer pauses win)."""
        self._pause(self._clock(), min(max(seconds, 0.0), MAX_PAUSE))

    # --- internals -----------------------------------------------------------------------------------------

    def _pause(self, now: float, seconds: float) -> None:
        self._paused_until = max(self._paused_until, now + seconds)
        self._tokens = min(self._tokens, 0.0)

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(self.burst, self._tokens + elapsed * self.current_rate)
        self._updated = now

    def _count(self, now: float) -> None:
        self.granted += 1
        recent = self._recent
        recent.append(now)
        while recent and recent[0] <= now - 1.0:
            recent.popleft()
        self.peak_per_second = max(self.peak_per_second, len(recent))
