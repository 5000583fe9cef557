"""The resource panes fed hostile answers: list pages and items of the spec's shapes, mutated, from
a service that is an ``httpx.MockTransport`` handler (such answers cannot be had from the sandbox).

Each case sets what the service answers, reloads the pane, reads every page and opens the details
of the first rows. The pane must show exactly the rows the client can read (the same answers read
through the client are the oracle), show a banner where it cannot, render the details of each
selected row (service HTML made safe, long values clipped), and never raise: pytest-qt fails a test
on an exception in a slot or on a Qt warning.

The pane is laid out and painted (``grab()``) but not shown: a shown view asks for more pages by
itself when rows fit, which would make what is read depend on the machine's speed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api import CastdeckError, Client
from castdeck.api.models import Episode, Host, MediaJob, Podcast, Source, Voice
from castdeck.api.pagination import AsyncPaginator
from castdeck.services.background import Background
from castdeck.services.safe_html import TEXT_LIMIT
from castdeck.services.session import Session
from castdeck.ui.status import StatusBar
from castdeck.ui.widgets import BANNER_LIMIT, DISPLAY_LIMIT, REQUEST_ID_LIMIT, display_text
from tests import runner as work
from tests.fuzz import shapes
from tests.fuzz.conftest import SLOW_CASES, cases
from tests.fuzz.headers import BASE_URL, CONTENT_TYPE, FAILURE, REQUEST_ID, SUCCESS
from tests.fuzz.hostile import BODY_STYLES, Json, encode
from tests.fuzz.world import Connected, Reply, World
from tests.gui.conftest import isolated_settings, memory_keyring, until  # noqa: F401 - fixtures

SHARED_PANE = (HealthCheck.function_scoped_fixture, *SLOW_CASES)
"""One session and pane serve every case of a test (building them per case would cost a second);
each case replaces what the service answers and reloads the pane."""


MOSTLY_JSON = st.one_of(*[st.just("application/json")] * 6, CONTENT_TYPE)
MOSTLY_OK = st.one_of(*[st.just(200)] * 8, SUCCESS, FAILURE)


@st.composite
def reply(draw: st.DrawFn, valid: st.SearchStrategy[Json], *, huge_max: int = 70_000) -> Reply:
    """A mutated answer of ``valid``'s shape; now and then an error or a body that is not JSON."""
    status = draw(MOSTLY_OK)
    body = draw(shapes.answer(shapes.error_body(status) if status >= 400 else valid, huge_max=huge_max))
    return finish(draw, status, body)


def finish(draw: st.DrawFn, status: int, body: Json) -> Reply:
    headers = {"Content-Type": draw(MOSTLY_JSON).encode()}
    if draw(st.integers(0, 3)) == 0:
        headers["X-Request-Id"] = draw(REQUEST_ID).encode("utf-8", "surrogatepass")
    content = (
        body.encode("utf-8", "surrogatepass") if isinstance(body, str) else encode(body, draw(BODY_STYLES))
    )
    return Reply(status, headers, content)


@st.composite
def page_reply(draw: st.DrawFn, item: st.SearchStrategy[Json]) -> Reply:
    """A list page whose items are broken one by one (most of the time), or a broken page."""
    if draw(st.integers(0, 5)) == 0:
        return draw(reply(shapes.page(item)))
    items = draw(st.lists(shapes.answer(item, huge_max=70_000, max_changes=2), max_size=5))
    if items and draw(st.integers(0, 4)) == 0:
        items.append(items[0])  # the same item twice on one page
        event("an item twice on a page")
    return finish(draw, 200, {"data": items})


@st.composite
def list_replies(draw: st.DrawFn, path: str, item: st.SearchStrategy[Json]) -> dict[str, Reply]:
    """One or two pages of a list: the first may point to the second (by Link or body cursor)."""
    first = draw(page_reply(item))
    replies = {path: first}
    if draw(st.integers(0, 3)) == 0:
        replies[f"{path}?cursor=p2"] = draw(page_reply(item))
        first.headers["Link"] = f'<{path}?cursor=p2>; rel="next"'.encode()
    return replies


@dataclass(frozen=True)
class PaneCase:
    name: str
    build: Callable[[Session, Background], Any]
    path: str
    item: st.SearchStrategy[Json]
    model: type[Any]
    extra: dict[str, st.SearchStrategy[Json]] = field(default_factory=dict)
    """Other answers the pane reads (names of related items, analytics, a job's status)."""


def _podcasts(session: Session, _: Background) -> Any:
    from castdeck.ui.panes.podcasts import PodcastsPane

    return PodcastsPane(session)


