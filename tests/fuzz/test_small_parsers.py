"""The small readers of what the service sends, fed hostile input: error envelopes (both shapes),
``Retry-After``, ``RateLimit-*``, ``Link``, word timestamps, the words an error becomes, and the
display helpers the panes put service values through. None may raise; each keeps its promise
(finite waits, a clipped message, sorted words)."""

from __future__ import annotations

import csv
import math
import tempfile
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from castdeck.api import (
    APIConnectionError,
    ApiError,
    CastdeckError,
    InputValidationError,
    InvalidResponseError,
    RequestBudget,
    UploadError,
    wire_json,
)
from castdeck.api.budget import MAX_PAUSE, MIN_RATE, parse_rate_limit
from castdeck.api.errors import error_from_response, parse_retry_after, problem_from_body
from castdeck.api.models import FieldError, PodcastAnalytics
from castdeck.api.pagination import parse_link_header
from castdeck.api.polling import StillRunning
from castdeck.api.retry import MAX_RETRY_AFTER, backoff_delay
from castdeck.api.transport import RetryPolicy
from castdeck.services.analytics import EpisodeLine, PodcastFigures
from castdeck.services.analytics_export import (
    APP_HEADER,
    EPISODE_HEADER,
    FORMULA_STARTS,
    app_rows,
    episode_rows,
    write_csv,
)
from castdeck.services.messages import MESSAGE_LIMIT, error_text, problem_text
from castdeck.services.safe_html import KEPT, MAX_DEPTH, MAX_TABLE_DEPTH, TEXT_LIMIT, safe_html
from castdeck.transcript import FORMATS, export, normalise
from castdeck.ui.widgets import describe_error
from tests.fuzz import shapes
from tests.fuzz.conftest import cases
from tests.fuzz.headers import FAILURE, LINK, RATE_LIMIT, RETRY_AFTER
from tests.fuzz.hostile import (
    BODY_STYLES,
    HTML,
    ODD_TEXT,
    encode,
    hostile_values,
    huge_strings,
    mutated,
    nested_tables,
)

MEGABYTE_MESSAGE = "x" * 1_000_000
LONG = st.one_of(ODD_TEXT, huge_strings(70_000), st.text(max_size=30))  # a megabyte: in @example


def finite_wait(value: float | None, most: float = math.inf) -> bool:
    return value is None or (math.isfinite(value) and 0.0 <= value <= most)


def header_bytes(headers: dict[str, str]) -> httpx.Headers:
    """Headers as they arrive: bytes, any character (httpx decodes what it reads)."""
    return httpx.Headers({k: v.encode("utf-8", "surrogatepass") for k, v in headers.items()})


# --- error envelopes ----------------------------------------------------------------------------------------


@st.composite
def error_answers(draw: st.DrawFn) -> tuple[int, bytes, httpx.Headers]:
    status = draw(FAILURE)
    body = draw(mutated(shapes.error_body(status), huge_max=1_000_000))
    content = (
        body.encode("utf-8", "surrogatepass") if isinstance(body, str) else encode(body, draw(BODY_STYLES))
    )
    if draw(st.integers(0, 9)) == 0:
        content = draw(st.binary(max_size=60))  # not JSON, not even text
    headers = {"x-request-id": draw(st.text(max_size=8)).encode("utf-8", "surrogatepass")}
    if draw(st.booleans()):
        headers[b"retry-after"] = draw(RETRY_AFTER).encode("utf-8", "surrogatepass")  # type: ignore[index]
    return status, content, httpx.Headers(headers)


@cases(700)
@given(error_answers())
@example(
    (
        422,
        b'{"status": 422, "title": "t", "type": "x", "detail": "' + b"d" * 1_000_000 + b'"}',
        httpx.Headers(),
    )
)
@example((429, b"{}", httpx.Headers({"retry-after": "Mon, 01 Jan 99999999999999999999 00:00:00 GMT"})))
@example((400, b'{"error": {"code": "\\ud800", "message": NaN}}', httpx.Headers()))
def test_any_error_answer_is_a_typed_error_with_a_short_message(
    answer: tuple[int, bytes, httpx.Headers],
) -> None:
    status, content, headers = answer
    error = error_from_response(status, content, headers)
    assert isinstance(error, ApiError) and error.status == status
    assert finite_wait(error.retry_after)
    assert error.resource_id is None or isinstance(error.resource_id, str)
    text = error_text(error)
    assert 0 < len(text) <= MESSAGE_LIMIT + 20, len(text)
    shown, request_id = describe_error(error)
    assert shown == text and (request_id is None or isinstance(request_id, str))


