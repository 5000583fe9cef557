"""The media workflows (castdeck.services.media_actions) against the sandbox: a collection's list,
items and options; a status check with the note that says what it found, handed to the tracker; a
retry through the outbox with a new key (and, when its answer is lost, kept and resent with the
same key); the three download answers, with the status read too when the item as shown had not
finished; and a create through the outbox."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from typing import Any

import pytest

from castdeck.api import Accepted
from castdeck.api.models import MediaJob
from castdeck.api.models.media import VideoCreateInput
from castdeck.services.media_actions import DownloadCheck, MediaActions, format_seconds, status_text
from castdeck.services.starting import PENDING_TEXT
from castdeck.store.outbox import OutboxEntry
from tests.conftest import DEMO_KEY, RunningSandbox, wait_for
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.media_preview_helpers import finished_video

FAIL_PHRASE = "[sandbox:fail]"  # the sandbox fails a job whose prompt holds this (sandbox/config.py)
CLOCK = r"\d\d:\d\d:\d\d"


def actions(on_line: OnLine, collection: str = "videos") -> MediaActions:
    background = on_line.background
    return MediaActions(
        on_line.session, background.jobs, background.starter, background.downloads, collection
    )


@pytest.fixture(scope="module")
def finished(sandbox: RunningSandbox) -> dict[str, Any]:
    return finished_video(sandbox, "A short explainer on how tide tables are made")


@pytest.fixture(scope="module")
def failed(sandbox: RunningSandbox) -> dict[str, Any]:
    """A video of this module's own that failed (nothing here retries it)."""
    api = sandbox.client(DEMO_KEY)
    made = api.post(
        "/v1/videos", json={"prompt": f"{FAIL_PHRASE} A video that fails {uuid.uuid4().hex[:8]}"},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )  # fmt: skip
    assert made.status_code == 202, made.text
    video_id = made.json()["data"]["id"]
    return wait_for(lambda: ended_as(api, video_id, "failed"), timeout=180)  # type: ignore[no-any-return]


def ended_as(api: Any, video_id: str, status: str) -> dict[str, Any] | None:
    data: dict[str, Any] = api.get(f"/v1/videos/{video_id}").json()["data"]
    return data if data["status"] == status else None


