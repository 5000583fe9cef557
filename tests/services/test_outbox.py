"""The outbox against the real sandbox: a lost answer, a restart, a rejection and media retries;
and the work log over it and the job tracker: one record per write and its job.

Requests are counted (and faults injected) by an httpx transport wrapped around the real one. The
client's own retries are off (``max_retries=0``) so that every resend is the outbox's.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from PySide6.QtCore import QModelIndex

from castdeck.api import CastdeckError, Client
from castdeck.services.jobs import JobTracker
from castdeck.services.outbox import Outbox
from castdeck.services.session import Session
from castdeck.services.work import WORK_ROLE, Work, WorkLog, work_key
from castdeck.store.background import BackgroundStore
from castdeck.store.cache import Cache
from castdeck.store.outbox import OutboxEntry, OutboxStore
from tests.conftest import RunningSandbox
from tests.gui.conftest import settle, until
from tests.services.conftest import session_through
from tests.tls import SHARED_TLS

FAIL = "[sandbox:fail]"


class FaultyTransport(httpx.AsyncBaseTransport):
    """Forwards to the real transport, counts requests and their keys, and injects faults.

    ``lose_answer``: (method, path suffix) whose first request reaches the service, but whose answer
    is replaced by ``httpx.ReadError`` (the service did the work; the app never heard).
    ``refuse``: (method, path suffix) that never reach the service (``httpx.ConnectError``).
    """

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=SHARED_TLS)
        self.counts: Counter[tuple[str, str]] = Counter()
        self.keys: list[tuple[str, str, str | None]] = []
        self.lose_answer: set[tuple[str, str]] = set()
        self.refuse: set[tuple[str, str]] = set()
        self.on_post: Callable[[], object] | None = None

    def _match(self, request: httpx.Request, rules: set[tuple[str, str]]) -> tuple[str, str] | None:
        for method, suffix in rules:
            if request.method == method and request.url.path.endswith(suffix):
                return (method, suffix)
        return None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.counts[(request.method, request.url.path)] += 1
        if request.method == "POST":
            self.keys.append((request.method, request.url.path, request.headers.get("idempotency-key")))
            if self.on_post is not None:
                self.on_post()
        if self._match(request, self.refuse):
            raise httpx.ConnectError("refused by the test", request=request)
        response = await self.inner.handle_async_request(request)
        rule = self._match(request, self.lose_answer)
        if rule is not None:
            self.lose_answer.discard(rule)
            await response.aread()
            await response.aclose()
            raise httpx.ReadError("answer lost by the test", request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def posts(self, suffix: str) -> int:
        return sum(
            n for (method, path), n in self.counts.items() if method == "POST" and path.endswith(suffix)
        )


@pytest_asyncio.fixture
async def shared(tmp_path: Path) -> AsyncIterator[BackgroundStore]:
    """The one database of jobs and the outbox, as the app opens it. It closes after the trackers
    that write to it (their last writes may still be on the disk thread when the test ends)."""
    opened = BackgroundStore(tmp_path / "background.sqlite3")
    yield opened
    await close_all()
    opened.close()


@pytest.fixture
def store(shared: BackgroundStore) -> OutboxStore:
    return shared.outbox


def outbox_of(session: Session, store: OutboxStore, **kwargs: Any) -> Outbox:
    """An outbox with the tracker its accepted writes are handed to (sharing the store's database)."""
    assert store.jobs is not None
    tracker = JobTracker(session, store.jobs)
    outbox = Outbox(session, store, tracker, **kwargs)
    trackers.append(tracker)
    return outbox


trackers: list[JobTracker] = []


async def close_all() -> None:
    """Close the trackers the test's outboxes hand jobs to: their writes land, their pollers stop
    (as Background.close does), before the session goes."""
    while trackers:
        await trackers.pop().close()


@pytest_asyncio.fixture(autouse=True)
async def _close_trackers() -> AsyncIterator[None]:
    yield
    await close_all()


@pytest_asyncio.fixture
async def counted(sandbox: RunningSandbox, cache: Cache) -> AsyncIterator[tuple[Session, FaultyTransport]]:
    transport = FaultyTransport()
    session = await session_through(sandbox.base_url, cache, transport)
    yield session, transport
    await close_all()
    await settle()
    await session.close()


def history(outbox: Outbox) -> list[OutboxEntry]:
    seen: list[OutboxEntry] = []
    outbox.entryChanged.connect(seen.append)
    return seen


async def fresh_podcast(client: Client) -> str:
    hosts = await client.hosts.list().to_list()
    podcast = await client.podcasts.create(title=f"Outbox {uuid.uuid4().hex[:8]}", host_ids=[hosts[0].id])
    return podcast.id


def state_of(store: OutboxStore, entry_id: str) -> Callable[[], str | None]:
    def read() -> str | None:
        entry = store.get(entry_id)
        return entry.state if entry else None

    return read


# --- the first answer is lost ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_lost_answer_is_resent_with_the_same_key_and_creates_one_episode(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    podcast_id = await fresh_podcast(session.client)
    outbox = outbox_of(session, store, base_delay=60.0)  # the timer stays out of the way; flush() resends
    seen = history(outbox)
    accepted: list[tuple[OutboxEntry, object]] = []
    outbox.accepted.connect(lambda entry, answer: accepted.append((entry, answer)))
    transport.lose_answer.add(("POST", "/v1/episodes/generate"))
    prompt = f"Why tides turn twice a day, explained for the outbox test {uuid.uuid4().hex}."

    entry = outbox.submit("episode_generate", {"podcast_id": podcast_id, "prompt": prompt})
    assert entry.state == "pending" and entry.idempotency_key
    # (submit never waits for the disk; the entry is stored before its request leaves)
    stored_when_sent: list[bool] = []
    transport.on_post = lambda: stored_when_sent.append(store.get(entry.id) is not None)

    # the service processed the first request, the app never saw the answer: still pending
    await until(lambda: any(e.state == "pending" and e.attempts == 1 for e in seen))
    failed = next(e for e in seen if e.state == "pending" and e.attempts == 1)
    assert failed.last_error and "lost" in failed.last_error
    assert outbox.next_resend is not None  # the fault scheduled a round of resends

    flushed = outbox.flush()
    assert flushed is not None
    await flushed
    # everything has its answer: the scheduled round is called off (it would fire into nothing, or
    # after a test's end, outside the loop)
    assert outbox.next_resend is None
    await until(lambda: state_of(store, entry.id)() == "sent")
    sent = store.get(entry.id)
    assert sent is not None

    episodes = await session.client.episodes.list(podcast_id=podcast_id).to_list()
    assert len(episodes) == 1, episodes  # created exactly once
    assert sent.resource_id == episodes[0].id and sent.idempotency_key == entry.idempotency_key
    generate_keys = [k for _, path, k in transport.keys if path.endswith("/v1/episodes/generate")]
    assert len(generate_keys) >= 2 and set(generate_keys) == {entry.idempotency_key}
    assert stored_when_sent and all(stored_when_sent)
    assert accepted and accepted[0][0].id == entry.id
    assert [e.resource_id for e, _ in accepted] == [sent.resource_id]  # accepted once
    assert store.pending("Sandbox") == []

    await outbox.close()
    await close_all()
    await settle()


# --- restart -------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_unsent_entry_is_sent_by_the_next_start(
    sandbox: RunningSandbox, cache: Cache, store: OutboxStore
) -> None:
    title = f"Outbox restart {uuid.uuid4().hex[:8]}"
    prompt = f"A short explainer on estuaries for the restart test ({title})."

    # first run: the request never reaches the service; the app quits with the entry unsent
    down = FaultyTransport()
    down.refuse.add(("POST", "/v1/videos"))
    first = await session_through(sandbox.base_url, cache, down)
    outbox = outbox_of(first, store, base_delay=60.0)
    entry = outbox.submit("media_create", {"prompt": prompt}, collection="videos")
    await until(
        lambda: (store.get(entry.id) or entry).attempts == 1 and state_of(store, entry.id)() == "pending"
    )
    await outbox.close()
    await close_all()
    await settle()
    await first.close()
    assert down.posts("/v1/videos") == 1
    left = store.pending("Sandbox")
    assert [e.id for e in left] == [entry.id] and left[0].idempotency_key == entry.idempotency_key

    # next start: a working session flushes it, with the stored key
    up = FaultyTransport()
    second = await session_through(sandbox.base_url, cache, up)
    try:
        restarted = outbox_of(second, store)
        flushed = restarted.flush()
        assert flushed is not None
        answered = await flushed
        assert [e.id for e in answered] == [entry.id] and answered[0].state == "sent"
        sent = store.get(entry.id)
        assert sent is not None and sent.resource_id
        assert [k for _, path, k in up.keys if path.endswith("/v1/videos")] == [entry.idempotency_key]

        videos = await second.client.videos.list().to_list()
        mine = [v for v in videos if (v.model_extra or {}).get("prompt") == prompt]
        assert [v.id for v in mine] == [sent.resource_id]  # one job created
        # a second flush has nothing left to send
        again = restarted.flush()
        assert again is not None and await again == []
        assert up.posts("/v1/videos") == 1
        await restarted.close()
    finally:
        await close_all()
        await settle()
        await second.close()


