"""The client over real loopback HTTP against a server that writes any bytes: broken status lines,
headers h11 must refuse, bodies shorter or longer than announced, chunked encodings that lie, gzip
that is not, JSON cut in half. Fewer cases than the MockTransport fuzz (each one is a real
connection); the outcome rule is the same: a parsed result or a typed castdeck error."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from castdeck.api import CastdeckError, Client
from tests.fuzz import shapes
from tests.fuzz.conftest import SLOW_CASES, cases
from tests.fuzz.headers import CONTENT_TYPE, LINK, REQUEST_ID, RETRY_AFTER, STATUS
from tests.fuzz.hostile import encode
from tests.helpers import RawServer, Seen

KEY = "sk_fuzz_raw_key_0123456789"
CALLS: dict[str, tuple[Callable[[Client], Awaitable[Any]], st.SearchStrategy[Any]]] = {
    "account": (lambda c: c.account.get(), shapes.data(shapes.ACCOUNT)),
    "voices": (lambda c: c.voices.list().to_list(), shapes.page(shapes.VOICE)),
    "status": (lambda c: c.shorts.status("s1"), shapes.data(shapes.MEDIA_STATUS)),
}

STATUS_LINE = st.one_of(
    STATUS.map(lambda code: f"HTTP/1.1 {code} Whatever"),
    st.sampled_from(
        [
            "HTTP/1.0 200 OK",
            "HTTP/1.1 200",
            "HTTP/1.1 abc OK",
            "HTTP/2 200 OK",
            "ICY 200 OK",
            "HTTP/1.1 2000 OK",
            "",
            "HTTP/1.1 200 OK\x00",
            "http/1.1 200 ok",
        ]
    ),
)
HEADER_LINE = st.one_of(
    st.builds("X-{}: {}".format, st.text("abcXYZ-", min_size=1, max_size=6), st.text(max_size=20)),
    st.sampled_from(
        [
            "no colon here",
            ": empty name",
            "Bad Name: x",
            "X-Folded: a\r\n  folded",
            "X-Nul: a\x00b",
            "Content-Length: 5",
            "Content-Length: 5, 6",
            "Transfer-Encoding: gzip, chunked",
            "Content-Encoding: br",
            "Content-Type: text/html",
            "Connection: keep-alive",
        ]
    ),
)


@st.composite
def raw_answer(draw: st.DrawFn, body: st.SearchStrategy[Any]) -> bytes:
    """The bytes a server writes: a status line, headers, a body, each honest or not."""
    content = encode(draw(shapes.answer(body, huge_max=70_000)))
    lines = [draw(STATUS_LINE), "Connection: close"]
    content_type = draw(CONTENT_TYPE)
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    for name, values in (("X-Request-Id", REQUEST_ID), ("Retry-After", RETRY_AFTER), ("Link", LINK)):
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"{name}: {draw(values)}")
    lines += draw(st.lists(HEADER_LINE, max_size=2))
    shape = draw(
        st.sampled_from(
            ["length", "length", "none", "short", "long", "chunked", "bad-chunks", "gzip", "gzip-lie"]
        )
    )
    if shape == "gzip":
        content = gzip.compress(content, compresslevel=1)
    if shape in ("gzip", "gzip-lie"):
        lines.append("Content-Encoding: gzip")
    if shape in ("length", "gzip", "gzip-lie"):
        lines.append(f"Content-Length: {len(content)}")
    elif shape == "short":
        lines.append(f"Content-Length: {len(content) + 10}")  # the connection closes before the end
    elif shape == "long":
        lines.append(f"Content-Length: {max(len(content) // 2, 0)}")  # JSON cut in half
    elif shape == "chunked":
        lines.append("Transfer-Encoding: chunked")
        content = f"{len(content):x}\r\n".encode() + content + b"\r\n0\r\n\r\n"
    elif shape == "bad-chunks":
        lines.append("Transfer-Encoding: chunked")
        content = b"zz\r\n" + content
    head = "\r\n".join(lines) + "\r\n\r\n"
    return head.encode("utf-8", "surrogatepass") + content


@pytest.mark.asyncio
@pytest.mark.parametrize("name", list(CALLS))
@cases(80, suppress=SLOW_CASES)
@given(data=st.data())
async def test_raw_bytes_over_loopback_give_a_result_or_a_typed_error(name: str, data: Any) -> None:
    run, body = CALLS[name]
    answers = data.draw(st.lists(raw_answer(body), min_size=1, max_size=2), label="answers")

    async def handler(seen: Seen, writer: asyncio.StreamWriter) -> None:
        writer.write(
            answers.pop(0)
            if answers
            else b'HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Type: application/json\r\n\r\n{"data":[]}'
        )

    async with asyncio.timeout(60), RawServer(handler) as server:
        client = Client(server.url, KEY, timeout=10.0, max_retries=0)
        try:
            outcome = await run(client)
        except CastdeckError as error:  # anything else escaping is the bug this test is for
            outcome = error
        finally:
            await client.aclose()
    assert KEY not in str(outcome)
