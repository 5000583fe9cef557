"""What the fuzz suite found, each kept as a plain test of its own (the fuzz tests carry the same
inputs as ``@example``s)."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from castdeck.api import ApiError, CastdeckError, Client, InvalidResponseError
from castdeck.api.downloads import download_to
from castdeck.api.errors import error_from_response, parse_retry_after
from castdeck.api.models import Podcast, PodcastAnalytics, Source, UploadReservation
from castdeck.api.response import parse_data
from castdeck.api.retry import backoff_delay
from castdeck.api.transport import RawResponse, RetryPolicy
from castdeck.services.analytics import EpisodeLine, PodcastFigures
from castdeck.services.analytics_export import APP_HEADER, EPISODE_HEADER, app_rows, episode_rows, write_csv
from castdeck.services.messages import MESSAGE_LIMIT, error_text, problem_text
from castdeck.services.safe_html import TEXT_LIMIT, safe_html
from castdeck.transcript import FORMATS, export, normalise
from castdeck.transcript.words import MAX_SECONDS
from castdeck.ui.widgets import (
    BANNER_LIMIT,
    DISPLAY_LIMIT,
    REQUEST_ID_LIMIT,
    Banner,
    SafeTextBrowser,
    display_text,
)
from tests.fuzz.world import Connected, json_reply
from tests.gui.conftest import isolated_settings, memory_keyring, quiet, until  # noqa: F401 - fixtures

HUGE_YEAR = "Mon, 01 Jan 99999999999999999999 00:00:00 GMT"


def test_a_retry_after_date_with_a_huge_year_is_no_wait_hint() -> None:
    assert parse_retry_after(HUGE_YEAR) is None
    error = error_from_response(429, b"{}", httpx.Headers({"retry-after": HUGE_YEAR}))
    assert error.retry_after is None


def test_backoff_after_a_thousand_faults_in_a_row_is_still_capped() -> None:
    assert 15.0 <= backoff_delay(1100, cap=30.0) <= 30.0
    assert 0.0 <= RetryPolicy().delay(10**6) <= RetryPolicy().max_delay
    assert 2.0 <= backoff_delay(0, float("nan"), base=4.0) <= 4.0  # an unusable hint is no hint


def raw(body: bytes) -> RawResponse:
    headers = httpx.Headers({"content-type": "application/json"})
    return RawResponse(200, headers, body, httpx.URL("http://127.0.0.1:9/v1/x"))


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": {"balance": NaN}}',
        b'{"data": [Infinity]}',
        b'{"data": -Infinity}',
        b'{"data": 1e400}',
        b'{"data": ' + b"9" * 400 + b"}",
    ],
)
def test_numbers_json_does_not_permit_are_a_broken_answer(body: bytes) -> None:
    with pytest.raises(InvalidResponseError, match="malformed"):
        raw(body).json()
    assert error_from_response(500, body, httpx.Headers()).detail is not None  # still the status


def test_a_lone_surrogate_in_raw_bytes_becomes_a_replacement_character_too() -> None:
    assert raw(b'{"data": [{"id": "\xed\xa0\x80"}]}').json() == {"data": [{"id": "\ufffd"}]}


def test_a_lone_surrogate_escape_becomes_a_replacement_character() -> None:
    body = raw(b'{"data": {"id": "a\\ud800b", "\\udfff": ["\\ud83d\\ude00", "\\uDBFF"]}}').json()
    assert body == {"data": {"id": "a\ufffdb", "\ufffd": ["\U0001f600", "\ufffd"]}}
    "".join(body["data"]["\ufffd"]).encode()  # every string can be stored and shown


def test_word_times_beyond_a_week_do_not_break_the_exports() -> None:
    words = [{"start": 1e308, "end": 1e308, "text": "far"}, {"start": 1, "end": 10**400, "text": "ok"},
             {"start": 2, "end": 1e300, "text": "long"}]  # fmt: skip
    transcript = normalise({"words": words})
    assert [(w.text, w.start, w.end) for w in transcript.words] == [
        ("ok", 1.0, 1.0),
        ("long", 2.0, MAX_SECONDS),
    ]
    for fmt in FORMATS:
        export(transcript, fmt)


@pytest.mark.parametrize("value", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"])
def test_a_time_at_the_edge_of_the_calendar_is_shown_as_sent(value: str) -> None:
    from castdeck.ui.resource_model import format_time

    assert format_time(value) in (value, "9999-12-31 23:59", "0001-01-01 00:00")


@pytest.mark.parametrize(
    "payload", [{"speakers": 5, "words": []}, {"words": 7}, {"words": "text", "speakers": {"a": 1}}]
)
def test_speakers_or_words_that_are_not_lists_read_as_none(payload: dict[str, object]) -> None:
    transcript = normalise(payload)
    assert (transcript.speakers, transcript.words) == ([], [])


def test_a_megabyte_of_service_detail_becomes_a_message_of_a_few_lines() -> None:
    body = b'{"status": 422, "title": "t", "type": "x", "detail": "' + b"d" * 1_000_000 + b'"}'
    text = error_text(error_from_response(422, body, httpx.Headers()))
    assert len(text) <= MESSAGE_LIMIT + len(" [HTTP 422]") and text.endswith("… [HTTP 422]")
    assert problem_text({"message": "m" * 1_000_000}) == "m" * (MESSAGE_LIMIT - 1) + "…"
    assert len(problem_text({"no_words": list(range(10**5))}) or "") <= MESSAGE_LIMIT


def test_service_html_loses_scripts_images_styles_and_deep_tables() -> None:
    from tests.fuzz.hostile import nested_tables

    markup = safe_html('<p style="font-size:99999px">a<script>x()</script><img src="http://198.51.100.7/t.png" alt="t">'
                       '<a href="javascript:x()">j</a><a href="https://e.com/">ok</a></p>' + nested_tables(40))  # fmt: skip
    assert markup.startswith('<p>a[t]<a>j</a><a href="https://e.com/">ok</a></p>')
    assert markup.count("<table>") == 3 and "script" not in markup and "http://198" not in markup


class RecordingBrowser(SafeTextBrowser):
    """Notes every resource Qt asks the browser for (an image, a style sheet)."""

    asked: list[str]

    def loadResource(self, type: int, name: Any) -> Any:
        self.asked.append(str(name))
        return super().loadResource(type, name)


def test_a_description_of_tables_fifty_deep_with_a_tracker_lays_out(qtbot: QtBot) -> None:
    from tests.fuzz.hostile import nested_tables

    browser = RecordingBrowser()
    browser.asked = []
    qtbot.addWidget(browser)
    browser.resize(400, 300)
    browser.show()
    browser.set_service_text('<img src="http://198.51.100.7/pixel.png">' + nested_tables(50) + "x" * 100_000)
    browser.document().size()  # the layout: without the cap on nesting this takes minutes
    text = browser.toPlainText()
    assert "deep" in text and len(text) <= TEXT_LIMIT + 200 and browser.asked == []


def test_a_banner_with_a_megabyte_message_and_a_huge_request_id_stays_small(qtbot: QtBot) -> None:
    banner = Banner()
    qtbot.addWidget(banner)
    error = InvalidResponseError("m" * 1_000_000, status=200, request_id="r" * 70_000)
    banner.show_error(error, "Could not load podcasts")
    assert len(banner.text) <= BANNER_LIMIT + REQUEST_ID_LIMIT + 20
    assert banner.request_id is not None and len(banner.request_id) == REQUEST_ID_LIMIT
    banner.show_message("t" * 1_000_000, request_id="   ")
    assert len(banner.text) <= BANNER_LIMIT and banner.copy_button.isHidden()


@pytest.mark.asyncio
@pytest.mark.parametrize("length", ["²", "١٢", "x"])
async def test_a_content_length_of_other_digits_is_not_trusted(length: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = httpx.ByteStream(b'{"data": {"organization_id": "o", "plan": "p", "credits": {"balance": 1}}}')
        return httpx.Response(200, headers={"content-type": "application/json", "content-length": length.encode()},
                              stream=body)  # fmt: skip

    async with Client(
        "http://127.0.0.1:9", "sk_test_key", http_transport=httpx.MockTransport(answer)
    ) as client:
        assert (await client.account.get()).plan == "p"


def test_a_cell_span_of_other_digits_is_dropped() -> None:
    assert safe_html('<table><tr><td colspan="²" rowspan="99999">x</td></tr></table>') == (
        '<table><tr><td rowspan="20">x</td></tr></table>'
    )


@pytest.mark.asyncio
async def test_a_key_echoed_into_the_request_id_is_never_quoted() -> None:
    key = "sk_echoed_key_0123456789"

    def answer(request: httpx.Request) -> httpx.Response:
        echoed = request.headers["authorization"].removeprefix("Bearer ")
        return httpx.Response(
            502, headers={"x-request-id": f"req {echoed}"}, stream=httpx.ByteStream(b"<html>")
        )

    async with Client(
        "http://127.0.0.1:9", key, max_retries=0, http_transport=httpx.MockTransport(answer)
    ) as client:
        with pytest.raises(ApiError) as caught:
            await client.account.get()
    assert key not in str(caught.value) and caught.value.request_id == "req [redacted]"
    assert client.last_request_id == "req [redacted]"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "location",
    ["javascript:alert(1)", "http://[::1", "file:///etc/passwd", "http://h\x00st/", "http://xn--/x"],
)
async def test_a_redirect_to_something_that_is_no_web_address_is_a_broken_answer(location: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"location": location}, stream=httpx.ByteStream(b""))

    transport = httpx.MockTransport(answer)
    async with Client(
        "http://127.0.0.1:9", "sk_test_key", http_transport=transport, signed_transport=transport
    ) as c:
        with pytest.raises(CastdeckError):
            await c.sources.create(type="url", url="https://example.com/a")
        with pytest.raises(InvalidResponseError, match="not a web address"):
            await download_to(c.transport, location, Path(tempfile.gettempdir()) / "never-written")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("link", "error"),
    [
        ("<http://[::1>; rel=next", "not an address"),
        ("<http://127.0.0.1:99999/v1/voices>; rel=next", "another origin"),
        ("<file:///etc/passwd>; rel=next", "another origin"),
        ("<//evil.example/v1/voices>; rel=next", "another origin"),
    ],
)
async def test_a_next_link_that_is_no_address_of_the_service_ends_the_list_after_its_page(
    link: str, error: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = httpx.ByteStream(b'{"data": [{"id": 7}]}')
        return httpx.Response(200, headers={"content-type": "application/json", "link": link}, stream=body)

    async with Client(
        "http://127.0.0.1:9", "sk_test_key", http_transport=httpx.MockTransport(answer)
    ) as client:
        pages = client.voices.list().pages()
        assert [voice.id for voice in (await anext(pages)).items] == [7]
        with pytest.raises(InvalidResponseError, match=error):
            await anext(pages)


@pytest.mark.asyncio
async def test_a_relative_next_link_is_read_against_the_page() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        link = "?cursor=2" if len(seen) == 1 else ""
        body = httpx.ByteStream(b'{"data": []}')
        return httpx.Response(200, headers={"content-type": "application/json", "link": f"<{link}>; rel=next"}
                              if link else {"content-type": "application/json"}, stream=body)  # fmt: skip

    async with Client(
        "http://127.0.0.1:9", "sk_test_key", http_transport=httpx.MockTransport(answer)
    ) as client:
        await client.voices.list().to_list()
    assert seen == ["http://127.0.0.1:9/v1/voices", "http://127.0.0.1:9/v1/voices?cursor=2"]


@pytest.mark.asyncio
async def test_a_page_with_unreadable_items_yields_the_readable_ones_when_asked() -> None:
    body = (
        b'{"data": [{"id": "a", "title": "ok"}, {"title": "no id"}, 5, {"id": "b", "episode_count": "many"}]}'
    )

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "application/json"}, stream=httpx.ByteStream(body)
        )

    async with Client(
        "http://127.0.0.1:9", "sk_test_key", http_transport=httpx.MockTransport(answer)
    ) as client:
        page = await anext(client.podcasts.list().pages(skip_invalid=True))
        assert [p.id for p in page.items] == ["a"]
        assert page.skipped == (
            "item 2: id: Field required",
            "item 3: Input should be a valid dictionary or instance of Podcast",
            "item 4: episode_count: Input should be a valid integer, unable to parse string as an integer",
        )
        with pytest.raises(InvalidResponseError, match=r"list item .*\(id: Field required\)"):
            await client.podcasts.list().to_list()  # the strict reading stays the default


def test_an_answer_nested_too_deep_for_the_cache_is_a_broken_answer() -> None:
    deep = b'{"data": [{"id": "s1", "metadata": ' + b"[" * 300 + b"1" + b"]" * 300 + b"}]}"
    with pytest.raises(InvalidResponseError, match="nests deeper than 64"):
        raw(deep).json()
    shallow = b'{"data": {"id": "s1", "metadata": ' + b"[" * 60 + b"1" + b"]" * 60 + b"}}"
    Source.model_validate(raw(shallow).json()["data"]).model_dump(mode="json")  # what the cache stores


def shown_length(text: str) -> int:
    """Characters of a displayed value, without the zero-width spaces that let a long word wrap."""
    return len(text.replace("\u200b", ""))


def test_details_and_table_cells_clip_a_megabyte_value(qtbot: QtBot) -> None:
    from castdeck.ui.pane import DetailsPanel
    from castdeck.ui.panes.hosts import plain_value
    from castdeck.ui.resource_model import Column, ResourceTableModel

    huge = "w" * 1_000_000
    details = DetailsPanel()
    qtbot.addWidget(details)
    details.show_facts(huge, [("Title", huge), ("Name", plain_value(huge, "Name"))], note=huge, text=huge)
    shown = [details.heading.text(), details.note.text(), details.value_of("Title"), details.value_of("Name")]
    assert [shown_length(text or "") for text in shown] == [DISPLAY_LIMIT] * 4
    assert len(details.text.toPlainText()) == TEXT_LIMIT
    model = ResourceTableModel([Column("Title", lambda item: huge, tooltip=lambda item: huge)])
    model.upsert(Podcast(id="p1"))
    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
        assert shown_length(model.data(model.index(0, 0), role)) == DISPLAY_LIMIT


@pytest.mark.asyncio
async def test_a_page_repeating_a_podcast_and_holding_an_unreadable_one_shows_each_readable_once(
    connected: Connected, qtbot: QtBot
) -> None:
    from castdeck.ui.panes.podcasts import PodcastsPane

    first, second = {"id": "p1", "title": "First"}, {"id": "p2", "title": "Second"}
    connected.world.replies["/v1/podcasts"] = json_reply({"data": [first, {"title": "no id"}, first, second]})
    pane = PodcastsPane(connected.session)
    qtbot.addWidget(pane)
    pane.activate()
    await until(lambda: not pane.model.loading)
    assert [podcast.title for podcast in pane.model.items] == ["First", "Second"]
    assert pane.banner.text.startswith("Could not load podcasts: ")
    assert (
        "1 of the 4 podcasts on this page could not be read and is not shown (item 2: id: Field required)"
        in (pane.banner.text)
    )
    await quiet()  # the pane's reads of names and covers end before the loop stops


@pytest.mark.asyncio
async def test_the_account_pane_clips_a_megabyte_organization_and_plan(
    connected: Connected, qtbot: QtBot
) -> None:
    from castdeck.ui.panes.account import AccountPane

    huge = "o" * 1_000_000
    account = {"data": {"organization_id": huge, "plan": huge, "credits": {"balance": 10**300}}}
    connected.world.replies["/v1/account"] = json_reply(account)
    pane = AccountPane(connected.session)
    qtbot.addWidget(pane)
    pane.refresh()
    await until(lambda: not pane.work.pending())
    assert (shown_length(pane.organization.text()), shown_length(pane.plan.text())) == (DISPLAY_LIMIT,) * 2
    await quiet()  # a fresh account: the outbox looks for work to resend
    assert pane.balance.text().endswith(" credits")


@pytest.mark.asyncio
async def test_the_status_bar_shows_service_words_as_plain_short_text(
    connected: Connected, qtbot: QtBot
) -> None:
    from castdeck.ui.status import StatusBar

    refusal = {
        "status": 401,
        "title": "t",
        "type": "unauthorized",
        "detail": '<img src="file:///x.png">' * 10_000,
    }
    connected.world.replies["/v1/account"] = json_reply(refusal, 401)
    status = StatusBar()
    qtbot.addWidget(status)
    status.bind(connected.session)
    with pytest.raises(ApiError):
        await connected.session.refresh_account()
    tip = QTextDocument()
    tip.setHtml(status.connection.toolTip())
    assert (
        tip.toPlainText().startswith('<img src="file:///x.png">') and len(tip.toPlainText()) == DISPLAY_LIMIT
    )
    connected.world.replies["/v1/account"] = json_reply(
        {"data": {"organization_id": "<b>org</b>" * 10**5, "plan": "p", "credits": {"balance": 1}}}
    )
    await connected.session.refresh_account()
    assert status.organization.textFormat() == Qt.TextFormat.PlainText
    assert shown_length(status.organization.text()) == len("Organization: ") + DISPLAY_LIMIT
    await quiet()  # back online: the outbox looks for work to resend


def test_a_long_unbroken_word_gets_places_to_wrap() -> None:
    shown = display_text("T" * 130 + " and short words")
    assert shown == "\u200b".join(["T" * 20] * 6 + ["T" * 10]) + " and short words"
    assert (
        display_text("a plain sentence of ordinary words, each short")
        == "a plain sentence of ordinary words, each short"
    )


def test_service_names_that_start_like_formulas_are_exported_as_text(tmp_path: Path) -> None:
    analytics = PodcastAnalytics.model_validate(
        {
            "podcast_id": "p1",
            "plays_by_app": {'=HYPERLINK("http://evil.example","x")': 3, "+1": 1, "Web": 2},
            "episodes": [{"episode_id": "e1"}],
        }
    )
    figures = PodcastFigures(analytics, {"e1": EpisodeLine("@SUM(A1:A9)", "-x", None)}, read_at=0.0)
    with (write_csv(tmp_path / "apps.csv", APP_HEADER, app_rows(figures))).open(
        encoding="utf-8-sig"
    ) as handle:
        apps = [row[0] for row in csv.reader(handle)]
    assert apps == ["App", '\'=HYPERLINK("http://evil.example","x")', "Web", "'+1"]
    with (write_csv(tmp_path / "eps.csv", EPISODE_HEADER, episode_rows(figures))).open(
        encoding="utf-8-sig"
    ) as f:
        assert list(csv.reader(f))[1][:3] == ["'@SUM(A1:A9)", "e1", "'-x"]


@pytest.mark.parametrize(
    "slot",
    [
        {"url": "https://up.example/x", "headers": {"x-meta": "Café"}},
        {"url": "https://up.example/x", "headers": {"x-meta": "a\r\nX-Injected: 1"}},
        {"url": "https://up.example/x", "headers": {"bad name": "x"}},
        {"url": "https://up.example/x", "method": "PUT /x HTTP/1.1"},
    ],
)
def test_an_upload_slot_with_headers_or_a_method_http_cannot_carry_is_refused(slot: dict[str, Any]) -> None:
    body = json.dumps({"data": {"source": {"id": "s1"}, "upload": slot}}).encode()
    with pytest.raises(InvalidResponseError, match="upload"):
        parse_data(raw(body), UploadReservation)


@pytest.mark.asyncio
async def test_a_key_echoed_into_the_request_id_of_an_oversized_answer_is_never_quoted() -> None:
    key = "sk_echoed_key_0123456789"

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"x-request-id": request.headers["authorization"], "content-length": "99999999999"}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(b"{}"))

    async with Client(
        "http://127.0.0.1:9", key, max_retries=0, http_transport=httpx.MockTransport(answer)
    ) as client:
        with pytest.raises(InvalidResponseError, match="more than the") as caught:
            await client.account.get()
    assert key not in str(caught.value) and caught.value.request_id == "Bearer [redacted]"
