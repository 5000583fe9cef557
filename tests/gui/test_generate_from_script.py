"""The Generate dialog's script modes (from the Episodes pane): a draft of the Scripts workspace or a
script file becomes spec 2.4's script, with its hosts, and one episode."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from castdeck.api import Accepted
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.dialogs.script_source import DRAFT, FILE
from tests.gui.conftest import OnLine, quiet
from tests.gui.helpers import make_pane, new_podcast


async def open_dialog(qtbot: QtBot, on_line: OnLine, podcast_id: str) -> GenerateDialog:
    pane = await make_pane(qtbot, on_line.session, on_line.background)
    dialog = pane.generate()
    await dialog.podcast_picker.wait_loaded()
    await dialog.hosts_picker.wait_loaded()
    dialog.podcast_picker.set_selected(podcast_id)
    return dialog


@pytest.mark.asyncio
async def test_generate_from_a_draft(
    qtbot: QtBot, on_line: OnLine, shot: Callable[[QWidget, str], Path]
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    show = await new_podcast(session, f"From a draft {uuid.uuid4().hex[:6]}")
    draft = await background.drafts.create(
        "# Harbour lights\n[Alex]\nThe lighthouse came first.\n[Keeper]\nAnd then the keepers.\n"
    )
    hosts = {h.name: h.id async for h in session.client.hosts.list(limit=100)}
    await background.drafts.update(draft.id, mapping={"Keeper": hosts["Oliver Grant"]})
    dialog = await open_dialog(qtbot, on_line, show.id)
    assert dialog.mode == "prompt" and dialog.rows["prompt"].widget.isVisibleTo(dialog)
    dialog.set_mode(DRAFT)
    assert not dialog.rows["prompt"].widget.isVisibleTo(dialog) and dialog.rows["script"].widget.isVisibleTo(
        dialog
    )
    await dialog.script_source.wait_loaded()
    dialog.script_source.select_draft(draft.id)
    await dialog.script_source.wait_loaded()
    body = dialog.collect()
    assert body["script"] == {"chapters": [{"title": "Harbour lights", "segments": [
        {"host_id": hosts["Alex Rivera"], "text": "The lighthouse came first."},
        {"host_id": hosts["Oliver Grant"], "text": "And then the keepers."}]}]}  # fmt: skip
    assert body["host_ids"] == [hosts["Alex Rivera"], hosts["Oliver Grant"]] and "prompt" not in body
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    assert "about 0.1 min" in dialog.estimate.text() and "credits" in dialog.estimate.text()
    assert "2 turns, 2 hosts" in dialog.script_source.summary.text()
    await quiet()
    shot(dialog, "dialog-generate-from-draft")
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    accepted = dialog.result_value
    assert isinstance(accepted, Accepted)
    episode = await session.client.episodes.get(str(accepted.data.id))
    assert str(episode.podcast_id) == show.id
    assert set(episode.host_ids or []) == {hosts["Alex Rivera"], hosts["Oliver Grant"]}
    assert [s.status for s in line.to("POST", "/v1/episodes/generate")] == [202]
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_generate_from_a_file_says_what_keeps_it_back(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path
) -> None:
    session = on_line.session
    show = await new_podcast(session, f"From a file {uuid.uuid4().hex[:6]}")
    hosts = {h.name: h.id async for h in session.client.hosts.list(limit=100)}
    dialog = await open_dialog(qtbot, on_line, show.id)
    dialog.set_mode(FILE)
    text_file = tmp_path / "episode.txt"
    text_file.write_text("[Alex]\nHello.\n[Nobody In Particular]\nHi.\n", encoding="utf-8")
    dialog.script_source.set_file(str(text_file))
    await dialog.script_source.wait_loaded()
    dialog.try_submit()
    assert not dialog.submit_button.isEnabled()
    assert "No host is called “Nobody In Particular”" in dialog.rows["script"].error.text()
    structured = tmp_path / "episode.json"
    structured.write_text(json.dumps({"chapters": [{"segments": [
        {"host_id": hosts["Priya Natarajan"], "text": "Numbers first."},
        {"host_id": "not-a-host", "text": "Who?"}]}]}))  # fmt: skip
    dialog.script_source.set_file(str(structured))
    await dialog.script_source.wait_loaded()
    dialog.revalidate()
    assert "Host “not-a-host” is not an active host" in dialog.rows["script"].error.text()
    structured.write_text(json.dumps({"chapters": [{"segments": [
        {"host_id": hosts["Priya Natarajan"], "text": "Numbers first."}]}]}))  # fmt: skip
    dialog.script_source.set_file(str(structured))
    await dialog.script_source.wait_loaded()
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    assert dialog.collect()["host_ids"] == [hosts["Priya Natarajan"]]
    dialog.script_source.set_file(str(tmp_path / "missing.md"))
    await dialog.script_source.wait_loaded()
    assert not dialog.submit_button.isEnabled() and "Cannot read" in dialog.rows["script"].error.text()
    dialog.reject()
    await quiet()
