"""The Podcasts pane and the podcast dialog, against the real sandbox."""

from __future__ import annotations

import uuid

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from castdeck.api.models import Podcast
from castdeck.services.session import Session
from castdeck.ui.dialogs.podcast_dialog import PodcastDialog
from castdeck.ui.panes.podcasts import PodcastsPane
from castdeck.ui.resource_model import ResourceTableModel
from tests.gui.conftest import quiet, shown_pane, until
from tests.gui.helpers import answer_in_one_call, count_calls, first_host, new_podcast

BACKSTORY = "A producer who keeps every conversation on time and on topic."


async def open_pane(qtbot: QtBot, session: Session, page_size: int | None = None) -> PodcastsPane:
    pane = PodcastsPane(session)
    if page_size is not None:
        pane.page_size = page_size
    return await shown_pane(qtbot, pane)


def row_of(pane: PodcastsPane, title: str) -> Podcast | None:
    return next((p for p in pane.model.items if p.title == title), None)


def select(pane: PodcastsPane, podcast_id: str) -> None:
    assert pane.select_id(podcast_id), podcast_id


@pytest.mark.asyncio
async def test_podcasts_load_page_and_show_details(
    qtbot: QtBot, session: Session, shot, qtmodeltester
) -> None:
    tag = uuid.uuid4().hex[:6]
    for i in range(11):  # more than two pages of our own, whatever else the sandbox holds
        await new_podcast(session, f"Paging {tag} {i}")
    pane = PodcastsPane(session)
    pane.page_size = 5
    qtbot.addWidget(pane)
    pages: list[int] = []
    pane.model.pageLoaded.connect(pages.append)
    pane.activate()  # hidden: the view asks for no more rows than the first page
    await until(lambda: pages)
    await pane.model.wait_idle()
    assert pane.model.rowCount() == 5
    assert pane.model.canFetchMore()
    pane.model.fetchMore()
    await until(lambda: len(pages) == 2)
    assert pane.model.rowCount() == 10 and pane.model.canFetchMore()
    pane.resize(1100, 700)
    pane.show()
    await pane.model.load_all()
    assert max(pages) <= 5 and sum(pages) == pane.model.rowCount()
    assert not pane.model.canFetchMore()
    titles = [p.title for p in pane.model.items]
    assert all(f"Paging {tag} {i}" in titles for i in range(11))
    assert "The Curious Current" in titles
    qtmodeltester.check(pane.model)
    qtmodeltester.check(pane.proxy)
    assert pane.model.headerData(2, Qt.Orientation.Horizontal) == "Episodes"

    # a public podcast links to its website and feed; its description is rendered, not loaded
    public = row_of(pane, "The Curious Current")
    assert public is not None and public.visibility == "public"
    select(pane, public.id)
    await until(lambda: pane.details.value_of("Podcast ID") == public.id)
    assert pane.details.heading.text() == "The Curious Current"
    assert pane.details.value_of("Visibility") == "Public"
    links = {lbl.accessibleName(): lbl.toolTip() for lbl in pane.details.findChildren(QLabel)}
    assert links.get("Open the podcast's website") == public.url
    assert links.get("Open the RSS feed") == public.rss_feed_url
    assert "weekly conversation" in pane.details.text.toPlainText()
    await pane.names.wait("host")
    await until(lambda: "Alex Rivera" in (pane.details.value_of("Hosts") or ""))
    assert pane.edit_button.isVisible() and pane.edit_button.isEnabled()
    await quiet()
    shot(pane, "pane-podcasts")

    # a private one has neither, and says why
    private = row_of(pane, "Deep Water Briefings")
    assert private is not None and private.visibility == "private"
    select(pane, private.id)
    await until(lambda: pane.details.value_of("Podcast ID") == private.id)
    assert pane.details.value_of("Website") == "—" and pane.details.value_of("RSS feed") == "—"
    assert "Private" in pane.details.note.text()
    await quiet()


