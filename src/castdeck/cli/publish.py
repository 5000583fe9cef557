"""``castdeck publish --podcast ID [--from DATETIME (--every Nd | --on DAYS)] [--tz ZONE] [--dry-run] EPISODE_ID...``

Publishes several episodes of one podcast now, or schedules them as a series in the order given:
the first at ``--from`` (an ISO date and time; without an offset it is read in ``--tz`` or the
machine's zone), then every N days (``--every 7d``, ``--every 2w``) or weekly on chosen days
(``--on tue,fri``), each at the first's wall-clock time in that zone, across daylight-saving
changes (the same rules as the app's season dialog, :mod:`castdeck.services.season`).

Everything is checked first: each episode is read, and one that is not of the podcast, never
rendered, still generating, or already published or scheduled is reported and left out (exit 1,
nothing sent for it). A publish carries no idempotency key, so it is never sent blind: when an
answer is lost the episode is read again, and only a draft is published again. A second run after
an interruption finds the episodes already scheduled and sends nothing twice.

One line per episode on standard output: ``EPISODE_ID<TAB>STATUS<TAB>TIME<TAB>TITLE``. Problems go
to standard error as ``castdeck publish: error: ...``. Exit status: 0 every episode published or
scheduled; 1 some were left out or refused; 2 cannot run (no connection, a refused key, bad
arguments).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo

from castdeck.api import (
    APIConnectionError,
    CastdeckError,
    Client,
    ForbiddenError,
    NotFoundError,
    UnauthorizedError,
    UnprocessableError,
    is_transient,
)
from castdeck.api.models import Episode
from castdeck.api.retry import backoff_delay
from castdeck.services.messages import error_text
from castdeck.services.publish import blocked, poll_after
from castdeck.services.season import WEEKDAYS, Cadence, local_zone, plan_season, wall_time

from .connection import Problem, connection

__all__ = ["main", "parse_cadence"]

PROG = "castdeck publish"
ATTEMPTS = 30
"""Publish attempts of one episode while the service asks to wait (each after its hint)."""


def parse_cadence(every: str | None, on: str | None) -> Cadence:
    """``--every 7d`` / ``2w`` / ``1`` (days), or ``--on mon,thu``."""
    if every and on:
        raise Problem("give --every or --on, not both", 2)
    if on:
        names = [name.strip().lower()[:3] for name in on.split(",") if name.strip()]
        known = [day.lower() for day in WEEKDAYS]
        unknown = [name for name in names if name not in known]
        if unknown or not names:
            raise Problem(f"--on: weekdays are {','.join(known)} (not {on!r})", 2)
        return Cadence(weekdays=frozenset(known.index(name) for name in names))
    found = re.fullmatch(r"\s*(\d+)\s*([dw]?)\s*", every or "7d")
    if found is None:
        raise Problem(f"--every: a number of days or weeks such as 7d or 2w (not {every!r})", 2)
    days = int(found.group(1)) * (7 if found.group(2) == "w" else 1)
    try:
        return Cadence(every_days=days)
    except ValueError as error:
        raise Problem(f"--every: {error}", 2) from None


def parse_first(text: str, zone: tzinfo) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise Problem(f"--from: an ISO date and time such as 2027-03-07T09:00 (not {text!r})", 2) from None
    if moment.tzinfo is None:
        return wall_time(moment, zone)
    return moment


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Publish episodes now, or schedule them as a series, in the order given."
    )
    parser.add_argument("episodes", metavar="EPISODE_ID", nargs="+", help="the episodes, in their order")
    parser.add_argument("--podcast", metavar="ID", required=True, help="the podcast they belong to")
    parser.add_argument("--from", dest="first", metavar="DATETIME", help="schedule: the first date and time")
    parser.add_argument(
        "--every", metavar="Nd|Nw", help="schedule every N days (7d) or weeks (2w); default 7d"
    )
    parser.add_argument("--on", metavar="DAYS", help="schedule weekly on these days (tue,fri)")
    parser.add_argument(
        "--tz", metavar="ZONE", help="the zone of --from and the series (default: this machine's)"
    )
    parser.add_argument("--dry-run", action="store_true", help="check and print the plan; send nothing")
    parser.add_argument("--profile", metavar="NAME", help="a saved profile (default: the one used last)")
    return parser


def _line(episode: Episode, status: str, when: str, note: str = "") -> str:
    title = (episode.title or "").replace("\t", " ")
    return "\t".join([str(episode.id), status, when or "-", title + (f" ({note})" if note else "")])


async def _publish_one(client: Client, episode: Episode, when: datetime | None) -> tuple[str, str, str]:
    """(status, time, note) of one publish, never sent twice blind."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            result = await client.episodes.publish(str(episode.id), when)
        except UnprocessableError as error:
            delay = poll_after(error)
            if delay is None:
                return "refused", "", str(blocked(error)).splitlines()[0]
            await client.transport.clock.sleep(delay)
            continue
        except CastdeckError as error:
            if not is_transient(error):
                raise
            # no answer: what did the service do? only a draft is published again
            await client.transport.clock.sleep(backoff_delay(attempt, error.retry_after))
            fresh = await client.episodes.get(str(episode.id))
            if fresh.status in ("published", "scheduled"):
                return fresh.status or "", fresh.scheduled_at or fresh.published_at or "", ""
            continue
        return result.status or "published", result.scheduled_time or "", ""
    return "refused", "", f"rendering still runs after {ATTEMPTS} attempts; run again later"


