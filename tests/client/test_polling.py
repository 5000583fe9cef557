"""Polling helpers against the sandbox: hints honoured, a local deadline that cancels nothing,
and faults (``--chaos``) waited out.

The client's time runs ten times as fast as the machine's (tests.helpers.FastClock): the sandbox's
hints (a second at least) are honoured in it, and the requests' times are noted in it."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from castdeck.api import Client, NotFoundError
from castdeck.api.errors import parse_retry_after
from castdeck.api.models import Episode, MediaStatus
from castdeck.api.polling import StillRunning
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.helpers import FastClock, Recorder

RATE = 10.0
PROMPT = "A friendly one-minute chat about lighthouses and their keepers."


async def start_episode(client: Client) -> str:
    podcast = (await client.podcasts.list(limit=1).first_page()).items[0]
    accepted = await client.episodes.generate(
        podcast_id=podcast.id, prompt=PROMPT, options={"episode_length_minutes": 1}
    )
    assert accepted.idempotency_key and accepted.retry_after is not None
    return accepted.data.id


def assert_hints_honoured(polls: list[dict[str, Any]], hint: Callable[[dict[str, Any]], float]) -> None:
    """Every poll left no earlier than the previous answer's hint allowed."""
    assert len(polls) >= 2
    for previous, following in itertools.pairwise(polls):
        wait = hint(previous)
        gap = following["sent"] - previous["received"]
        assert gap >= wait - 0.02, (gap, wait)


@pytest.mark.asyncio
async def test_episode_wait_honours_retry_after_and_deadline(
    sandbox_factory: Callable[..., RunningSandbox],
) -> None:
    sb = sandbox_factory("--speed", "50", "--workers", "2", "--no-seed-media")
    clock = FastClock(RATE)
    recorder = Recorder(clock=clock)
    async with Client(sb.base_url, DEMO_KEY, http_transport=recorder, clock=clock) as client:
        episode_id = await start_episode(client)
        recorder.events.clear()

        # a tiny deadline: StillRunning, with the last observation, and nothing is cancelled; the
        # next poll the hint allows would come after the deadline, so none is made
        with pytest.raises(StillRunning) as caught:
            await client.episodes.wait(episode_id, timeout=0.3)
        assert len(recorder.calls("GET", f"/v1/episodes/{episode_id}")) == 1
        assert caught.value.waited >= 0.3  # and it waited up to the deadline, never less
        assert "still running" in str(caught.value) and "cancel" not in str(caught.value).lower()
        last = caught.value.last
        assert isinstance(last, Episode) and last.generation and last.generation.state == "generating"

        recorder.events.clear()
        seen: list[Episode] = []
        done = await client.episodes.wait(episode_id, timeout=60 * RATE, on_update=seen.append)
    assert done.generation is not None and done.generation.state == "completed", done
    assert done.audio_url
    polls = recorder.calls("GET", f"/v1/episodes/{episode_id}")
    assert len(seen) == len(polls) >= 2
    assert all(e.generation and e.generation.state == "generating" for e in seen[:-1])
    assert all("retry-after" in p["response_headers"] for p in polls[:-1])
    assert_hints_honoured(polls, lambda p: parse_retry_after(p["response_headers"]["retry-after"]) or 0.0)


@pytest.mark.asyncio
async def test_media_wait_honours_poll_after_seconds(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    sb = sandbox_factory("--speed", "50", "--workers", "2", "--no-seed-media")
    clock = FastClock(RATE)
    recorder = Recorder(clock=clock)
    async with Client(sb.base_url, DEMO_KEY, http_transport=recorder, clock=clock) as client:
        accepted = await client.shorts.create(prompt="Why tides come twice a day, in one short clip.")
        seen: list[MediaStatus] = []
        final = await client.shorts.wait(accepted.data.id, timeout=60 * RATE, on_update=seen.append)
    assert final.status == "completed", final
    assert seen[-1] is final and all(s.status == "generating" for s in seen[:-1])
    polls = recorder.calls("GET", f"/v1/shorts/{accepted.data.id}/status")
    assert len(polls) == len(seen) >= 2
    by_poll = dict(zip((id(p) for p in polls), seen, strict=True))

    def hint(poll: dict[str, Any]) -> float:
        header = parse_retry_after(poll["response_headers"].get("retry-after")) or 0.0
        return max(header, float(by_poll[id(poll)].poll_after_seconds or 0))

    assert_hints_honoured(polls, hint)


@pytest.mark.asyncio
async def test_waits_get_through_chaos(sandbox_factory: Callable[..., RunningSandbox]) -> None:
    sb = sandbox_factory(
        "--speed", "50", "--workers", "2", "--no-seed-media", "--chaos", "0.3", "--chaos-seed", "3"
    )
    async with Client(sb.base_url, DEMO_KEY, max_retries=6) as starter:
        episode_id = await start_episode(starter)
        short = await starter.shorts.create(prompt="Lighthouse lenses, explained quickly.")
    # the waiting client does not retry by itself: the poll loop has to wait out every fault
    clock = FastClock(RATE)
    recorder = Recorder(clock=clock)
    async with Client(
        sb.base_url, DEMO_KEY, max_retries=0, timeout=5, http_transport=recorder, clock=clock
    ) as client:
        episodes: list[Episode] = []
        episode = await client.episodes.wait(episode_id, timeout=45 * RATE, on_update=episodes.append)
        statuses: list[MediaStatus] = []
        status = await client.shorts.wait(short.data.id, timeout=45 * RATE, on_update=statuses.append)
    assert episode.generation and episode.generation.state == "completed"
    assert status.status == "completed"
    faults = [e for e in recorder.events if "error" in e or e.get("status", 200) >= 400]
    assert faults, "chaos produced no fault to wait out"
    assert len(episodes) + len(statuses) + len(faults) == len(recorder.events)


@pytest.mark.asyncio
async def test_other_errors_end_the_wait_at_once(sandbox: RunningSandbox) -> None:
    recorder = Recorder()
    async with Client(sandbox.base_url, DEMO_KEY, http_transport=recorder) as client:
        with pytest.raises(NotFoundError):
            await client.episodes.wait(str(uuid.uuid4()), timeout=30)
        with pytest.raises(NotFoundError):
            await client.videos.wait(str(uuid.uuid4()), timeout=30)
    assert [e["status"] for e in recorder.events] == [404, 404]  # one request each: nothing waited out