@pytest.mark.asyncio
async def test_create_podcast_through_the_dialog(qtbot: QtBot, session: Session, shot) -> None:
    pane = await open_pane(qtbot, session)
    title = f"Harbour Lights {uuid.uuid4().hex[:6]}"
    host = await first_host(session)
    assert pane.new_button is not None
    pane.new_button.click()
    dialog = pane.dialog
    assert isinstance(dialog, PodcastDialog) and dialog.isVisible()
    await dialog.hosts_picker.wait_loaded()
    assert dialog.visibility_combo.findData("unlisted") < 0  # unlisted only when editing
    assert dialog.language_edit.text() == "en"
    assert not dialog.submit_button.isEnabled()
    qtbot.keyClicks(dialog.title_edit, title)
    dialog.description_edit.setPlainText("Stories from lighthouse keepers.\n\nA new one every week.")
    dialog.order_combo.setCurrentIndex(dialog.order_combo.findData("episodic"))
    dialog.language_edit.clear()
    qtbot.keyClicks(dialog.language_edit, "de")
    dialog.visibility_combo.setCurrentIndex(dialog.visibility_combo.findData("private"))
    assert not dialog.submit_button.isEnabled()  # no host yet
    dialog.hosts_picker.check(host.id)
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    assert dialog.rows["title"].counter is not None
    assert dialog.rows["title"].counter.text() == f"{len(title)} / 100"
    await quiet()
    shot(dialog, "dialog-podcast-create")

    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    assert dialog.result() == PodcastDialog.DialogCode.Accepted, dialog.banner.text
    created = dialog.result_value
    assert isinstance(created, Podcast)
    assert created.title == title and created.languages == ["de"] and created.visibility == "private"
    assert created.episode_order == "episodic" and created.host_ids == [host.id]
    await until(lambda: row_of(pane, title) is not None)
    assert pane.current is not None and pane.current.id == created.id
    await until(lambda: pane.details.value_of("Podcast ID") == created.id)
    assert "lighthouse keepers" in pane.details.text.toPlainText()
    assert "Created" in pane.banner.text
    await quiet()


@pytest.mark.asyncio
async def test_edit_sends_only_the_changed_fields(qtbot: QtBot, session: Session) -> None:
    title = f"Tidewatch {uuid.uuid4().hex[:6]}"
    podcast = await new_podcast(session, title, description="Plain words about the tide.")
    pane = await open_pane(qtbot, session)
    await until(lambda: row_of(pane, title) is not None)
    select(pane, podcast.id)
    await until(lambda: pane.details.value_of("Podcast ID") == podcast.id)
    pane.edit_button.click()
    dialog = pane.dialog
    assert isinstance(dialog, PodcastDialog) and dialog.podcast is not None and dialog.isVisible()
    await dialog.hosts_picker.wait_loaded()
    assert dialog.title_edit.text() == title
    assert dialog.description_edit.toPlainText() == "Plain words about the tide."  # <p> taken off
    assert dialog.hosts_picker.selected_ids() == podcast.host_ids
    assert dialog.visibility_combo.findData("unlisted") >= 0
    assert dialog.collect() == {}
    assert not dialog.submit_button.isEnabled()  # nothing changed yet

    dialog.title_edit.clear()
    assert not dialog.submit_button.isEnabled()
    assert dialog.rows["title"].error.isVisible()
    qtbot.keyClicks(dialog.title_edit, title + " (new)")
    dialog.visibility_combo.setCurrentIndex(dialog.visibility_combo.findData("unlisted"))
    assert dialog.collect() == {"title": title + " (new)", "visibility": "unlisted"}
    assert dialog.submit_button.isEnabled()
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    assert dialog.result() == PodcastDialog.DialogCode.Accepted, dialog.banner.text
    await until(lambda: pane.details.heading.text() == title + " (new)")
    fresh = await session.client.podcasts.get(podcast.id)
    assert fresh.visibility == "unlisted" and fresh.url  # unlisted podcasts have a website
    assert fresh.description == podcast.description  # untouched
    await until(lambda: pane.details.value_of("Visibility") == "Unlisted")
    await quiet()


