"""The client's parsing and decisions, without a network: variant shapes, both error envelopes,
hostile bodies, Retry-After, Link headers, retry decisions and the transport's refusals."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from castdeck.api import errors
from castdeck.api.errors import (
    ApiError,
    BadGatewayError,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceUnavailableError,
    UnauthorizedError,
    UnprocessableError,
    error_from_response,
    parse_retry_after,
)
from castdeck.api.models import (
    Episode,
    Host,
    ListEnvelope,
    Voice,
    is_valid_idempotency_key,
)
from castdeck.api.pagination import AsyncPaginator, Page, parse_link_header
from castdeck.api.transport import RetryPolicy, Transport, new_idempotency_key

# ---------------------------------------------------------------------------------------------------------
# Variant shapes of the resources


def variant_episode(**extra: Any) -> dict[str, Any]:
    return {
        "id": "7f1c8a52-4a39-4f7e-9d36-0a4a2f7f1e11",
        "podcast_id": "0b3c1d2e-1111-4222-8333-944455556666",
        "status": "generating",
        "title": "Episode one",
        "duration": 612.5,
        "error_message": "the narration failed halfway",
        "generation": {"state": "generating", "phase": "synthesising", "progress_pct": 42.5},
        **extra,
    }


def test_the_variant_episode_shape_parses_and_keeps_every_field() -> None:
    episode = Episode.model_validate(variant_episode(mood="upbeat", chapters=[{"t": 1}]))
    assert episode.status == "generating"
    assert episode.duration == 612.5
    assert episode.error_message == "the narration failed halfway"
    assert episode.generation is not None
    assert episode.generation.phase == "synthesising"
    assert episode.generation.progress_pct == 42.5
    assert episode.model_extra == {"mood": "upbeat", "chapters": [{"t": 1}]}
    # Round trip: nothing the service sent is lost.
    assert episode.model_dump(exclude_unset=True)["mood"] == "upbeat"


def test_integer_duration_and_integer_progress_are_kept_as_numbers() -> None:
    data = variant_episode(duration=600)
    data["generation"]["progress_pct"] = 7
    episode = Episode.model_validate(data)
    assert episode.duration == 600 and isinstance(episode.duration, int)
    assert episode.generation is not None and episode.generation.progress_pct == 7


def test_unknown_enum_values_are_kept_as_given() -> None:
    episode = Episode.model_validate(
        variant_episode(status="archived_by_moderator", generation={"state": "queued_somewhere"})
    )
    assert episode.status == "archived_by_moderator"
    assert episode.generation is not None and episode.generation.state == "queued_somewhere"
    voice = Voice.model_validate({"id": 3, "gender": "nonbinary", "voice_type": "synthetic_v9"})
    assert (voice.gender, voice.voice_type) == ("nonbinary", "synthetic_v9")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(12, 12), ("12", 12), (" 7 ", 7), ("voice_alloy", "voice_alloy"), ("v-9f", "v-9f")],
)
def test_a_voice_id_may_arrive_as_a_string(raw: object, expected: object) -> None:
    voice = Voice.model_validate({"id": raw, "language": "en", "new_field": True})
    assert voice.id == expected
    assert voice.model_extra == {"new_field": True}


@pytest.mark.parametrize("host_id", ["a1b2c3d4", "host_guest_01", "Z-99", "x" * 40])
def test_host_ids_need_not_be_eight_hex_characters(host_id: str) -> None:
    host = Host.model_validate({"id": host_id, "name": "Ada", "voice_id": "5", "voice": {"id": "5"}})
    assert host.id == host_id
    assert host.voice_id == 5
    assert host.voice is not None and host.voice.id == 5


def test_a_list_with_a_body_pagination_object_parses() -> None:
    envelope = ListEnvelope[Episode].model_validate(
        {
            "data": [variant_episode(), variant_episode(id="second")],
            "pagination": {"has_more": True, "next_cursor": "c_2", "total_estimate": 40},
        }
    )
    assert [e.id for e in envelope.data][1] == "second"
    assert envelope.pagination is not None
    assert (envelope.pagination.has_more, envelope.pagination.next_cursor) == (True, "c_2")
    assert envelope.pagination.model_extra == {"total_estimate": 40}


async def first_page(body: str, headers: dict[str, str] | None = None) -> Page[Episode]:
    """The first page of a list whose server answers 200 with ``body`` (the sandbox only sends the
    documented shape, so the odd ones come from a stand-in server)."""

    def answer(request: httpx.Request) -> httpx.Response:
        # a stream, not content: an answer as it comes off the network, not read yet
        answered = {"content-type": "application/json", **(headers or {})}
        return httpx.Response(200, headers=answered, stream=httpx.ByteStream(body.encode()))

    transport = Transport(
        "https://api.test", "sk_test_key", max_retries=0, http_transport=httpx.MockTransport(answer)
    )
    try:
        return await AsyncPaginator(transport, "/v1/episodes", Episode, {"limit": 2}).first_page()
    finally:
        await transport.aclose()


@pytest.mark.asyncio
async def test_a_page_follows_the_body_cursor_when_there_is_no_link_header() -> None:
    body = {"data": [variant_episode()], "pagination": {"has_more": True, "next_cursor": "c_2"}}
    page = await first_page(json.dumps(body), {"x-request-id": "req_1"})
    assert [e.status for e in page.items] == ["generating"]
    assert (page.next_url, page.next_cursor, page.request_id) == (None, "c_2", "req_1")
    assert page.has_more


@pytest.mark.asyncio
async def test_the_link_header_wins_over_the_body_cursor_and_has_more_false_stops() -> None:
    body = {"data": [], "pagination": {"has_more": True, "next_cursor": "c_body"}}
    link = {"link": '<https://api.test/v1/episodes?cursor=c_link>; rel="next"'}
    page = await first_page(json.dumps(body), link)
    assert (page.next_url, page.next_cursor) == ("https://api.test/v1/episodes?cursor=c_link", None)
    done = {"data": [], "pagination": {"has_more": False, "next_cursor": "stale"}}
    page = await first_page(json.dumps(done))
    assert not page.has_more


@pytest.mark.asyncio
@pytest.mark.parametrize("body", ['{"data": "x"}', '{"items": []}', "[]", '{"data": [{"no_id": 1}]}'])
async def test_a_list_body_that_is_not_the_documented_shape_is_an_invalid_response(body: str) -> None:
    with pytest.raises(InvalidResponseError) as caught:
        await first_page(body, {"x-request-id": "req_9"})
    assert caught.value.status == 200 and caught.value.request_id == "req_9"


# ---------------------------------------------------------------------------------------------------------
# Error answers


def error_of(status: int, body: bytes | str, headers: dict[str, str] | None = None) -> ApiError:
    content = body.encode() if isinstance(body, str) else body
    return error_from_response(status, content, httpx.Headers(headers or {}))


def test_a_problem_json_422_carries_every_field() -> None:
    problem = {
        "type": "unresolved_speakers",
        "title": "Some speakers are not characters",
        "status": 422,
        "detail": "Two labels match no character.",
        "reason": "unresolved_speakers",
        "speakers": ["ALICE", "NARRATOR"],
        "recovery": {"action": "map_speakers", "idempotency_key": "k-1", "poll_after_seconds": 3},
        "errors": [{"field": "script", "message": "unknown speaker"}],
        "request_id": "req_body",
        "documentation": "https://docs.invalid/x",
    }
    error = error_of(422, json.dumps(problem), {"X-Request-Id": "req_header"})
    assert type(error) is UnprocessableError
    assert error.status == 422
    assert error.type == error.code == "unresolved_speakers"
    assert error.title == "Some speakers are not characters"
    assert error.detail == "Two labels match no character."
    assert error.reason == "unresolved_speakers"
    assert error.speakers == ["ALICE", "NARRATOR"]
    assert error.recovery is not None and error.recovery.action == "map_speakers"
    assert error.recovery.poll_after_seconds == 3
    assert [(e.field, e.message) for e in error.errors] == [("script", "unknown speaker")]
    assert error.fields == ["script"]
    assert error.request_id == "req_body"  # the body's id wins; the header is the fallback
    assert error.problem.model_extra == {"documentation": "https://docs.invalid/x"}
    assert "req_body" in str(error) and "Two labels" in str(error)


def test_the_older_error_envelope_maps_code_and_details() -> None:
    body = {
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "title is too long",
            "request_id": "req_legacy",
            "details": [{"field": "title", "message": "at most 255 characters"}, {"field": "image"}],
        }
    }
    error = error_of(400, json.dumps(body), {"X-Request-Id": "req_header"})
    assert type(error) is BadRequestError
    assert error.status == 400
    assert error.type == error.code == "validation_error"
    assert error.detail == "title is too long"
    assert error.request_id == "req_legacy"
    assert [(e.field, e.message) for e in error.errors] == [
        ("title", "at most 255 characters"),
        ("image", "invalid value"),
    ]


def test_the_older_envelope_without_a_request_id_takes_the_header() -> None:
    error = error_of(404, json.dumps({"error": {"code": "not_found", "message": "no such episode"}}),
                     {"X-Request-Id": "req_h"})  # fmt: skip
    assert type(error) is NotFoundError
    assert (error.code, error.detail, error.request_id, error.errors) == (
        "not_found", "no such episode", "req_h", [],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("status", "body", "cls"),
    [
        (500, "<html><body><h1>Internal Server Error</h1></body></html>", ServerError),
        (502, "<!doctype html><title>502 Bad Gateway</title>", BadGatewayError),
        (503, '{"type": "unavailable", "title": "Serv', ServiceUnavailableError),  # truncated JSON
        (504, b"\xff\xfe\x00garbage", ServiceUnavailableError),
        (401, "Unauthorized", UnauthorizedError),
    ],
)
def test_a_body_that_is_not_json_still_gives_the_typed_error_with_its_status(
    status: int, body: str | bytes, cls: type[ApiError]
) -> None:
    error = error_of(status, body, {"X-Request-Id": "req_html"})
    assert type(error) is cls
    assert error.status == status
    assert error.request_id == "req_html"
    assert error.detail is not None and "not JSON" in error.detail
    assert error.errors == [] and error.speakers == [] and error.recovery is None and error.reason is None


@pytest.mark.parametrize(
    ("status", "cls"),
    [(400, BadRequestError), (403, ForbiddenError), (409, ConflictError), (429, RateLimitedError),
     (500, ServerError), (418, BadRequestError), (599, ServerError)],
)  # fmt: skip
def test_an_empty_body_gives_the_class_of_the_status(status: int, cls: type[ApiError]) -> None:
    error = error_of(status, b"", {"X-Request-Id": "req_empty"})
    assert type(error) is cls
    assert isinstance(error, ApiError)
    assert error.status == status and error.request_id == "req_empty"
    assert error.detail is None and error.title == f"HTTP {status}"


def test_an_unresolved_acceptance_names_its_resource() -> None:
    problem = {
        "status": 409,
        "title": "Conflict",
        "type": "conflict",
        "detail": "A request with this Idempotency-Key is still being accepted.",
        "recovery": {"action": "poll_content", "idempotency_key": "reuse", "poll_after_seconds": 0.02},
        "resource_id": "7f1c8a52-4a39-4f7e-9d36-0a4a2f7f1e11",
        "request_id": "req_409",
    }
    error = error_of(409, json.dumps(problem))
    assert type(error) is ConflictError
    assert error.resource_id == "7f1c8a52-4a39-4f7e-9d36-0a4a2f7f1e11"
    assert error.recovery is not None and error.recovery.action == "poll_content"
    assert error.recovery.idempotency_key == "reuse"


@pytest.mark.parametrize(
    "extra",
    [{}, {"resource_id": None}, {"resource_id": ""}, {"resource_id": 42}, {"resource_id": ["a"]}],
)
def test_a_problem_without_a_usable_resource_id_has_none(extra: dict[str, Any]) -> None:
    body = {"status": 409, "title": "Conflict", "type": "conflict", **extra}
    assert error_of(409, json.dumps(body)).resource_id is None
    # the older envelope has no extension members at all
    legacy = {"error": {"code": "conflict", "message": "in use"}}
    assert error_of(409, json.dumps(legacy)).resource_id is None


def test_a_json_array_body_gives_the_typed_error() -> None:
    error = error_of(409, '[{"type": "conflict"}]', {"X-Request-Id": "req_arr"})
    assert type(error) is ConflictError
    assert (error.status, error.type, error.request_id) == (409, "conflict", "req_arr")


def test_a_body_status_that_disagrees_with_http_loses_to_http() -> None:
    body = {"type": "not_found", "title": "Not found", "status": 200, "detail": "gone"}
    error = error_of(404, json.dumps(body))
    assert type(error) is NotFoundError
    assert error.status == 404 and error.problem.status == 404
    assert error.detail == "gone" and error.request_id is None
    error = error_of(503, json.dumps({"title": "x", "type": "t", "status": "five hundred"}))
    assert type(error) is ServiceUnavailableError and error.status == 503


def test_a_rate_limited_error_exposes_retry_after() -> None:
    error = error_of(429, json.dumps({"type": "rate_limited", "title": "Slow down", "status": 429}),
                     {"Retry-After": "7"})  # fmt: skip
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == 7.0


# ---------------------------------------------------------------------------------------------------------
# Retry-After


def test_retry_after_in_seconds() -> None:
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after("2.5") == 2.5


def test_retry_after_as_an_http_date() -> None:
    future = datetime.now(UTC) + timedelta(seconds=30)
    seconds = parse_retry_after(format_datetime(future, usegmt=True))
    assert seconds is not None and 27 <= seconds <= 31
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: now


@pytest.mark.parametrize("value", [None, "", "soon", "1e400", "nan", "inf", "-3", "-0.5", "Mon, 99 Foo"])
def test_retry_after_garbage_and_negative_values_are_unusable(value: str | None) -> None:
    assert parse_retry_after(value) is None


def test_a_huge_retry_after_is_reported_but_not_waited_for() -> None:
    huge = parse_retry_after("86400000")
    assert huge == 86_400_000.0
    policy = RetryPolicy()
    assert not policy.should_retry_status(503, huge)
    assert policy.delay(0, huge) <= policy.max_retry_after


# ---------------------------------------------------------------------------------------------------------
# Link header


def test_a_single_next_link() -> None:
    assert parse_link_header('<https://api.test/v1/podcasts?cursor=abc>; rel="next"') == {
        "next": "https://api.test/v1/podcasts?cursor=abc"
    }


def test_several_header_values_and_several_links_in_one_value() -> None:
    values = [
        '<https://api.test/v1/x?page=1>; rel="first", <https://api.test/v1/x?page=1>; rel="prev"',
        '<https://api.test/v1/x?page=3>; rel="next", <https://api.test/v1/x?page=9>; rel="last"',
    ]
    assert parse_link_header(values) == {
        "first": "https://api.test/v1/x?page=1",
        "prev": "https://api.test/v1/x?page=1",
        "next": "https://api.test/v1/x?page=3",
        "last": "https://api.test/v1/x?page=9",
    }


def test_a_rel_with_several_tokens_unquoted_rel_and_case() -> None:
    assert parse_link_header('<https://a.test/2>; rel="next last"') == {
        "next": "https://a.test/2",
        "last": "https://a.test/2",
    }
    assert parse_link_header("<https://a.test/2>;rel=next") == {"next": "https://a.test/2"}
    assert parse_link_header('<https://a.test/2>; REL="Next"') == {"next": "https://a.test/2"}


def test_commas_and_semicolons_inside_urls_and_quoted_parameters() -> None:
    header = (
        '<https://a.test/v1/x?ids=1,2;3&q=a;b>; title="page 2, the; next"; rel="next", '
        '<https://a.test/v1/x?ids=0>; rel="prev"'
    )
    assert parse_link_header(header) == {
        "next": "https://a.test/v1/x?ids=1,2;3&q=a;b",
        "prev": "https://a.test/v1/x?ids=0",
    }


def test_the_first_link_of_a_rel_wins() -> None:
    assert parse_link_header('<https://a.test/1>; rel="next", <https://a.test/2>; rel="next"') == {
        "next": "https://a.test/1"
    }


@pytest.mark.parametrize(
    "value", [None, "", [], "garbage", '<https://a.test/1>; rel="prev"', "<https://a.test/1>", "rel=next"]
)
def test_no_next_link(value: Any) -> None:
    assert "next" not in parse_link_header(value)


# ---------------------------------------------------------------------------------------------------------
# Retry decisions


def test_reads_and_keyed_writes_are_retryable_unkeyed_writes_never() -> None:
    policy = RetryPolicy()
    assert policy.retryable("GET", None)
    assert policy.retryable("head", None)
    for method in ("POST", "PATCH", "DELETE", "PUT"):
        assert not policy.retryable(method, None), method
    assert policy.retryable("POST", "castdeck-key-1")
    assert policy.retryable("PATCH", "castdeck-key-1")


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_transient_statuses_are_retried(status: int) -> None:
    policy = RetryPolicy()
    assert policy.should_retry_status(status, None)
    assert policy.should_retry_status(status, 2.0)
    assert policy.should_retry_status(status, policy.max_retry_after)


@pytest.mark.parametrize("status", [200, 400, 401, 403, 404, 409, 422, 500, 501])
def test_other_statuses_are_not_retried(status: int) -> None:
    assert not RetryPolicy().should_retry_status(status, None)
    assert not RetryPolicy().should_retry_status(status, 1.0)


def test_a_retry_after_beyond_the_cap_means_no_retry() -> None:
    policy = RetryPolicy(max_retry_after=10.0)
    assert policy.should_retry_status(429, 10.0)
    assert not policy.should_retry_status(429, 10.01)
    assert not policy.should_retry_status(503, 3600.0)


def test_retry_after_sets_the_delay_exactly() -> None:
    policy = RetryPolicy()
    assert policy.delay(0, 1.0) == 1.0
    assert policy.delay(5, 0.0) == 0.0
    assert policy.delay(2, 3.5) == 3.5


def test_backoff_grows_is_capped_and_jittered_within_bounds() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=8.0)
    for attempt in range(12):
        ceiling = min(8.0, 0.5 * 2**attempt)
        delays = [policy.delay(attempt) for _ in range(200)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays), (attempt, min(delays), max(delays))
        assert len(set(delays)) > 100  # jitter: not one fixed value
    assert max(policy.delay(30) for _ in range(100)) <= 8.0


# ---------------------------------------------------------------------------------------------------------
# Transport construction and idempotency keys


@pytest.mark.parametrize(
    "url",
    ["http://api.example.com", "http://10.0.0.5:8080", "http://192.168.1.1", "http://localhost.evil.com"],
)
def test_plain_http_to_a_remote_host_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="plain http"):
        Transport(url, "sk_secret_value")


@pytest.mark.parametrize(
    "url",
    ["https://api.example.com", "http://127.0.0.1:8000", "http://localhost:9", "http://[::1]:80", "http://127.8.9.10",
     "http://app.localhost"],
)  # fmt: skip
def test_https_and_loopback_http_are_accepted(url: str) -> None:
    transport = Transport(url, "sk_secret_value")
    assert transport.base_url == url.rstrip("/")


@pytest.mark.parametrize(
    "url", ["ftp://api.example.com", "api.example.com", "https://", "file:///etc/passwd"]
)
def test_a_base_url_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        Transport(url, "sk_secret_value")


@pytest.mark.parametrize("key", ["", " ", "sk with space", "sk_tab\t", "sk_newline\r\nX-Evil: 1", "sk_\x00"])
def test_bad_keys_are_refused_without_echoing_them(key: str) -> None:
    with pytest.raises(ValueError) as caught:
        Transport("https://api.example.com", key)
    if key.strip():
        assert key not in str(caught.value)


def test_new_idempotency_keys_are_valid_and_unique() -> None:
    keys = {new_idempotency_key() for _ in range(1000)}
    assert len(keys) == 1000
    assert all(is_valid_idempotency_key(k) for k in keys)
    assert all(len(k) <= 255 and " " not in k for k in keys)


def test_every_error_class_is_exported_and_typed() -> None:
    for name in errors.__all__:
        assert hasattr(errors, name)
    assert issubclass(ServiceUnavailableError, ServerError)
    assert issubclass(BadGatewayError, ServerError)
    assert issubclass(errors.APITimeoutError, errors.APIConnectionError)
