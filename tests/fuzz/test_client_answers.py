"""Every call of the client against a service that answers anything: mutated bodies of the spec's
shapes, random statuses, broken headers, lying encodings, hostile links and addresses.

The service is an ``httpx.MockTransport`` handler: such answers cannot be had from the real sandbox,
so this is the fault injection the rules allow. The only acceptable outcomes of a call are its
parsed result or a :class:`~castdeck.api.CastdeckError`; anything else escaping (``KeyError``,
``TypeError``, a pydantic ``ValidationError``, ``OverflowError``, ``httpx.InvalidURL``) is a bug.
Errors never carry the API key, and their words stay short.
"""

from __future__ import annotations

import functools
import gzip
import json
import tempfile
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from castdeck.api import ApiResponse, CastdeckError, Client
from castdeck.api.downloads import download_to
from castdeck.api.transport import RetryPolicy
from castdeck.services.messages import MESSAGE_LIMIT, error_text
from tests.fuzz import shapes
from tests.fuzz.conftest import cases
from tests.fuzz.headers import BASE_URL, FAILURE, STATUS, SUCCESS, answer_headers
from tests.fuzz.hostile import BODY_STYLES, Json, encode

KEY = "sk_fuzz_secret_key_0123456789"
UUID = "0b7e4a52-9f0e-4c63-9d1e-6f1d2b3c4d5e"
INSTANT = RetryPolicy(max_retries=2, base_delay=0.0, max_delay=0.0, max_retry_after=0.0)
"""Retries as the client makes them, without the waits (a hinted wait is not retried at all)."""
NO_RETRIES = RetryPolicy(max_retries=0, base_delay=0.0, max_delay=0.0, max_retry_after=0.0)
"""No retries by the transport; what retries by itself (completing an upload) does not wait."""
DOWNLOADS = Path(tempfile.mkdtemp(prefix="castdeck-fuzz-"))
NOTES = DOWNLOADS / "notes.txt"
NOTES.write_text("Research notes for an upload.\n", encoding="utf-8")


@dataclass(frozen=True)
class Call:
    name: str
    run: Callable[[Client], Awaitable[Any]]
    body: st.SearchStrategy[Json]
    listing: bool = False
    accepted: bool = False

    def __repr__(self) -> str:  # printed for every case drawn: the name says it
        return f"Call({self.name!r})"


async def every_page(paginator: Any, *, skip_invalid: bool = False) -> list[Any]:
    return [page async for page in paginator.pages(skip_invalid=skip_invalid)]


async def download(client: Client, resource: Any) -> Any:
    """A media download as the app makes it: the download answer, then its signed address."""
    answer = await resource.download(UUID)
    delivery = answer.delivery
    if delivery.kind == "available" and delivery.url:
        target = await download_to(client.transport, delivery.url, DOWNLOADS / "file.mp4")
        target.unlink()
    return answer


async def raw_status(client: Client) -> Any:
    return await client.videos.with_raw_response.status(UUID)


def media_calls(name: str, of: Callable[[Client], Any]) -> list[Call]:
    return [
        Call(f"{name}.options", lambda c: of(c).options(), shapes.data(shapes.MEDIA_OPTIONS)),
        Call(
            f"{name}.list",
            lambda c: every_page(of(c).list(limit=50)),
            shapes.page(shapes.MEDIA_JOB),
            listing=True,
        ),
        Call(f"{name}.get", lambda c: of(c).get(UUID), shapes.data(shapes.MEDIA_JOB)),
        Call(f"{name}.status", lambda c: of(c).status(UUID), shapes.data(shapes.MEDIA_STATUS)),
        Call(f"{name}.retry", lambda c: of(c).retry(UUID), shapes.data(shapes.MEDIA_JOB), accepted=True),
        Call(f"{name}.download", lambda c: download(c, of(c)), shapes.data(shapes.MEDIA_DOWNLOAD)),
    ]


