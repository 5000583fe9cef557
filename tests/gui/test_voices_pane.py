"""The Voices pane: lazy pages from the service, server-side filters, details, qtmodeltester."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from castdeck.services.session import Session
from castdeck.ui.panes.voices import VoicesPane
from tests.gui.conftest import until


@pytest.mark.asyncio
async def test_voices_load_filter_and_show_details(qtbot: QtBot, session: Session, shot) -> None:
    pane = VoicesPane(session)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.model.rowCount() == 24)
    await pane.model.wait_idle()
    assert not pane.model.canFetchMore()

    pane.voice_filters.language.setCurrentIndex(pane.voice_filters.language.findData("de"))
    await until(lambda: not pane.model.loading and pane.model.rowCount() > 0)
    assert {v.language for v in pane.model.items} == {"de"}

    pane.voice_filters.language.setCurrentIndex(0)
    pane.voice_filters.gender.setCurrentIndex(pane.voice_filters.gender.findData("female"))
    await until(lambda: not pane.model.loading and pane.model.rowCount() > 0)
    assert {v.gender for v in pane.model.items} == {"female"}

    pane.table.selectRow(0)
    await until(lambda: pane.details.value_of("Gender") == "Female")
    shot(pane, "pane-voices")