def _episodes(session: Session, background: Background) -> Any:
    from castdeck.ui.panes.episodes import EpisodesPane

    return EpisodesPane(session, background)


def _hosts(session: Session, _: Background) -> Any:
    from castdeck.ui.panes.hosts import HostsPane

    return HostsPane(session)


def _voices(session: Session, _: Background) -> Any:
    from castdeck.ui.panes.voices import VoicesPane

    return VoicesPane(session)


def _sources(session: Session, background: Background) -> Any:
    from castdeck.ui.panes.sources import SourcesPane

    return SourcesPane(session, background)


def _media(name: str) -> Callable[[Session, Background], Any]:
    def build(session: Session, background: Background) -> Any:
        from castdeck.ui.panes import media

        return getattr(media, name)(session, background)

    return build


HOSTS = {"/v1/hosts": shapes.page(shapes.HOST)}
PANES = [
    PaneCase("podcasts", _podcasts, "/v1/podcasts", shapes.PODCAST, Podcast, HOSTS),
    PaneCase(
        "episodes",
        _episodes,
        "/v1/episodes",
        shapes.EPISODE,
        Episode,
        {
            **HOSTS,
            "/v1/podcasts": shapes.page(shapes.PODCAST),
            "/v1/sources": shapes.page(shapes.SOURCE),
            "/v1/episodes/*/analytics": shapes.data(shapes.EPISODE_ANALYTICS),
        },
    ),
    PaneCase("hosts", _hosts, "/v1/hosts", shapes.HOST, Host),
    PaneCase("voices", _voices, "/v1/voices", shapes.VOICE, Voice),
    PaneCase("sources", _sources, "/v1/sources", shapes.SOURCE, Source),
    PaneCase(
        "videos",
        _media("VideosPane"),
        "/v1/videos",
        shapes.MEDIA_JOB,
        MediaJob,
        {**HOSTS, "/v1/videos/options": shapes.data(shapes.MEDIA_OPTIONS)},
    ),
    PaneCase("shorts", _media("ShortsPane"), "/v1/shorts", shapes.MEDIA_JOB, MediaJob, HOSTS),
    PaneCase(
        "voiceovers",
        _media("VoiceoversPane"),
        "/v1/voiceovers",
        shapes.MEDIA_JOB,
        MediaJob,
        {"/v1/voiceovers/options": shapes.data(shapes.MEDIA_OPTIONS)},
    ),
]


@st.composite
def world_of(draw: st.DrawFn, pane: PaneCase) -> dict[str, Reply]:
    replies = draw(list_replies(pane.path, pane.item))
    replies[f"{pane.path}/*"] = draw(reply(shapes.data(pane.item)))  # the fresh copy of a selected row
    for path, valid in pane.extra.items():
        replies[path] = draw(reply(valid, huge_max=5_000))
    return replies


async def oracle(world: World, pane: PaneCase) -> tuple[list[str], bool]:
    """What the pane must show: the ids of every readable row (first of each id), and whether
    something could not be read (an item left out, or a page that failed)."""
    ids: list[str] = []
    problem = False
    async with Client(
        BASE_URL, "sk_oracle_key", max_retries=0, http_transport=httpx.MockTransport(world)
    ) as client:
        pages = AsyncPaginator(client.transport, pane.path, pane.model, {"limit": 100}).pages(
            skip_invalid=True
        )
        try:
            async for page in pages:
                for item in page.items:
                    ids += [] if str(item.id) in ids else [str(item.id)]
                problem = problem or bool(page.skipped)
        except CastdeckError:
            problem = True
    return ids, problem


def long_labels(widget: QWidget, allowance: int = 0) -> list[str]:
    """Labels showing more than a display's worth of text (a link's address is not shown; the
    zero-width spaces that let a long word wrap are not counted; ``allowance``: a label's own words
    before the value, such as "Plan: ")."""
    limit = DISPLAY_LIMIT + allowance
    return [
        label.text()[:80]
        for label in widget.findChildren(QLabel)
        if label.textFormat() != Qt.TextFormat.RichText and len(label.text().replace("\u200b", "")) > limit
    ]


async def read_everything(pane: Any) -> None:
    await pane.model.wait_idle()
    while pane.model.canFetchMore():
        pane.model.fetchMore()
        await pane.model.wait_idle()


async def finished(work: Any) -> None:
    """Until the tasks of a pane's scope (a read of the fresh copy, a refresh) have ended."""
    while pending := work.pending():
        await asyncio.wait(pending)
    await asyncio.sleep(0)  # what their ends started (a loading-ended signal) runs too


