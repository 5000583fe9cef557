"""Work belongs to what started it: a pane, a dialog or a window that closes ends its reads and
actions at once, and nothing it started can reach it after it is gone."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from castdeck.ui.main_window import MainWindow
from castdeck.ui.panes.episodes import EpisodesPane
from tests import runner as work
from tests.gui.conftest import OnLine, until


def work_named(name: str) -> list[str]:
    return [t.get_name() for t in work.pending(followers=False) if t.get_name() == name]


@pytest.mark.asyncio
async def test_a_closing_window_ends_the_work_its_panes_started(qtbot: QtBot, on_line: OnLine) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    line.hold_requests("GET", "/v1/episodes")  # the list read stays in flight until the window is gone
    window = MainWindow(session, background, start_pane="Episodes")
    qtbot.addWidget(window)
    window.show()
    pane = window.current_pane()
    assert isinstance(pane, EpisodesPane)
    await until(lambda: work_named("load page"))
    assert pane.model.loading

    window.close()
    await until(lambda: not work_named("load page"))
    assert not pane.model.loading
    assert pane.work.closed and pane.model.work.closed
    pane.run(session.refresh_account(), "late")  # a signal reaching a closed pane starts nothing
    await until(lambda: work.running() == 0)
    assert not pane.banner.isVisible()
    line.release()
    assert [s.path for s in line.to("GET") if s.path == "/v1/episodes"] == []  # the held read never went out


@pytest.mark.asyncio
async def test_switching_the_connection_ends_the_old_panes_work(qtbot: QtBot, on_line: OnLine) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    window = MainWindow(session, background, start_pane="Episodes")
    qtbot.addWidget(window)
    window.show()
    old = window.current_pane()
    assert isinstance(old, EpisodesPane)
    await until(lambda: old.model.rowCount() > 0 and not old.model.loading)
    line.hold_requests("GET", "/v1/episodes")
    old.refresh()
    await until(lambda: old.model.loading)

    window.set_session(session, background)  # the panes are built anew for the (new) connection
    assert old.work.closed
    await until(lambda: not old.model.loading)
    fresh = window.current_pane()
    assert isinstance(fresh, EpisodesPane) and fresh is not old and not fresh.work.closed
    line.release()
    await until(lambda: fresh.model.rowCount() > 0 and not fresh.model.loading)
    window.close()
    await until(lambda: work.running() == 0)
