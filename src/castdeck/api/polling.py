"""Waiting for long-running work: an episode's generation, a Video/Short/Voiceover job.

The service has no cancel: stopping a wait (the local deadline, or cancelling the awaiting task)
only stops asking. Polls come no earlier than the service's hint (``Retry-After``, or a status
body's ``poll_after_seconds``); faults (no answer, 5xx, 429) are waited out with capped
exponential backoff until the deadline. Other errors (404, 401, ...) are raised at once.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from .errors import (
    APIConnectionError,
    CastdeckError,
    InvalidResponseError,
    RateLimitedError,
    ServerError,
    parse_retry_after,
)
from .models import Episode, MediaStatus

if TYPE_CHECKING:
    from .resources.base import Resource
    from .transport import RawResponse

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "MAX_BACKOFF",
    "MEDIA_TERMINAL_STATES",
    "StillRunning",
    "backoff_delay",
    "episode_running",
    "sleep_until",
    "wait_for_episode",
    "wait_for_media",
]

DEFAULT_POLL_INTERVAL = 5.0
"""Seconds between polls when the service gives no hint."""

MAX_POLL_INTERVAL = 300.0
"""A hint longer than this is capped (a broken header must not park a wait for hours)."""

BASE_BACKOFF = 1.0
MAX_BACKOFF = 30.0
"""Backoff after a fault: 1, 2, 4, ... seconds (with jitter), at most this, or the Retry-After given."""

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


def backoff_delay(attempt: int, retry_after: float | None) -> float:
    """Seconds to wait after ``attempt`` failures in a row: the service's ``Retry-After`` when it
    gave one, else capped exponential backoff with jitter."""
    if retry_after is not None:
        return min(retry_after, MAX_POLL_INTERVAL)
    ceiling = min(MAX_BACKOFF, BASE_BACKOFF * (2**attempt))
    return random.uniform(ceiling / 2, ceiling)


async def _notify(callback: Callable[[T], Any] | None, observation: T) -> None:
    if callback is None:
        return
    result = callback(observation)
    if inspect.isawaitable(result):
        await result


async def _poll(
    what: str,
    fetch: Callable[[], Awaitable[RawResponse]],
    parse: Callable[[RawResponse], T],
    *,
    running: Callable[[T], bool],
    hint: Callable[[T, RawResponse], float | None],
    timeout: float,
    on_update: Callable[[T], Any] | None,
) -> T:
    started = time.monotonic()
    deadline = started + max(0.0, timeout)
    last: T | None = None
    last_error: BaseException | None = None
    faults = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise StillRunning(what, waited=time.monotonic() - started, last=last, last_error=last_error)
        try:
            async with asyncio.timeout(remaining):
                response = await fetch()
            observation = parse(response)
        except TimeoutError:
            continue  # the deadline passed during the request: StillRunning above
        except (APIConnectionError, ServerError, RateLimitedError, InvalidResponseError) as exc:
            # No usable answer: wait it out (the service's Retry-After when it gave one).
            last_error = exc
            retry_after = exc.retry_after if isinstance(exc, RateLimitedError) else None
            if retry_after is None and isinstance(exc, ServerError):
                retry_after = parse_retry_after(exc.headers.get("retry-after"))
            delay = backoff_delay(faults, retry_after)
            faults += 1
        else:
            faults = 0
            last = observation
            await _notify(on_update, observation)
            if not running(observation):
                return observation
            hinted = hint(observation, response)
            delay = DEFAULT_POLL_INTERVAL if hinted is None else min(max(hinted, 0.0), MAX_POLL_INTERVAL)
        now = time.monotonic()
        if now + delay >= deadline:
            # The next poll would come after the deadline: wait the deadline out, then report.
            await sleep_until(deadline)
            raise StillRunning(what, waited=time.monotonic() - started, last=last, last_error=last_error)
        await sleep_until(now + delay)


async def sleep_until(moment: float) -> None:
    """Sleep until ``time.monotonic()`` reaches ``moment``: never earlier (some loops' timers, Qt's
    coarse ones among them, may fire a few percent early)."""
    while (left := moment - time.monotonic()) > 0:  # noqa: ASYNC110 - a timer, not a condition
        await asyncio.sleep(left + 0.001)


async def wait_for_episode(
    resource: Resource,
    episode_id: str,
    *,
    timeout: float = 1800.0,
    on_update: Callable[[Episode], Any] | None = None,
) -> Episode:
    """Poll ``GET /v1/episodes/{id}`` until generation is no longer ``generating``; returns the episode.

    ``on_update(episode)`` is called for every observation (it may be a coroutine function).
    Raises :class:`StillRunning` at the local deadline; other API errors (404, ...) at once.
    """
    transport = resource._transport
    path = f"/v1/episodes/{episode_id}"

    def hint(_: Episode, response: RawResponse) -> float | None:
        return parse_retry_after(response.headers.get("retry-after"))

    return await _poll(
        f"episode {episode_id}",
        lambda: transport.request("GET", path),
        lambda response: resource._data(response, Episode),
        running=episode_running,
        hint=hint,
        timeout=timeout,
        on_update=on_update,
    )


async def wait_for_media(
    resource: Resource,
    media_id: str,
    *,
    timeout: float = 3600.0,
    on_update: Callable[[MediaStatus], Any] | None = None,
) -> MediaStatus:
    """Poll a media job's status until it is ``completed``, ``failed`` or ``idle``.

    Waits between polls for the longer of ``Retry-After`` and ``poll_after_seconds`` (5 s without
    either). Raises :class:`StillRunning` at the local deadline.
    """
    transport = resource._transport
    collection = getattr(resource, "collection", "") or "videos"
    path = f"/v1/{collection}/{media_id}/status"

    def hint(status: MediaStatus, response: RawResponse) -> float | None:
        hints = [
            value
            for value in (
                parse_retry_after(response.headers.get("retry-after")),
                _seconds(status.poll_after_seconds),
            )
            if value is not None and value > 0
        ]
        return max(hints) if hints else None

    return await _poll(
        f"{collection[:-1] or 'media'} {media_id}",
        lambda: transport.request("GET", path),
        lambda response: resource._data(response, MediaStatus),
        running=lambda status: (status.status or "") not in MEDIA_TERMINAL_STATES,
        hint=hint,
        timeout=timeout,
        on_update=on_update,
    )


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    seconds = float(value)
    return seconds if seconds == seconds and seconds != float("inf") else None