@cases(600)
@given(status=st.integers(100, 999), body=hostile_values(70_000) | mutated(shapes.problem(422)))
def test_any_decoded_body_gives_a_problem(status: int, body: Any) -> None:
    problem = problem_from_body(status, body, httpx.Headers({"x-request-id": "req"}))
    assert problem.status == status and isinstance(problem.title, str) and isinstance(problem.type, str)


# --- waits the service asks for -----------------------------------------------------------------------------


@cases(1200)
@given(value=st.none() | RETRY_AFTER, attempt=st.integers(-5, 100))
@example(value="Mon, 01 Jan 99999999999999999999 00:00:00 GMT", attempt=0)
@example(value="Fri, 31 Dec 9999 23:59:59 -2359", attempt=0)
@example(value="1e400", attempt=10**6)
def test_retry_after_is_a_finite_wait_or_nothing(value: str | None, attempt: int) -> None:
    seconds = parse_retry_after(value)
    assert finite_wait(seconds)
    policy = RetryPolicy()
    assert finite_wait(policy.delay(attempt, seconds), policy.max_retry_after + policy.max_delay)
    assert finite_wait(backoff_delay(attempt, seconds), MAX_RETRY_AFTER + 30.0)


@cases(700)
@given(status=st.sampled_from([200, 429, 503]), headers=RATE_LIMIT, retry_after=RETRY_AFTER)
def test_rate_limit_headers_never_stop_or_flood_the_budget(
    status: int, headers: dict[str, str], retry_after: str
) -> None:
    parsed = parse_rate_limit(header_bytes(headers))
    assert all(finite_wait(value) for value in parsed)
    clock = [1000.0]
    budget = RequestBudget(clock=lambda: clock[0])
    budget.observe(status, header_bytes(headers), parse_retry_after(retry_after))
    assert MIN_RATE <= budget.current_rate <= budget.rate
    assert 0.0 <= budget.paused_for <= MAX_PAUSE


@cases(1000)
@given(st.lists(LINK, max_size=3) | LINK | st.none())
@example('<http://[::1>; rel="next"')
@example("<a>" * 20_000 + '; rel="next"')
def test_any_link_header_parses_to_addresses(values: Any) -> None:
    links = parse_link_header(values)
    joined = "".join(values) if isinstance(values, list) else values or ""
    for rel, url in links.items():
        assert rel and rel == rel.lower() and isinstance(url, str) and url in joined


# --- word timestamps ----------------------------------------------------------------------------------------


@cases(600)
@given(
    mutated(shapes.TIMESTAMPS, huge_max=70_000).filter(lambda p: isinstance(p, dict | list)),
    st.sampled_from(FORMATS),
)
@example({"words": [{"start": 1e308, "end": float("inf"), "text": "x"}]}, "srt")
@example(
    {"speakers": ["\ud800"], "words": [{"start": "nan", "end": None, "speaker": 0, "text": " a\x00 b "}]},
    "vtt",
)
def test_word_timestamps_normalise_to_sane_words(payload: Any, fmt: str) -> None:
    transcript = normalise(payload)
    starts = [word.start for word in transcript.words]
    assert starts == sorted(starts)
    for word in transcript.words:
        assert math.isfinite(word.start) and math.isfinite(word.end) and 0 <= word.start <= word.end
        assert word.text and word.text == " ".join(word.text.split())
        assert word.speaker is None or 0 <= word.speaker < len(transcript.speakers)
    assert sum(turn.last - turn.first for turn in transcript.turns()) == len(transcript.words)
    assert isinstance(export(transcript, fmt), str)


@cases(100)
@given(hostile_values(5_000).filter(lambda p: not isinstance(p, dict | list)))
def test_word_timestamps_that_are_neither_object_nor_list_are_refused(payload: Any) -> None:
    with pytest.raises(ValueError, match="must be an object or a list"):
        normalise(payload)


# --- the words an error becomes -----------------------------------------------------------------------------


