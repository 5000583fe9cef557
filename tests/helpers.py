"""Helpers shared by test modules: real files of each kind, the sandbox's upload steps over plain
HTTP, a recording transport, a raw HTTP server that can send anything, and a Line: the network
between the app and the sandbox, broken on purpose."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import time
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from PIL import Image
from PySide6.QtCore import QAbstractEventDispatcher

from castdeck.api.clock import SYSTEM_CLOCK, Clock
from tests import media_child
from tests.conftest import wait_for
from tests.tls import SHARED_TLS

ODP = "application/vnd.oasis.opendocument.presentation"

# --- real files ---------------------------------------------------------------------------------------------


def image_bytes(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    image = Image.new("RGB", size, (20, 120, 200))
    for x in range(size[0] // 2):
        image.putpixel((x, x % size[1]), (250, 200, 10))
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def pdf_bytes(pages: int) -> bytes:
    """A small but well-formed PDF (cross-reference table with real offsets), one line of text a page."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    for i in range(pages):
        content_ref = 4 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_ref} 0 R "
            f"/Resources << /Font << /F1 {3 + 2 * pages} 0 R >> >> >>".encode()
        )
        stream = f"BT /F1 24 Tf 72 700 Td (Slide number {i + 1} of the deck) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def office_bytes(kind: str, slides: int = 3) -> bytes:
    """A .docx or .pptx container with the entries Office writes first."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archive.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships/>')
        if kind == "docx":
            archive.writestr(
                "word/document.xml",
                '<?xml version="1.0"?><w:document><w:body><w:p><w:r><w:t>Tidal notes</w:t>'
                "</w:r></w:p></w:body></w:document>",
            )
        else:
            archive.writestr("ppt/presentation.xml", '<?xml version="1.0"?><p:presentation/>')
            for n in range(1, slides + 1):
                archive.writestr(f"ppt/slides/slide{n}.xml", f'<?xml version="1.0"?><p:sld n="{n}"/>')
    return buffer.getvalue()


def odp_bytes(pages: int) -> bytes:
    """An OpenDocument presentation: an uncompressed ``mimetype`` entry first, pages in content.xml."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), ODP, compress_type=zipfile.ZIP_STORED)
        body = "".join(f'<draw:page draw:name="page{n}"/>' for n in range(1, pages + 1))
        archive.writestr(
            "content.xml",
            '<?xml version="1.0"?><office:document-content><office:body><office:presentation>'
            f"{body}</office:presentation></office:body></office:document-content>",
        )
    return buffer.getvalue()


@functools.lru_cache(maxsize=16)
def mp3_bytes(seconds: float = 1.0, rate: int = 22050) -> bytes:
    """A mono MP3 of a 440 Hz tone, made with PyAV in a child process (never in the test process:
    see tests/media_child.py). The same arguments give the same bytes, so they are made once."""
    return media_child.mp3_bytes(seconds, rate)


# --- the upload steps over plain HTTP ---------------------------------------------------------------------


def reserve(api: httpx.Client, file_name: str, mime: str, size: int, **extra: Any) -> httpx.Response:
    return api.post(
        "/v1/sources/uploads", json={"file_name": file_name, "mime_type": mime, "size_bytes": size, **extra}
    )


def reserve_ok(api: httpx.Client, file_name: str, mime: str, content: bytes, **extra: Any) -> dict[str, Any]:
    response = reserve(api, file_name, mime, len(content), **extra)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def put_bytes(slot: dict[str, Any], content: Any, **headers: str) -> httpx.Response:
    """Send bytes to a signed upload address with exactly the returned headers and no API key."""
    assert slot["method"] == "PUT"
    return httpx.request(
        slot["method"],
        slot["url"],
        content=content,
        headers={**slot["headers"], **headers},
        timeout=60,
        verify=SHARED_TLS,
    )


def complete(api: httpx.Client, source_id: str) -> httpx.Response:
    return api.post(f"/v1/sources/{source_id}/complete-upload")


def wait_source(api: httpx.Client, source_id: str, timeout: float = 20.0) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        data: dict[str, Any] = api.get(f"/v1/sources/{source_id}").json()["data"]
        return data if data["status"] in ("completed", "error") else None

    result: dict[str, Any] = wait_for(done, timeout)
    return result


def upload_source(
    api: httpx.Client, file_name: str, mime: str, content: bytes, *, wait: bool = True, **extra: Any
) -> dict[str, Any]:
    """Reserve, upload and complete; the finished source (or the record complete-upload returned)."""
    reservation = reserve_ok(api, file_name, mime, content, **extra)
    put = put_bytes(reservation["upload"], content)
    assert put.status_code == 200, put.text
    completed = complete(api, reservation["source"]["id"])
    assert completed.status_code == 200, completed.text
    record: dict[str, Any] = completed.json()["data"]
    return wait_source(api, record["id"]) if wait else record


