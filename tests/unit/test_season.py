"""A season's dates on the creator's wall clock, and which episodes a season leaves out (spec 3.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from castdeck.api.models import Episode
from castdeck.services.season import Cadence, local_zone, plan_season, season_reason, series_times

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_weekly_keeps_the_wall_clock_time_across_the_spring_change() -> None:
    # Berlin moves its clocks forward on 2027-03-28: 09:00 is 08:00 UTC before, 07:00 UTC after
    first = datetime(2027, 3, 7, 9, 0, tzinfo=BERLIN)
    times = series_times(first, 8, Cadence(every_days=7))
    assert [moment.astimezone(UTC) for moment in times] == [
        utc("2027-03-07T08:00"), utc("2027-03-14T08:00"), utc("2027-03-21T08:00"),
        utc("2027-03-28T07:00"), utc("2027-04-04T07:00"), utc("2027-04-11T07:00"),
        utc("2027-04-18T07:00"), utc("2027-04-25T07:00"),
    ]  # fmt: skip
    assert {(moment.hour, moment.minute) for moment in times} == {(9, 0)}
    # sent with its offset: the same wall time, the offset of its own day
    assert times[0].isoformat() == "2027-03-07T09:00:00+01:00"
    assert times[3].isoformat() == "2027-03-28T09:00:00+02:00"


def test_the_autumn_change_and_every_n_days() -> None:
    # New York falls back on 2027-11-07: 18:30 is 22:30 UTC before, 23:30 UTC after
    first = datetime(2027, 10, 28, 18, 30, tzinfo=NEW_YORK)
    times = series_times(first, 3, Cadence(every_days=5))
    assert [moment.astimezone(UTC) for moment in times] == [
        utc("2027-10-28T22:30"), utc("2027-11-02T22:30"), utc("2027-11-07T23:30"),
    ]  # fmt: skip


def test_a_wall_time_the_clock_skips_moves_forward_by_the_gap() -> None:
    # 02:30 does not exist in Berlin on 2027-03-28: that day's episode goes out at 03:30
    first = datetime(2027, 3, 21, 2, 30, tzinfo=BERLIN)
    second = series_times(first, 2, Cadence(every_days=7))[1]
    assert second.isoformat() == "2027-03-28T03:30:00+02:00"
    assert second.astimezone(UTC) == utc("2027-03-28T01:30")


def test_weekdays_start_on_the_first_chosen_day_on_or_after_the_first_date() -> None:
    # 2027-03-03 is a Wednesday; Tuesdays and Fridays
    first = datetime(2027, 3, 3, 7, 15, tzinfo=BERLIN)
    times = series_times(first, 5, Cadence(weekdays=frozenset({1, 4})))
    assert [moment.date().isoformat() for moment in times] == [
        "2027-03-05", "2027-03-09", "2027-03-12", "2027-03-16", "2027-03-19",
    ]  # fmt: skip
    assert {moment.weekday() for moment in times} == {1, 4}
    assert Cadence(weekdays=frozenset({4, 1})).describe() == "weekly on Tue, Fri"
    assert Cadence(every_days=14).describe() == "every 2 weeks"
    assert Cadence(every_days=3).describe() == "every 3 days"


def test_a_series_needs_a_zone_and_a_sane_cadence() -> None:
    with pytest.raises(ValueError, match="time zone"):
        series_times(datetime(2027, 3, 3, 9, 0), 2, Cadence())
    with pytest.raises(ValueError, match="every_days"):
        Cadence(every_days=0)
    with pytest.raises(ValueError, match="weekdays"):
        Cadence(weekdays=frozenset({7}))
    assert series_times(datetime(2027, 3, 3, 9, 0, tzinfo=BERLIN), 0, Cadence()) == []


def test_the_zone_is_the_named_one_then_tz_with_its_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert local_zone("Europe/Berlin") == BERLIN
    monkeypatch.setenv("TZ", "America/New_York")
    assert local_zone() == NEW_YORK
    assert local_zone("Not/AZone") == NEW_YORK  # an unknown name falls through to the next


def episode(number: int, **fields: object) -> Episode:
    data: dict[str, object] = {"id": f"ep-{number}", "status": "draft", "title": f"Episode {number}",
                               "rendered": True, "generation": {"state": "completed"}}  # fmt: skip
    data.update(fields)
    return Episode.model_validate(data)


def test_a_plan_leaves_out_what_the_service_would_refuse_and_dates_the_rest_in_order() -> None:
    episodes = [
        episode(1),
        episode(2, rendered=False),
        episode(3),
        episode(4, generation={"state": "generating"}),
        episode(5, status="published"),
        episode(6, status="scheduled", scheduled_at="2027-01-01T10:00:00Z"),
        episode(7),
    ]
    first = datetime(2027, 3, 7, 9, 0, tzinfo=BERLIN)
    plan = plan_season(episodes, first=first, cadence=Cadence(), now=datetime(2026, 12, 4, tzinfo=UTC))
    assert plan.problem is None
    assert [(item.id, when.date().isoformat() if when else None) for item, when in plan.items] == [
        ("ep-1", "2027-03-07"), ("ep-3", "2027-03-14"), ("ep-7", "2027-03-21"),
    ]  # fmt: skip
    assert [(left.episode.id, left.reason.split(":")[0].split(" (")[0]) for left in plan.left_out] == [
        ("ep-2", "Never rendered"), ("ep-4", "Still generating"), ("ep-5", "Already published."),
        ("ep-6", "Already scheduled"),
    ]  # fmt: skip
    assert season_reason(episodes[0]) is None


def test_a_plan_in_the_past_or_with_nothing_to_send_says_why() -> None:
    now = datetime(2027, 3, 7, 9, 0, tzinfo=UTC)
    past = plan_season([episode(1)], first=now - timedelta(minutes=1), cadence=Cadence(), now=now)
    assert past.problem == "The first date is in the past: choose a time from now on."
    nothing = plan_season([episode(2, rendered=False)], first=None, cadence=None, now=now)
    assert nothing.problem is not None and "None of the selected episodes" in nothing.problem
    assert nothing.items == [] and len(nothing.left_out) == 1
    empty = plan_season([], first=None, cadence=None, now=now)
    assert empty.problem == "No episodes are selected."
    now_plan = plan_season([episode(1), episode(3)], first=None, cadence=None, now=now)
    assert now_plan.problem is None and [when for _, when in now_plan.items] == [None, None]
    fixed = timezone(timedelta(hours=-5))
    assert series_times(datetime(2027, 3, 7, 9, 0, tzinfo=fixed), 2, Cadence())[1].utcoffset() == timedelta(
        hours=-5
    )