@st.composite
def errors(draw: st.DrawFn) -> BaseException:
    text = draw(LONG)
    kind = draw(
        st.sampled_from(["api", "invalid", "connection", "upload", "input", "still", "castdeck", "bug"])
    )
    many = draw(st.sampled_from([0, 1, 2, 500]))  # hundreds of field errors come with short words
    word = draw(st.text(max_size=10)) if many > 2 else text
    if kind == "api":
        body = {"status": 400, "title": text, "type": "validation_error", "detail": draw(LONG),
                "errors": [{"field": word, "message": word}] * many}  # fmt: skip
        return error_from_response(400, encode(body), header_bytes({"x-request-id": draw(LONG)}))
    if kind == "invalid":
        return InvalidResponseError(text, status=200, request_id=draw(LONG))
    if kind == "connection":
        return APIConnectionError(text)
    if kind == "upload":
        return UploadError(text or "x", path=draw(LONG))
    if kind == "input":
        return InputValidationError([FieldError(field=word, message=word)] * max(many, 1))
    if kind == "still":
        return StillRunning(text, waited=draw(st.floats(0, 1e9)), last_error=RuntimeError(draw(LONG)))
    if kind == "castdeck":
        return CastdeckError(text)
    return RuntimeError(text)


@cases(500)
@given(errors())
@example(InvalidResponseError(MEGABYTE_MESSAGE, status=200, request_id="req"))
@example(UploadError(MEGABYTE_MESSAGE))
def test_an_error_becomes_a_short_message(error: BaseException) -> None:
    text = error_text(error)
    assert 0 < len(text) <= MESSAGE_LIMIT + 20, len(text)  # the clipped words and an [HTTP 4xx]
    shown, request_id = describe_error(error)
    assert len(shown) <= MESSAGE_LIMIT + 20
    assert request_id is None or len(request_id) <= 200


@cases(300)
@given(hostile_values(1_000_000) | mutated(shapes.MEDIA_ERROR))
def test_an_error_inside_a_status_body_becomes_short_words(problem: Any) -> None:
    text = problem_text(problem)
    assert text is None or len(text) <= MESSAGE_LIMIT + 20


# --- what the panes show ------------------------------------------------------------------------------------


def from_the_wire(value: Any) -> Any:
    """``value`` as the client would hand it on (None where the client refuses the answer)."""
    try:
        return wire_json.loads(encode(value))
    except (ValueError, RecursionError):
        return None


@cases(600)
@given(
    value=hostile_values(70_000).map(from_the_wire),
    when=st.datetimes(timezones=st.just(UTC)) | st.datetimes(),
)
@example(value="9999-12-31T23:59:59-23:59", when=datetime(2000, 1, 1))
@example(value=1e308, when=datetime(1, 1, 1, tzinfo=UTC))
def test_display_helpers_take_any_service_value(value: Any, when: datetime) -> None:
    from castdeck.ui.dialogs.media_dialog import format_duration
    from castdeck.ui.panes.media import readable_error
    from castdeck.ui.panes.sources import metadata_summary
    from castdeck.ui.resource_model import format_time
    from castdeck.ui.status import format_credits

    times = [text for text in (value, when.isoformat(), when.isoformat() + "Z") if isinstance(text, str)]
    numbers = [value] if isinstance(value, int | float) else []
    assert all(isinstance(format_time(text), str) for text in times)
    assert all(isinstance(format_credits(n), str) and isinstance(format_duration(n), str) for n in numbers)
    assert isinstance(readable_error(value), str)
    summary = metadata_summary(value)
    assert summary is None or isinstance(summary, str)


# --- service HTML -------------------------------------------------------------------------------------------


