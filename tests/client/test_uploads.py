"""Source uploads, cover images and signed downloads through ``Client``, against the sandbox over
loopback (and a small raw-HTTP server of our own where the sandbox cannot misbehave)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
import tracemalloc
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from castdeck.api import APIConnectionError, ApiError, Client, NotFoundError, UploadError
from castdeck.api.downloads import download_to
from castdeck.api.local_files import MAX_IMAGE_BYTES
from castdeck.api.models.limits import MAX_UPLOAD_BYTES
from castdeck.sandbox.clock import Clock as OffsetClock
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.helpers import Recorder, image_bytes, mp3_bytes, office_bytes, pdf_bytes

MiB = 1024 * 1024


# --- a client whose requests are recorded ---------------------------------------------------------------------


def recorded_client(base_url: str, **kwargs: Any) -> tuple[Client, Recorder, Recorder]:
    api, signed = Recorder(), kwargs.pop("signed", None) or Recorder()
    return Client(base_url, DEMO_KEY, http_transport=api, signed_transport=signed, **kwargs), api, signed


def write_text_file(path: Path, size: int) -> Path:
    """A UTF-8 text file of exactly ``size`` bytes, written in 1 MiB pieces."""
    line = b"The lighthouse keeper logged the tide, the wind and the passing ships.\n"
    block = line * (MiB // len(line) + 1)
    with path.open("wb") as handle:
        left = size
        while left:
            piece = block[: min(MiB, left)]
            handle.write(piece)
            left -= len(piece)
    return path


async def wait_source(client: Client, source_id: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = (await client.sources.get(source_id)).status or ""
        if status in ("completed", "error"):
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"source {source_id} still {status} after {timeout} s")


async def sources_titled(client: Client, title: str) -> list[Any]:
    return [s async for s in client.sources.list(limit=100) if s.title == title]


def monotonic_to_total(seen: list[tuple[int, int]], total: int) -> None:
    assert seen, "progress was never reported"
    assert all(t == total for _, t in seen)
    sent = [s for s, _ in seen]
    assert sent == sorted(sent) and len(set(sent)) == len(sent), sent
    assert sent[0] == 0 and sent[-1] == total


# --- uploads that complete ----------------------------------------------------------------------------------


REAL_FILES: dict[str, Callable[[], bytes]] = {
    "notes.txt": lambda: b"Lighthouses of the north coast.\n" * 200,
    "outline.md": lambda: b"# Tides\n\n- spring tides\n- neap tides\n" * 50,
    "table.csv": lambda: b"port,height\nDover,6.7\nCalais,7.1\n" * 30,
    "chart.png": lambda: image_bytes("PNG"),
    "photo.jpg": lambda: image_bytes("JPEG"),
    "deck.pdf": lambda: pdf_bytes(3),
    "brief.docx": lambda: office_bytes("docx"),
    "interview.mp3": lambda: mp3_bytes(1.0),
}


@pytest.mark.asyncio
async def test_upload_each_kind_of_real_file_completes(sandbox: RunningSandbox, tmp_path: Path) -> None:
    client, api, signed = recorded_client(sandbox.base_url)
    async with client:
        for name, make in REAL_FILES.items():
            path = tmp_path / name
            path.write_bytes(make())
            seen: list[tuple[int, int]] = []
            source = await client.sources.upload(
                path, title=f"upload {name}", progress=lambda s, t, seen=seen: seen.append((s, t))
            )
            assert source.status in ("processing", "completed"), source
            assert source.title == f"upload {name}"
            monotonic_to_total(seen, path.stat().st_size)
            assert await wait_source(client, source.id) == "completed", name
    # the bytes went to the signed address without the key, with an exact length and the slot's type
    puts = signed.calls("PUT")
    assert len(puts) == len(REAL_FILES) and all(p["status"] == 200 for p in puts)
    for put, (_name, make) in zip(puts, REAL_FILES.items(), strict=True):
        assert "authorization" not in put["headers"]
        assert "transfer-encoding" not in put["headers"]
        assert int(put["headers"]["content-length"]) == len(make())
        assert put["headers"]["content-type"]
    # the API calls themselves did carry it
    assert all(e["headers"]["authorization"] == f"Bearer {DEMO_KEY}" for e in api.events)
    assert len(api.calls("POST", "/v1/sources/uploads")) == len(REAL_FILES)


@pytest.mark.asyncio
async def test_visual_upload_and_a_100_mib_file_within_memory_bound(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    big = write_text_file(tmp_path / "archive.txt", MAX_UPLOAD_BYTES)  # exactly the limit
    deck = tmp_path / "slides.pdf"
    deck.write_bytes(pdf_bytes(2))
    async with Client(sandbox.base_url, DEMO_KEY) as client:
        visual = await client.sources.upload(deck, prepare_visuals=True)
        assert await wait_source(client, visual.id) == "completed"
        seen: list[tuple[int, int]] = []
        tracemalloc.start()
        try:
            source = await client.sources.upload(big, progress=lambda s, t: seen.append((s, t)))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert source.status in ("processing", "completed")
        monotonic_to_total(seen, MAX_UPLOAD_BYTES)
        assert peak < 16 * MiB, f"peak traced memory {peak / MiB:.1f} MiB"
        stored = sandbox.data_dir / "files" / "uploads" / source.id
        if stored.exists():  # the sandbox's layout; compare what arrived when it is there
            assert stored.stat().st_size == MAX_UPLOAD_BYTES


# --- local refusals: nothing is sent ------------------------------------------------------------------------


def _refusals(tmp: Path) -> list[tuple[Path, bool, str]]:
    cases: list[tuple[Path, bool, str]] = []
    empty = tmp / "empty.txt"
    empty.write_bytes(b"")
    cases.append((empty, False, "empty"))
    huge = tmp / "huge.txt"
    with huge.open("wb") as handle:
        handle.write(b"text\n")
        handle.truncate(MAX_UPLOAD_BYTES + 1)  # sparse: nothing large is written
    cases.append((huge, False, "at most 104,857,600"))
    clip = tmp / "clip.mp4"
    clip.write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\x00" * 64)
    cases.append((clip, False, "extract the audio"))
    renamed = tmp / "clip-renamed.mp3"
    renamed.write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\x00" * 64)
    cases.append((renamed, False, "extract the audio"))
    program = tmp / "setup.exe"
    program.write_bytes(b"MZ\x90\x00" + b"\x00" * 64)
    cases.append((program, False, ".exe files are not supported"))
    unknown = tmp / "data.xyz"
    unknown.write_bytes(b"some text")
    cases.append((unknown, False, "not supported"))
    noext = tmp / "README"
    noext.write_bytes(b"some text")
    cases.append((noext, False, "(no extension)"))
    fake_png = tmp / "fake.png"
    fake_png.write_bytes(b"this is plain text, not an image\n")
    cases.append((fake_png, False, "do not match its type, image/png"))
    fake_pdf = tmp / "fake.pdf"
    fake_pdf.write_bytes(image_bytes("PNG"))
    cases.append((fake_pdf, False, "look like image/png"))
    folder = tmp / "folder.txt"
    folder.mkdir()
    cases.append((folder, False, "folder"))
    cases.append((tmp / "missing.txt", False, "does not exist"))
    text_visual = tmp / "notes.txt"
    text_visual.write_bytes(b"notes")
    cases.append((text_visual, True, "visual sources"))
    return cases


@pytest.mark.asyncio
async def test_local_refusals_make_no_request(sandbox: RunningSandbox, tmp_path: Path) -> None:
    client, api, signed = recorded_client(sandbox.base_url)
    async with client:
        before = [s.id async for s in client.sources.list(limit=100)]
        api.events.clear()
        for path, visuals, words in _refusals(tmp_path):
            with pytest.raises(UploadError) as caught:
                await client.sources.upload(path, prepare_visuals=visuals)
            assert words in caught.value.reason, (path.name, caught.value.reason)
            assert caught.value.path == str(path)
        assert api.events == [] and signed.events == [], "a refused file made a request"
        after = [s.id async for s in client.sources.list(limit=100)]
    assert after == before


# --- slots that expire or are refused --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_expired_slots_are_replaced_by_fresh_ones(
    sandbox_factory: Callable[..., RunningSandbox], tmp_path: Path
) -> None:
    sb = sandbox_factory("--speed", "50", "--upload-slot-lifetime", "1", "--no-seed-media")
    path = tmp_path / "story.md"
    path.write_bytes(b"# A story\n\nOnce upon a tide.\n" * 100)
    clock = OffsetClock()  # the client's time, moved with the sandbox's: a slot's second passes at once

    def later(seconds: float) -> None:
        clock.advance(seconds)
        sb.advance(seconds)

    # 1. the slot expires before sending (the caller's progress callback holds the start back)
    async def slow_start(sent: int, total: int) -> None:
        if sent == 0:
            later(2.2)

    client, api, signed = recorded_client(sb.base_url, clock=clock)
    async with client:
        source = await client.sources.upload(path, title="expired before sending", progress=slow_start)
        assert await wait_source(client, source.id) == "completed"
        assert len(api.calls("POST", "/v1/sources/uploads")) == 2
        assert len(signed.calls("PUT")) == 1  # the stale slot was never used
        assert len(api.calls("DELETE")) == 1  # the abandoned reservation was tidied away
        assert [s.id for s in await sources_titled(client, "expired before sending")] == [source.id]

    # 2. the request reaches the signed address after expiry: a real 403, then a fresh slot
    client, api, signed = recorded_client(
        sb.base_url, signed=Recorder(before_first=lambda: later(2.2)), clock=clock
    )
    async with client:
        source = await client.sources.upload(path, title="refused with 403")
        assert [p["status"] for p in signed.calls("PUT")] == [403, 200]
        assert len(api.calls("POST", "/v1/sources/uploads")) == 2
        assert await wait_source(client, source.id) == "completed"

    # 3. the bytes arrive in time but completion comes after expiry (422): a fresh slot again
    async def slow_end(sent: int, total: int) -> None:
        if sent == total:
            later(2.2)

    client, api, signed = recorded_client(sb.base_url, clock=clock)
    async with client:
        source = await client.sources.upload(path, title="completed too late", progress=slow_end)
        completions = api.calls("POST", "/complete-upload")
        assert [c["status"] for c in completions] == [422, 200]
        assert len(signed.calls("PUT")) == 2
        assert await wait_source(client, source.id) == "completed"


# --- cancellation and changes -----------------------------------------------------------------------------------


def open_paths() -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            found.add(os.readlink(f"/proc/self/fd/{fd}"))
    return found


@pytest.mark.asyncio
async def test_cancelling_an_upload_closes_the_file_and_leaves_the_slot(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    path = write_text_file(tmp_path / "long-read.txt", 24 * MiB)
    title = f"cancelled {uuid.uuid4()}"
    halfway = asyncio.Event()

    async def crawl(sent: int, total: int) -> None:
        if sent >= 3 * MiB:
            halfway.set()
        await asyncio.sleep(0.05)  # a slow link

    async with Client(sandbox.base_url, DEMO_KEY) as client:
        task = asyncio.create_task(client.sources.upload(path, title=title, progress=crawl))
        await asyncio.wait_for(halfway.wait(), 20)
        assert str(path) in open_paths()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 5
        while str(path) in open_paths() and time.monotonic() < deadline:  # noqa: ASYNC110 - a thread closes it
            await asyncio.sleep(0.02)
        assert str(path) not in open_paths(), "the file is still open after cancellation"
        [source] = await sources_titled(client, title)
        assert source.status == "awaiting_upload"
        # the client is still usable afterwards
        assert (await client.account.get()).plan


@pytest.mark.asyncio
async def test_a_file_that_changes_during_the_upload_is_not_completed(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    path = write_text_file(tmp_path / "growing.txt", 3 * MiB)
    title = f"changed {uuid.uuid4()}"

    def append(sent: int, total: int) -> None:
        if 0 < sent < total and path.stat().st_size == total:  # once, after the first chunk
            with path.open("ab") as handle:
                handle.write(b"one more line\n")

    client, api, _ = recorded_client(sandbox.base_url)
    async with client:
        with pytest.raises(UploadError, match=r"changed|grew"):
            await client.sources.upload(path, title=title, progress=append)
        assert api.calls("POST", "/complete-upload") == []
        [source] = await sources_titled(client, title)
        assert source.status == "awaiting_upload"


# --- episode images ---------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_episode_image_upload_and_refusals(sandbox: RunningSandbox, tmp_path: Path) -> None:
    client, api, _ = recorded_client(sandbox.base_url)
    async with client:
        podcast = (await client.podcasts.list(limit=1).first_page()).items[0]
        episode = await client.episodes.create(podcast_id=podcast.id, title="Cover test")
        for name, fmt in (("cover.png", "PNG"), ("cover.jpg", "JPEG"), ("cover.webp", "WEBP")):
            image = tmp_path / name
            image.write_bytes(image_bytes(fmt, (80, 80)))
            result = await client.episodes.upload_image(episode.id, image)
            assert result.id == episode.id and result.image_url
            put = api.calls("PUT", "/image")[-1]
            assert put["headers"]["authorization"] == f"Bearer {DEMO_KEY}"
            assert put["headers"]["content-type"] == f"image/{fmt.lower()}"
            fetched = await download_to(client.transport, result.image_url, tmp_path / f"back-{name}")
            assert fetched.read_bytes() == image.read_bytes()
        assert (await client.episodes.get(episode.id)).image_url

        api.events.clear()
        gif = tmp_path / "cover.gif"
        gif.write_bytes(b"GIF89a" + b"\x00" * 32)
        text_png = tmp_path / "text.png"
        text_png.write_bytes(b"not an image at all")
        empty = tmp_path / "empty.jpg"
        empty.write_bytes(b"")
        huge = tmp_path / "huge.png"
        with huge.open("wb") as handle:
            handle.write(image_bytes("PNG"))
            handle.truncate(MAX_IMAGE_BYTES + 1)
        for bad, words in (
            (gif, ".png"),
            (text_png, "do not match the image type image/png"),
            (empty, "empty"),
            (huge, "at most"),
        ):
            with pytest.raises(UploadError, match=words):
                await client.episodes.upload_image(episode.id, bad)
        assert api.events == []


# --- signed downloads -------------------------------------------------------------------------------------------


class RawServer:
    """A tiny HTTP/1.1 server on loopback writing raw bytes; records every request's headers.

    It runs on its own thread and plain asyncio loop (a separate server, as in real life).
    """

    def __init__(self, routes: dict[str, Callable[[RawServer], bytes | AsyncIterator[bytes]]]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> RawServer:
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop
        )
        self._server = await asyncio.wrap_future(started)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        server = self._server
        assert server is not None

        async def stop() -> None:
            server.close()
            await server.wait_closed()

        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(stop(), self._loop))
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join, 5)
        self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = {
                    k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ln)
                }
                self.requests.append((path, headers))
                answer = self.routes[path.split("?")[0]](self)
                if isinstance(answer, bytes):
                    writer.write(answer)
                else:
                    async for piece in answer:
                        writer.write(piece)
                        await writer.drain()
                    break
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


def http(status: str, body: bytes = b"", **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@pytest.mark.asyncio
async def test_signed_downloads_never_carry_the_key_across_redirects(tmp_path: Path) -> None:
    payload = os.urandom(33 * MiB)  # larger than the 32 MiB cap on JSON answers

    async def big(_: RawServer) -> AsyncIterator[bytes]:
        yield f"HTTP/1.1 200 OK\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
        for start in range(0, len(payload), MiB):
            yield payload[start : start + MiB]

    async def truncated(_: RawServer) -> AsyncIterator[bytes]:
        yield b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 400

    async with RawServer({"/file": big, "/short": truncated}) as other:
        routes: dict[str, Callable[[RawServer], bytes | AsyncIterator[bytes]]] = {
            "/v1/account": lambda s: http("200 OK", b'{"data": {}}', content_type="application/json"),
            "/signed": lambda s: http("302 Found", location="/hop?sig=1"),
            "/hop": lambda s: http("307 Temporary Redirect", location=f"http://localhost:{other.port}/file"),
            "/gone": lambda s: http(
                "404 Not Found",
                b'{"status":404,"type":"not_found","title":"gone"}',
                content_type="application/problem+json",
            ),
            "/short": lambda s: http("302 Found", location=f"{other.url}/short"),
        }
        async with RawServer(routes) as api, Client(api.url, DEMO_KEY) as client:
            seen: list[tuple[int, int | None]] = []
            dest = tmp_path / "video.bin"
            result = await download_to(
                client.transport,
                f"{api.url}/signed?expires=1",
                dest,
                progress=lambda r, t: seen.append((r, t)),
            )
            assert result == dest and dest.read_bytes() == payload
            assert seen[-1] == (len(payload), len(payload))
            with pytest.raises(NotFoundError):
                await download_to(client.transport, f"{api.url}/gone", tmp_path / "gone.bin")
            with pytest.raises(APIConnectionError, match=r"400 (of|bytes, expected) 1000"):
                await download_to(client.transport, f"{api.url}/short", tmp_path / "short.bin")
            # the same origin as the API, a redirect on it, and another origin: never the key
            await client.transport.request("GET", "/v1/account")
            account_headers = api.requests[-1][1]
            assert account_headers["authorization"] == f"Bearer {DEMO_KEY}"
        hits = [*api.requests[:-1], *other.requests]
        assert {p.split("?")[0] for p, _ in hits} >= {"/signed", "/hop", "/file", "/gone", "/short"}
        assert all("authorization" not in h for _, h in hits), hits
    assert sorted(os.listdir(tmp_path)) == ["video.bin"]  # no partial files left


@pytest.mark.asyncio
async def test_download_a_finished_video_from_the_sandbox(sandbox: RunningSandbox, tmp_path: Path) -> None:
    async with Client(sandbox.base_url, DEMO_KEY) as client:
        deadline = time.monotonic() + 40  # the seeded renders finish in the background
        available: list[Any] = []
        while not available and time.monotonic() < deadline:
            for media in (client.videos, client.shorts, client.voiceovers):
                done = [m.id async for m in media.list(limit=100) if m.status == "completed"]
                deliveries = [(await media.download(media_id)).delivery for media_id in done]
                available += [d for d in deliveries if d.kind == "available"]
            if not available:
                await asyncio.sleep(0.1)
        assert available, "no finished media became downloadable"
        delivery = available[0]
        assert delivery.url
        path = await download_to(client.transport, delivery.url, tmp_path / "video.mp4")
        assert path.read_bytes()[4:8] == b"ftyp"
        with pytest.raises(ApiError) as caught:  # a tampered signature: refused, typed
            await download_to(client.transport, delivery.url + "0", tmp_path / "bad.mp4")
        assert caught.value.status in (403, 404)
        assert not (tmp_path / "bad.mp4").exists()
