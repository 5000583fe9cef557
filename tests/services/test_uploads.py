"""The upload queue against the real sandbox: limits, user actions, expiry, restarts and faults.

Requests are counted (and faults injected, where the sandbox cannot cause them) by an httpx
transport wrapped around the real one, used for the API and the signed addresses alike. PUT bodies
can be slowed down so that transfers are caught in flight. The client's own retries are off
(``max_retries=0``): every resend seen is the queue's.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from castdeck.api.models import Source
from castdeck.sandbox.clock import Clock as OffsetClock
from castdeck.services.session import Session
from castdeck.services.uploads import MAX_DROP_FILES, UploadQueue
from castdeck.store.cache import Cache
from castdeck.store.uploads import UploadItem, UploadStore
from tests.conftest import RunningSandbox
from tests.gui.conftest import quiet, settle, until
from tests.gui.helpers import session_through
from tests.helpers import Line
from tests.tls import SHARED_TLS

KiB = 1024
RESERVE = "/v1/sources/uploads"


class _Slowed(httpx.AsyncByteStream):
    def __init__(self, inner: Any, wire: Wire) -> None:
        self.inner = inner
        self.wire = wire

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            await asyncio.sleep(self.wire.put_delay)
            yield chunk


class _Body(httpx.AsyncByteStream):
    def __init__(self, content: bytes) -> None:
        self.content = content

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.content


def _problem(status: int, detail: str) -> httpx.Response:
    """An answer made up by the test (not yet read, like one from the network)."""
    body = json.dumps(
        {"type": "about:blank", "status": status, "title": "Injected", "detail": detail}
    ).encode()
    headers = {"content-type": "application/problem+json", "content-length": str(len(body))}
    return httpx.Response(status, headers=headers, stream=_Body(body))


class Wire(httpx.AsyncBaseTransport):
    """Forwards to the real transport; counts requests, PUTs in flight, and injects faults.

    ``put_delay``: seconds slept before each chunk of a PUT body goes out (a slow line).
    ``hold``: (method, path suffix) -> seconds the request waits before it is forwarded.
    ``before``: (method, path suffix) -> what runs once before such a request is forwarded.
    ``lose_answer``: (method, suffix) whose next request reaches the service but whose answer is lost.
    ``put_faults``: what the next PUTs get instead of reaching the slot ("timeout", "reset" or a status).
    ``answer``: (method, suffix) -> (status, problem detail) answered instead of the service, once.
    """

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=SHARED_TLS)
        self.counts: Counter[tuple[str, str]] = Counter()
        self.statuses: list[tuple[str, str, int]] = []
        self.put_delay = 0.0
        self.in_flight = 0
        self.max_in_flight = 0
        self.hold: dict[tuple[str, str], float] = {}
        self.before: dict[tuple[str, str], Callable[[], Any]] = {}
        self.lose_answer: set[tuple[str, str]] = set()
        self.put_faults: list[str | int] = []
        self.answer: dict[tuple[str, str], tuple[int, str]] = {}
        self.failures: list[tuple[str, str, str]] = []

    @staticmethod
    def _find(request: httpx.Request, rules: Any) -> tuple[str, str] | None:
        for method, suffix in rules:
            if request.method == method and request.url.path.endswith(suffix):
                return (method, suffix)
        return None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        held = self._find(request, self.hold)
        if held is not None:
            await asyncio.sleep(self.hold.pop(held))
        first = self._find(request, self.before)
        if first is not None:
            self.before.pop(first)()
        self.counts[(request.method, path)] += 1
        if request.method == "PUT" and self.put_faults:
            fault = self.put_faults.pop(0)
            if fault == "timeout":
                raise httpx.WriteTimeout("timed out by the test", request=request)
            if fault == "reset":
                raise httpx.RemoteProtocolError("connection reset by the test", request=request)
            assert isinstance(fault, int)
            return _problem(fault, "injected by the test")
        answered = self._find(request, self.answer)
        if answered is not None:
            return _problem(*self.answer.pop(answered))
        if request.method == "PUT":
            request.stream = _Slowed(request.stream, self)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as error:  # a real fault of the line (a loaded machine has some)
            self.failures.append((request.method, path, type(error).__name__))
            raise
        finally:
            if request.method == "PUT":
                self.in_flight -= 1
        self.statuses.append((request.method, path, response.status_code))
        lost = self._find(request, self.lose_answer)
        if lost is not None:
            self.lose_answer.discard(lost)
            await response.aread()
            await response.aclose()
            raise httpx.ReadError("answer lost by the test", request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def count(self, method: str, suffix: str = "") -> int:
        return sum(n for (m, p), n in self.counts.items() if m == method and p.endswith(suffix))

    def puts(self) -> int:
        """PUTs sent, less those the line itself broke (resent to the same slot, as they should be)."""
        return self.count("PUT") - sum(1 for f in self.failures if f[0] == "PUT")

    def paths(self, method: str, suffix: str = "") -> list[str]:
        return [
            p for (m, p), n in self.counts.items() for _ in range(n) if m == method and p.endswith(suffix)
        ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[UploadStore]:
    opened = UploadStore(tmp_path / "uploads.sqlite3")
    yield opened
    opened.close()


@pytest_asyncio.fixture
async def wired(sandbox: RunningSandbox, cache: Cache) -> AsyncIterator[tuple[Session, Wire]]:
    wire = Wire()
    session = await session_through(sandbox.base_url, cache, wire, signed_too=True)
    yield session, wire
    await settle()
    await session.close()


def text_file(path: Path, size: int) -> Path:
    """A UTF-8 text file of exactly ``size`` bytes, different from every other one."""
    line = f"Tide log {uuid.uuid4().hex}: the keeper noted wind, swell and passing ships.\n".encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((line * (size // len(line) + 1))[:size])
    return path


def uploaded(queue: UploadQueue) -> list[tuple[UploadItem, Source]]:
    seen: list[tuple[UploadItem, Source]] = []
    queue.sourceUploaded.connect(lambda item, source: seen.append((item, source)))
    return seen


def state(queue: UploadQueue, item_id: str) -> Callable[[], str | None]:
    return lambda: (queue.item(item_id) or _gone()).state


def _gone() -> Any:
    raise AssertionError("the item is gone")


async def source_status(session: Session, source_id: str) -> str:
    return (await session.client.sources.get(source_id)).status


# --- adding: walking folders and refusing files ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_drops_are_walked_and_checked_with_reasons(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    drop = tmp_path / "drop"
    text_file(drop / "notes.txt", 2 * KiB)
    text_file(drop / "deeper" / "chapter.md", 3 * KiB)
    text_file(drop / ".hidden.txt", KiB)
    text_file(drop / ".git" / "inside.txt", KiB)
    (drop / "empty.txt").write_bytes(b"")
    (drop / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100)
    (drop / "fake.pdf").write_bytes(b"this is not a pdf at all\n" * 10)
    (drop / "tool.exe").write_bytes(b"MZ" + b"\x00" * 100)
    outside = text_file(tmp_path / "elsewhere" / "linked.txt", KiB).parent
    (drop / "link").symlink_to(outside, target_is_directory=True)
    wire.put_delay = 0.0
    queue = UploadQueue(session, store, concurrency=2)
    added = uploaded(queue)

    items = await queue.add_paths([drop])
    by_name = {i.name: i for i in items}
    assert sorted(by_name) == ["chapter.md", "clip.mp4", "empty.txt", "fake.pdf", "notes.txt", "tool.exe"]
    assert len({i.batch for i in items}) == 1 and [i.position for i in items] == sorted(
        i.position for i in items
    )
    assert by_name["notes.txt"].state == "queued" and by_name["notes.txt"].mime_type == "text/plain"
    assert by_name["chapter.md"].state == "queued"
    assert by_name["empty.txt"].state == "refused" and "empty" in (by_name["empty.txt"].error or "")
    assert "Video files are not accepted" in (by_name["clip.mp4"].error or "")
    assert "The contents do not match its type, application/pdf" in (by_name["fake.pdf"].error or "")
    assert ".exe files are not supported" in (by_name["tool.exe"].error or "")
    # stored as they are shown
    assert {i.id: i.state for i in store.list("Sandbox")} == {i.id: i.state for i in items}

    # with prepare_visuals: the narrower Voiceover list (a Keynote file is refused, a PNG is not)
    text_file(tmp_path / "slides.key", KiB)
    visuals = await queue.add_paths([tmp_path / "slides.key", tmp_path / "nowhere.pdf"], prepare_visuals=True)
    assert ".key files are not supported for visual sources" in (visuals[0].error or "")
    assert "supported: .jpeg, .jpg, .pdf, .png, .pptx, .webp" in (visuals[0].error or "")
    assert visuals[1].state == "refused" and "does not exist" in (visuals[1].error or "")

    await until(lambda: len(added) == 2, timeout=60)
    assert wire.count("POST", RESERVE) == 2 and wire.puts() == 2  # only the accepted files were sent
    assert queue.totals().sent == queue.totals().total == 5 * KiB
    await quiet()
    await queue.close()


@pytest.mark.asyncio
async def test_a_drop_is_capped_at_a_thousand_files(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    drop = tmp_path / "many"
    drop.mkdir()
    for n in range(MAX_DROP_FILES + 5):
        (drop / f"empty-{n:04}.txt").write_bytes(b"")  # refused (empty): nothing is sent
    queue = UploadQueue(session, store)
    items = await queue.add_paths([drop])
    assert len(items) == MAX_DROP_FILES + 1
    assert all("empty" in (i.error or "") for i in items[:-1])
    assert items[-1].state == "refused" and "more than 1,000 files" in (items[-1].error or "")
    assert wire.count("POST", RESERVE) == 0
    assert len(store.list("Sandbox")) == MAX_DROP_FILES + 1
    await queue.close()


# --- concurrency and progress ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_never_more_transfers_than_the_limit_and_progress_is_throttled(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    wire.put_delay = 0.02
    files = [text_file(tmp_path / f"part-{n}.txt", 256 * KiB) for n in range(6)]
    queue = UploadQueue(session, store, concurrency=2, chunk_size=8 * KiB)  # 32 chunks each
    done = uploaded(queue)
    changes: Counter[str] = Counter()
    queue.itemChanged.connect(lambda item: changes.update([item.id]))

    started = time.monotonic()
    items = await queue.add_paths(files)
    await until(lambda: any(queue.transfer(i.id).speed for i in items), timeout=30)
    total = queue.totals()
    assert total.total == 6 * 256 * KiB and total.speed and total.eta is not None
    await until(lambda: len(done) == 6, timeout=120)
    elapsed = time.monotonic() - started
    assert wire.max_in_flight == 2
    # one slot per file; a PUT is sent again to its slot only after the line failed under it
    assert wire.count("POST", RESERVE) == 6 and wire.puts() == 6, wire.failures
    assert len(set(wire.paths("PUT"))) == 6
    assert wire.count("POST", "/complete-upload") == 6
    assert {i.id for i, _ in done} == {i.id for i in items}
    assert all(s.status == "processing" for _, s in done)
    assert all(queue.item(i.id).state == "done" and queue.item(i.id).source_id for i in items)  # type: ignore[union-attr]
    # byte progress at most ~8 updates a second per item (plus a handful of state changes)
    for item in items:
        assert changes[item.id] <= elapsed * 8 + 8, (changes[item.id], elapsed)
    assert queue.totals().sent == queue.totals().total

    # raised at runtime: more at once
    more = [text_file(tmp_path / f"more-{n}.txt", 256 * KiB) for n in range(4)]
    wire.max_in_flight = 0
    queue.concurrency = 4
    await queue.add_paths(more)
    await until(lambda: len(done) == 10, timeout=120)
    assert wire.max_in_flight == 4
    queue.concurrency = 99
    assert queue.concurrency == 8
    assert queue.clear_finished() == 10 and queue.items() == []
    await until(lambda: store.list("Sandbox") == [])
    await quiet()
    await queue.close()


# --- pause, resume, cancel -------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_pause_resume_and_cancel(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    wire.put_delay = 0.03
    first = text_file(tmp_path / "first.txt", 320 * KiB)
    second = text_file(tmp_path / "second.txt", 320 * KiB)
    queue = UploadQueue(session, store, concurrency=2, chunk_size=8 * KiB)
    done = uploaded(queue)
    a, b = await queue.add_paths([first, second])

    await until(lambda: queue.item(a.id).sent > 32 * KiB and queue.item(b.id).sent > 32 * KiB)  # type: ignore[union-attr]
    queue.pause(a.id)
    assert queue.item(a.id).state == "paused"  # type: ignore[union-attr]
    await until(lambda: wire.in_flight == 1)  # its PUT stopped
    await until(lambda: store.get(a.id).state == "paused")  # type: ignore[union-attr]

    source_b = queue.item(b.id).source_id  # type: ignore[union-attr]
    assert source_b
    queue.cancel(b.id)
    assert queue.item(b.id).state == "cancelled"  # type: ignore[union-attr]
    await until(lambda: wire.count("DELETE", f"/v1/sources/{source_b}") == 1)
    await until(lambda: wire.in_flight == 0)
    assert not any(p.endswith(f"{source_b}/complete-upload") for p in wire.paths("POST"))
    with pytest.raises(Exception, match=r"404|not found|Not Found"):
        await session.client.sources.get(source_b)

    reservations = wire.count("POST", RESERVE)
    queue.resume(a.id)
    await until(lambda: len(done) == 1, timeout=60)
    assert done[0][0].id == a.id and queue.item(a.id).state == "done"  # type: ignore[union-attr]
    assert wire.count("POST", RESERVE) == reservations  # the same slot (still valid)
    assert wire.count("PUT", f"/uploads/{queue.item(a.id).source_id}") == 2  # type: ignore[union-attr]
    assert queue.item(b.id).state == "cancelled"  # type: ignore[union-attr]

    # pause_all / resume_all / cancel_all and remove
    c, d = await queue.add_paths(
        [text_file(tmp_path / "c.txt", 320 * KiB), text_file(tmp_path / "d.txt", 8 * KiB)]
    )
    queue.pause_all()
    assert {queue.item(c.id).state, queue.item(d.id).state} == {"paused"}  # type: ignore[union-attr]
    queue.resume_all()
    await until(lambda: queue.item(d.id).state == "done", timeout=60)  # type: ignore[union-attr]
    queue.cancel_all()
    assert queue.item(c.id).state == "cancelled"  # type: ignore[union-attr]
    queue.remove(c.id)
    assert queue.item(c.id) is None
    await until(lambda: store.get(c.id) is None)
    await quiet()
    await queue.close()


# --- slots that expire ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_expired_slots_are_replaced_and_the_bytes_go_once_to_the_final_slot(
    sandbox_factory: Callable[..., RunningSandbox], cache: Cache, store: UploadStore, tmp_path: Path
) -> None:
    sb = sandbox_factory("--speed", "50", "--upload-slot-lifetime", "2", "--no-seed-media")
    wire = Wire()
    clock = OffsetClock()  # the app's time, moved with the sandbox's: a slot's two seconds pass at once

    def later(seconds: float) -> None:
        clock.advance(seconds)
        sb.advance(seconds)

    session = await session_through(sb.base_url, cache, wire, signed_too=True, clock=clock)
    queue = UploadQueue(session, store, concurrency=1, chunk_size=8 * KiB)
    done = uploaded(queue)
    title = f"expiry {uuid.uuid4().hex[:8]}"

    # 1. the PUT reaches the signed address after the slot expired: 403, then a fresh slot by itself
    wire.before[("PUT", "")] = lambda: later(3.2)
    await queue.add_paths([text_file(tmp_path / "late.txt", 16 * KiB)], title=title)
    await until(lambda: len(done) == 1, timeout=60)
    puts = [s for s in wire.statuses if s[0] == "PUT"]
    assert [s[2] for s in puts] == [403, 200]
    assert wire.count("POST", RESERVE) == 2
    first_source = puts[0][1].rsplit("/", 1)[-1]
    final_source = done[0][1].id
    assert first_source != final_source and wire.count("PUT", final_source) == 1
    await until(lambda: wire.count("DELETE", f"/v1/sources/{first_source}") == 1)

    # 2. paused until the slot expired: resumed with a fresh slot, the stale one never used again
    wire.put_delay = 0.05
    (two,) = await queue.add_paths([text_file(tmp_path / "paused.txt", 160 * KiB)], title=title)
    await until(lambda: queue.item(two.id).sent > 0)  # type: ignore[union-attr]
    stale = queue.item(two.id).source_id  # type: ignore[union-attr]
    queue.pause(two.id)
    later(3.2)
    wire.put_delay = 0.0
    queue.resume(two.id)
    await until(lambda: len(done) == 2, timeout=60)
    final = done[1][1].id
    assert final != stale and wire.count("PUT", f"/uploads/{final}") == 1
    assert wire.count("PUT", f"/uploads/{stale}") == 1  # only the attempt the pause stopped
    await until(lambda: wire.count("DELETE", f"/v1/sources/{stale}") == 1)

    # exactly one completed source per file
    for _, source in done:
        await until_status(session, source.id, "completed")
    titled = [s async for s in session.client.sources.list(limit=100) if s.title == title]
    assert sorted(s.id for s in titled) == sorted(s.id for _, s in done)
    await quiet()
    await queue.close()
    await session.close()


async def until_status(session: Session, source_id: str, wanted: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if await source_status(session, source_id) == wanted:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{source_id} never became {wanted}")


# --- restarts --------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_new_queue_on_the_same_store_resumes_and_never_resends_done_items(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    wire.put_delay = 0.03
    small = text_file(tmp_path / "small.txt", 8 * KiB)
    large = text_file(tmp_path / "large.txt", 400 * KiB)
    queue = UploadQueue(session, store, concurrency=2, chunk_size=8 * KiB)
    done = uploaded(queue)
    s, big = await queue.add_paths([small, large])
    await until(lambda: len(done) == 1 and queue.item(big.id).sent > 64 * KiB)  # type: ignore[union-attr]
    slot_source = queue.item(big.id).source_id  # type: ignore[union-attr]
    await queue.close()
    assert wire.in_flight == 0
    assert store.get(big.id).state == "uploading" and store.get(big.id).source_id == slot_source  # type: ignore[union-attr]

    wire.put_delay = 0.0
    again = UploadQueue(session, store, concurrency=2, chunk_size=8 * KiB)
    resumed = uploaded(again)
    again.start()
    await again.loaded()
    assert [i.id for i in again.items()] == [s.id, big.id]
    await until(lambda: len(resumed) == 1, timeout=60)
    assert resumed[0][0].id == big.id and resumed[0][1].id == slot_source  # the same slot
    assert wire.count("POST", RESERVE) == 2  # nothing reserved again
    assert wire.count("PUT", f"/uploads/{queue.item(s.id).source_id}") == 1  # type: ignore[union-attr]
    assert wire.count("PUT", f"/uploads/{slot_source}") == 2
    await again.close()

    # stopped while completing: completed again (safe to repeat) by the next queue
    wire.hold[("POST", "/complete-upload")] = 30.0
    third = UploadQueue(session, store, chunk_size=8 * KiB)
    third.start()
    (c,) = await third.add_paths([text_file(tmp_path / "completing.txt", 8 * KiB)])
    await until(lambda: third.item(c.id).state == "completing")  # type: ignore[union-attr]
    await third.close()
    assert store.get(c.id).state == "completing"  # type: ignore[union-attr]
    wire.hold.clear()
    fourth = UploadQueue(session, store, chunk_size=8 * KiB)
    completed = uploaded(fourth)
    fourth.start()
    await until(lambda: len(completed) == 1, timeout=60)
    assert completed[0][0].id == c.id and wire.count("PUT", f"/uploads/{completed[0][1].id}") == 1
    assert wire.count("POST", f"/{completed[0][1].id}/complete-upload") == 1  # the held one never left

    # stopped while a reservation was out: failed, saying so; never reserved again by itself
    reservations = wire.count("POST", RESERVE)
    wire.hold[("POST", RESERVE)] = 30.0
    (r,) = await fourth.add_paths([text_file(tmp_path / "reserving.txt", 8 * KiB)])
    await until(lambda: store.get(r.id) is not None and store.get(r.id).reserving)  # type: ignore[union-attr]
    await fourth.close()
    wire.hold.clear()
    fifth = UploadQueue(session, store, chunk_size=8 * KiB)
    fifth.start()
    await fifth.loaded()
    item = fifth.item(r.id)
    assert item is not None and item.state == "failed" and "may or may not" in (item.error or "")
    await quiet()  # what the restarted queue started has ended: it did not reserve the unknown one again
    assert wire.count("POST", RESERVE) == reservations and fifth.item(r.id).state == "failed"  # type: ignore[union-attr]
    assert [i.state for i in fifth.items() if i.id != r.id] == ["done", "done", "done"]
    await until(lambda: store.get(r.id).state == "failed")  # type: ignore[union-attr]
    await quiet()
    await fifth.close()


# --- files that change ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_changed_removed_and_unreadable_files_are_never_completed(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    wire.put_delay = 0.03
    moving = text_file(tmp_path / "moving.txt", 240 * KiB)
    changed = text_file(tmp_path / "changed.txt", 8 * KiB)
    removed = text_file(tmp_path / "removed.txt", 8 * KiB)
    folder = text_file(tmp_path / "became-a-folder.txt", 8 * KiB)
    queue = UploadQueue(session, store, concurrency=1, chunk_size=8 * KiB)
    done = uploaded(queue)
    m, c, r, f = await queue.add_paths([moving, changed, removed, folder])

    await until(lambda: queue.item(m.id).sent > 16 * KiB)  # type: ignore[union-attr]
    with moving.open("ab") as handle:  # changed while it is being sent
        handle.write(b"one more line\n")
    with changed.open("ab") as handle:  # changed while it waits
        handle.write(b"one more line\n")
    removed.unlink()
    folder.unlink()
    folder.mkdir()  # "unreadable": the machine runs as root, so chmod 000 would not stop a read
    await until(lambda: all(queue.item(i.id).state == "failed" for i in (m, c, r, f)), timeout=60)  # type: ignore[union-attr]
    assert "while it was being uploaded" in (queue.item(m.id).error or "")  # type: ignore[union-attr]
    assert "changed after it was added" in (queue.item(c.id).error or "")  # type: ignore[union-attr]
    assert "removed" in (queue.item(r.id).error or "")  # type: ignore[union-attr]
    assert "no longer a regular file" in (queue.item(f.id).error or "")  # type: ignore[union-attr]
    assert wire.count("POST", "/complete-upload") == 0 and done == []
    assert wire.count("POST", RESERVE) == 1  # only the file that was already being sent

    # Retry checks the file again and sends its current version
    wire.put_delay = 0.0
    queue.retry(c.id)
    queue.retry(r.id)
    await until(lambda: len(done) == 1, timeout=60)
    assert done[0][0].id == c.id and done[0][0].size == 8 * KiB + 14
    await until(lambda: queue.item(r.id).state == "refused")  # type: ignore[union-attr]
    assert "does not exist" in (queue.item(r.id).error or "")  # type: ignore[union-attr]
    await quiet()
    await queue.close()


# --- faults on the wire ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_reservation_without_answer_fails_and_is_not_sent_again(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    queue = UploadQueue(session, store)
    done = uploaded(queue)
    wire.lose_answer.add(("POST", RESERVE))
    (lost,) = await queue.add_paths([text_file(tmp_path / "lost.txt", 8 * KiB)])
    await until(lambda: queue.item(lost.id).state == "failed")  # type: ignore[union-attr]
    assert "No answer to the upload reservation" in (queue.item(lost.id).error or "")  # type: ignore[union-attr]
    await until(lambda: session.online, timeout=30)  # the session noticed and came back
    await quiet()  # the queue's work on the return has ended without resending the reservation
    assert wire.count("POST", RESERVE) == 1 and wire.count("PUT") == 0

    # a 5xx answer: the same, and a 4xx: the service's words
    wire.answer[("POST", RESERVE)] = (503, "The service is overloaded.")
    (busy,) = await queue.add_paths([text_file(tmp_path / "busy.txt", 8 * KiB)])
    await until(lambda: queue.item(busy.id).state == "failed")  # type: ignore[union-attr]
    assert "No answer to the upload reservation" in (queue.item(busy.id).error or "")  # type: ignore[union-attr]
    wire.answer[("POST", RESERVE)] = (400, "Title is too long for this plan.")
    (refused,) = await queue.add_paths([text_file(tmp_path / "refused.txt", 8 * KiB)])
    await until(lambda: queue.item(refused.id).state == "failed")  # type: ignore[union-attr]
    assert "Title is too long for this plan." in (queue.item(refused.id).error or "")  # type: ignore[union-attr]
    assert wire.count("POST", RESERVE) == 3 and wire.count("PUT") == 0

    # the user retries: one new reservation each
    queue.retry_all()
    await until(lambda: len(done) == 3, timeout=60)
    assert wire.count("POST", RESERVE) == 6
    await quiet()
    await queue.close()


@pytest.mark.asyncio
async def test_put_faults_are_retried_then_fail(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    queue = UploadQueue(session, store, concurrency=1)
    queue.put_retry_delays = (0.1, 0.2, 0.3)
    done = uploaded(queue)

    wire.put_faults = [503, "timeout", "reset"]
    (flaky,) = await queue.add_paths([text_file(tmp_path / "flaky.txt", 8 * KiB)])
    await until(lambda: len(done) == 1, timeout=60)
    assert wire.puts() == 4 and wire.count("POST", RESERVE) == 1
    assert queue.item(flaky.id).state == "done"  # type: ignore[union-attr]

    wire.put_faults = ["timeout"] * 4
    (dead,) = await queue.add_paths([text_file(tmp_path / "dead.txt", 8 * KiB)])
    await until(lambda: queue.item(dead.id).state == "failed", timeout=60)  # type: ignore[union-attr]
    assert "tried 4 times" in (queue.item(dead.id).error or "")  # type: ignore[union-attr]
    assert wire.puts() == 8 and wire.count("POST", RESERVE) == 2
    # the user retries: the same (still valid) slot, no new reservation
    queue.retry(dead.id)
    await until(lambda: len(done) == 2, timeout=60)
    assert wire.puts() == 9 and wire.count("POST", RESERVE) == 2
    await quiet()
    await queue.close()


# --- a full disk ------------------------------------------------------------------------------------------------


def fill(store: UploadStore) -> None:
    """Fill the store's database to its (lowered) size limit: "database or disk is full" from now on."""
    store.limit_size(4)
    padding = UploadItem(id="", profile="padding", path="/pad", name="pad", mime_type=None, size=0, mtime_ns=0,
                         prepare_visuals=False, batch="pad", position=0, state="done")  # fmt: skip
    with pytest.raises(Exception, match="full"):
        for n in range(10_000):
            store.add_many([padding.with_changes(id=f"pad-{n}", error="x" * 200)])
    for n in range(10_000):  # small rows into the last gaps
        try:
            store.add_many([padding.with_changes(id=f"tiny-{n}")])
        except Exception:
            break