class MarkupCheck(HTMLParser):
    """What a safe description holds: kept tags only, with their few attributes, not too deep."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.deepest = self.deepest_table = 0
        self.text = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag in KEPT, tag
        for name, value in attrs:
            if tag == "a":
                assert name == "href" and (value or "").startswith(("http://", "https://", "mailto:")), attrs
            else:
                assert tag in ("td", "th") and name in ("colspan", "rowspan"), (tag, attrs)
        if tag not in ("br", "hr"):
            self.open.append(tag)
        self.deepest = max(self.deepest, len(self.open))
        self.deepest_table = max(self.deepest_table, self.open.count("table"))

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, (tag, self.open[-3:])  # well nested
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text += len(data)


HTML_SOUP = st.lists(
    st.one_of(
        HTML,
        ODD_TEXT,
        st.sampled_from(
            [
                "<",
                ">",
                "</td>",
                "<tr>",
                "<td>",
                "</table>",
                "<table>",
                "<p>",
                '<a href="https://e.com/">',
                "</a>",
                "<br/>",
                "&amp;",
            ]
        ),
    ),
    max_size=12,
).map("".join)


@cases(500)
@given(HTML_SOUP | huge_strings(70_000) | shapes.DESCRIPTION)
@example("<b>x</b>" * 125_000)  # a megabyte of markup
@example(nested_tables(60))
@example("<div>" * 5000 + "deep" + "</div>" * 5000)
@example(
    '<img src="http://198.51.100.7/x.png"><p style="font-size: 100000px">big</p><script>alert(1)</script>'
)
def test_service_html_keeps_text_markup_only(text: str) -> None:
    markup = safe_html(text)
    check = MarkupCheck()
    check.feed(markup)
    check.close()
    assert not check.open  # every tag closed
    assert check.deepest <= MAX_DEPTH and check.deepest_table <= MAX_TABLE_DEPTH
    assert check.text <= TEXT_LIMIT


# --- analytics exports --------------------------------------------------------------------------------------

NAMES = st.one_of(
    ODD_TEXT,
    HTML,
    st.sampled_from(["=1+1", "+SUM(A1)", "-2", "@x", "\t=x", "\r=x", "'=x"]),
    st.text(max_size=8),
)


@cases(60)  # each case writes two files, flushed to disk
@given(
    analytics=mutated(shapes.PODCAST_ANALYTICS, huge_max=5_000).map(from_the_wire),
    apps=st.dictionaries(NAMES, st.integers(0, 10**6), max_size=4).map(
        from_the_wire
    ),  # as the client reads them
    titles=st.lists(NAMES, max_size=3).map(from_the_wire),
)
def test_analytics_exports_read_back_as_text(analytics: Any, apps: dict[str, int], titles: list[str]) -> None:
    try:
        read = PodcastAnalytics.model_validate(analytics)
    except ValidationError:  # the client refuses it: nothing to export
        read = PodcastAnalytics(podcast_id="p1")
    read = read.model_copy(update={"plays_by_app": {**read.plays_by_app, **apps}})
    lines = {
        entry.episode_id: EpisodeLine(title, title, title)
        for entry, title in zip(read.episodes, titles, strict=False)
    }
    figures = PodcastFigures(read, lines, read_at=0.0)
    with tempfile.TemporaryDirectory() as folder:
        for header, rows in ((APP_HEADER, app_rows(figures)), (EPISODE_HEADER, episode_rows(figures))):
            with write_csv(Path(folder) / "export.csv", header, rows).open(
                encoding="utf-8-sig", newline=""
            ) as handle:
                cells = [cell for row in csv.reader(handle) for cell in row]
            assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]


def _depth(value: Any) -> int:
    """The nesting of a parsed value, walked (what ``wire_json`` measures on the bytes)."""
    if isinstance(value, dict):
        return 1 + max((_depth(child) for child in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(child) for child in value), default=0)
    return 0


_BRACKETY_TEXT = st.text(alphabet='[]{}"\\ab\u00e9\U0001f3a7', max_size=12)
_NESTED = st.recursive(
    st.none() | st.integers() | _BRACKETY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_BRACKETY_TEXT, inner, max_size=3),
    max_leaves=90,
)


@cases(400)
@given(value=_NESTED, deep=st.integers(0, 80), ascii_only=st.booleans())
@example(value={"a": "[[[[{{{{" * 20}, deep=0, ascii_only=True)
def test_json_nesting_is_measured_on_the_bytes_as_deep_as_the_value_nests(
    value: Any, deep: int, ascii_only: bool
) -> None:
    """Brackets inside strings (escaped quotes too) do not count; every array and object does."""
    import json

    for _ in range(deep):
        value = [value]
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    expected = _depth(value)
    assert wire_json._nesting(raw) == min(expected, wire_json.MAX_DEPTH + 1)
    if expected > wire_json.MAX_DEPTH:
        with pytest.raises(wire_json.NotJson, match="nests deeper"):
            wire_json.loads(raw)
    else:
        assert wire_json.loads(raw) == json.loads(raw)
