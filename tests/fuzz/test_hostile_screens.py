"""What a creator sees when the service sends hostile content: the Podcasts pane with a page that
holds an unreadable item, a megabyte title, and a description of scripts, a tracking image and
tables nested fifty deep. Screenshots in light and dark go to ``artifacts/``."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from castdeck.services.safe_html import MAX_TABLE_DEPTH
from castdeck.ui.widgets import DISPLAY_LIMIT
from tests.fuzz.hostile import nested_tables
from tests.fuzz.world import Connected, json_reply
from tests.gui.conftest import isolated_settings, memory_keyring, quiet, until  # noqa: F401 - fixtures
from tests.gui.helpers import dark_palette

HOSTILE_DESCRIPTION = (
    '<p>Welcome!<script>alert("x")</script> <img src="http://198.51.100.7/pixel.png" alt="tracker"></p>'
    '<p style="font-size: 90000px">Not huge.</p><a href="javascript:alert(1)">a script link</a> · '
    '<a href="https://example.com/">a web link</a>' + nested_tables(50)
)
PODCASTS = [
    {"id": "p1", "title": "T" * 1_000_000, "description": HOSTILE_DESCRIPTION, "visibility": "public"},
    {"title": "an item without an id"},
    {"id": "p2", "title": "Tides", "description": "<b>Bold</b> and plain", "episode_count": 10**15},
]


@pytest.mark.asyncio
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_hostile_podcasts_are_shown_safely(
    connected: Connected, qtbot: QtBot, shot: Any, scheme: str
) -> None:
    from castdeck.ui.panes.podcasts import PodcastsPane

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    app.setPalette(dark_palette() if scheme == "dark" else light)
    try:
        connected.world.replies["/v1/podcasts"] = json_reply({"data": PODCASTS})
        connected.world.replies["/v1/podcasts/*"] = json_reply({"data": PODCASTS[0]})
        pane = PodcastsPane(connected.session)
        qtbot.addWidget(pane)
        pane.resize(1100, 700)
        pane.show()
        pane.activate()
        await until(lambda: pane.model.rowCount() == 2 and not pane.model.loading)
        pane.table.selectRow(0)
        await until(lambda: not pane.work.pending())
        assert "1 of the 3 podcasts on this page could not be read" in pane.banner.text
        assert len(pane.details.heading.text().replace("\u200b", "")) == DISPLAY_LIMIT  # wrap points
        shown = pane.details.text.toHtml()
        assert "alert" not in shown and "198.51.100.7" not in shown and "javascript" not in shown
        assert shown.count("<table") == MAX_TABLE_DEPTH
        shot(pane, f"fuzz-hostile-podcasts-{scheme}")
        await quiet()  # the pane's reads of names and covers end before the loop stops
    finally:
        app.setPalette(light)