async def until_status(on_line: OnLine, media_id: str, status: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while (await on_line.session.client.videos.status(media_id)).status != status:
        assert time.monotonic() < deadline, f"{media_id} never became {status}"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
@pytest.mark.parametrize("collection", ["videos", "shorts", "voiceovers"])
async def test_a_collections_list_items_and_options(on_line: OnLine, collection: str) -> None:
    media = actions(on_line, collection)
    assert media.info.name == collection
    options = await media.options()
    assert options.supported_duration_seconds
    assert (options.styles == []) == (collection == "voiceovers")  # a voiceover narrates its own visuals
    page = await media.feed(2).next_page()
    assert 0 < len(page.items) <= 2 and {item.object for item in page.items} == {media.info.kind}
    assert [s.path for s in on_line.line.to("GET", f"/v1/{collection}")] == [f"/v1/{collection}"]
    first = page.items[0]
    read = await media.read(first.id)
    assert isinstance(read, MediaJob) and read.id == first.id and read.title == first.title
    assert len(on_line.line.to("GET", f"/v1/{collection}/{first.id}")) == 1
    await quiet()


@pytest.mark.asyncio
async def test_a_create_goes_through_the_outbox_and_its_checks_say_it_generates(on_line: OnLine) -> None:
    media = actions(on_line)
    started = await media.create(VideoCreateInput(prompt=f"How a tide gauge works {uuid.uuid4().hex[:6]}"))
    assert isinstance(started, Accepted) and started.data.status == "generating"
    (post,) = on_line.line.to("POST", "/v1/videos")
    assert post.idempotency_key and post.status == 202
    media_id = str(started.data.id)
    assert on_line.background.jobs.job("video", media_id) is not None  # the tracker follows it

    check = await media.check_status(media_id)
    assert check.status.status == "generating"
    hint = format_seconds(check.status.poll_after_seconds)
    assert hint and re.fullmatch(
        rf"Still generating at {CLOCK}; the service suggests checking again in {re.escape(hint)}\.",
        check.note,
    )
    shown = started.data.model_copy(update={"status": "idle"})
    assert check.changes(shown) and not check.changes(started.data)
    assert check.applied_to(shown).status == "generating" and check.applied_to(shown).id == media_id

    download = await media.download(media_id, started.data)
    assert isinstance(download, DownloadCheck)
    assert download.state.kind == "preparing" and not download.state.saveable and download.state.url is None
    assert download.status is None  # the file is not there: nothing read besides
    await quiet()


@pytest.mark.asyncio
async def test_a_finished_items_file_and_an_older_state_shown(
    on_line: OnLine, finished: dict[str, Any]
) -> None:
    media = actions(on_line)
    media_id = finished["id"]
    before = time.time()
    download = await media.download(media_id)
    state = download.state
    assert state.kind == "available" and state.saveable and state.origin == "storage"
    assert state.url is not None and state.url.startswith("http") and "/files/" in state.url
    assert before <= state.checked_at <= time.time()
    assert download.status is None and on_line.line.to("GET", f"/v1/videos/{media_id}/status") == []

    # the pane still shows it generating (its list is older): the status is read with the file
    shown = MediaJob.model_validate({**finished, "status": "generating", "phase": "rendering"})
    download = await media.download(media_id, shown)
    assert download.state.kind == "available" and download.status is not None
    assert re.fullmatch(
        rf"Completed \(checked {CLOCK}\)\. Press Download to get the file\.", download.status.note
    )
    assert download.status.changes(shown)
    fresh = download.status.applied_to(shown)
    assert (fresh.status, fresh.phase, fresh.title) == ("completed", None, finished["title"])
    assert len(on_line.line.to("GET", f"/v1/videos/{media_id}/status")) == 1
    await quiet()


@pytest.mark.asyncio
async def test_a_failed_item_has_no_file_and_its_check_ends_its_job(
    on_line: OnLine, failed: dict[str, Any]
) -> None:
    media = actions(on_line)
    media_id = failed["id"]
    jobs = on_line.background.jobs
    jobs.track("video", media_id, title="Video: doomed", first_poll_after=3600)  # its own poll waits an hour
    download = await media.download(media_id, MediaJob.model_validate(failed))
    assert download.state.kind == "unavailable" and not download.state.saveable and download.status is None
    check = await media.check_status(media_id)
    assert re.fullmatch(rf"Failed \(checked {CLOCK}\)\.", check.note)
    assert status_text(check.status.status) == "Failed"
    job = await until(lambda: (j := jobs.job("video", media_id)) is not None and j.finished and j)
    assert job.state == "failed"  # the tracker took what the check read, without a poll of its own
    assert len(on_line.line.to("GET", f"/v1/videos/{media_id}/status")) == 1
    await quiet()


async def failed_video(on_line: OnLine) -> str:
    """A video of the test's own that failed (a retry of it is made to succeed by the sandbox)."""
    accepted = await on_line.session.client.videos.create(
        prompt=f"{FAIL_PHRASE} Doomed {uuid.uuid4().hex[:8]}"
    )
    media_id = str(accepted.data.id)
    await until_status(on_line, media_id, "failed")
    return media_id


@pytest.mark.asyncio
async def test_a_retry_is_a_new_attempt_with_a_new_key_and_a_lost_answer_keeps_its_key(
    on_line: OnLine,
) -> None:
    media = actions(on_line)
    first, second = await asyncio.gather(failed_video(on_line), failed_video(on_line))
    retried = await media.retry(first)
    assert retried.item is not None and retried.item.id == first and retried.item.status == "generating"
    assert re.fullmatch(
        rf"New attempt started at {CLOCK}\.( The service suggests checking in .+\.)?", retried.note
    )
    assert isinstance(retried.started, Accepted)
    (sent,) = on_line.line.to("POST", f"/v1/videos/{first}/retry")
    assert sent.idempotency_key and sent.status == 202

    # the service starts the next attempt, but its answer is lost: kept, and sent again with its key
    on_line.line.lose_answer("POST", f"/v1/videos/{second}/retry")
    lost = await media.retry(second)
    assert lost.item is None and lost.note == PENDING_TEXT
    entry = lost.started
    assert isinstance(entry, OutboxEntry) and entry.state == "pending"
    outbox = on_line.background.outbox
    await until(lambda: (e := outbox.get(entry.id)) is not None and e.state == "sent", timeout=60)
    posts = on_line.line.to("POST", f"/v1/videos/{second}/retry")
    assert [p.fault for p in posts] == ["lost answer", None]
    assert [p.idempotency_key for p in posts] == [entry.idempotency_key] * 2
    assert entry.idempotency_key != sent.idempotency_key  # each retry a key of its own
    assert (await on_line.session.client.videos.status(second)).status in ("generating", "completed")
    await quiet()