def unfill(store: UploadStore) -> None:
    store.limit_size(None)
    store.forget_profile("padding")


@pytest.mark.asyncio
async def test_a_full_disk_stops_the_items_with_a_message_and_nothing_crashes(
    wired: tuple[Session, Wire], store: UploadStore, tmp_path: Path
) -> None:
    session, wire = wired
    queue = UploadQueue(session, store, chunk_size=8 * KiB)
    done = uploaded(queue)

    fill(store)
    items = await queue.add_paths([text_file(tmp_path / f"f{n}.txt", 8 * KiB) for n in range(3)])
    assert [i.state for i in items] == ["failed"] * 3
    assert all("could not be saved" in (i.error or "") and "disk is full" in (i.error or "") for i in items)
    await quiet()  # nothing the queue started is still going, and none of it was a reservation
    assert wire.count("POST", RESERVE) == 0 and store.list("Sandbox") == []

    # the disk fills while a file is being sent: the item stops, saying so
    unfill(store)
    wire.put_delay = 0.03
    (sending,) = await queue.add_paths([text_file(tmp_path / "sending.txt", 160 * KiB)])
    await until(lambda: queue.item(sending.id).sent > 16 * KiB)  # type: ignore[union-attr]
    fill(store)
    await until(lambda: queue.item(sending.id).state == "failed", timeout=60)  # type: ignore[union-attr]
    assert "could not be saved" in (queue.item(sending.id).error or "")  # type: ignore[union-attr]
    assert done == [] and wire.count("POST", "/complete-upload") == 0

    # space again: Retry finishes everything
    unfill(store)
    wire.put_delay = 0.0
    queue.retry_all()
    await until(lambda: len(done) == 4, timeout=60)
    assert {i.state for i in store.list("Sandbox")} == {"done"}
    await quiet()
    await queue.close()


