"""A hostile or broken server yields a typed error, never a crash or a hang.

Each test runs a small real HTTP server on loopback (``asyncio.start_server`` writing raw bytes, so
it can send anything at all) and points the real client at it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from castdeck.api import (
    APIConnectionError,
    APITimeoutError,
    CastdeckError,
    Client,
    InvalidResponseError,
    ServerError,
)
from castdeck.api.transport import MAX_BODY_BYTES
from tests.helpers import Handler, RawServer, Seen, response

KEY = "sk_hostile_test_key_0123456789"
ACCOUNT = {"data": {"organization_id": "org_1", "plan": "creator", "credits": {"balance": 5}}}
MiB = 1024 * 1024


def answer(data: bytes) -> Handler:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(data)

    return handler


@contextlib.asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[RawServer]:
    async with RawServer(handler) as server:
        yield server


def client_for(server: RawServer, **kwargs: Any) -> Client:
    return Client(server.url, KEY, **{"timeout": 3.0, "max_retries": 0, **kwargs})


async def expect_error(server: RawServer, call: Callable[[Client], Awaitable[Any]],
                       error: type[CastdeckError], **kwargs: Any) -> CastdeckError:  # fmt: skip
    async with asyncio.timeout(20), client_for(server, **kwargs) as client:
        with pytest.raises(CastdeckError) as caught:
            await call(client)
    assert type(caught.value) is error, repr(caught.value)
    assert KEY not in str(caught.value)
    return caught.value


def get_account(client: Client) -> Awaitable[Any]:
    return client.account.get()


# ---------------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_html_instead_of_json_on_200() -> None:
    page = "<!doctype html><html><body>Welcome to nginx!</body></html>"
    async with serving(answer(response(200, page, content_type="text/html"))) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
    assert isinstance(error, InvalidResponseError)
    assert error.status == 200 and error.request_id == "req_hostile"
    assert "text/html" in str(error)


@pytest.mark.asyncio
async def test_html_instead_of_json_on_500_is_a_server_error_with_the_status() -> None:
    page = "<html><body><h1>500 Internal Server Error</h1></body></html>"
    async with serving(answer(response(500, page, content_type="text/html"))) as server:
        error = await expect_error(server, get_account, ServerError, max_retries=3)
        assert len(server.requests) == 1  # a 500 is not retried
    assert isinstance(error, ServerError)
    assert error.status == 500 and error.request_id == "req_hostile"
    assert error.detail is not None and "500 Internal Server Error" in error.detail


@pytest.mark.asyncio
async def test_a_200_with_an_error_envelope_is_not_a_success() -> None:
    body = {"error": {"code": "internal", "message": "database on fire", "request_id": "req_env"}}
    async with serving(answer(response(200, body))) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
    assert isinstance(error, InvalidResponseError)
    assert error.status == 200 and error.request_id == "req_env"
    assert "database on fire" in str(error)


@pytest.mark.asyncio
async def test_a_truncated_body_is_a_broken_answer_and_a_read_is_retried_boundedly() -> None:
    full = json.dumps(ACCOUNT).encode()

    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(response(200, full[: len(full) // 2], content_length=len(full)))

    async with serving(handler) as server:
        error = await expect_error(server, get_account, APIConnectionError, max_retries=1)
        assert len(server.requests) == 2
    assert "broke off" in str(error)


@pytest.mark.asyncio
async def test_truncated_json_with_a_matching_length_is_invalid() -> None:
    async with serving(answer(response(200, '{"data": {"organization_id": "o'))) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
    assert "malformed" in str(error)


@pytest.mark.asyncio
@pytest.mark.parametrize("content_type", ["text/plain", "application/octet-stream", None, "application/xml"])
async def test_a_wrong_content_type_is_invalid(content_type: str | None) -> None:
    async with serving(answer(response(200, ACCOUNT, content_type=content_type))) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
    assert error.status == 200  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_an_enormous_declared_body_is_refused_from_its_headers() -> None:
    chunk = b"x" * MiB
    declared = 40 * MiB

    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        await server.write(writer, response(200, b"", content_length=declared))
        for _ in range(declared // len(chunk)):
            await server.write(writer, chunk)

    async with serving(handler) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
        assert server.sent < declared  # the client hung up long before the end
    assert "more than" in str(error) and str(declared) in str(error)


@pytest.mark.asyncio
async def test_an_enormous_undeclared_body_is_cut_off_at_the_bound() -> None:
    chunk = b"y" * (256 * 1024)
    limit = 48 * MiB

    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        await server.write(writer, head.encode())
        framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        while server.sent < limit:
            await server.write(writer, framed)

    async with serving(handler) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
        assert MAX_BODY_BYTES <= server.sent < limit
    assert "larger than" in str(error)


@pytest.mark.asyncio
async def test_a_close_delimited_enormous_body_is_cut_off_too() -> None:
    chunk = b"z" * MiB
    limit = 48 * MiB

    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        await server.write(
            writer, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        )
        while server.sent < limit:
            await server.write(writer, chunk)

    async with serving(handler) as server:
        await expect_error(server, get_account, InvalidResponseError)
        assert server.sent < limit


def bomb(encoding: str, size: int = 200 * MiB) -> bytes:
    wbits = 31 if encoding == "gzip" else 15
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    zeros = bytes(MiB)
    parts = [compressor.compress(zeros) for _ in range(size // MiB)]
    parts.append(compressor.flush())
    return b"".join(parts)


@pytest.mark.asyncio
@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_a_compression_bomb_is_refused(encoding: str) -> None:
    payload = bomb(encoding)
    assert len(payload) < MiB  # small on the wire, 200 MiB decoded
    data = response(200, payload, headers={"Content-Encoding": encoding})
    async with serving(answer(data)) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
        assert "gzip" in server.requests[0].headers.get("accept-encoding", "")
    assert "larger than" in str(error)


@pytest.mark.asyncio
async def test_an_unknown_content_encoding_is_refused() -> None:
    data = response(200, b"\x00\x01\x02", headers={"Content-Encoding": "br"})
    async with serving(answer(data)) as server:
        await expect_error(server, get_account, InvalidResponseError)


@pytest.mark.asyncio
async def test_a_redirect_loop_ends() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        other = "/b" if seen.target.startswith("/v1/account") or seen.target == "/a" else "/a"
        writer.write(response(302, b"", headers={"Location": other}))

    async with serving(handler) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
        assert len(server.requests) <= 4
    assert "loop" in str(error)


@pytest.mark.asyncio
async def test_a_redirect_to_itself_ends() -> None:
    async with serving(answer(response(307, b"", headers={"Location": "/v1/account"}))) as server:
        await expect_error(server, get_account, InvalidResponseError)
        assert len(server.requests) <= 3


@pytest.mark.asyncio
async def test_a_long_redirect_chain_ends() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        step = int(seen.target.rsplit("/", 1)[1]) if seen.target.startswith("/hop/") else 0
        writer.write(response(301, b"", headers={"Location": f"/hop/{step + 1}"}))

    async with serving(handler) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
        assert 2 <= len(server.requests) <= 10
    assert "redirects" in str(error)


@pytest.mark.asyncio
async def test_a_redirect_to_another_origin_drops_the_key() -> None:
    async with serving(answer(response(200, ACCOUNT))) as elsewhere:

        async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
            writer.write(response(302, b"", headers={"Location": f"{elsewhere.url}/v1/account"}))

        async with serving(handler) as origin, asyncio.timeout(10), client_for(origin) as client:
            account = await client.account.get()
    assert account.organization_id == "org_1"
    assert origin.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert len(elsewhere.requests) == 1
    assert "authorization" not in elsewhere.requests[0].headers
    assert all(KEY not in value for value in elsewhere.requests[0].headers.values())


@pytest.mark.asyncio
async def test_a_write_redirected_to_another_origin_drops_the_key_too() -> None:
    async with serving(answer(response(200, {"data": {"id": "p1"}}))) as elsewhere:

        async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
            writer.write(response(307, b"", headers={"Location": f"{elsewhere.url}/v1/podcasts"}))

        async with serving(handler) as origin, asyncio.timeout(10), client_for(origin) as client:
            podcast = await client.podcasts.create(title="Somewhere else", host_ids=["a1b2c3d4"])
    assert podcast.id == "p1"
    assert origin.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert elsewhere.requests[0].method == "POST"  # 307 keeps the method and the body
    assert json.loads(elsewhere.requests[0].body)["title"] == "Somewhere else"
    assert "authorization" not in elsewhere.requests[0].headers


@pytest.mark.asyncio
async def test_a_same_origin_redirect_is_followed_with_the_key() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        if seen.target == "/v1/account":
            writer.write(response(308, b"", headers={"Location": "/v2/account"}))
        else:
            writer.write(response(200, ACCOUNT))

    async with serving(handler) as server, asyncio.timeout(10), client_for(server) as client:
        account = await client.account.get()
    assert account.plan == "creator"
    assert [r.target for r in server.requests] == ["/v1/account", "/v2/account"]
    assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)


@pytest.mark.asyncio
async def test_a_server_that_never_answers_times_out() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        await server.stopping.wait()

    async with serving(handler) as server:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await expect_error(server, get_account, APITimeoutError, timeout=0.5)
        assert loop.time() - started < 3
        retried_started = loop.time()
        await expect_error(server, get_account, APITimeoutError, timeout=0.3, max_retries=1)
        assert loop.time() - retried_started < 4
        assert len(server.requests) == 3  # one, then one plus one retry


@pytest.mark.asyncio
async def test_an_unanswered_unkeyed_write_times_out_once() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        await server.stopping.wait()

    async with serving(handler) as server:
        await expect_error(
            server,
            lambda c: c.podcasts.create(title="Never answered", host_ids=["a1b2c3d4"]),
            APITimeoutError,
            timeout=0.4,
            max_retries=3,
        )
        assert len(server.requests) == 1  # a write without a key is never repeated


@pytest.mark.asyncio
async def test_a_next_link_to_another_origin_is_refused() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        link = '<https://evil.example/v1/podcasts?cursor=2>; rel="next"'
        writer.write(response(200, {"data": [{"id": "p1"}]}, headers={"Link": link}))

    async with serving(handler) as server, asyncio.timeout(10), client_for(server) as client:
        seen_items = []
        with pytest.raises(InvalidResponseError, match="another origin"):
            async for podcast in client.podcasts.list():
                seen_items.append(podcast.id)
    assert seen_items == ["p1"]
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_a_next_link_back_to_itself_ends() -> None:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        link = '</v1/podcasts?limit=20>; rel="next"'
        writer.write(response(200, {"data": [{"id": "p1"}]}, headers={"Link": link}))

    async with serving(handler) as server, asyncio.timeout(10), client_for(server) as client:
        with pytest.raises(InvalidResponseError, match="already read"):
            await client.podcasts.list(limit=20).to_list()
    assert len(server.requests) <= 3


@pytest.mark.asyncio
async def test_a_body_cursor_that_repeats_ends() -> None:
    body = {"data": [{"id": 1}], "pagination": {"has_more": True, "next_cursor": "same"}}
    async with serving(answer(response(200, body))) as server, asyncio.timeout(10), client_for(server) as c:
        with pytest.raises(InvalidResponseError):
            await c.voices.list().to_list()
    assert len(server.requests) <= 3


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "body",
    [
        {"data": "x"},
        {"data": None},
        {"data": {"organization_id": "o"}},  # required fields missing
        {"result": {}},
        ["data"],
        "a string",
    ],
)
async def test_json_that_is_not_the_documented_shape_is_invalid(body: Any) -> None:
    async with serving(answer(response(200, json.dumps(body)))) as server:
        error = await expect_error(server, get_account, InvalidResponseError)
    assert error.request_id == "req_hostile"  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_a_list_whose_data_is_not_an_array_is_invalid() -> None:
    async with serving(answer(response(200, {"data": "x"}))) as server:
        await expect_error(server, lambda c: c.podcasts.list().to_list(), InvalidResponseError)


@pytest.mark.asyncio
async def test_garbage_instead_of_http_is_a_connection_error() -> None:
    async with serving(answer(b"SSH-2.0-OpenSSH_9.6\r\n\r\nnot http at all")) as server:
        await expect_error(server, get_account, APIConnectionError)
