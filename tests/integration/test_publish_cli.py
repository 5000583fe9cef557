"""``castdeck publish`` run as a separate process against the real sandbox: a series scheduled on its
dates across a daylight-saving change, what cannot go left out with its reason, a second run after
an interruption that sends nothing twice and keeps the series' dates, and the exits for bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO_KEY, RunningSandbox


@pytest.fixture
def env(tmp_path: Path, sandbox: RunningSandbox) -> Iterator[dict[str, str]]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CASTDECK_")}
    clean.update(XDG_CONFIG_HOME=str(tmp_path / "config"), PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
                 CASTDECK_BASE_URL=sandbox.base_url, CASTDECK_API_KEY=DEMO_KEY, TZ="UTC")  # fmt: skip
    yield clean


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "castdeck", "publish", *args],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    return result


def drafts(
    sandbox: RunningSandbox, titles: list[str], *, render: bool = True, podcast_id: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Drafts of ``podcast_id`` (else of a new podcast), made by importing a short script each
    (rendered unless ``render`` is off), titled."""
    client = sandbox.client()
    host = client.get("/v1/hosts").json()["data"][0]
    if podcast_id is None:
        title = f"CLI season {uuid.uuid4().hex[:6]}"
        podcast_id = client.post("/v1/podcasts", json={"title": title, "host_ids": [host["id"]]}).json()[
            "data"
        ]["id"]
    podcast = {"id": podcast_id}
    made = []
    for title in titles:
        accepted = client.post(
            "/v1/episodes/import",
            json={
                "podcast_id": podcast["id"],
                "script": f"[{host['name']}]\nA word on {title}.\n",
                "render": render,
            },
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        assert accepted.status_code == 202, accepted.text
        made.append(accepted.json()["data"]["id"])
    deadline = time.monotonic() + 240
    for episode_id in made:
        while client.get(f"/v1/episodes/{episode_id}").json()["data"]["generation"]["state"] == "generating":
            assert time.monotonic() < deadline, "the sandbox did not finish generating"
            time.sleep(0.05)
    for episode_id, title in zip(made, titles, strict=True):
        assert client.patch(f"/v1/episodes/{episode_id}", json={"title": title}).status_code == 200
    return podcast["id"], [client.get(f"/v1/episodes/{e}").json()["data"] for e in made]


def stored(sandbox: RunningSandbox, episode_id: str) -> dict[str, Any]:
    data: dict[str, Any] = sandbox.client().get(f"/v1/episodes/{episode_id}").json()["data"]
    return data


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def test_a_series_across_the_spring_change_then_a_second_run_after_an_interruption(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    podcast, made = drafts(sandbox, ["One", "Two", "Three"])
    _, (never,) = drafts(sandbox, ["Unrendered"], render=False, podcast_id=podcast)
    ids = [e["id"] for e in made]
    series = ["--podcast", podcast, "--from", "2027-03-23T09:00", "--on", "tue,fri", "--tz", "Europe/Berlin"]
    expected = [datetime(2027, 3, 23, 8, tzinfo=UTC), datetime(2027, 3, 26, 8, tzinfo=UTC),
                datetime(2027, 3, 30, 7, tzinfo=UTC)]  # fmt: skip

    # a dry run prints the plan and sends nothing
    dry = run(env, *series, "--dry-run", *ids)
    assert dry.returncode == 0, dry.stderr
    assert [line.split("\t")[:3] for line in dry.stdout.splitlines()] == [
        [ids[0], "would schedule", "2027-03-23T09:00:00+01:00"],
        [ids[1], "would schedule", "2027-03-26T09:00:00+01:00"],
        [ids[2], "would schedule", "2027-03-30T09:00:00+02:00"],
    ]
    assert {stored(sandbox, e)["status"] for e in ids} == {"draft"}

    # interrupted after the first two (as if the run had been stopped there)
    first = run(env, *series, *ids[:2])
    assert first.returncode == 0, first.stderr
    assert [line.split("\t")[1] for line in first.stdout.splitlines()] == ["scheduled", "scheduled"]

    # the whole season again, with the one never rendered among them: the two already scheduled
    # are said and not sent, the third takes its own date in the series, the fourth is left out
    again = run(env, *series, *ids, never["id"])
    assert again.returncode == 1
    lines = [line.split("\t") for line in again.stdout.splitlines()]
    assert [(line[0], line[1]) for line in lines] == [(ids[0], "scheduled"), (ids[1], "scheduled"),
                                                      (ids[2], "scheduled")]  # fmt: skip
    assert lines[0][3].endswith("(already)") and lines[1][3].endswith("(already)")
    assert lines[2][3] == "Three"
    assert f"castdeck publish: error: episode {never['id']} left out: Never rendered" in again.stderr
    assert [at(stored(sandbox, e)["scheduled_at"]) for e in ids] == expected
    assert stored(sandbox, never["id"])["status"] == "draft"

    # a third run with another first date changes nothing: every one is already scheduled
    third = run(env, "--podcast", podcast, "--from", "2027-05-01T10:00", "--every", "1w", *ids)
    assert third.returncode == 0, third.stderr
    assert all(line.endswith("(already)") for line in third.stdout.splitlines())
    assert [at(stored(sandbox, e)["scheduled_at"]) for e in ids] == expected


def test_publishing_now_and_the_episodes_of_another_podcast(
    env: dict[str, str], sandbox: RunningSandbox
) -> None:
    podcast, (one,) = drafts(sandbox, ["Now one"])
    other_podcast, (other,) = drafts(sandbox, ["Elsewhere"])
    result = run(env, "--podcast", podcast, one["id"], other["id"])
    assert result.returncode == 1
    assert [line.split("\t")[:2] for line in result.stdout.splitlines()] == [[one["id"], "published"]]
    assert f"episode {other['id']} belongs to another podcast ({other_podcast})" in result.stderr
    assert stored(sandbox, one["id"])["status"] == "published"
    assert stored(sandbox, other["id"])["status"] == "draft"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--from", "2027-03-01T09:00", "--every", "0d"], "--every: every_days must be 1..365"),
        (["--from", "2027-03-01T09:00", "--on", "someday"], "--on: weekdays are mon,tue,wed,thu,fri,sat,sun"),
        (["--from", "next tuesday"], "--from: an ISO date and time such as 2027-03-07T09:00"),
        (["--every", "7d"], "--every and --on need --from"),
        (["--from", "2020-01-01T09:00"], "The first date is in the past"),
    ],
)
def test_bad_arguments_say_what_is_wrong_and_exit_2(
    env: dict[str, str], sandbox: RunningSandbox, args: list[str], said: str
) -> None:
    podcast, (one,) = drafts(sandbox, [f"Bad args {uuid.uuid4().hex[:4]}"])
    result = run(env, "--podcast", podcast, *args, one["id"])
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("castdeck publish: error: ") and said in result.stderr
    assert stored(sandbox, one["id"])["status"] == "draft"


def test_without_a_connection_or_with_a_refused_key(env: dict[str, str], sandbox: RunningSandbox) -> None:
    nowhere = {k: v for k, v in env.items() if not k.startswith("CASTDECK_")}
    result = run(nowhere, "--podcast", str(uuid.uuid4()), str(uuid.uuid4()))
    assert result.returncode == 2 and "no connection" in result.stderr
    refused = run({**env, "CASTDECK_API_KEY": "sk_wrong"}, "--podcast", str(uuid.uuid4()), str(uuid.uuid4()))
    assert refused.returncode == 2 and "refused the API key" in refused.stderr