async def idle() -> None:
    """The end of a case: no work left to step. pytest-qt pumps Qt events after the test, outside
    the loop, and a task stepped there fails; so, as ``tests/conftest.py`` does for every async
    test, the job tracker's pollers (it follows what a case showed generating) are stopped here,
    inside the loop, and short-lived work (a reconnect makes the outbox look for work) is awaited."""
    short = set(work.pending(followers=False))
    followers = [task for task in work.pending() if task not in short]
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)
    await until(lambda: work.running() == 0, timeout=60, interval=0.005)


async def built(pane_case: PaneCase, connected: Connected, qtbot: QtBot) -> Any:
    """The pane of the test, built with its first case (and kept for the others)."""
    pane = connected.pane = pane_case.build(connected.session, connected.background)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.activate()
    await read_everything(pane)
    return pane


# --- the test -------------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("pane_case", PANES, ids=[pane.name for pane in PANES])
@cases(32, suppress=SHARED_PANE)
@given(data=st.data())
async def test_a_pane_shows_what_it_can_read_and_says_what_it_cannot(
    pane_case: PaneCase, data: Any, connected: Connected, qtbot: QtBot, qtmodeltester: Any
) -> None:
    pane = connected.pane or await built(pane_case, connected, qtbot)
    connected.world.replies = data.draw(world_of(pane_case), label="service")
    expected_ids, expected_problem = await oracle(connected.world, pane_case)

    pane.reload()
    await read_everything(pane)
    assert [str(item.id) for item in pane.model.items] == expected_ids
    assert (not pane.banner.isHidden()) == expected_problem, pane.banner.text
    assert len(pane.banner.text) <= BANNER_LIMIT + REQUEST_ID_LIMIT + 20
    event(f"rows shown: {min(pane.model.rowCount(), 3)}{'+' if pane.model.rowCount() > 3 else ''}")
    event(f"banner: {'shown' if expected_problem else 'none'}")
    qtmodeltester.check(pane.model)
    for row in range(min(pane.model.rowCount(), 3)):
        pane.table.selectRow(row)
        await finished(pane.work)  # the fresh copy, read and shown
        assert len(pane.details.text.toPlainText()) <= TEXT_LIMIT + 10
        assert long_labels(pane.details) == []
    assert not pane.grab().isNull()  # laid out and painted: the table's cells and the details
    await idle()


@pytest.mark.asyncio
@cases(40, suppress=SHARED_PANE)
@given(data=st.data())
async def test_the_account_pane_shows_a_readable_account_and_says_when_it_cannot(
    data: Any, connected: Connected, qtbot: QtBot
) -> None:
    pane = connected.pane or connected_account_pane(connected, qtbot)
    connected.world.replies = {"/v1/account": data.draw(reply(shapes.data(shapes.ACCOUNT)), label="account")}
    async with Client(
        BASE_URL, "sk_oracle_key", max_retries=0, http_transport=httpx.MockTransport(connected.world)
    ) as client:
        try:
            account = await client.account.get()
        except CastdeckError:
            account = None
    before = (pane.organization.text(), pane.plan.text())
    expected = (
        before
        if account is None
        else (display_text(account.organization_id), display_text(account.plan.capitalize()))
    )

    pane.refresh()
    await finished(pane.work)
    assert (pane.organization.text(), pane.plan.text()) == expected
    assert (not pane.banner.isHidden()) == (account is None), pane.banner.text
    assert len(pane.banner.text) <= BANNER_LIMIT + REQUEST_ID_LIMIT + 20
    assert long_labels(pane) == []
    assert not pane.grab().isNull()
    status = pane.findChild(StatusBar)  # the window's status bar shows the same account and state
    tip = QTextDocument()
    tip.setHtml(status.connection.toolTip())
    assert (
        long_labels(status, allowance=len("Organization: ")) == [] and len(tip.toPlainText()) <= DISPLAY_LIMIT
    )
    plain = Qt.TextFormat.PlainText
    assert (status.organization.textFormat(), status.plan.textFormat()) == (plain, plain)
    await idle()  # a refused key and then an accepted one: the outbox looks for work to resend


def connected_account_pane(connected: Connected, qtbot: QtBot) -> Any:
    from castdeck.ui.panes.account import AccountPane

    pane = connected.pane = AccountPane(connected.session)
    qtbot.addWidget(pane)
    pane.resize(800, 600)
    StatusBar(pane).bind(connected.session)
    return pane