async def _run(base_url: str, key: str, args: argparse.Namespace) -> int:
    zone = local_zone(args.tz)
    if args.first is None and (args.every or args.on):
        raise Problem("--every and --on need --from (the first date and time)", 2)
    cadence = parse_cadence(args.every, args.on) if args.first else None
    first = parse_first(args.first, zone) if args.first else None
    problems = 0

    def problem(text: str) -> None:
        nonlocal problems
        problems += 1
        print(f"{PROG}: error: {text}", file=sys.stderr, flush=True)

    async with Client(base_url, key, timeout=30.0, max_retries=2) as client:
        episodes: list[Episode] = []
        for episode_id in dict.fromkeys(args.episodes):  # each once, in the order given
            try:
                episode = await client.episodes.get(episode_id)
            except ValueError:
                problem(f"{episode_id!r} is not an episode id")
                continue
            except NotFoundError:
                problem(f"episode {episode_id} not found")
                continue
            if str(episode.podcast_id) != args.podcast:
                problem(f"episode {episode_id} belongs to another podcast ({episode.podcast_id})")
                continue
            episodes.append(episode)
        now = datetime.fromtimestamp(client.transport.clock.time(), UTC)
        plan = plan_season(episodes, first=first, cadence=cadence, now=now, done_keep_their_place=True)
        if plan.problem is not None and plan.items:
            raise Problem(plan.problem, 2)
        for left in plan.left_out:
            if left.episode.status in ("published", "scheduled"):  # a second run: done before, not sent
                stamp = left.episode.scheduled_at or left.episode.published_at or ""
                print(_line(left.episode, left.episode.status or "", stamp, "already"), flush=True)
            else:
                problem(f"episode {left.episode.id} left out: {left.reason}")
        for episode, when in plan.items:
            if args.dry_run:
                status = "would schedule" if when else "would publish"
                print(_line(episode, status, when.isoformat() if when else ""), flush=True)
                continue
            status, at, note = await _publish_one(client, episode, when)
            print(_line(episode, status, at, note), flush=True)  # each as it is done
            if status not in ("published", "scheduled"):
                problem(f"episode {episode.id} not published: {note}")
    return 1 if problems else 0


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed by argparse
        return int(stop.code or 0)
    try:
        base_url, key = connection(args.profile)
        try:
            return asyncio.run(_run(base_url, key, args))
        except (UnauthorizedError, ForbiddenError) as error:
            raise Problem(f"the service refused the API key: {error_text(error)}", 2) from None
        except APIConnectionError as error:
            raise Problem(f"cannot reach the service at {base_url}: {error}", 2) from None
        except CastdeckError as error:
            raise Problem(error_text(error), 2) from None
    except Problem as problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return problem.code