CALLS = [
    Call("account.get", lambda c: c.account.get(), shapes.data(shapes.ACCOUNT)),
    Call("podcasts.list", lambda c: every_page(c.podcasts.list()), shapes.page(shapes.PODCAST), listing=True),
    Call(
        "podcasts.list tolerant",
        lambda c: every_page(c.podcasts.list(), skip_invalid=True),
        shapes.page(shapes.PODCAST),
        listing=True,
    ),
    Call("podcasts.get", lambda c: c.podcasts.get(UUID), shapes.data(shapes.PODCAST)),
    Call(
        "podcasts.create",
        lambda c: c.podcasts.create(title="T", host_ids=["a1b2c3d4"]),
        shapes.data(shapes.PODCAST),
    ),
    Call("podcasts.update", lambda c: c.podcasts.update(UUID, title="T"), shapes.data(shapes.PODCAST)),
    Call("podcasts.analytics", lambda c: c.podcasts.analytics(UUID), shapes.data(shapes.PODCAST_ANALYTICS)),
    Call(
        "episodes.list",
        lambda c: every_page(c.episodes.list(status="draft")),
        shapes.page(shapes.EPISODE),
        listing=True,
    ),
    Call(
        "episodes.list tolerant",
        lambda c: every_page(c.episodes.list(), skip_invalid=True),
        shapes.page(shapes.EPISODE),
        listing=True,
    ),
    Call("episodes.get", lambda c: c.episodes.get(UUID), shapes.data(shapes.EPISODE)),
    Call("episodes.get raw", lambda c: c.episodes.with_raw_response.get(UUID), shapes.data(shapes.EPISODE)),
    Call(
        "episodes.create",
        lambda c: c.episodes.create(podcast_id=UUID, title="T"),
        shapes.data(shapes.EPISODE),
    ),
    Call("episodes.update", lambda c: c.episodes.update(UUID, title="T"), shapes.data(shapes.EPISODE)),
    Call(
        "episodes.generate",
        lambda c: c.episodes.generate(podcast_id=UUID, prompt="a prompt of words"),
        shapes.data(shapes.EPISODE_ACCEPTED),
        accepted=True,
    ),
    Call(
        "episodes.import",
        lambda c: c.episodes.import_script(podcast_id=UUID, script="[A]\nHi."),
        shapes.data(shapes.EPISODE_ACCEPTED),
        accepted=True,
    ),
    Call("episodes.publish", lambda c: c.episodes.publish(UUID), shapes.data(shapes.PUBLISH_RESULT)),
    Call("episodes.unpublish", lambda c: c.episodes.unpublish(UUID), shapes.data(shapes.EPISODE)),
    Call("episodes.delete", lambda c: c.episodes.delete(UUID), shapes.data(shapes.EPISODE)),
    Call("episodes.analytics", lambda c: c.episodes.analytics(UUID), shapes.data(shapes.EPISODE_ANALYTICS)),
    Call("episodes.timestamps", lambda c: c.episodes.timestamps(UUID), shapes.data(shapes.TIMESTAMPS)),
    Call("episodes.subtitles", lambda c: c.episodes.subtitles(UUID, "srt"), shapes.data(shapes.TIMESTAMPS)),
    Call("hosts.list", lambda c: every_page(c.hosts.list(limit=10)), shapes.page(shapes.HOST), listing=True),
    Call("hosts.get", lambda c: c.hosts.get("a1b2c3d4"), shapes.data(shapes.HOST)),
    Call(
        "hosts.create",
        lambda c: c.hosts.create(name="N", backstory="A long enough story.", voice_id=1),
        shapes.data(shapes.HOST),
    ),
    Call("hosts.update", lambda c: c.hosts.update("a1b2c3d4", name="N"), shapes.data(shapes.HOST)),
    Call(
        "voices.list",
        lambda c: every_page(c.voices.list(language="en")),
        shapes.page(shapes.VOICE),
        listing=True,
    ),
    Call("sources.list", lambda c: every_page(c.sources.list()), shapes.page(shapes.SOURCE), listing=True),
    Call("sources.get", lambda c: c.sources.get(UUID), shapes.data(shapes.SOURCE)),
    Call("sources.get raw", lambda c: c.sources.with_raw_response.get(UUID), shapes.data(shapes.SOURCE)),
    Call(
        "sources.create",
        lambda c: c.sources.create(type="url", url="https://example.com/a"),
        shapes.data(shapes.SOURCE),
    ),
    Call("sources.complete_upload", lambda c: c.sources.complete_upload(UUID), shapes.data(shapes.SOURCE)),
    Call("sources.upload", lambda c: c.sources.upload(NOTES), shapes.data(shapes.UPLOAD_RESERVATION)),
    Call(
        "videos.create",
        lambda c: c.videos.create(prompt="a video"),
        shapes.data(shapes.MEDIA_JOB),
        accepted=True,
    ),
    Call("videos.status raw", raw_status, shapes.data(shapes.MEDIA_STATUS)),
    *media_calls("videos", lambda c: c.videos),
    *media_calls("shorts", lambda c: c.shorts),
    *media_calls("voiceovers", lambda c: c.voiceovers),
]