@pytest.mark.asyncio
async def test_bad_input_is_blocked_inline(qtbot: QtBot, session: Session, shot) -> None:
    pane = await open_pane(qtbot, session)
    pane.new_item()
    dialog = pane.dialog
    assert isinstance(dialog, PodcastDialog)
    await dialog.hosts_picker.wait_loaded()
    qtbot.keyClicks(dialog.title_edit, "x")
    dialog.title_edit.clear()  # empty title
    dialog.language_edit.clear()
    qtbot.keyClicks(dialog.language_edit, "e1")
    assert not dialog.submit_button.isEnabled()
    assert dialog.rows["title"].error.isVisible()
    assert dialog.rows["language"].error.isVisible()
    assert not dialog.rows["host_ids"].error.isVisible()  # not touched yet
    qtbot.keyClicks(dialog.title_edit, "A" * 101)
    assert dialog.rows["title"].error.isVisible() and "100" in dialog.rows["title"].error.text()
    dialog.try_submit()  # shows every problem, sends nothing
    assert dialog.rows["host_ids"].error.isVisible()
    assert dialog.result_value is None and dialog.isVisible()
    await quiet()
    shot(dialog, "dialog-podcast-invalid")
    dialog.title_edit.setText("Fine now")
    dialog.language_edit.setText("fil")
    dialog.hosts_picker.check((await first_host(session)).id)
    assert dialog.submit_button.isEnabled()
    assert not any(row.error.isVisible() for row in dialog.rows.values())
    dialog.reject()
    await quiet()


@pytest.mark.asyncio
async def test_server_rejection_lands_on_the_hosts(qtbot: QtBot, session: Session, shot) -> None:
    """The model accepts any host id; the sandbox refuses a host archived while the dialog was open."""
    host = await session.client.hosts.create(
        name=f"Brief {uuid.uuid4().hex[:6]}", backstory=BACKSTORY, voice_id=1001
    )
    pane = await open_pane(qtbot, session)
    pane.new_item()
    dialog = pane.dialog
    assert isinstance(dialog, PodcastDialog)
    await dialog.hosts_picker.wait_loaded()
    qtbot.keyClicks(dialog.title_edit, f"Gone host {uuid.uuid4().hex[:6]}")
    dialog.hosts_picker.check(host.id)
    assert dialog.submit_button.isEnabled()
    await session.client.hosts.delete(host.id)  # archived meanwhile
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    assert dialog.isVisible() and dialog.result_value is None
    hosts_row = dialog.rows["host_ids"]
    assert hosts_row.error.isVisible() and host.id in hosts_row.error.text()
    assert not dialog.rows["title"].error.isVisible()
    assert "did not accept" in dialog.banner.text and dialog.banner.request_id
    await quiet()
    shot(dialog, "dialog-podcast-server-error")
    dialog.reject()


def comparable(value: object) -> object:
    return ("pixmap", value.cacheKey()) if isinstance(value, QPixmap) else value


@pytest.mark.asyncio
async def test_the_table_is_painted_from_one_call_per_cell_with_what_data_answers(
    qtbot: QtBot, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt's delegate asks seven roles of each cell it paints, and Qt's proxy asks its source one
    role at a time: the proxy passes the whole request to the model in one call, and the answers
    are the ones ``data`` gives role by role."""
    calls = count_calls(monkeypatch, ResourceTableModel, "fill_roles", "data")  # before the model is made
    pane = await open_pane(qtbot, session)
    await pane.model.wait_idle()
    proxy = pane.proxy
    assert proxy.rowCount() >= 3
    pane.table.viewport().grab()  # the rows' covers are asked for as they are painted
    await until(lambda: pane.pictures.idle, timeout=60)
    roles = [
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.AccessibleDescriptionRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.UserRole,
    ]
    answered = 0
    for row in range(3):
        for column in range(proxy.columnCount()):
            index = proxy.index(row, column)
            for role in roles:
                answer = answer_in_one_call(proxy, index, role)
                assert comparable(answer) == comparable(proxy.data(index, role)), (row, column, role)
                answered += answer is not None
    assert answered >= 3 * proxy.columnCount()  # (the titles at least: not a table of nothing)

    calls["fill_roles"] = calls["data"] = 0
    pane.table.viewport().grab()
    shown = proxy.rowCount() * proxy.columnCount()
    assert 0 < calls["fill_roles"] <= shown * 2  # each cell painted once (twice at most: a tooltip's hover)
    assert calls["data"] == 0
    await quiet()