# --- clocks the tests give the app -------------------------------------------------------------------------------


class FastClock:
    """The app's time running ``rate`` times as fast as the machine's, from now on (as the sandbox's
    ``--speed`` runs its work): a wait the app decides of N seconds (a poll's hint, the reconnection
    probe's delay, a retry's backoff) takes N / ``rate`` seconds, and the app reads that N seconds
    passed. For tests of waits between requests; a test that compares the app's time with the
    sandbox's (a slot's expiry) moves both with ``castdeck.sandbox.clock.Clock`` instead."""

    def __init__(self, rate: float = 50.0) -> None:
        self.rate = rate
        self._monotonic = time.monotonic()
        self._time = time.time()

    def _passed(self) -> float:
        return (time.monotonic() - self._monotonic) * self.rate

    def monotonic(self) -> float:
        return self._monotonic + self._passed()

    def time(self) -> float:
        return self._time + self._passed()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.rate)


# --- a recording transport: real HTTP, every request and answer noted -------------------------------------------


class Recorder(httpx.AsyncHTTPTransport):
    """A real httpx transport that notes what goes on the wire. ``before_first`` runs before the
    first request goes out (a test moves the server's time there: the request reaches it late)."""

    def __init__(self, *, before_first: Callable[[], Any] | None = None, clock: Clock = SYSTEM_CLOCK) -> None:
        """``clock``: the client's, whose time ``sent`` and ``received`` are noted in."""
        super().__init__(verify=SHARED_TLS)
        self.events: list[dict[str, Any]] = []
        self.before_first = before_first
        self.clock = clock

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        entry: dict[str, Any] = {
            "method": request.method,
            "url": str(request.url),
            "path": request.url.path,
            "headers": dict(request.headers),
            "sent": self.clock.monotonic(),
        }
        self.events.append(entry)
        if self.before_first is not None and len(self.events) == 1:
            self.before_first()
        try:
            response = await super().handle_async_request(request)
        except Exception as exc:
            entry["error"] = exc
            raise
        entry["status"] = response.status_code
        entry["received"] = self.clock.monotonic()
        entry["response_headers"] = dict(response.headers)
        return response

    def calls(self, method: str, path_suffix: str = "") -> list[dict[str, Any]]:
        return [e for e in self.events if e["method"] == method and e["path"].endswith(path_suffix)]


# --- a raw HTTP server that can send anything ---------------------------------------------------------------


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


Handler = Callable[[Seen, asyncio.StreamWriter], Awaitable[None]]


@dataclass
class RawServer:
    """One request per connection; the handler writes whatever bytes it wants."""

    handler: Handler
    requests: list[Seen] = field(default_factory=list)
    sent: int = 0
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.stopping.set()  # handlers that never answer end now (cancelling them makes asyncio log)
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            seen = Seen(method, target, headers, body)
            self.requests.append(seen)
            await self.handler(seen, writer)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            self._tasks.discard(task)

    async def write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()
        self.sent += len(data)


