"""A season published at once against the real sandbox: eight rendered drafts scheduled weekly land
on the eight expected instants across a daylight-saving change, what cannot be published is left
out with its reason, and a publish whose answer was lost is read before it is ever sent again."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio

from castdeck.services.background import Background
from castdeck.services.season import Cadence, Outcome, SeasonPublisher, plan_season, tally
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, settle, until
from tests.gui.helpers import new_podcast, rendered_drafts, session_through
from tests.helpers import FastClock, Line

BERLIN = ZoneInfo("Europe/Berlin")


def instant(text: str | None) -> datetime:
    assert text, "no time"
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


@pytest.mark.asyncio
async def test_eight_drafts_scheduled_weekly_land_on_eight_dates_across_the_spring_change(
    session: Session, background: Background, sandbox: RunningSandbox
) -> None:
    show = await new_podcast(session, f"Season {uuid.uuid4().hex[:6]}")
    titles = [f"Part {number}" for number in range(1, 9)]
    drafts = await rendered_drafts(session, show.id, titles)
    never = (await rendered_drafts(session, show.id, ["Not rendered"], render=False))[0]
    shown = [*drafts[:3], never, *drafts[3:]]  # the order on screen, one that cannot go among them

    # Berlin springs forward on 2027-03-28: the fourth Sunday's 09:00 is an hour earlier in UTC
    now = sandbox.now()
    first = datetime(2027, 3, 7, 9, 0, tzinfo=BERLIN)
    assert now < first, "the sandbox's clock must be before the season"
    plan = plan_season(shown, first=first, cadence=Cadence(every_days=7), now=now)
    assert plan.problem is None
    assert [left.episode.id for left in plan.left_out] == [never.id]
    assert plan.left_out[0].reason.startswith("Never rendered")

    seen: list[tuple[int, Outcome]] = []
    outcomes = await SeasonPublisher(background.publisher).publish(plan, lambda n, o: seen.append((n, o)))
    assert [number for number, _ in seen] == list(range(8))
    assert tally(outcomes) == {"scheduled": 8}

    expected = [
        "2027-03-07T08:00", "2027-03-14T08:00", "2027-03-21T08:00", "2027-03-28T07:00",
        "2027-04-04T07:00", "2027-04-11T07:00", "2027-04-18T07:00", "2027-04-25T07:00",
    ]  # fmt: skip
    stored = {e.id: e async for e in session.client.episodes.list(podcast_id=show.id, limit=100)}
    assert [(stored[d.id].title, stored[d.id].status) for d in drafts] == [(t, "scheduled") for t in titles]
    assert [instant(stored[d.id].scheduled_at) for d in drafts] == [
        datetime.fromisoformat(text).replace(tzinfo=UTC) for text in expected
    ]
    assert stored[never.id].status == "draft" and stored[never.id].scheduled_at is None


@pytest_asyncio.fixture
async def fast_line(sandbox: RunningSandbox, cache: Cache, tmp_path: Path) -> AsyncIterator[OnLine]:
    """A session on a :class:`Line` whose waits (the tracker's polls, a backoff) run on a fast clock."""
    line = Line()
    opened = await session_through(sandbox.base_url, cache, line, clock=FastClock())
    background = Background(opened, tmp_path / "background")
    background.start()
    await background.picked_up()
    yield OnLine(opened, background, line)
    await settle()
    await background.close()
    await opened.close()


@pytest.mark.asyncio
async def test_a_publish_whose_answer_was_lost_is_read_before_it_is_sent_again(
    fast_line: OnLine, sandbox: RunningSandbox
) -> None:
    session, background, line = fast_line.session, fast_line.background, fast_line.line
    show = await new_podcast(session, f"Season lost {uuid.uuid4().hex[:6]}")
    drafts = await rendered_drafts(session, show.id, ["Lost one", "Heard one"])
    first = (sandbox.now() + timedelta(days=3)).astimezone(BERLIN).replace(second=0, microsecond=0)
    plan = plan_season(drafts, first=first, cadence=Cadence(every_days=2), now=sandbox.now())

    lost_id = drafts[0].id
    line.lose_answer("POST", f"/{lost_id}/publish")
    outcomes = await SeasonPublisher(background.publisher).publish(plan)
    assert [outcome.status for outcome in outcomes] == ["waiting", "scheduled"]
    assert "read again" in outcomes[0].message and outcomes[0].job is not None

    # the tracker reads the episode, finds it scheduled (the lost publish went through): done, once
    job = await until(lambda: (j := background.jobs.job("publish", lost_id)) is not None and j.finished and j)
    assert job.state == "completed" and job.extra.get("publish_status") == "scheduled"
    publishes = [
        sent for sent in line.sent if sent.method == "POST" and sent.path.endswith(f"/{lost_id}/publish")
    ]
    assert len(publishes) == 1 and publishes[0].fault == "lost answer"
    fresh = await session.client.episodes.get(lost_id)
    assert fresh.status == "scheduled" and instant(fresh.scheduled_at) == first.astimezone(UTC)
