"""A small HTTP/1.1 proxy on loopback, in front of one origin (the sandbox), on a thread of its own.

The soak and the kill tests put one in front of the service's API (the address the app is given)
and one in front of the signed upload and download addresses (the sandbox's ``--signed-base-url``),
so that everything the app sends goes over a real socket the test controls:

* every request is recorded (:class:`Seen`): method, path, status, bytes forwarded, whether the
  body arrived whole, and which of its headers or its query carried credentials (an
  ``Authorization`` or ``Proxy-Authorization`` header, or the API key anywhere);
* :meth:`Proxy.down` closes the listening socket and cuts every open connection (the network or the
  service is gone: connections are refused), :meth:`Proxy.up` listens again on the same port;
* :meth:`Proxy.hold_answers` lets matching requests through and holds the service's answer back
  (the work is done, the answer has not arrived); :meth:`Proxy.hold_bodies` lets the first
  ``free`` request bodies through and stops later ones after ``after_bytes`` bytes (an upload
  half-sent); :meth:`Proxy.release` ends every hold.

The proxy runs on its own event loop and thread, never on the app's qasync loop: what it does
cannot stall the app's loop (beyond sharing the interpreter). One request per connection; the
answer goes back with ``Connection: close`` so no client reuses a connection the proxy closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["Proxy", "Seen"]

CHUNK = 64 * 1024
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade"}


@dataclass
class Seen:
    """One request as it reached the proxy, and what became of it."""

    method: str
    path: str
    length: int
    idempotency_key: str | None = None
    credentials: list[str] = field(default_factory=list)
    """Where the request carried credentials: header names, or "query"."""
    status: int | None = None
    forwarded: int = 0
    """Body bytes passed on to the service."""
    whole: bool = False
    """The whole body reached the service (and its answer was read)."""
    held: bool = False
    replayed: bool = False
    started: float = field(default_factory=time.monotonic)


class Proxy:
    def __init__(
        self, name: str, *, secret: str | None = None, keep: bool = True, credentials_expected: bool = False
    ) -> None:
        """``secret``: the API key, looked for in every header value and query. ``keep``: keep each
        :class:`Seen` (else only the counts and the requests that carried credentials).
        ``credentials_expected``: every request should carry them (the API's proxy): with ``keep``
        off, those are counted, not kept."""
        self.name = name
        self.secret = secret
        self.keep = keep
        self.credentials_expected = credentials_expected
        self.credentialed = 0
        """Requests that carried credentials."""
        self.upstream: tuple[str, int] | None = None
        self.seen: list[Seen] = []
        self.with_credentials: list[Seen] = []
        self.requests = 0
        self.refused_while_down = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"proxy-{name}", daemon=True)
        self._server: asyncio.Server | None = None
        self._port = 0
        self._connections: set[asyncio.Task[None]] = set()
        self._held: dict[asyncio.Task[Any], Seen] = {}
        self._answer_holds: list[tuple[str, str]] = []
        self._body_hold: tuple[int, int] | None = None  # (free bodies, bytes after which others stop)
        self._bodies = 0
        self._failures: list[list[Any]] = []  # [method, path prefix, status, times left, headers]
        self._released = asyncio.Event()
        self._released.set()
        self.is_down = False

    # --- control (from any thread) -------------------------------------------------------------------------

    def start(self) -> str:
        self._thread.start()
        self._call(self._listen())
        return self.url

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def forward_to(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        assert parts.hostname is not None and parts.port is not None, base_url
        self.upstream = (parts.hostname, parts.port)

    def down(self) -> None:
        self._call(self._down())

    def up(self) -> None:
        self._call(self._listen())

    def hold_answers(self, method: str, path_prefix: str) -> None:
        def hold() -> None:
            self._answer_holds.append((method, path_prefix))
            self._released.clear()

        self._loop.call_soon_threadsafe(hold)

    def hold_bodies(self, *, free: int, after_bytes: int) -> None:
        def hold() -> None:
            self._body_hold = (free, after_bytes)
            self._bodies = 0
            self._released.clear()

        self._loop.call_soon_threadsafe(hold)

    def fail_next(
        self,
        method: str,
        path_prefix: str,
        status: int,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests with ``status`` (a problem+json body, and
        ``headers``) without passing them on: a service failing before it did anything."""
        failure = [method, path_prefix, status, times, dict(headers or {})]
        self._loop.call_soon_threadsafe(self._failures.append, failure)

    def release(self) -> None:
        def release() -> None:
            self._answer_holds.clear()
            self._body_hold = None
            self._released.set()

        self._loop.call_soon_threadsafe(release)

    def cut_held(self) -> None:
        """Break every held connection where it stands: nothing more of it reaches the service (a
        body half-sent stays half-sent, even what the client's kernel still had buffered)."""
        self._call(self._cut_held())

    def holding(self) -> list[Seen]:
        return [s for s in list(self.seen) if s.held and not self._released.is_set()]

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        self.release()
        self._call(self._down())
        self._call(self._end_all())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def matching(self, method: str, path_prefix: str = "") -> list[Seen]:
        return [s for s in list(self.seen) if s.method == method and s.path.startswith(path_prefix)]

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=30)

    # --- on the proxy's loop ---------------------------------------------------------------------------------

    async def _listen(self) -> None:
        self.is_down = False
        if self._server is None:
            self._server = await asyncio.start_server(
                self._serve, "127.0.0.1", self._port, reuse_address=True
            )
            self._port = self._server.sockets[0].getsockname()[1]

    async def _down(self) -> None:
        self.is_down = True
        server, self._server = self._server, None
        if server is not None:
            server.close()
        cut = [task for task in self._connections if not task.done()]
        for task in cut:  # every open connection is cut: the client sees it reset
            task.cancel()
        await asyncio.gather(*cut, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5)

    async def _cut_held(self) -> None:
        cut = [task for task, seen in self._held.items() if not task.done()]
        for task in cut:
            task.cancel()
        await asyncio.gather(*cut, return_exceptions=True)

    async def _end_all(self) -> None:
        me = asyncio.current_task()
        running = [t for t in asyncio.all_tasks() if t is not me]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.is_down:
            self.refused_while_down += 1
            writer.transport.abort()
            return
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)  # held here: a closed server no longer keeps its connections alive
        upstream: asyncio.StreamWriter | None = None
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, target, headers = _parse_head(head)
            seen = self._record(method, target, headers)
            failure = next((f for f in self._failures if f[0] == method and seen.path.startswith(f[1])), None)
            if failure is not None:
                await self._fail(reader, writer, seen, failure)
                return
            assert self.upstream is not None, "the proxy was not told where to forward"
            up_reader, upstream = await asyncio.open_connection(*self.upstream)
            upstream.write(_head(f"{method} {target} HTTP/1.1", self._outgoing(headers)))
            await self._pipe_body(reader, upstream, seen)
            answer = await up_reader.readuntil(b"\r\n\r\n")
            status_line, answer_headers = _parse_status(answer)
            seen.status = int(status_line.split(" ", 2)[1])
            seen.replayed = any(k.lower() == "idempotent-replayed" for k, _ in answer_headers)
            seen.whole = seen.forwarded >= seen.length
            if any(method == m and seen.path.startswith(p) for m, p in self._answer_holds):
                seen.held = True
                await self._released.wait()  # the service did the work; its answer waits here
            kept = [(k, v) for k, v in answer_headers if k.lower() not in HOP_BY_HOP]
            writer.write(_head(status_line, [*kept, ("Connection", "close")]))
            while chunk := await up_reader.read(CHUNK):
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            pass
        except asyncio.CancelledError:  # cut (down, or the proxy stops): no goodbye on either side
            for stream in (upstream, writer):
                if stream is not None:
                    stream.transport.abort()
        finally:
            self._connections.discard(task)
            for stream in (upstream, writer):
                if stream is not None and not stream.transport.is_closing():
                    stream.close()

    async def _fail(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, seen: Seen, failure: list[Any]
    ) -> None:
        failure[3] -= 1
        if failure[3] <= 0:
            self._failures.remove(failure)
        if seen.length:
            await reader.readexactly(seen.length)
        status = int(failure[2])
        body = json.dumps(
            {
                "type": "about:blank",
                "title": "Injected by the test's proxy",
                "status": status,
                "detail": "A failure the proxy answered with.",
                "request_id": "req_proxy",
            }
        ).encode()
        seen.status = status
        writer.write(_head(f"HTTP/1.1 {status} Failure", [
            ("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
            ("X-Request-Id", "req_proxy"), *failure[4].items(), ("Connection", "close"),
        ]) + body)  # fmt: skip
        await writer.drain()

    async def _pipe_body(
        self, reader: asyncio.StreamReader, upstream: asyncio.StreamWriter, seen: Seen
    ) -> None:
        hold = self._body_hold
        stop_at = seen.length  # where this body is held (its end: never)
        if hold is not None and seen.length:
            self._bodies += 1
            if self._bodies > hold[0]:
                stop_at = min(hold[1], seen.length)
        while seen.forwarded < seen.length:
            if seen.forwarded >= stop_at and not self._released.is_set():
                seen.held = True
                task = asyncio.current_task()
                assert task is not None
                self._held[task] = seen
                try:
                    await self._released.wait()
                finally:
                    self._held.pop(task, None)
            if seen.forwarded >= stop_at:
                stop_at = seen.length
            chunk = await reader.read(min(CHUNK, stop_at - seen.forwarded))
            if not chunk:  # the client went away half-way: so does the request to the service
                upstream.transport.abort()
                raise ConnectionResetError("the client went away before its body was sent")
            upstream.write(chunk)
            await upstream.drain()
            seen.forwarded += len(chunk)

    def _record(self, method: str, target: str, headers: list[tuple[str, str]]) -> Seen:
        parts = urlsplit(target)
        length = next((int(v) for k, v in headers if k.lower() == "content-length"), 0)
        key = next((v for k, v in headers if k.lower() == "idempotency-key"), None)
        seen = Seen(method, unquote(parts.path), length, key)
        for name, value in headers:
            if name.lower() in ("authorization", "proxy-authorization") or (
                self.secret and self.secret in value
            ):
                seen.credentials.append(name)
        if self.secret and self.secret in unquote(parts.query):
            seen.credentials.append("query")
        self.requests += 1
        if seen.credentials:
            self.credentialed += 1
            if self.keep or not self.credentials_expected:
                self.with_credentials.append(seen)
        if self.keep:
            self.seen.append(seen)
        return seen

    def _outgoing(self, headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
        assert self.upstream is not None
        host, port = self.upstream
        kept = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and k.lower() != "host"]
        return [("Host", f"{host}:{port}"), *kept, ("Connection", "close")]


def _parse_head(head: bytes) -> tuple[str, str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    method, target, _version = lines[0].split(" ", 2)
    return method, target, _headers(lines[1:])


def _parse_status(head: bytes) -> tuple[str, list[tuple[str, str]]]:
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], _headers(lines[1:])


def _headers(lines: list[str]) -> list[tuple[str, str]]:
    found = []
    for line in lines:
        if ":" in line:
            name, value = line.split(":", 1)
            found.append((name.strip(), value.strip()))
    return found


def _head(first: str, headers: list[tuple[str, str]]) -> bytes:
    return ("\r\n".join([first, *(f"{k}: {v}" for k, v in headers)]) + "\r\n\r\n").encode("latin-1")
