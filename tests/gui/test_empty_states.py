"""Empty panes say what they are for and offer the next step; a filter that hides every row says so
and offers to clear it; a list with rows, a list being read, and a list never cached while offline
never show it. Against the real sandbox (a fresh organization is added to it for the empty lists)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from castdeck.sandbox.db import Database
from castdeck.services.background import Background
from castdeck.services.session import ConnectionState, Session
from castdeck.store.cache import Cache
from castdeck.ui.dialogs.host_dialog import HostDialog
from castdeck.ui.pane import ResourcePane
from castdeck.ui.panes.episodes import EpisodesPane
from castdeck.ui.panes.hosts import HostsPane
from castdeck.ui.panes.media import VideosPane
from castdeck.ui.panes.podcasts import PodcastsPane
from tests.conftest import RunningSandbox
from tests.gui.conftest import OnLine, open_session, quiet, settle, shown_pane, until
from tests.gui.helpers import dark_palette, make_pane, new_podcast


@pytest_asyncio.fixture
async def fresh(sandbox: RunningSandbox, tmp_path: Path) -> AsyncIterator[tuple[Session, Background]]:
    """A session of a new organization with nothing in it yet (added to the shared sandbox)."""
    key = f"sk_sandbox_empty_{uuid.uuid4().hex[:12]}"
    database = Database(sandbox.data_dir / "sandbox.sqlite3")
    try:
        database.add_org(f"org_empty_{uuid.uuid4().hex[:8]}", "Empty Studio", "creator", 1_000.0, [key])
    finally:
        database.close()
    cache = Cache(tmp_path / "fresh-cache.sqlite3")
    session = await open_session(sandbox.base_url, cache, key=key)
    background = Background(session, tmp_path / "fresh-background")
    background.start()
    yield session, background
    await settle()
    await background.close()
    await session.close()
    cache.close()


async def shown_empty(qtbot: QtBot, pane: ResourcePane) -> ResourcePane:
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.view_stack.currentWidget() is pane.empty_state)
    assert pane.model.rowCount() == 0 and not pane.model.loading
    return pane


def pages_shown(pane: ResourcePane) -> list[QWidget]:
    """Every page the pane's list area turns to from now on."""
    shown: list[QWidget] = []
    pane.view_stack.currentChanged.connect(lambda index: shown.append(pane.view_stack.widget(index)))
    return shown


@pytest.mark.asyncio
async def test_a_fresh_organization_starts_with_a_host(
    qtbot: QtBot, fresh: tuple[Session, Background], shot: Any
) -> None:
    session, _background = fresh
    pane = await shown_empty(qtbot, HostsPane(session))
    empty = pane.empty_state
    assert empty.title_label.text() == "No hosts yet"
    assert empty.body_label.text() == (
        "Hosts are the voices of your shows. Create a host first, then a podcast for them to present."
    )
    assert empty.accessibleName() == "No hosts yet"
    assert empty.button.isVisible() and empty.button.isEnabled()
    assert empty.button.text() == "New host" and empty.button.accessibleName() == "New host"
    assert not empty.clear_button.isVisible() and not empty.reason_label.isVisible()
    await quiet()
    shot(pane, "empty-host-light")

    # the keyboard reaches the next step from the filter box, and Space takes it
    pane.activateWindow()
    await until(pane.isActiveWindow, timeout=10)
    pane.filter_edit.setFocus()
    await until(pane.filter_edit.hasFocus)
    for _ in range(10):
        if empty.button.hasFocus():
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert empty.button.hasFocus()
    qtbot.keyClick(empty.button, Qt.Key.Key_Space)
    await until(lambda: isinstance(pane.dialog, HostDialog) and pane.dialog.isVisible())
    pane.dialog.reject()
    await quiet()

    # the first host makes the list itself come back
    host = await session.client.hosts.create(name="Ada Finch", backstory="A new voice.", voice_id=1001)
    pane.refresh()
    await until(lambda: pane.view_stack.currentWidget() is pane.table and pane.model.row_of(host.id) >= 0)
    assert not empty.isVisible()
    await quiet()