@pytest.mark.asyncio
async def test_entry_left_sending_by_a_crash_is_resent(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    podcast_id = await fresh_podcast(session.client)
    prompt = f"How lighthouses were kept lit, for the crash test {uuid.uuid4().hex}."
    # a run that stored the entry and marked it sending, then died before any answer
    crashed = store.add(
        "Sandbox", "episode_generate", {"podcast_id": podcast_id, "prompt": prompt}, "k-" + uuid.uuid4().hex
    )
    store.mark_sending(crashed.id)
    outbox = outbox_of(session, store)
    flushed = outbox.flush()
    assert flushed is not None
    await flushed
    sent = store.get(crashed.id)
    assert sent is not None and sent.state == "sent" and sent.attempts == 2
    episodes = await session.client.episodes.list(podcast_id=podcast_id).to_list()
    assert [e.id for e in episodes] == [sent.resource_id]
    assert transport.posts("/v1/episodes/generate") == 1
    await outbox.close()


# --- rejection -------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_rejected_write_is_recorded_and_never_resent(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    outbox = outbox_of(session, store, base_delay=0.05)  # a resend would come fast if one were scheduled
    bad_style = outbox.submit(
        "media_create", {"prompt": "A video in a style that does not exist.", "style_id": "baroque"},
        collection="videos",
    )  # fmt: skip
    no_podcast = outbox.submit(
        "episode_generate",
        {"podcast_id": str(uuid.uuid4()), "prompt": "An episode of a podcast that is not there."},
    )
    await until(
        lambda: (
            state_of(store, bad_style.id)() == "rejected" and state_of(store, no_podcast.id)() == "rejected"
        )
    )

    for flushed in (outbox.flush(), outbox.flush()):
        assert flushed is not None
        assert await flushed == []

    rejected = store.get(bad_style.id)
    assert rejected is not None and rejected.request_id and rejected.problem is not None
    assert rejected.problem["status"] == 400 and "style_id" in (rejected.last_error or "")
    assert any(e["field"] == "style_id" for e in rejected.problem["errors"])
    missing = store.get(no_podcast.id)
    assert missing is not None and missing.problem is not None and missing.problem["status"] == 404
    assert missing.request_id and missing.resource_id is None
    assert transport.posts("/v1/videos") == 1 and transport.posts("/v1/episodes/generate") == 1
    assert store.pending("Sandbox") == []
    await outbox.close()


@pytest.mark.asyncio
async def test_server_faults_keep_the_entry_pending_until_the_timer_resends(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    """No connection: pending; the backoff timer resends with the same key once the path works."""
    session, transport = counted
    transport.refuse.add(("POST", "/v1/shorts"))
    outbox = outbox_of(session, store, base_delay=0.2, max_delay=0.5)
    prompt = f"Thirty seconds on sea glass ({uuid.uuid4().hex[:8]})."
    entry = outbox.submit(
        "media_create", {"prompt": prompt, "target_duration_seconds": 30}, collection="shorts"
    )
    await until(lambda: transport.posts("/v1/shorts") >= 2)  # resent by the timer (or the reconnect)
    assert state_of(store, entry.id)() in ("pending", "sending")
    transport.refuse.clear()
    await until(lambda: state_of(store, entry.id)() == "sent", timeout=30)
    keys = {k for _, path, k in transport.keys if path.endswith("/v1/shorts")}
    assert keys == {entry.idempotency_key}
    shorts = await session.client.shorts.list().to_list()
    assert len([s for s in shorts if (s.model_extra or {}).get("prompt") == prompt]) == 1
    await outbox.close()


# --- media retry ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_media_retry_entries_each_have_a_new_key(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    outbox = outbox_of(session, store, base_delay=60.0)
    created = outbox.submit(
        "media_create",
        {
            "prompt": f"A short that fails on purpose. {FAIL} {uuid.uuid4().hex[:8]}",
            "target_duration_seconds": 30,
        },
        collection="shorts",
    )
    await until(lambda: state_of(store, created.id)() == "sent")
    made = store.get(created.id)
    assert made is not None and made.resource_id
    job_id = made.resource_id
    log = WorkLog(trackers[-1], outbox)  # the work log as the dock has it from here
    await until(lambda: [record.key for record in log.records()] == [work_key("short", job_id)])

    status = None
    for _ in range(1800):
        status = await session.client.shorts.status(job_id)
        if status.status == "failed":
            break
        await asyncio.sleep(0.1)
    assert status is not None and status.status == "failed", status

    # the first retry's answer is lost: it is resent with ITS key (a replay, not another attempt).
    # The lost answer also takes the session offline, and its reconnection a second later flushes
    # the outbox too; on a busy machine that may resend it before this test looks, so the entry may
    # be pending or already sent here. Either way, two sends with the one key (checked below).
    lost = ("POST", f"/v1/shorts/{job_id}/retry")
    transport.lose_answer.add(lost)
    first = outbox.submit("media_retry", collection="shorts", resource_id=job_id)
    await until(
        lambda: (
            lost not in transport.lose_answer
            and (store.get(first.id) or first).attempts >= 1
            and state_of(store, first.id)() in ("pending", "sent")
        )
    )
    flushed = outbox.flush()
    assert flushed is not None
    await flushed
    await until(lambda: state_of(store, first.id)() == "sent")

    # a second retry entry gets a new key; the job is generating again, so the service refuses it (422)
    second = outbox.submit("media_retry", collection="shorts", resource_id=job_id)
    await until(lambda: state_of(store, second.id)() == "rejected")

    assert len({created.idempotency_key, first.idempotency_key, second.idempotency_key}) == 3
    retry_keys = [k for _, path, k in transport.keys if path.endswith("/retry")]
    assert retry_keys == [first.idempotency_key, first.idempotency_key, second.idempotency_key]
    done = store.get(first.id)
    assert done is not None and done.resource_id == job_id and done.collection == "shorts"
    refused = store.get(second.id)
    assert refused is not None and refused.problem is not None and refused.problem["status"] == 422
    assert refused.request_id and refused.last_error
    assert (await session.client.shorts.status(job_id)).status == "generating"  # one new attempt running
    # the short, its accepted retry and the refused one are two records, not three: the retry's
    # write went on as the short's job, which has one record (the retry's, newest first)
    assert [record.key for record in log.records()] == [f"entry:{second.id}", work_key("short", job_id)]
    retried = log.record(work_key("short", job_id))
    assert retried is not None and retried.entry is not None and retried.entry.id == first.id
    later = WorkLog(trackers[-1], outbox)  # and a view opened now finds the same
    assert sorted(record.key for record in later.records()) == sorted(record.key for record in log.records())
    await outbox.close()


# --- the disk is full ------------------------------------------------------------------------------------------


def fill_up(store: OutboxStore) -> None:
    """SQLite's own "database or disk is full", for real: the file is capped, then filled to the cap
    with another profile's entries (so no page has room left for one more)."""
    store.limit_size(4)
    with contextlib.suppress(sqlite3.OperationalError):
        for i in range(10_000):
            store.add("filler", "media_create", {}, f"{i:08d}", collection="videos")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        store.add("filler", "media_create", {}, "one-more", collection="videos")


@pytest.mark.asyncio
async def test_a_write_that_cannot_be_stored_first_is_never_sent(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    outbox = outbox_of(session, store)
    fill_up(store)
    seen = history(outbox)
    entry = outbox.submit("media_create", {"prompt": "A video that has no room on disk"}, collection="videos")
    await until(lambda: seen and seen[-1].state == "rejected")
    refused = seen[-1]
    assert refused.id == entry.id and "could not save the request first" in (refused.last_error or "")
    assert transport.posts("/v1/videos") == 0  # nothing went out without its key stored
    assert outbox.get(entry.id) == refused and store.get(entry.id) is None
    sent = await outbox.send("media_create", {"prompt": "Another one"}, collection="videos")
    assert sent.accepted is None and sent.entry.state == "rejected"
    with pytest.raises(CastdeckError, match="could not save"):
        sent.outcome()
    assert transport.posts("/v1/videos") == 0
    outbox.discard(entry.id)
    assert outbox.get(entry.id) is None
    await outbox.close()


# --- what the UI thread asks -------------------------------------------------------------------------------------

STORE_CALLS = ("insert", "mark_sending", "mark_sent", "mark_rejected", "mark_failed_attempt",
               "delete_answered", "get", "pending", "list")  # fmt: skip


@pytest.mark.asyncio
async def test_the_ui_thread_never_waits_on_the_outbox_database(
    counted: tuple[Session, FaultyTransport], store: OutboxStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """entries(), get(), discard() and clear_done() answer from memory; every read and write of the
    database runs on the disk thread. Entries of an earlier run are known once load() has read them
    and announced them (the Jobs dock shows them from that signal)."""
    session, _ = counted
    earlier = store.add(
        "Sandbox", "episode_generate", {"prompt": "from an earlier run"}, "k-" + uuid.uuid4().hex
    )
    store.mark_rejected(earlier.id, "refused in an earlier run")
    threads: list[tuple[str, threading.Thread]] = []
    for name in STORE_CALLS:
        real = getattr(store, name)

        def noted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            threads.append((_name, threading.current_thread()))
            return _real(*args, **kwargs)

        monkeypatch.setattr(store, name, noted)
    outbox = outbox_of(session, store)
    announced: list[OutboxEntry] = []
    outbox.loaded.connect(announced.extend)
    assert outbox.entries() == []  # nothing read yet, and nothing read to answer
    await outbox.load()
    assert [e.id for e in announced] == [earlier.id]
    known = outbox.get(earlier.id)
    assert known is not None and known.state == "rejected"

    refused = outbox.submit(
        "media_create", {"prompt": "A video in a style that does not exist.", "style_id": "baroque"},
        collection="videos",
    )  # fmt: skip
    assert outbox.get(refused.id) == refused  # known at once, before the disk has it
    await until(lambda: (outbox.get(refused.id) or refused).state == "rejected")
    removed: list[str] = []
    outbox.entryRemoved.connect(removed.append)
    outbox.discard(refused.id)
    assert outbox.clear_done() == 1
    assert removed == [refused.id, earlier.id]
    assert outbox.entries() == []
    await outbox.close()  # the removals reach the disk before close returns
    assert threads, "the outbox never used its store"
    on_ui = sorted({name for name, thread in threads if thread is threading.main_thread()})
    assert on_ui == [], f"read or written on the UI thread: {on_ui}"
    monkeypatch.undo()
    assert store.get(refused.id) is None
    assert store.get(earlier.id) is None
    again = outbox_of(session, store)
    await again.load()
    assert again.entries() == []
    await again.close()


# --- the work log: one record per write and its job -------------------------------------------------------


class Rows:
    """What a view of the log hears: rows inserted and removed (by key) and rows changed."""

    def __init__(self, log: WorkLog) -> None:
        self.inserted: list[str] = []
        self.removed: list[str] = []
        self.changed = 0
        log.rowsInserted.connect(lambda _p, first, last: self.inserted.extend(
            log.at(row).key for row in range(first, last + 1)))  # fmt: skip
        log.rowsAboutToBeRemoved.connect(lambda _p, first, last: self.removed.extend(
            log.at(row).key for row in range(first, last + 1)))  # fmt: skip
        log.dataChanged.connect(lambda *_: setattr(self, "changed", self.changed + 1))


def only(log: WorkLog) -> Work:
    records = log.records()
    assert len(records) == 1, [record.key for record in records]
    return records[0]


@pytest.mark.asyncio
async def test_a_write_and_its_job_are_one_record_in_one_row_to_the_end(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    podcast_id = await fresh_podcast(session.client)
    outbox = outbox_of(session, store, base_delay=60.0)  # no timer: flush() resends
    tracker = trackers[-1]  # the tracker the outbox hands its accepted writes to
    log = WorkLog(tracker, outbox)
    rows = Rows(log)
    transport.lose_answer.add(("POST", "/v1/episodes/generate"))

    entry = outbox.submit(
        "episode_generate", {"podcast_id": podcast_id, "prompt": f"Why the sea is salty {uuid.uuid4().hex}."}
    )
    await until(lambda: only(log).entry is not None and only(log).entry.attempts == 1)  # type: ignore[union-attr]
    waiting = only(log)
    assert waiting.key == f"entry:{entry.id}" and not waiting.accepted and not waiting.ended
    assert log.data(log.index(0, 0), WORK_ROLE) == waiting  # the role a view reads

    flushed = outbox.flush()
    assert flushed is not None
    await flushed
    await until(lambda: only(log).job is not None)
    followed = only(log)
    assert followed.seq == waiting.seq  # the same record, in the same row
    assert followed.entry is not None and followed.entry.resource_id
    assert (
        followed.key
        == work_key("episode", followed.entry.resource_id)
        == f"job:episode:{followed.entry.resource_id}"
    )
    assert followed.accepted and log.record(followed.key) == followed
    assert log.record(f"entry:{entry.id}") is None  # found by its job's key from now on
    assert rows.inserted == [f"entry:{entry.id}"] and rows.removed == []  # never a second row

    # a view opened now (the dock after a profile switch) finds the one record too
    later = WorkLog(tracker, outbox)
    assert [record.key for record in later.records()] == [followed.key]

    assert not log.dismiss(followed.key)  # still running on the service: not the creator's to dismiss
    assert followed.job is not None
    tracker.stop(followed.job, "stopped by the test")
    assert only(log).ended
    assert log.dismiss(followed.key)
    assert log.records() == [] and rows.removed == [followed.key]
    assert log.rowCount(QModelIndex()) == 0
    await outbox.close()
    await close_all()
    await settle()


@pytest.mark.asyncio
async def test_an_answered_write_goes_from_memory_and_disk_with_the_job_it_started(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, _transport = counted
    podcast_id = await fresh_podcast(session.client)
    outbox = outbox_of(session, store, base_delay=60.0)
    tracker = trackers[-1]
    tracker.ended_kept = 1
    log = WorkLog(tracker, outbox)
    sent = [
        await outbox.send("episode_generate", {"podcast_id": podcast_id, "prompt": f"Tides, part {n}."})
        for n in (1, 2)
    ]
    jobs = [one.job for one in sent]
    assert jobs[0] is not None and jobs[1] is not None
    assert [outbox.get(one.entry.id) is not None for one in sent] == [True, True]

    tracker.stop(jobs[0], "ended by the test")  # ended, within what the tracker keeps: its write stays
    assert outbox.get(sent[0].entry.id) is not None
    tracker.stop(jobs[1], "ended by the test")  # past it: the older job goes, and the write that started it
    assert tracker.job(jobs[0].kind, jobs[0].resource_id) is None
    assert outbox.get(sent[0].entry.id) is None
    assert outbox.get(sent[1].entry.id) is not None
    assert [record.key for record in log.records()] == [work_key(jobs[1].kind, jobs[1].resource_id)]

    assert log.dismiss(work_key(jobs[1].kind, jobs[1].resource_id))  # the card's Dismiss: the same
    assert outbox.entries() == [] and log.records() == []
    await outbox.close()  # its removals reach the disk first
    assert await session.on_disk(store.list, outbox.profile) == []
    await close_all()
    await settle()


@pytest.mark.asyncio
async def test_a_refused_write_is_one_ended_record_and_clearing_lets_the_ended_go(
    counted: tuple[Session, FaultyTransport], store: OutboxStore
) -> None:
    session, transport = counted
    outbox = outbox_of(session, store, base_delay=60.0)
    tracker = trackers[-1]
    log = WorkLog(tracker, outbox)
    refused = outbox.submit(
        "media_create", {"prompt": "A video in a style that does not exist.", "style_id": "baroque"},
        collection="videos",
    )  # fmt: skip
    await until(lambda: only(log).ended)
    record = only(log)
    assert record.key == f"entry:{refused.id}" and record.job is None and not record.accepted
    assert record.entry is not None and record.entry.state == "rejected"

    ended = tracker.track("video", f"vid_{uuid.uuid4().hex[:8]}", title="An older video")
    tracker.stop(ended, "ended before the test")
    running = tracker.track("video", f"vid_{uuid.uuid4().hex[:8]}", title="Still going", first_poll_after=60)
    assert [r.key for r in log.records()] == [
        work_key("video", running.resource_id),
        work_key("video", ended.resource_id),
        f"entry:{refused.id}",
    ]  # newest first
    assert log.clear_finished() == 1  # the ended job; the refused write went with the outbox's word
    assert [r.key for r in log.records()] == [work_key("video", running.resource_id)]
    assert outbox.get(refused.id) is None
    assert transport.posts("/v1/videos") == 1
    await outbox.close()
    await close_all()
    await settle()
