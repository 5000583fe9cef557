"""A finished item's length where the service gives none (the spec shows no ``duration_seconds``):
read from its file by the player that made its still, and kept with the still, so the Length
column, its sort and tooltip, the details' Duration and the card's subtitle say how long it really
is; until then the length asked for, with the tooltip saying so."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from castdeck.api.models import MediaJob
from castdeck.services.media_actions import format_duration
from castdeck.ui.listen.player_bar import time_text
from castdeck.ui.panes.media import MediaPane, VideosPane
from castdeck.ui.panes.media_length import FROM_FILE, FROM_SERVICE, ItemLength, clock_text, item_length
from castdeck.ui.resource_model import SORT_ROLE
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.media_preview_helpers import finished_video, open_media_pane


@pytest.fixture(scope="module")
def finished(sandbox: RunningSandbox) -> dict[str, Any]:
    return finished_video(sandbox, "A short explainer on how sluice gates hold the tide back")


def without_duration(body: dict[str, Any]) -> dict[str, Any]:
    """The service's answer as one that gives no length (a list, or one item)."""
    data = body["data"]
    for item in data if isinstance(data, list) else [data]:
        item.pop("duration_seconds", None)
    return body


def length_cell(pane: MediaPane, media_id: str) -> tuple[str, str, Any]:
    """The Length column's text, tooltip and sort key on the item's row."""
    column = next(
        c
        for c in range(pane.model.columnCount())
        if pane.model.headerData(c, Qt.Orientation.Horizontal) == "Length"
    )
    index = pane.model.index(pane.model.row_of(media_id), column)
    return (
        index.data(Qt.ItemDataRole.DisplayRole),
        index.data(Qt.ItemDataRole.ToolTipRole),
        index.data(SORT_ROLE),
    )


def duration_tip(pane: MediaPane) -> str:
    label = pane.duration_label
    assert label is not None and label.isVisible()
    return label.toolTip()


def job(**fields: Any) -> MediaJob:
    return MediaJob.model_validate(
        {"id": "v1", "status": "completed", "target_duration_seconds": 300, **fields}
    )


def test_whose_length_counts() -> None:
    assert item_length(job(duration_seconds=396.4), 12.0) == ItemLength(
        396.4, FROM_SERVICE
    )  # the service's first
    assert item_length(job(), 12.5) == ItemLength(12.5, FROM_FILE)
    assert (
        item_length(job(status="generating"), 12.5) is None
    )  # a new attempt: the old file's is not its length
    assert item_length(job(duration_seconds=True), None) is None and item_length(job(), 0.0) is None
    assert [clock_text(s) for s in (5, 396.4, 3725)] == ["0:05", "6:36", "1:02:05"]
    # a part of a second is dropped everywhere, as the player's clock drops it: 56.6 s is 56 s
    assert (clock_text(56.6), format_duration(56.6), time_text(56.6)) == ("0:56", "56 s", "00:56")


@pytest.mark.asyncio
async def test_the_length_of_a_finished_video_is_read_from_its_file_where_the_service_gives_none(
    qtbot: QtBot, on_line: OnLine, sandbox: RunningSandbox, finished: dict[str, Any]
) -> None:
    media_id = finished["id"]
    given = sandbox.client(DEMO_KEY).get(f"/v1/videos/{media_id}").json()["data"]["duration_seconds"]
    assert given > 0  # what the sandbox knows; the line keeps it from the app
    on_line.line.change_answers("GET", "/v1/videos", without_duration)
    on_line.line.change_answers("GET", f"/v1/videos/{media_id}", without_duration)
    session, background = on_line.session, on_line.background
    pane = await open_media_pane(qtbot, session, background, VideosPane)
    item = pane.model.item(pane.model.row_of(media_id))
    assert getattr(item, "duration_seconds", None) is None and item.status == "completed"
    asked = format_duration(item.target_duration_seconds)
    assert asked == "7 min"  # the default length of a video
    assert length_cell(pane, media_id) == (
        asked,
        f"The length asked for ({asked}): the service gives none; Castdeck reads it from the file once the "
        "video is previewed here",
        420.0,
    )
    assert pane.card_subtitle(item) == "Video · completed · 7:00"

    # previewed: the file is kept, its still made, and its length read by the player that made it
    assert pane.select_id(media_id)
    assert pane.details.value_of("Duration") == "Not known yet"  # shown at once, before any file is here
    assert "reads it from the file" in duration_tip(pane)
    measured = await until(lambda: pane.stills.length(media_id), timeout=90)
    assert measured == pytest.approx(given, abs=0.5)  # the file's own length, as the service knows it
    assert clock_text(measured) != "7:00"  # (so the column below shows the file's length, not the asked one)
    text, tip, key = length_cell(pane, media_id)
    assert text == clock_text(measured) and key == measured
    assert (
        tip
        == f"Its length, read from its file on this computer (the service gives none); {asked} was asked for"
    )
    await until(lambda: pane.details.value_of("Duration") == format_duration(measured))
    assert duration_tip(pane) == "Read from its file on this computer (the service gives no length)"
    assert pane.details.value_of("Target duration") == asked
    assert pane.card_subtitle(pane.current) == f"Video · completed · {clock_text(measured)}"

    # another pane (the app opened again): the length comes with the kept still, nothing made again
    again = await open_media_pane(qtbot, session, background, VideosPane)
    assert again.stills is not pane.stills
    await until(lambda: again.stills.length(media_id) == measured, timeout=60)
    assert again.stills.made == 0 and pane.stills.made == 1
    await until(lambda: length_cell(again, media_id)[0] == clock_text(measured))
    await quiet()
