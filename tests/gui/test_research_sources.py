"""Which sources a generation can use is one rule (castdeck.services.source_use), and the Generate
dialog and the Video and Short dialogs offer the same sources by it: failed ones and uploads never
completed are greyed out; sources still processing can be ticked (the generation waits for them)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from castdeck.api.models import Source
from castdeck.services.source_use import (
    is_research_source,
    is_visual_source,
    research_source_problem,
    visual_source_problem,
)
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.dialogs.media_dialog import MediaCreateDialog
from castdeck.ui.panes.media import ShortsPane, VideosPane
from castdeck.ui.pickers import ID_ROLE, CheckPicker
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import make_pane
from tests.gui.test_media_panes import open_pane

STATES = {"How kelp forests store carbon": "awaiting_upload", "Tidal energy primer": "processing"}
"""Seeded sources whose state the line changes on the way back (the sandbox keeps them as they are)."""


def in_states(body: dict[str, Any]) -> dict[str, Any]:
    for source in body["data"]:
        source["status"] = STATES.get(source.get("title"), source["status"])
    return body


def offered(picker: CheckPicker) -> dict[str, tuple[str | None, bool]]:
    """Each listed source's title: its state and whether it can be ticked."""
    shown = {}
    for row in range(picker.list.count()):
        item = picker.list.item(row)
        source = picker.items[item.data(ID_ROLE)]
        shown[source.title] = (source.status, bool(item.flags() & Qt.ItemFlag.ItemIsEnabled))
    return shown


def source(status: str | None, **fields: Any) -> Source:
    return Source.model_validate({"id": "s1", "status": status, **fields})


def test_the_rule() -> None:
    assert [is_research_source(source(s)) for s in ("completed", "processing", "error", "awaiting_upload")] == [
        True, True, False, False,
    ]  # fmt: skip
    assert research_source_problem(source("awaiting_upload")) == "upload never completed"
    assert research_source_problem(source("ERROR")) == "failed processing"
    assert is_research_source(source(None)) and is_research_source(source("archived"))  # the service judges
    visual = {"type": "upload", "metadata": {"prepare_visuals": True, "visual_count": 3}}
    assert is_visual_source(source("completed", **visual))
    assert visual_source_problem(source("processing", **visual)) == "not ready (processing)"
    assert visual_source_problem(source("completed", type="upload")) == "uploaded without prepared visuals"
    assert visual_source_problem(source("completed", type="url")) == "a web page, not an uploaded file"


@pytest.mark.asyncio
async def test_the_generate_and_media_dialogs_offer_the_same_sources(qtbot: QtBot, on_line: OnLine) -> None:
    on_line.line.change_answers("GET", "/v1/sources", in_states)
    episodes = await make_pane(qtbot, on_line.session, on_line.background)
    generate = episodes.generate()
    assert isinstance(generate, GenerateDialog)
    await generate.sources_picker.wait_loaded()
    seen = offered(generate.sources_picker)
    assert seen["How kelp forests store carbon"] == ("awaiting_upload", False)
    assert seen["Tidal energy primer"] == ("processing", True)
    assert seen["Ocean energy outlook 2024"] == ("error", False)
    assert seen["Tidal array diagram"] == ("completed", True)
    generate.reject()

    for cls in (VideosPane, ShortsPane):
        pane = open_pane(qtbot, on_line.session, on_line.background, cls)
        pane.new_item()
        dialog = await until(lambda p=pane: p.dialog if isinstance(p.dialog, MediaCreateDialog) else None)
        await dialog.sources.wait_loaded()
        assert offered(dialog.sources) == seen, cls.__name__  # one rule: the same sources offered
        dialog.reject()
    await quiet()
