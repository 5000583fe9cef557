"""The files of finished media items against the sandbox: one download however many ask, the key
never sent to the signed address, the kept copy offline without a request, a stale address asked
afresh once, a download nobody waits for stops, and the service's other answers as typed results."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import pytest

from castdeck.services.media_files import MediaFile, MediaFileError, Preparing, Unavailable
from castdeck.services.session import ConnectionState
from tests import runner as work
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, until
from tests.gui.media_preview_helpers import (
    TIDAL,
    downloadable,
    finished_video,
    hold_preparing,
    quiet_but_reconnecting,
    release_preparing,
)


class KeyWatch(httpx.AsyncBaseTransport):
    """Notes, for each request, its path and whether it carried the API key."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[tuple[str, bool]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.url.path, "authorization" in request.headers))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture(scope="module")
def tidal(sandbox: RunningSandbox) -> dict[str, Any]:
    return downloadable(sandbox, "videos", TIDAL)


def file_requests(on_line: OnLine) -> list[Any]:
    return [s for s in on_line.line.sent if s.path.startswith("/files/")]


@pytest.mark.asyncio
async def test_asks_at_once_share_one_download_and_the_key_never_goes_to_the_file(
    on_line: OnLine, tidal: dict[str, Any]
) -> None:
    watch = KeyWatch(on_line.line.inner)
    on_line.line.inner = watch  # type: ignore[assignment]
    files = on_line.background.media_files
    first, second = await asyncio.gather(files.fetch("video", tidal["id"]), files.fetch("video", tidal["id"]))
    assert isinstance(first, MediaFile) and isinstance(second, MediaFile)
    assert first.path == second.path and first.path.is_file() and first.path.stat().st_size > 1000
    assert not first.from_cache and first.origin == "storage"
    assert files.downloads == 1
    assert [s.status for s in file_requests(on_line)] == [200]
    assert [keyed for path, keyed in watch.seen if path.startswith("/files/")] == [False]
    assert any(keyed for path, keyed in watch.seen if path.endswith("/download"))

    again = await files.fetch("video", tidal["id"])  # asked again later: the kept copy
    assert isinstance(again, MediaFile) and again.from_cache and again.path == first.path
    assert files.downloads == 1 and len(file_requests(on_line)) == 1
    assert not list(first.path.parent.glob("*.part")) and not list(first.path.parent.glob(".*"))


@pytest.mark.asyncio
async def test_offline_the_kept_copy_is_used_without_a_request(
    on_line: OnLine, tidal: dict[str, Any]
) -> None:
    files = on_line.background.media_files
    other = next(i for i in await on_line.session.client.videos.list().to_list() if i.status == "failed")
    kept = await files.fetch("video", tidal["id"])
    assert isinstance(kept, MediaFile)
    on_line.line.down()
    with pytest.raises(MediaFileError) as raised:  # nothing kept of this one
        await files.fetch("video", str(other.id))
    assert raised.value.offline and "cannot be reached" in str(raised.value)
    assert on_line.session.state is ConnectionState.OFFLINE
    asked = len(on_line.line.sent)
    offline = await files.fetch("video", tidal["id"])
    assert isinstance(offline, MediaFile) and offline.offline and offline.path == kept.path
    assert len(on_line.line.sent) == asked  # no request at all
    await quiet_but_reconnecting()


@pytest.mark.asyncio
async def test_an_expired_address_is_asked_for_afresh_once(on_line: OnLine, tidal: dict[str, Any]) -> None:
    changed: list[str] = []

    def expire(body: dict[str, Any]) -> dict[str, Any]:
        if not changed:  # only the first answer: the next one brings a fresh address
            url = body["data"]["delivery"]["url"]
            body["data"]["delivery"]["url"] = re.sub(r"expires=\d+", "expires=1000000000", url)
            changed.append(body["data"]["delivery"]["url"])
        return body

    on_line.line.change_answers("GET", f"/v1/videos/{tidal['id']}/download", expire)
    files = on_line.background.media_files
    answer = await files.fetch("video", tidal["id"])
    assert isinstance(answer, MediaFile) and answer.path.is_file()
    assert changed
    assert [s.status for s in file_requests(on_line)] == [403, 200]
    assert len(on_line.line.to("GET", f"/v1/videos/{tidal['id']}/download")) == 2
    assert files.downloads == 2


@pytest.mark.asyncio
async def test_a_download_nobody_waits_for_stops(on_line: OnLine, tidal: dict[str, Any]) -> None:
    files = on_line.background.media_files
    on_line.line.hold_requests("GET", "/files/")
    asking = [asyncio.ensure_future(files.fetch("video", tidal["id"])) for _ in range(2)]
    await on_line.line.holding.wait()
    await until(lambda: files.waiting("video", tidal["id"]) == 2)
    asking[0].cancel()
    await asyncio.gather(asking[0], return_exceptions=True)
    assert files.waiting("video", tidal["id"]) == 1
    assert [t.get_name() for t in work.pending()].count("media file download") == 1  # one still waits
    asking[1].cancel()
    await asyncio.gather(asking[1], return_exceptions=True)
    await until(lambda: "media file download" not in [t.get_name() for t in work.pending()])
    assert await files.kept("video", tidal["id"]) is None
    on_line.line.release()
    answer = await files.fetch("video", tidal["id"])  # asked again: a new download
    assert isinstance(answer, MediaFile) and answer.path.is_file()
    assert files.downloads == 2
    assert not [p for p in answer.path.parent.iterdir() if p.name.endswith(".part")]


@pytest.mark.asyncio
async def test_preparing_and_unavailable_are_said_as_sent(on_line: OnLine, sandbox: RunningSandbox) -> None:
    files = on_line.background.media_files
    video = finished_video(sandbox, "Why the tide turns")
    hold_preparing(sandbox, video["id"], reason="rendition")
    try:
        assert await files.fetch("video", video["id"]) == Preparing("rendition")
    finally:
        release_preparing(sandbox, video["id"])
    failed = next(i for i in await on_line.session.client.videos.list().to_list() if i.status == "failed")
    assert await files.fetch("video", str(failed.id)) == Unavailable("unavailable")
    assert files.downloads == 0 and file_requests(on_line) == []