# --- the service ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One answer as drawn (shown in a failure report), made into a fresh response per request."""

    status: int
    headers: dict[str, bytes]
    content: bytes

    def response(self) -> httpx.Response:
        return httpx.Response(self.status, headers=self.headers, stream=httpx.ByteStream(self.content))

    def __repr__(self) -> str:
        body = self.content if len(self.content) <= 300 else self.content[:300] + b"..."
        return f"Answer({self.status}, {self.headers!r}, {body!r} ({len(self.content)} bytes))"


ACCEPTED_STATUS = st.one_of(st.just(202), STATUS)
CODINGS = st.sampled_from(["", "", "", "", "gzip", "deflate", "gzip-lie", "br", "gzip, gzip", "identity"])
LENGTH_LIES = st.sampled_from([b"0", b"1", b"99999999999999999999", b"-1", b"x", "²".encode()])


@st.composite
def api_answer(draw: st.DrawFn, call: Call) -> Answer:
    """One answer to ``call``: a status, its headers, and a body (the call's shape, or an error
    envelope, mutated), encoded honestly or not."""
    status = draw(ACCEPTED_STATUS if call.accepted else STATUS)
    if status >= 400:
        body: Json = draw(shapes.answer(shapes.error_body(status)))
    else:
        body = draw(shapes.answer(call.body))
    headers = draw(answer_headers(link=call.listing, location=call.accepted))
    if isinstance(body, str):
        content = body.encode("utf-8", "surrogatepass")
    else:
        content = encode(body, draw(BODY_STYLES))
    coding = draw(
        st.sampled_from(["", "", "", "", "gzip", "deflate", "gzip-lie", "br", "gzip, gzip", "identity"])
    )
    if coding == "gzip":
        content = gzip.compress(content, compresslevel=1)
    elif coding == "deflate":
        content = zlib.compress(content, 1)
    if coding:
        headers["Content-Encoding"] = coding.removesuffix("-lie").encode()
    if draw(st.integers(0, 12)) == 0:  # a Content-Length that is not the body's
        headers["Content-Length"] = draw(
            st.sampled_from([b"0", b"1", b"99999999999999999999", b"-1", b"x", "²".encode()])
        )
    return Answer(status, headers, content)


@st.composite
def file_answer(draw: st.DrawFn) -> Answer:
    """What a signed download address answers: the file, an error page, a redirect."""
    status = draw(st.one_of(SUCCESS, FAILURE, st.sampled_from([301, 302, 307])))
    headers: dict[str, bytes] = {}
    if status in (301, 302, 307):
        location = draw(
            st.sampled_from(["/elsewhere", "http://[::1", "https://cdn.example.com/f", "", "http://a:99999/"])
        )
        headers["Location"] = location.encode()
    if draw(st.booleans()):
        headers["Content-Length"] = draw(st.sampled_from([b"3", b"0", b"12345", b"x", "²".encode()]))
    return Answer(status, headers, draw(st.binary(max_size=40)))


FILES = st.lists(file_answer(), min_size=1, max_size=3)


@functools.cache
def answers_to(call: Call) -> st.SearchStrategy[list[Answer]]:
    """The answers of one case: a list may read up to three pages, a call may be retried once."""
    return st.lists(api_answer(call), min_size=1, max_size=3 if call.listing else 2)


