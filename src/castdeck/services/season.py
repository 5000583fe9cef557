"""A season published at once: which episodes can go, the dates of a series, and each outcome.

The creator selects several episodes and publishes them now, or schedules them as a series: a first
date and time in their own time zone, then every N days, or weekly on chosen weekdays, in the order
shown. :func:`series_times` computes the dates on the wall clock of that zone, so a weekly 09:00
stays 09:00 across a daylight-saving change (its UTC instant moves by the hour); each time is sent
with its offset (spec 2.4: ``scheduled_time`` is a date-time with an offset).

:func:`plan_season` leaves out what the service would refuse (spec 3.3): a draft never rendered,
one still generating, one already published or scheduled, each with its reason. :class:`SeasonPublisher`
then publishes the plan one episode at a time through :class:`~castdeck.services.publish.Publisher`:
a 422 that asks to wait becomes the publish job that waits as its hint allows; a publish whose answer
was lost is never sent blind (publishing has no idempotency key): it becomes the same job, which reads
the episode first and publishes again only if it is still a draft.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from castdeck.api import CastdeckError, is_transient
from castdeck.api.models import Episode, PublishResult
from castdeck.api.retry import backoff_delay
from castdeck.store.jobs import Job

from . import catalog
from .messages import error_text
from .publish import PublishBlocked, Publisher, never_rendered
from .session import Session

__all__ = [
    "WEEKDAYS",
    "Cadence",
    "LeftOut",
    "Outcome",
    "SeasonPlan",
    "SeasonPublisher",
    "Status",
    "delete_all",
    "local_zone",
    "plan_season",
    "republish",
    "season_reason",
    "series_times",
    "tally",
    "unpublish_all",
    "wall_time",
]

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
"""Weekday names by :meth:`datetime.weekday` number (Monday is 0)."""
MAX_EVERY_DAYS = 365


@dataclass(frozen=True)
class Cadence:
    """How a series is spaced: every ``every_days`` days, or (when ``weekdays`` is not empty) on
    those weekdays of each week (0 is Monday)."""

    every_days: int = 7
    weekdays: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if not self.weekdays and not 1 <= self.every_days <= MAX_EVERY_DAYS:
            raise ValueError(f"every_days must be 1..{MAX_EVERY_DAYS}, not {self.every_days}")
        if any(not 0 <= day <= 6 for day in self.weekdays):
            raise ValueError(f"weekdays are 0 (Monday) to 6 (Sunday): {sorted(self.weekdays)}")

    def describe(self) -> str:
        if self.weekdays:
            return "weekly on " + ", ".join(WEEKDAYS[day] for day in sorted(self.weekdays))
        if self.every_days == 1:
            return "daily"
        if self.every_days % 7 == 0:
            weeks = self.every_days // 7
            return "weekly" if weeks == 1 else f"every {weeks} weeks"
        return f"every {self.every_days} days"


def wall_time(naive: datetime, zone: tzinfo) -> datetime:
    """``naive`` read on the wall clock of ``zone`` (as a creator picks or types a time); a wall
    time the zone skips that day (the hour a clock springs forward over) moves forward by the gap,
    as a wall clock does."""
    return naive.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def _at(day: date, clock: time, zone: tzinfo) -> datetime:
    return wall_time(datetime.combine(day, clock), zone)


def series_times(first: datetime, count: int, cadence: Cadence) -> list[datetime]:
    """The ``count`` times of a series starting at ``first`` (aware, in the creator's zone): each
    at the first's wall-clock time in its zone. With weekdays, the first time is the first chosen
    weekday on or after ``first``'s date."""
    if first.tzinfo is None or first.utcoffset() is None:
        raise ValueError("the first time needs a time zone")
    if count <= 0:
        return []
    zone = first.tzinfo
    clock = first.time()
    day = first.date()
    days: list[date] = []
    if cadence.weekdays:
        while len(days) < count:
            if day.weekday() in cadence.weekdays:
                days.append(day)
            day += timedelta(days=1)
    else:
        days = [day + timedelta(days=cadence.every_days * number) for number in range(count)]
    return [_at(one, clock, zone) for one in days]


def local_zone(name: str | None = None) -> tzinfo:
    """The creator's time zone with its daylight-saving rules: ``name`` (an IANA name such as
    ``Europe/Berlin``), else ``TZ``, else the system's; only when none of those is known, the
    current fixed offset (a series then keeps its UTC time across a daylight-saving change)."""
    candidates = [name, os.environ.get("TZ", "").lstrip(":") or None, _system_zone_name()]
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return ZoneInfo(candidate)
        except (ZoneInfoNotFoundError, ValueError):
            continue
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def _system_zone_name() -> str | None:
    from PySide6.QtCore import QTimeZone

    zone_id = bytes(QTimeZone.systemTimeZoneId().data()).decode("ascii", "replace")
    return zone_id or None


def season_reason(episode: Episode) -> str | None:
    """Why ``episode`` cannot be part of a season published now (None when it can)."""
    if episode.generation is not None and episode.generation.state == "generating":
        return "Still generating: publish it once its generation has finished."
    if episode.status == "published":
        return "Already published."
    if episode.status == "scheduled":
        when = episode.scheduled_at
        return f"Already scheduled{f' ({when})' if when else ''}: unpublish it first to move it."
    if episode.status != "draft":
        return f"Its status is “{episode.status}”; only drafts are published."
    if never_rendered(episode):
        return "Never rendered: render it in the studio application first."
    return None


@dataclass(frozen=True)
class LeftOut:
    episode: Episode
    reason: str


@dataclass(frozen=True)
class SeasonPlan:
    """What will be published, in order, each with its time (None: now), and what is left out."""

    items: list[tuple[Episode, datetime | None]]
    left_out: list[LeftOut]
    cadence: Cadence | None = None
    problem: str | None = None
    """Why nothing can be sent as asked (a first time in the past, nothing publishable)."""


def plan_season(
    episodes: Sequence[Episode],
    *,
    first: datetime | None,
    cadence: Cadence | None,
    now: datetime,
    done_keep_their_place: bool = False,
) -> SeasonPlan:
    """The plan for ``episodes`` in the order given: published now when ``first`` is None, else
    scheduled from ``first`` with ``cadence``. The episodes left out do not take a date, except,
    with ``done_keep_their_place``, those already published or scheduled: the series is then the
    same however many of it were sent before (a second run after an interruption)."""
    left_out: list[LeftOut] = []
    going: list[Episode] = []
    slots: list[Episode] = []
    for episode in episodes:
        reason = season_reason(episode)
        if reason is None:
            going.append(episode)
            slots.append(episode)
        else:
            left_out.append(LeftOut(episode, reason))
            if done_keep_their_place and episode.status in ("published", "scheduled"):
                slots.append(episode)
    if first is None:
        return SeasonPlan([(episode, None) for episode in going], left_out,
                          problem=None if going else _nothing(left_out))  # fmt: skip
    times = dict(
        zip((id(e) for e in slots), series_times(first, len(slots), cadence or Cadence()), strict=True)
    )
    problem = None
    if not going:
        problem = _nothing(left_out)
    elif times[id(going[0])] <= now:
        problem = "The first date is in the past: choose a time from now on."
    return SeasonPlan(
        [(episode, times[id(episode)]) for episode in going], left_out, cadence or Cadence(), problem
    )


def _nothing(left_out: list[LeftOut]) -> str:
    if not left_out:
        return "No episodes are selected."
    return "None of the selected episodes can be published now (the reasons are listed)."


Status = Literal["published", "scheduled", "waiting", "refused", "failed"]


@dataclass
class Outcome:
    """What became of one episode of the plan."""

    episode: Episode
    when: datetime | None
    status: Status
    message: str
    job: Job | None = field(default=None, compare=False)

    @property
    def done(self) -> bool:
        return self.status in ("published", "scheduled")


class SeasonPublisher:
    """Publishes a :class:`SeasonPlan`, one episode after another (each a request of its own, so
    the request budget paces them), reporting each outcome as it comes."""

    def __init__(self, publisher: Publisher) -> None:
        self._publisher = publisher

    async def publish(
        self, plan: SeasonPlan, on_outcome: Callable[[int, Outcome], None] | None = None
    ) -> list[Outcome]:
        if plan.problem is not None:
            raise ValueError(plan.problem)
        outcomes: list[Outcome] = []
        for number, (episode, when) in enumerate(plan.items):
            outcome = await self._one(episode, when)
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(number, outcome)
        return outcomes

    async def _one(self, episode: Episode, when: datetime | None) -> Outcome:
        try:
            answer = await self._publisher.publish(episode, when)
        except PublishBlocked as blocked:
            return Outcome(episode, when, "refused", str(blocked))
        except CastdeckError as error:
            if not is_transient(error):
                return Outcome(episode, when, "failed", error_text(error))
            job = self._publisher.follow_unanswered(episode, when, backoff_delay(1, error.retry_after))
            return Outcome(episode, when, "waiting", "No answer: the episode is read again before "
                           "anything is sent again.", job)  # fmt: skip
        if isinstance(answer, PublishResult):
            if answer.status == "scheduled":
                return Outcome(episode, when, "scheduled", "Scheduled.")
            return Outcome(episode, when, "published", "Published.")
        return Outcome(
            episode, when, "waiting", "Rendering still runs: it is published when it ends.", answer
        )


def tally(outcomes: Iterable[Outcome]) -> dict[Status, int]:
    """How many outcomes of each status (for "7 scheduled, 1 refused")."""
    counts: dict[Status, int] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return counts


# --- a selection taken back: unpublished (with its undo) or deleted -----------------------------------


async def unpublish_all(
    session: Session, episodes: Sequence[Episode]
) -> tuple[list[tuple[Episode, Episode]], list[tuple[Episode, str]]]:
    """Each published or scheduled episode back to draft, one request each (sent once: an unpublish
    carries no idempotency key). Returns (before, after) of those done, and why the others failed."""
    done: list[tuple[Episode, Episode]] = []
    failed: list[tuple[Episode, str]] = []
    for episode in episodes:
        try:
            done.append((episode, await catalog.unpublish_episode(session, str(episode.id))))
        except CastdeckError as error:
            failed.append((episode, error_text(error)))
    return done, failed


async def republish(
    seasons: SeasonPublisher, undone: Sequence[tuple[Episode, Episode]], now: datetime
) -> list[Outcome]:
    """The undo of :func:`unpublish_all`: each published again now, or scheduled again at the time
    it had when that time is still to come."""
    items: list[tuple[Episode, datetime | None]] = []
    for before, after in undone:
        when = _moment(before.scheduled_at) if before.status == "scheduled" else None
        items.append((after, when if when is not None and when > now else None))
    return await seasons.publish(SeasonPlan(items, []))


async def delete_all(
    session: Session, episodes: Sequence[Episode]
) -> tuple[list[Episode], list[tuple[Episode, str]]]:
    """Each episode deleted, one request each (sent once); the deleted, and why the others failed."""
    deleted: list[Episode] = []
    failed: list[tuple[Episode, str]] = []
    for episode in episodes:
        try:
            await catalog.delete_episode(session, str(episode.id))
        except CastdeckError as error:
            failed.append((episode, error_text(error)))
            continue
        deleted.append(episode)
    return deleted, failed


def _moment(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
