"""The one poll loop: following long-running work until it ends, as the service's hints allow.

:func:`poll` is used by the client's ``wait()`` helpers and by the app's job tracker alike:

- a poll never comes earlier than the service asked: the ``Retry-After`` of the last answer or a
  status body's ``poll_after_seconds``, whichever is longer (``DEFAULT_POLL_INTERVAL`` without
  either), nor before ``first_delay`` (the 202's ``Retry-After``);
- every poll waits its turn in the shared :class:`~castdeck.api.budget.RequestBudget`;
- faults (:func:`~castdeck.api.errors.is_transient`: no answer, 5xx, 429, a broken answer) are
  waited out with :func:`~castdeck.api.retry.backoff_delay` (a ``Retry-After`` given wins); other
  errors (404, 401, ...) are raised at once;
- at the local deadline :class:`StillRunning` is raised. The service has no cancel: stopping a
  poll only stops asking.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from .budget import RequestBudget
from .clock import SYSTEM_CLOCK, Clock, sleep_until
from .errors import CastdeckError, is_transient
from .models import Episode, MediaStatus
from .response import ApiResponse
from .retry import backoff_delay

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "MAX_POLL_INTERVAL",
    "MEDIA_TERMINAL_STATES",
    "StillRunning",
    "episode_running",
    "media_running",
    "poll",
    "poll_hint",
    "sleep_until",
]

DEFAULT_POLL_INTERVAL = 5.0
"""Seconds between polls when the service gives no hint."""

MAX_POLL_INTERVAL = 300.0
"""A hint longer than this is capped (a broken header must not park a wait for hours)."""

MEDIA_TERMINAL_STATES = frozenset({"completed", "failed", "idle"})

T = TypeVar("T", bound=BaseModel)


class StillRunning(CastdeckError):
    """The local deadline passed while the work is still running on the service; check again later.

    Nothing was cancelled: the service goes on (it has no cancel). ``last`` is the most recent
    observation (None when no answer arrived at all), ``last_error`` the most recent fault.
    """

    def __init__(
        self,
        what: str,
        *,
        waited: float,
        last: BaseModel | None = None,
        last_error: BaseException | None = None,
    ) -> None:
        self.what = what
        self.waited = waited
        self.last = last
        self.last_error = last_error
        note = "" if last is not None else f" (no answer yet: {last_error})" if last_error else ""
        super().__init__(
            f"{what} is still running on the service after {waited:.0f} s of waiting; check again later{note}"
        )


def episode_running(episode: Episode) -> bool:
    """Whether an episode's generation is still going (``generation.state`` is ``generating``)."""
    if episode.generation is None:
        return episode.status == "generating"  # a variant rendering without the generation object
    return episode.generation.state == "generating"


def media_running(status: MediaStatus) -> bool:
    """Whether a Video, Short or Voiceover job is still going."""
    return (status.status or "") not in MEDIA_TERMINAL_STATES


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = float(value)
    return seconds if seconds == seconds and seconds not in (float("inf"), float("-inf")) else None


def poll_hint(response: ApiResponse[Any]) -> float | None:
    """How long the service asked to wait before the next poll: the longer of the answer's
    ``Retry-After`` and the body's ``poll_after_seconds`` (None when it gave neither)."""
    hints = [
        value
        for value in (response.retry_after, _seconds(getattr(response.data, "poll_after_seconds", None)))
        if value is not None and value > 0
    ]
    return min(max(hints), MAX_POLL_INTERVAL) if hints else None


def spread(delay: float) -> float:
    """A little later than the hint, at random (up to 10 %, at most a second): jobs started together
    would otherwise all poll in the same instant, and their answers arrive in one burst."""
    return random.uniform(0.0, min(1.0, delay * 0.1))


async def _call(callback: Callable[..., Any] | None, *args: Any) -> None:
    if callback is None:
        return
    result = callback(*args)
    if inspect.isawaitable(result):
        await result


async def poll(
    what: str,
    fetch: Callable[[], Awaitable[ApiResponse[T]]],
    *,
    running: Callable[[T], bool],
    timeout: float,
    first_delay: float = 0.0,
    hint: Callable[[ApiResponse[T]], float | None] = poll_hint,
    budget: RequestBudget | None = None,
    ready: Callable[[], Awaitable[None]] | None = None,
    on_update: Callable[[T], Any] | None = None,
    on_schedule: Callable[[float], Any] | None = None,
    default_interval: float = DEFAULT_POLL_INTERVAL,
    jitter: bool = False,
    clock: Clock = SYSTEM_CLOCK,
) -> T:
    """Poll ``fetch`` until ``running(observation)`` is false; returns that last observation.

    ``timeout``: seconds from now until :class:`StillRunning`. ``first_delay``: no poll before it.
    ``ready``: awaited before every poll (the app pauses while the service cannot be reached).
    ``on_update(observation)`` hears every answer, ``on_schedule(seconds)`` every wait decided
    before the next poll (the tracker stores it, so a restart honours it too); both may be
    coroutine functions. ``jitter`` adds up to 10 % to each wait (never less than asked). Every
    wait is read from ``clock``.
    """
    started = clock.monotonic()
    deadline = started + max(0.0, timeout)
    last: T | None = None
    last_error: BaseException | None = None
    faults = 0

    def still_running() -> StillRunning:
        return StillRunning(what, waited=clock.monotonic() - started, last=last, last_error=last_error)

    delay = max(0.0, first_delay)
    while True:
        due = clock.monotonic() + delay
        if due >= deadline:
            await sleep_until(deadline, clock)  # the next poll would come after the deadline
            raise still_running()
        await _call(on_schedule, delay)
        await sleep_until(due, clock)
        try:
            async with asyncio.timeout(max(0.0, deadline - clock.monotonic())):
                if ready is not None:
                    await ready()
                if budget is not None:
                    await budget.acquire()
                response = await fetch()
        except TimeoutError:
            raise still_running() from None
        except CastdeckError as error:
            if not is_transient(error):
                raise
            last_error = error
            delay = backoff_delay(faults, error.retry_after, cap=30.0, max_retry_after=MAX_POLL_INTERVAL)
            faults += 1
            continue
        faults = 0
        last = response.data
        await _call(on_update, response.data)
        if not running(response.data):
            return response.data
        hinted = hint(response)
        delay = default_interval if hinted is None else hinted
        if jitter:
            delay += spread(delay)