class Service:
    """Answers the requests of one case in order; after the drawn answers a list gets its last page
    (an empty one), and any other call the same last answer again. Signed addresses (no key)
    get file answers."""

    def __init__(self, answers: list[Answer], files: list[Answer]) -> None:
        self.answers = answers
        self.files = files
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if len(self.requests) > 50:
            raise AssertionError("a single call made more than 50 requests")
        if "authorization" not in request.headers:
            return self.files.pop(0).response() if self.files else Answer(200, {}, b"end").response()
        if self.answers:
            return self.answers.pop(0).response()
        last = httpx.ByteStream(b'{"data": []}')
        return httpx.Response(200, headers={"content-type": "application/json"}, stream=last)


def storable(model: Any) -> bool:
    """Whether a model can be kept as the cache keeps it (JSON, then UTF-8 text)."""
    try:
        json.dumps(model.model_dump(mode="json"), ensure_ascii=False).encode()
    except (ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    return isinstance(model, BaseModel)


def what_is_wrong(call: Call, outcome: Any) -> str | None:
    """What breaks the rule in a call's outcome (None when nothing does): a typed error must not
    quote the key and must read short; a result must be what the call promises, and every model
    in it storable."""
    if isinstance(outcome, CastdeckError):
        if KEY in str(outcome) or KEY in repr(outcome):
            return f"the error quotes the API key: {outcome!r:.300}"
        if len(error_text(outcome)) > MESSAGE_LIMIT + 20:
            return f"the error's words are not clipped: {len(error_text(outcome))} characters"
        return None
    if isinstance(outcome, ApiResponse):
        waits = outcome.retry_after is None or 0 <= outcome.retry_after < float("inf")
        return None if waits and storable(outcome.data) else f"a broken raw answer: {outcome!r:.300}"
    if call.listing:
        readable = all(storable(item) for page in outcome for item in page.items)
        said = all(isinstance(reason, str) and reason for page in outcome for reason in page.skipped)
        return None if readable and said else f"pages of something else: {outcome!r:.300}"
    if outcome is None or isinstance(outcome, str):  # delete answers nothing; subtitles are text
        return None
    data = getattr(outcome, "data", outcome)  # an Accepted carries its model in data
    return None if storable(data) else f"not a storable model: {outcome!r:.300}"


GROUPS = {
    "account and podcasts": ("account.", "podcasts."),
    "episodes": ("episodes.",),
    "hosts, voices and sources": ("hosts.", "voices.", "sources."),
    "videos": ("videos.",),
    "shorts": ("shorts.",),
    "voiceovers": ("voiceovers.",),
}
CASES_PER_CALL = 70


def calls_of(group: str) -> list[Call]:
    return [call for call in CALLS if call.name.startswith(GROUPS[group])]


def test_every_call_is_in_a_group() -> None:
    assert sorted(call.name for group in GROUPS for call in calls_of(group)) == sorted(c.name for c in CALLS)


def fuzz_group(group: str) -> Any:
    """The test of one group of calls: about :data:`CASES_PER_CALL` cases for each of its calls."""

    @pytest.mark.asyncio
    @cases(CASES_PER_CALL * len(calls_of(group)))
    @given(data=st.data(), retries=st.booleans())
    async def test(data: Any, retries: bool) -> None:
        call = data.draw(st.sampled_from(calls_of(group)), label="call")
        answers = data.draw(answers_to(call), label="answers")
        files = data.draw(FILES, label="files") if call.name.endswith(("download", "upload")) else []
        transport = httpx.MockTransport(Service(answers, files))
        client = Client(BASE_URL, KEY, max_retries=0, http_transport=transport, signed_transport=transport)
        client.transport.policy = INSTANT if retries else NO_RETRIES
        try:
            outcome = await call.run(client)
        except CastdeckError as error:  # anything else escaping is the bug this test is for
            outcome = error
        finally:
            await client.aclose()
        assert what_is_wrong(call, outcome) is None, what_is_wrong(call, outcome)

    return test


test_account_and_podcasts_calls = fuzz_group("account and podcasts")
test_episodes_calls = fuzz_group("episodes")
test_hosts_voices_and_sources_calls = fuzz_group("hosts, voices and sources")
test_videos_calls = fuzz_group("videos")
test_shorts_calls = fuzz_group("shorts")
test_voiceovers_calls = fuzz_group("voiceovers")