@pytest.mark.asyncio
async def test_each_pane_says_its_own_next_step(
    qtbot: QtBot, fresh: tuple[Session, Background], shot: Any
) -> None:
    session, background = fresh
    podcasts = await shown_empty(qtbot, PodcastsPane(session))
    assert podcasts.empty_state.title_label.text() == "No podcasts yet"
    assert podcasts.empty_state.body_label.text() == "A podcast holds your episodes. You need a host first."
    assert podcasts.empty_state.button.text() == "New podcast"
    podcasts.set_view("cards")  # the empty state stands in for the cards too
    assert podcasts.view_stack.currentWidget() is podcasts.empty_state

    episodes = await shown_empty(qtbot, EpisodesPane(session, background))
    assert episodes.empty_state.title_label.text() == "No episodes yet"
    assert episodes.empty_state.button.text() == "Generate episode"
    assert episodes.empty_state.button.isEnabled()
    await quiet()
    shot(episodes, "empty-episode-light")

    videos = await shown_empty(qtbot, VideosPane(session, background))
    assert videos.empty_state.title_label.text() == "No videos yet"
    assert videos.empty_state.button.text() == "New video…"
    assert videos.empty_state.button.accessibleName() == "New video"

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    app.setPalette(dark_palette())
    try:
        await quiet()
        shot(videos, "empty-video-dark")
    finally:
        app.setPalette(light)
    await quiet()


@pytest.mark.asyncio
async def test_a_filter_that_hides_every_row_offers_to_clear_it(
    qtbot: QtBot, session: Session, shot: Any
) -> None:
    pane = PodcastsPane(session)
    shown = pages_shown(pane)
    await shown_pane(qtbot, pane)
    assert pane.view_stack.currentWidget() is pane.table
    assert pane.empty_state not in shown  # not while the list was read, not with rows

    pane.filter_edit.setText("no podcast is called this")
    empty = pane.empty_state
    await until(lambda: pane.view_stack.currentWidget() is empty)
    assert empty.title_label.text() == "Nothing matches “no podcast is called this”"
    assert empty.clear_button.isVisible() and empty.clear_button.accessibleName() == "Clear filter"
    assert not empty.button.isVisible()
    await quiet()
    shot(pane, "empty-filter-light")

    empty.clear_button.click()
    assert pane.filter_edit.text() == ""
    assert pane.view_stack.currentWidget() is pane.table
    assert pane.proxy.rowCount() == pane.model.rowCount() > 0

    pane.filter_edit.setText(pane.model.item(0).title)  # a filter that still shows rows: the list stays
    assert pane.view_stack.currentWidget() is pane.table
    pane.refresh()  # read again: the list stays while it is read
    await until(lambda: not pane.model.loading and pane.model.rowCount() > 0)
    assert pane.view_stack.currentWidget() is pane.table
    await quiet()


@pytest.mark.asyncio
async def test_offline_without_a_cached_copy_leaves_it_to_the_offline_banner(
    qtbot: QtBot, on_line: OnLine
) -> None:
    on_line.line.down()
    pane = PodcastsPane(on_line.session)
    shown = pages_shown(pane)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.offline_banner.isVisible() and not pane.model.loading)
    assert "no podcasts were cached yet" in pane.offline_banner.text
    assert pane.model.rowCount() == 0
    assert pane.view_stack.currentWidget() is pane.table
    assert pane.empty_state not in shown

    on_line.line.up()  # the service returns: the pane reads its list again, and shows it
    await until(lambda: on_line.session.state is ConnectionState.ONLINE, timeout=40)
    await until(lambda: not pane.model.offline and pane.model.rowCount() > 0 and not pane.model.loading)
    assert pane.view_stack.currentWidget() is pane.table
    assert pane.empty_state not in shown
    await quiet()


@pytest.mark.asyncio
async def test_filters_that_leave_nothing_and_writing_that_is_impossible_say_so(
    qtbot: QtBot, on_line: OnLine, shot: Any
) -> None:
    session, line = on_line.session, on_line.line
    podcast = await new_podcast(session, f"Quiet Harbour {uuid.uuid4().hex[:6]}")  # no episodes yet
    pane = await make_pane(qtbot, session, on_line.background, podcast)
    empty = pane.empty_state
    await until(lambda: pane.view_stack.currentWidget() is empty)
    assert empty.title_label.text() == "No episodes match these filters"
    assert empty.button.text() == "Generate episode" and empty.button.isEnabled()
    assert not empty.reason_label.isVisible()

    line.down()  # the service goes away: the cached (empty) list stays, and writing is impossible
    pane.refresh()
    await until(lambda: session.state is ConnectionState.OFFLINE)
    await until(
        lambda: pane.model.offline and not pane.model.loading and pane.view_stack.currentWidget() is empty
    )
    assert not empty.button.isEnabled()
    assert empty.button.toolTip() == session.write_block_reason
    assert empty.reason_label.isVisible() and empty.reason_label.text() == session.write_block_reason
    shot(pane, "empty-episode-offline")

    line.up()
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await until(lambda: empty.button.isEnabled() and not empty.reason_label.isVisible())
    await until(lambda: not pane.model.offline and not pane.model.loading)
    await quiet()
