"""The job tracker against the real sandbox: hints honoured (requests counted), failures, sources,
a restart mid-way, the local deadline and "check again", and a pause while the service is away."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from castdeck.api import Client
from castdeck.api.clock import Clock
from castdeck.api.errors import parse_retry_after
from castdeck.services.jobs import Job, JobTracker, still_running_text
from castdeck.services.profiles import Profile
from castdeck.services.session import ConnectionState, Session
from castdeck.store.cache import Cache
from castdeck.store.jobs import JobStore
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.gui.conftest import settle, until
from tests.helpers import FastClock
from tests.runner import RUNTIME
from tests.tls import SHARED_TLS

FAIL = "[sandbox:fail]"
INTERVAL = 1.0  # the tracker's poll interval without a hint (5 s in the app; shorter for speed)
RATE = 10.0
"""The app's time in these tests runs this many times as fast as the machine's (tests.helpers.FastClock):
the service's hints (a second at least) and the probe's delays are honoured in the app's time."""


@dataclass
class Seen:
    method: str
    path: str
    sent: float  # monotonic, when the request left
    answered: float  # monotonic, when the answer arrived
    status: int
    hint: float | None  # what the answer asked: max(Retry-After, poll_after_seconds)


@dataclass
class CountingTransport(httpx.AsyncBaseTransport):
    clock: Clock = field(default_factory=lambda: FastClock(RATE))
    """The session's clock: what is counted is when requests left and came back in the app's time."""
    inner: httpx.AsyncBaseTransport = field(
        default_factory=lambda: httpx.AsyncHTTPTransport(verify=SHARED_TLS)
    )
    seen: list[Seen] = field(default_factory=list)
    attempts: list[tuple[str, str, float]] = field(default_factory=list)  # answered or not

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sent = self.clock.monotonic()
        self.attempts.append((request.method, request.url.path, sent))
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        hints = [parse_retry_after(response.headers.get("retry-after"))]
        if response.headers.get("content-type", "").startswith("application/json"):
            data = json.loads(body).get("data")
            if isinstance(data, dict) and isinstance(data.get("poll_after_seconds"), int | float):
                hints.append(float(data["poll_after_seconds"]))
        given = [h for h in hints if h]
        self.seen.append(
            Seen(request.method, request.url.path, sent, self.clock.monotonic(), response.status_code,
                 max(given) if given else None)
        )  # fmt: skip
        headers = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k not in ("content-encoding", "content-length")
        ]
        return httpx.Response(
            response.status_code,
            headers=headers,
            stream=httpx.ByteStream(body),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

    def to(self, fragment: str) -> list[Seen]:
        return [s for s in self.seen if fragment in s.path]


async def counting_session(base_url: str, cache: Cache) -> tuple[Session, CountingTransport]:
    counter = CountingTransport()
    session = Session(
        Profile("Sandbox", base_url, sandbox=True),
        DEMO_KEY,
        cache,
        runtime=RUNTIME,
        clock=counter.clock,
        client_factory=lambda url, key: Client(
            url, key, max_retries=0, http_transport=counter, clock=counter.clock
        ),
    )
    await session.start()
    return session, counter


@pytest.fixture
def store(tmp_path: Path) -> Iterator[JobStore]:
    opened = JobStore(tmp_path / "jobs.sqlite3")
    yield opened
    opened.close()


@pytest_asyncio.fixture
async def counted(sandbox: RunningSandbox, cache: Cache) -> AsyncIterator[tuple[Session, CountingTransport]]:
    session, counter = await counting_session(sandbox.base_url, cache)
    yield session, counter
    await settle()
    await session.close()


def assert_hints_honoured(requests: list[Seen], first_hint: float | None) -> None:
    """No poll came earlier than the answer before it allowed (the tracker's interval without one)."""
    previous_answer: float | None = None
    hint = first_hint
    for request in requests:
        if previous_answer is not None:
            allowed = hint if hint is not None else INTERVAL
            assert request.sent - previous_answer >= allowed - 0.005, (request, allowed)
        previous_answer, hint = request.answered, request.hint


async def demo_podcast_id(session: Session) -> str:
    async for podcast in session.client.podcasts.list(limit=5):
        return podcast.id
    raise AssertionError("no podcast in the sandbox")


async def start_episode(session: Session, prompt: str) -> tuple[str, float | None, float]:
    accepted = await session.client.episodes.generate(
        podcast_id=await demo_podcast_id(session), prompt=prompt, render=False,
        options={"episode_length_minutes": 1},
    )  # fmt: skip
    return accepted.data.id, accepted.retry_after, session.clock.monotonic()


@pytest.mark.asyncio
async def test_episode_tracked_to_completed_honouring_hints(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    session, counter = counted
    episode_id, retry_after, accepted_at = await start_episode(session, "Why tide pools teem with life.")
    tracker = JobTracker(session, store, default_interval=INTERVAL)
    changes: list[Job] = []
    finished: list[Job] = []
    tracker.jobChanged.connect(changes.append)
    tracker.jobFinished.connect(finished.append)
    job = tracker.track("episode", episode_id, title="Tide pools", first_poll_after=retry_after)
    await tracker.flush()  # written on the disk thread, before the first poll
    stored = store.get("Sandbox", "episode", episode_id)
    assert stored is not None and stored.state == "running" and stored.title == "Tide pools"

    await until(lambda: finished, timeout=120)
    done = finished[0]
    assert done.state == "completed" and done.progress == 100.0 and done.error is None
    await tracker.flush()  # the store is written on the disk thread, after the signal
    assert store.get("Sandbox", "episode", episode_id) == done
    assert tracker.following == 0 and job.started_at == done.started_at
    polls = [s for s in counter.to(f"/v1/episodes/{episode_id}") if s.method == "GET"]
    assert polls and polls[0].sent - accepted_at >= (retry_after or INTERVAL) - 0.005
    assert_hints_honoured(polls, None)
    assert changes[0] == job  # announced when tracking starts (its card shows at once)
    assert len(changes) == 1 + len(polls)  # then one observation per poll
    assert all(c.phase for c in changes[1:-1])  # every observation while it generated named its phase
    await tracker.close()
    await settle()


@pytest.mark.asyncio
async def test_failed_media_job_ends_failed_with_its_error(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    session, counter = counted
    accepted = await session.client.shorts.create(
        prompt=f"A short that breaks {FAIL} on purpose, about kelp."
    )
    tracker = JobTracker(session, store, default_interval=INTERVAL)
    finished: list[Job] = []
    tracker.jobFinished.connect(finished.append)
    tracker.track("short", accepted.data.id, title="Kelp short", first_poll_after=accepted.retry_after)
    await until(lambda: finished, timeout=120)
    job = finished[0]
    assert job.state == "failed" and job.error and job.request_id
    assert "cancel" not in job.error.lower()
    polls = counter.to(f"/v1/shorts/{accepted.data.id}/status")
    assert_hints_honoured(polls, accepted.retry_after)
    assert all(s.hint is not None for s in polls[:-1])  # the service gave hints while generating
    await tracker.close()
    await settle()


@pytest.mark.asyncio
async def test_url_source_ends_completed(counted: tuple[Session, CountingTransport], store: JobStore) -> None:
    session, counter = counted
    source = await session.client.sources.create(type="url", url="https://example.org/tide-tables")
    tracker = JobTracker(session, store, default_interval=INTERVAL)
    finished: list[Job] = []
    tracker.jobFinished.connect(finished.append)
    tracker.track("source", source.id, first_poll_after=0.2)
    await until(lambda: finished, timeout=60)
    assert finished[0].state == "completed" and finished[0].kind == "source"
    assert_hints_honoured(counter.to(f"/v1/sources/{source.id}"), 0.2)
    assert tracker.clear_finished() == 1 and tracker.jobs() == []
    await tracker.close()
    await settle()


@pytest.mark.asyncio
async def test_tracking_resumes_after_a_restart(
    counted: tuple[Session, CountingTransport], store: JobStore, tmp_path: Path
) -> None:
    session, _ = counted
    episode_id, retry_after, _ = await start_episode(session, "How lighthouses were kept lit.")
    first = JobTracker(session, store, default_interval=INTERVAL)
    first.track("episode", episode_id, title="Lighthouses", first_poll_after=retry_after)
    await first.flush()  # stored; its first poll waits for the hint
    await first.close()  # the app quits mid-way (its writes land on disk first)
    assert first.following == 0
    left = store.list("Sandbox", active_only=True)
    assert [j.resource_id for j in left] == [episode_id] and left[0].state == "running"

    reopened = JobStore(store.path or tmp_path / "jobs.sqlite3")  # the next start: the same file
    second = JobTracker(session, reopened, default_interval=INTERVAL)
    finished: list[Job] = []
    second.jobFinished.connect(finished.append)
    resumed = await second.resume()
    assert [j.resource_id for j in resumed] == [episode_id] and resumed[0].title == "Lighthouses"
    await until(lambda: finished, timeout=120)
    assert finished[0].state == "completed"
    assert await second.resume() == []  # nothing left to resume
    await second.close()
    reopened.close()
    await settle()


@pytest.mark.asyncio
async def test_deadline_gives_still_running_and_check_again_finishes(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    session, _ = counted
    episode_id, retry_after, _ = await start_episode(session, "The slow art of reading the weather.")
    tracker = JobTracker(session, store, deadline=0.3, default_interval=INTERVAL)
    changes: list[Job] = []
    finished: list[Job] = []
    tracker.jobChanged.connect(changes.append)
    tracker.jobFinished.connect(finished.append)
    tracker.track("episode", episode_id, title="Weather", first_poll_after=retry_after)
    await until(lambda: changes and changes[-1].state == "still_running", timeout=10)
    stopped = changes[-1]
    assert not finished and tracker.following == 0
    await tracker.flush()  # the store is written on the disk thread, after the signal
    assert store.list("Sandbox", active_only=True) == []
    assert "still running on the service; check again" in still_running_text(stopped)
    assert "cancel" not in still_running_text(stopped).lower()

    again = tracker.check_again(stopped, deadline=120)
    assert again.state == "running" and tracker.following == 1
    await until(lambda: finished, timeout=120)
    assert finished[0].state == "completed" and finished[0].resource_id == episode_id
    await tracker.close()
    await settle()


@pytest.mark.asyncio
async def test_check_again_straight_from_the_still_running_signal_follows_the_job(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    """A user may press "Check again" the instant the card changes: the ending poller must no longer
    count as following by then, or the press would be lost."""
    session, _ = counted
    episode_id, retry_after, _ = await start_episode(session, "Why fog horns sound so low.")
    tracker = JobTracker(session, store, deadline=0.3, default_interval=INTERVAL)
    again: list[Job] = []
    finished: list[Job] = []

    def at_once(job: Job) -> None:
        if job.state == "still_running" and not again:
            again.append(tracker.check_again(job, deadline=120))

    tracker.jobChanged.connect(at_once)
    tracker.jobFinished.connect(finished.append)
    tracker.track("episode", episode_id, first_poll_after=retry_after)
    await until(lambda: again, timeout=10)
    assert again[0].state == "running" and tracker.is_following("episode", episode_id)
    await until(lambda: finished, timeout=120)
    assert finished[0].state == "completed"
    await tracker.close()
    await settle()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.asyncio
async def test_pauses_while_offline_and_completes_after_return(
    sandbox_factory: Callable[..., RunningSandbox], cache: Cache, store: JobStore, tmp_path: Path
) -> None:
    port = free_port()
    data = tmp_path / "service"
    service = sandbox_factory("--port", str(port), "--speed", "50", "--no-seed-media", data_dir=data)
    session, counter = await counting_session(service.base_url, cache)
    episode_id, retry_after, _ = await start_episode(session, "Why ships ring bells in the fog.")
    tracker = JobTracker(session, store, default_interval=INTERVAL)
    finished: list[Job] = []
    tracker.jobFinished.connect(finished.append)

    service.stop()  # the service goes away before the first poll
    tracker.track("episode", episode_id, title="Fog bells", first_poll_after=retry_after)
    await until(lambda: session.state is ConnectionState.OFFLINE, timeout=30)
    offline_from = len(counter.attempts)
    await until(lambda: len([a for a in counter.attempts[offline_from:] if a[1] == "/v1/account"]) >= 2)
    while_offline = counter.attempts[offline_from:]
    assert all(path == "/v1/account" for _, path, _ in while_offline), while_offline  # the session's probe
    assert tracker.following == 1 and store.get("Sandbox", "episode", episode_id).state == "running"  # type: ignore[union-attr]

    sandbox_factory(
        "--port", str(port), "--speed", "50", "--no-seed-media", data_dir=data
    )  # the service returns
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await until(lambda: finished, timeout=120)
    assert finished[0].state == "completed"
    await tracker.close()
    await settle()
    await session.close()


@pytest.mark.asyncio
async def test_a_read_made_elsewhere_ends_the_job_and_its_poller(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    """One job state: what a pane reads itself (the details, a "Refresh status") is news for the
    tracker; it never shows a generation as running that a fresher read saw finish."""
    session, _counter = counted
    episode_id, _retry_after, _accepted = await start_episode(session, "Why some beaches sing underfoot.")
    tracker = JobTracker(session, store, default_interval=INTERVAL)
    finished: list[Job] = []
    tracker.jobFinished.connect(finished.append)
    tracker.track("episode", episode_id, title="Singing sand", first_poll_after=3600)  # its own poll waits
    assert tracker.is_following("episode", episode_id)

    running = await session.client.episodes.get(episode_id)
    assert running.generation is not None and running.generation.state == "generating"
    assert tracker.observe("episode", episode_id, running).state == "running"  # type: ignore[union-attr]
    assert tracker.is_following("episode", episode_id) and not finished

    done = await session.client.episodes.wait(episode_id)  # the default deadline: a loaded machine is slower
    ended = tracker.observe("episode", episode_id, done)
    assert ended is not None and ended.state == "completed" and ended.progress == 100.0
    assert finished == [ended] and not tracker.is_following("episode", episode_id)
    assert tracker.following == 0
    assert tracker.observe("episode", episode_id, running) == ended  # an older read changes nothing
    await tracker.flush()
    assert store.get("Sandbox", "episode", episode_id) == ended
    await tracker.close()
    await settle()


@pytest.mark.asyncio
async def test_the_tracker_keeps_the_most_recently_ended_jobs_and_forgets_older_ones(
    counted: tuple[Session, CountingTransport], store: JobStore
) -> None:
    """Retention is the tracker's: past ``ended_kept`` ended jobs the earliest ended are forgotten,
    in memory and in the store, each announced once (the Jobs dock only follows); a job still
    followed is never one of them."""
    session, _counter = counted
    tracker = JobTracker(session, store, default_interval=INTERVAL, ended_kept=2)
    forgotten: list[Job] = []
    tracker.jobForgotten.connect(forgotten.append)
    listed = await session.client.episodes.list().to_list()
    done = [e for e in listed if e.generation is not None and e.generation.state == "completed"][:4]
    assert len(done) == 4
    running_id, _retry_after, _accepted = await start_episode(session, "Why owls turn their heads.")
    tracker.track("episode", running_id, title="Owls", first_poll_after=3600)
    for number, episode in enumerate(done):
        tracker.track("episode", str(episode.id), title=f"Ended {number}", first_poll_after=3600)
        ended = tracker.observe("episode", str(episode.id), episode)  # ends it, its poll not waited for
        assert ended is not None and ended.state == "completed"
    kept = [str(e.id) for e in done[2:]]
    assert [(j.kind, j.resource_id) for j in forgotten] == [("episode", str(e.id)) for e in done[:2]]
    assert sorted(j.resource_id for j in tracker.jobs() if j.finished) == sorted(kept)
    assert tracker.is_following("episode", running_id)
    await tracker.flush()
    assert sorted(j.resource_id for j in store.list("Sandbox") if j.finished) == sorted(kept)
    assert store.get("Sandbox", "episode", running_id) is not None
    await tracker.close()
    await settle()