def response(
    status: int,
    body: bytes | str | dict[str, Any] = b"",
    *,
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
    content_length: int | None = None,
) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    lines = [f"HTTP/1.1 {status} Whatever", "Connection: close", "X-Request-Id: req_hostile"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    lines.append(f"Content-Length: {len(data) if content_length is None else content_length}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data


# --- the line between the app and the sandbox, broken on purpose --------------------------------------------


@dataclass
class Sent:
    """One request as it left the app, and what became of it."""

    method: str
    path: str
    idempotency_key: str | None
    status: int | None = None  # the service's answer, when the app got it
    fault: str | None = None  # what the line did instead ("lost answer", "down")
    at: float = field(default_factory=time.monotonic)  # when it left the app


class _HeldBody(httpx.AsyncByteStream):
    def __init__(self, inner: Any, line: Line) -> None:
        self.inner = inner
        self.line = line

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = 0
        async for chunk in self.inner:
            if not self.line.released.is_set():
                if chunks >= self.line.hold_after:
                    self.line.holding.set()
                    await self.line.released.wait()
                else:
                    await asyncio.sleep(self.line.pace)
            chunks += 1
            yield chunk


class _Body(httpx.AsyncByteStream):
    def __init__(self, content: bytes) -> None:
        self.content = content

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.content


class Line(httpx.AsyncBaseTransport):
    """The network between the app and the sandbox: every request really goes to the service through
    the real transport, is recorded (:attr:`sent`), and the line breaks when the test says so.

    * :meth:`lose_answer` — the next matching request reaches the service and is carried out, but its
      answer never arrives (``httpx.ReadError``); with ``then_down`` the line stays down afterwards.
    * :meth:`down` / :meth:`up` — while down, requests fail to connect and never reach the service.
    * :meth:`hold_bodies` — request bodies (the signed-address PUTs) go out ``pace`` seconds a chunk,
      and stop after ``after`` chunks until :meth:`release`; :attr:`holding` is set when one stops.
    * :meth:`hold_requests` — matching requests wait before they are sent until :meth:`release`.
    * :meth:`change_answers` — the service's JSON answers to matching requests are changed on the way
      back (for a state the sandbox cannot be put in, such as a low credit balance).
    * :meth:`fail_next` — the next matching request is answered with an error status and the spec's
      error body, as a failing gateway would, without reaching the service (the sandbox's ``--chaos``
      does this at random; a test needs it at one request).
    """

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=SHARED_TLS)
        self.sent: list[Sent] = []
        self._lose: list[tuple[str, str, bool]] = []
        self._down = False
        self._held: list[tuple[str, str]] = []
        self._changes: list[tuple[str, str, Callable[[Any], Any]]] = []
        self._failures: list[tuple[str, str, int]] = []
        self.pace = 0.0
        self.hold_after = 0
        self.holding = asyncio.Event()
        self.released = asyncio.Event()
        self.released.set()

    def lose_answer(self, method: str, suffix: str, *, then_down: bool = False) -> None:
        self._lose.append((method, suffix, then_down))

    def down(self) -> None:
        self._down = True

    def up(self) -> None:
        self._down = False

    def hold_bodies(self, *, after: int, pace: float = 0.1) -> None:
        self.hold_after, self.pace = after, pace
        self.holding.clear()
        self.released.clear()

    def hold_requests(self, method: str, path_prefix: str) -> None:
        self._held.append((method, path_prefix))
        self.holding.clear()
        self.released.clear()

    def fail_next(self, method: str, suffix: str, status: int) -> None:
        self._failures.append((method, suffix, status))

    def change_answers(self, method: str, path: str, change: Callable[[Any], Any]) -> None:
        self._changes.append((method, path, change))

    def release(self) -> None:
        self._held.clear()
        self.released.set()

    def to(self, method: str, suffix: str = "") -> list[Sent]:
        return [s for s in self.sent if s.method == method and s.path.endswith(suffix)]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if any(request.method == m and request.url.path.startswith(p) for m, p in self._held):
            self.holding.set()
            await self.released.wait()
        sent = Sent(request.method, request.url.path, request.headers.get("idempotency-key"))
        self.sent.append(sent)
        if self._down:
            sent.fault = "down"
            raise httpx.ConnectError("the line is down (the test)", request=request)
        failure = next(
            (f for f in self._failures if f[0] == request.method and request.url.path.endswith(f[1])), None
        )
        if failure is not None:
            self._failures.remove(failure)
            sent.status, sent.fault = failure[2], f"answered {failure[2]} by the line"
            problem = {"status": failure[2], "title": "Error", "type": "internal_error",
                       "detail": "A failure on the way (the test)."}  # fmt: skip
            body = json.dumps(problem).encode()
            return httpx.Response(
                failure[2], stream=_Body(body), headers={
                    "Content-Type": "application/problem+json", "Content-Length": str(len(body)),
                    "X-Request-Id": "req_line",
                },
            )  # fmt: skip
        rule = next(
            (r for r in self._lose if r[0] == request.method and request.url.path.endswith(r[1])), None
        )
        if rule is not None:
            self._lose.remove(rule)
        if request.method == "PUT":
            request.stream = _HeldBody(request.stream, self)
        response = await self.inner.handle_async_request(request)
        sent.status = response.status_code
        if rule is not None:
            await response.aread()
            await response.aclose()
            sent.fault = "lost answer"
            if rule[2]:
                self._down = True
            raise httpx.ReadError("the answer was lost on the way (the test)", request=request)
        for method, path, change in self._changes:
            if request.method == method and request.url.path == path:
                body = json.dumps(change(json.loads(await response.aread()))).encode()
                headers = [
                    (k, v)
                    for k, v in response.headers.items()
                    if k.lower() not in ("content-length", "content-encoding")
                ]
                headers.append(("content-length", str(len(body))))
                await response.aclose()
                return httpx.Response(response.status_code, headers=headers, stream=_Body(body))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def burn_cpu(seconds: float) -> None:
    """Use ``seconds`` of this thread's CPU time (not wall time: a busy machine makes it longer)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class PassBurner:
    """Counts the passes of Qt's loop (``passes``) and makes the own events of the next
    ``burn_next`` passes use CPU time (twice ``seconds``) before their timers run, as a long repaint
    does: it runs when the dispatcher says ``aboutToBlock``, where a pass begins. ``close`` stops it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passes = 0
        self.burn_next = 0
        dispatcher = QAbstractEventDispatcher.instance()
        assert dispatcher is not None
        self._dispatcher = dispatcher
        dispatcher.aboutToBlock.connect(self._pass)

    def _pass(self) -> None:
        self.passes += 1
        if self.burn_next:
            self.burn_next -= 1
            burn_cpu(2 * self.seconds)

    def close(self) -> None:
        self._dispatcher.aboutToBlock.disconnect(self._pass)
