"""The API key goes to the base URL's origin and nowhere else: not to signed upload or download
addresses (also across redirects), not into any repr, str, message or traceback."""

from __future__ import annotations

import asyncio
import json
import traceback
from pathlib import Path
from typing import Any

import httpx
import pytest

from castdeck.api import APIConnectionError, CastdeckError, Client, InvalidResponseError, UnauthorizedError
from castdeck.api.errors import InputValidationError, NotFoundError, UploadError
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.helpers import RawServer, Seen, response
from tests.tls import SHARED_TLS

SECRET = "sk_live_credential_test_7f3a9c2e51"


class Recording(httpx.AsyncBaseTransport):
    """Records the headers of every request really sent through it."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(verify=SHARED_TLS)
        self.seen: list[tuple[str, httpx.URL, httpx.Headers]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.method, request.url, request.headers.copy()))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def carries(headers: httpx.Headers | dict[str, str], key: str) -> bool:
    return any(key in value for value in headers.values()) or "authorization" in {k.lower() for k in headers}


def record(body: Any = b"", status: int = 200, **kwargs: Any) -> Any:
    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(response(status, body, **kwargs))

    return handler


# ---------------------------------------------------------------------------------------------------------
# Loopback recording servers


@pytest.mark.asyncio
async def test_the_key_goes_to_the_base_origin_and_not_to_signed_addresses_on_it() -> None:
    """A signed address on the service's own origin (as the sandbox's are) still gets no key."""
    account = {"data": {"organization_id": "o", "plan": "pro", "credits": {"balance": 1}}}
    async with (
        RawServer(record(account)) as server,
        asyncio.timeout(15),
        Client(server.url, SECRET, max_retries=0) as client,
    ):
        await client.account.get()
        upload = await client.transport.send_signed(
            "PUT", f"{server.url}/files/upload/slot_1?sig=abc&expires=9", content=b"%PDF-1.7 bytes",
            headers={"Content-Type": "application/pdf", "Authorization": f"Bearer {SECRET}"},
        )  # fmt: skip
        download = await client.transport.send_signed("GET", f"{server.url}/files/media/ep.mp3?sig=def")
    assert (upload.status, download.status) == (200, 200)
    api_call, put, get = server.requests
    assert api_call.headers["authorization"] == f"Bearer {SECRET}"
    assert put.method == "PUT" and put.body == b"%PDF-1.7 bytes"
    assert put.headers["content-length"] == "14" and "transfer-encoding" not in put.headers
    for signed in (put, get):
        assert not carries(signed.headers, SECRET), signed.headers


@pytest.mark.asyncio
async def test_signed_addresses_on_another_host_never_get_the_key() -> None:
    async with (
        RawServer(record(b"audio bytes", content_type="audio/mpeg")) as storage,
        RawServer(record({"data": {"id": "x"}})) as api,
        asyncio.timeout(15),
        Client(api.url, SECRET) as client,
    ):
        await client.transport.send_signed("PUT", f"{storage.url}/bucket/obj?X-Sig=1", content=b"data")
        got = await client.transport.send_signed("GET", f"{storage.url}/bucket/obj?X-Sig=2")
        streamed = await client.transport.signed_client.get(f"{storage.url}/bucket/obj?X-Sig=3")
    assert got.content == b"audio bytes" and streamed.status_code == 200
    assert len(storage.requests) == 3
    assert not any(carries(r.headers, SECRET) for r in storage.requests)
    assert api.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_signed_address_redirecting_elsewhere_does_not_gain_the_key(status: int) -> None:
    async with RawServer(record(b"the file", content_type="application/octet-stream")) as elsewhere:
        target = f"{elsewhere.url}/moved/ep.mp3"
        async with (
            RawServer(record(b"", status, headers={"Location": target})) as signed,
            Client(signed.url, SECRET) as client,
            asyncio.timeout(15),
        ):
            got = await client.transport.send_signed("GET", f"{signed.url}/files/ep.mp3?sig=1")
    assert got.status == 200 and got.content == b"the file"
    assert [r.target for r in elsewhere.requests] == ["/moved/ep.mp3"]
    assert not carries(signed.requests[0].headers, SECRET)
    assert not carries(elsewhere.requests[0].headers, SECRET)


@pytest.mark.asyncio
async def test_a_signed_upload_redirected_elsewhere_keeps_the_body_but_not_the_key() -> None:
    async with (
        RawServer(record(b"")) as elsewhere,
        RawServer(record(b"", 307, headers={"Location": f"{elsewhere.url}/put"})) as signed,
        Client(signed.url, SECRET) as client,
        asyncio.timeout(15),
    ):
        done = await client.transport.send_signed("PUT", f"{signed.url}/up?sig=1", content=b"12345")
    assert done.status == 200
    assert elsewhere.requests[0].method == "PUT" and elsewhere.requests[0].body == b"12345"
    assert not carries(elsewhere.requests[0].headers, SECRET)


@pytest.mark.asyncio
async def test_an_api_redirect_to_another_origin_loses_the_key_even_on_the_same_host() -> None:
    """Same host, other port: another origin."""
    async with RawServer(
        record({"data": {"organization_id": "o", "plan": "pro", "credits": {"balance": 0}}})
    ) as other:
        location = f"{other.url}/v1/account"
        async with (
            RawServer(record(b"", 302, headers={"Location": location})) as api,
            Client(api.url, SECRET) as client,
            asyncio.timeout(15),
        ):
            await client.account.get()
    assert api.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert not carries(other.requests[0].headers, SECRET)


# ---------------------------------------------------------------------------------------------------------
# The sandbox: it refuses a signed request that carries Authorization (400), so success proves absence


@pytest.mark.asyncio
async def test_a_real_upload_sends_the_key_only_to_the_api(sandbox: RunningSandbox, tmp_path: Path) -> None:
    notes = tmp_path / "tide-notes.md"
    notes.write_text("# Tides\n\n" + "The moon pulls the sea; the sea answers twice a day.\n" * 200)
    api_side, signed_side = Recording(), Recording()
    seen_progress: list[tuple[int, int]] = []
    async with (
        asyncio.timeout(30),
        Client(sandbox.base_url, DEMO_KEY, http_transport=api_side, signed_transport=signed_side) as client,
    ):
        source = await client.sources.upload(
            notes, title="Tide notes", progress=lambda sent, total: seen_progress.append((sent, total))
        )
        assert source.id
    assert seen_progress and seen_progress[-1] == (notes.stat().st_size, notes.stat().st_size)
    assert signed_side.seen, "the file went through the credential-free client"
    for method, url, headers in signed_side.seen:
        assert not carries(headers, DEMO_KEY), (method, url)
    base = httpx.URL(sandbox.base_url)
    assert api_side.seen
    for _, url, headers in api_side.seen:
        assert (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port)
        assert headers["authorization"] == f"Bearer {DEMO_KEY}"
    put = [url for method, url, _ in signed_side.seen if method == "PUT"]
    assert len(put) == 1


@pytest.mark.asyncio
async def test_a_real_signed_download_is_fetched_without_the_key(sandbox: RunningSandbox) -> None:
    async with asyncio.timeout(50), Client(sandbox.base_url, DEMO_KEY) as client:
        audio = None
        while audio is None:  # the seeded episodes' audio is rendered in the background
            episodes = await client.episodes.list(limit=100).to_list()
            audio = next((e.audio_url for e in episodes if e.audio_url), None)
            await asyncio.sleep(0 if audio else 0.1)
        assert "/files/" in audio and "signature=" in audio  # a signed address, outside the API
        got = await client.transport.send_signed("GET", audio)
        assert got.status == 200, got.content[:300]
        assert len(got.content) > 1000
    # The sandbox really checks: the same address with the key is refused.
    async with httpx.AsyncClient(timeout=30, verify=SHARED_TLS) as plain:
        with_key = await plain.get(audio, headers={"Authorization": f"Bearer {DEMO_KEY}"})
    assert with_key.status_code == 400


# ---------------------------------------------------------------------------------------------------------
# repr, str, messages and tracebacks


def leaks(obj: object, key: str) -> bool:
    texts = [repr(obj), str(obj)]
    if isinstance(obj, BaseException):
        texts.append("".join(traceback.format_exception(obj)))
        texts += [repr(arg) for arg in obj.args]
    return any(key in text for text in texts)


@pytest.mark.asyncio
async def test_repr_and_str_of_the_client_and_transport_hide_the_key() -> None:
    async with Client("https://api.example.com", SECRET) as client:
        for obj in (
            client,
            client.transport,
            client.transport.policy,
            client.podcasts,
            client.transport.signed_client,
        ):
            assert not leaks(obj, SECRET), obj
        assert SECRET not in repr(vars(client.transport).get("_api"))


@pytest.mark.asyncio
async def test_errors_never_show_the_key(sandbox: RunningSandbox, tmp_path: Path) -> None:
    wrong = "sk_sandbox_wrong_but_secret_000"
    collected: list[CastdeckError] = []
    async with Client(sandbox.base_url, wrong) as client:
        with pytest.raises(UnauthorizedError) as unauthorized:
            await client.account.get()
        collected.append(unauthorized.value)
    async with Client(sandbox.base_url, DEMO_KEY) as client:
        with pytest.raises(NotFoundError) as not_found:
            await client.podcasts.get("00000000-0000-4000-8000-000000000000")
        collected.append(not_found.value)
        with pytest.raises(InputValidationError) as invalid:
            await client.podcasts.create(title="", host_ids=[])
        collected.append(invalid.value)
        with pytest.raises(UploadError) as upload:
            await client.sources.upload(tmp_path / "missing.pdf")
        collected.append(upload.value)
    # No answer at all: a port nobody listens on.
    async with RawServer(record(b"")) as closed:
        url = closed.url
    async with Client(url, SECRET, max_retries=0, timeout=2) as client:
        with pytest.raises(APIConnectionError) as unreachable:
            await client.account.get()
        collected.append(unreachable.value)

    # A hostile server echoing the Authorization header back in an answer that is not JSON.
    async def echo(seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(
            response(200, f"<p>you sent {seen.headers.get('authorization')}</p>", content_type="text/html")
        )

    async with RawServer(echo) as server, Client(server.url, SECRET, max_retries=0) as client:
        with pytest.raises(InvalidResponseError) as hostile:
            await client.account.get()
        collected.append(hostile.value)

    # ... and in an error page, and in a problem's detail and field errors.
    async def echo_error(seen: Seen, writer: asyncio.StreamWriter) -> None:
        sent = seen.headers.get("authorization", "")
        if seen.target.startswith("/v1/account"):
            writer.write(
                response(502, f"<pre>proxy debug: Authorization: {sent}</pre>", content_type="text/html")
            )
        else:
            problem = {"type": "validation_error", "title": f"bad {sent}", "status": 400, "detail": f"key {sent}",
                       "errors": [{"field": "title", "message": f"not {sent}"}]}  # fmt: skip
            writer.write(response(400, problem, content_type="application/problem+json"))

    async with RawServer(echo_error) as server, Client(server.url, SECRET, max_retries=0) as client:
        with pytest.raises(CastdeckError) as proxy_page:
            await client.account.get()
        with pytest.raises(CastdeckError) as echoed_problem:
            await client.podcasts.create(title="Echo", host_ids=["a1b2c3d4"])
        collected += [proxy_page.value, echoed_problem.value]
    assert "proxy debug" in str(proxy_page.value)  # the page is still quoted, without the key
    assert echoed_problem.value.errors[0].message == "not Bearer [redacted]"  # type: ignore[attr-defined]

    for error in collected:
        for key in (wrong, DEMO_KEY, SECRET):
            assert not leaks(error, key), (type(error).__name__, str(error))
    # A connection error keeps only the method and address for diagnosis, never the headers.
    assert unreachable.value.method == "GET" and unreachable.value.url
    assert not hasattr(unreachable.value, "request")
    assert all(SECRET not in str(value) for value in vars(unreachable.value).values())
    assert json.dumps({"error": str(unreachable.value)}).find(SECRET) == -1


class Counting(Recording):
    """A shared transport that counts how often it is closed."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1
        await super().aclose()


@pytest.mark.asyncio
async def test_many_first_users_of_signed_addresses_share_one_client_and_never_close_a_given_transport() -> (
    None
):
    shared = Counting()
    async with (
        RawServer(record(b"cover bytes", content_type="image/png")) as storage,
        RawServer(record({"data": {"id": "x"}})) as api,
        asyncio.timeout(15),
    ):
        client = Client(api.url, SECRET, signed_transport=shared)
        made = await asyncio.gather(*(client.transport.ready_signed_client() for _ in range(8)))
        assert len({id(one) for one in made}) == 1
        assert shared.closed == 0
        got = await made[0].get(f"{storage.url}/covers/a.png?X-Sig=1")
        assert got.content == b"cover bytes"
        await client.aclose()
    assert shared.closed == 1