@pytest.mark.asyncio
async def test_the_bytes_sent_before_a_stall_are_said_within_the_progress_interval(
    sandbox: RunningSandbox, cache: Cache, store: UploadStore, tmp_path: Path
) -> None:
    """Progress is announced at most eight times a second; the bytes that moved inside an interval
    are announced at its end. Before, they were dropped until the next report: a transfer that
    stalled right after a chunk showed the bytes of before for as long as it stalled."""
    line = Line()
    session = await session_through(sandbox.base_url, cache, line, signed_too=True)
    queue = UploadQueue(session, store, concurrency=1, chunk_size=8 * KiB)
    said: list[UploadItem] = []
    queue.itemChanged.connect(said.append)
    try:
        line.hold_bodies(after=1, pace=0.0)  # one chunk goes out, then the line stalls
        (item,) = await queue.add_paths([text_file(tmp_path / "stalls.txt", 24 * KiB)])
        await asyncio.wait_for(line.holding.wait(), timeout=30)
        sent = queue.item(item.id).sent  # type: ignore[union-attr]
        assert sent > 0  # the chunk the line let through was reported to the queue
        await until(lambda: said[-1].id == item.id and said[-1].sent == sent, timeout=5)
    finally:
        line.release()
        await queue.close()
        await settle()
        await session.close()
