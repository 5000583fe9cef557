"""The Scripts workspace with real widgets against the sandbox: writing, problems, outline, speakers,
find and replace, the structured view, files, history, and sending (mapping after a refusal,
offline then exactly once)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextCursor
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.scripts.dialogs import HistoryDialog, MappingDialog, RenameDialog, SendDialog
from castdeck.ui.scripts.pane import ScriptsPane
from tests.gui.conftest import OnLine, answer_confirmation, quiet, until
from tests.gui.helpers import drop_on, new_podcast
from tests.runner import RUNTIME

SCRIPT = """Title: Slack water
# The tide turns
[Alex]
Welcome back. (laughs) Today: the pause between tides.

[MUSIC: a swell]
[Priya]
Slack water is when the current stops.
# Why it matters
[Alex]
Sailors wait for it.
[Maya]
And so do divers.
"""


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, color in (
        (QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
        (QPalette.ColorRole.Base, "#17181a"), (QPalette.ColorRole.AlternateBase, "#26282b"),
        (QPalette.ColorRole.Text, "#e8eaed"), (QPalette.ColorRole.Button, "#2d2f33"),
        (QPalette.ColorRole.ButtonText, "#e8eaed"), (QPalette.ColorRole.Highlight, "#3b78e7"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.Mid, "#9aa0a6"),
        (QPalette.ColorRole.PlaceholderText, "#9aa0a6"), (QPalette.ColorRole.ToolTipBase, "#2d2f33"),
        (QPalette.ColorRole.ToolTipText, "#e8eaed"),
    ):  # fmt: skip
        palette.setColor(role, QColor(color))
    return palette


async def open_pane(qtbot: QtBot, session: Session, background: Background) -> ScriptsPane:
    pane = ScriptsPane(session, background)
    qtbot.addWidget(pane)
    pane.resize(1400, 820)
    pane.show()
    pane.activate()
    await until(lambda: pane.hosts is not None)
    await quiet()
    return pane


async def new_draft(pane: ScriptsPane, text: str = "") -> None:
    pane.new_item()
    await until(
        lambda: (
            pane.draft is not None and pane.editor.isEnabled() and pane.list_model.row_of(pane.draft.id) >= 0
        )
    )
    if text:
        pane.editor.setPlainText(text)


def type_text(qtbot: QtBot, pane: ScriptsPane, text: str) -> None:
    pane.editor.setFocus()
    pane.editor.moveCursor(QTextCursor.MoveOperation.End)
    for index, line in enumerate(text.split("\n")):
        if index:
            qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
        if line:
            qtbot.keyClicks(pane.editor, line)


@pytest.mark.asyncio
async def test_writing_shows_problems_outline_and_speakers(
    qtbot: QtBot, on_line: OnLine, shot: Callable[[QWidget, str], Path]
) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    await new_draft(pane, SCRIPT)
    type_text(qtbot, pane, "[Sammy]\nWho am I? [whispers] Nobody knows.\n")
    analysis = pane.analysis
    assert analysis is not None and analysis.estimate.words > 20
    # problems: the title and music lines are dropped, and "Sammy" is no host (the hosts are known)
    codes = [(p.code, p.line) for p in analysis.problems]
    assert ("dropped", 0) in codes and ("dropped", 5) in codes
    (unresolved,) = [p for p in analysis.problems if p.code == "unresolved_speaker"]
    assert unresolved.labels == ("Sammy",) and unresolved.line == 13
    panel_texts = [pane.problems_panel.item(i).text() for i in range(pane.problems_panel.count())]
    assert any(t.startswith("Line 14: No host is called “Sammy”") for t in panel_texts)
    assert pane.editor.problems == analysis.problems  # underlined in the editor too
    # hovering the underline shows the message
    assert [p.code for p in pane.editor.problems_at(13, 2)] == ["unresolved_speaker"]
    # clicking a problem jumps to it
    row = next(i for i, t in enumerate(panel_texts) if "Sammy" in t)
    qtbot.mouseClick(pane.problems_panel.viewport(), Qt.MouseButton.LeftButton,
                     pos=pane.problems_panel.visualItemRect(pane.problems_panel.item(row)).center())  # fmt: skip
    assert pane.editor.textCursor().blockNumber() == 13
    # words, minutes and credits as you type
    assert f"{analysis.estimate.words:,} words" in pane.status.text()
    assert f"about {analysis.estimate.credits:,} credits" in pane.status.text()
    # the outline and speakers follow after a short pause
    await until(lambda: pane.outline.topLevelItemCount() == 2)
    chapters = [pane.outline.topLevelItem(i).text(0) for i in range(2)]
    assert chapters == ["1. The tide turns", "2. Why it matters"]
    turns = [
        pane.outline.topLevelItem(1).child(i).text(0)
        for i in range(pane.outline.topLevelItem(1).childCount())
    ]
    assert [t.split(":")[0] for t in turns] == ["Alex", "Maya", "Sammy"]
    await until(lambda: pane.speakers.labels == ["Alex", "Priya", "Maya", "Sammy"])
    combos = pane.speakers.combos
    assert combos["Alex"].currentText() == "By name: Alex Rivera"
    assert combos["Maya"].currentText() == "By name: Dr. Maya Chen"
    assert combos["Sammy"].currentText() == "Not resolved: choose a host"
    # a click in the outline jumps too
    item = pane.outline.topLevelItem(1).child(1)
    pane.outline.itemClicked.emit(item, 0)
    assert pane.editor.textCursor().blockNumber() == 11
    # choosing a host for Sammy maps it, and the problem goes
    combos["Sammy"].setCurrentIndex(combos["Sammy"].findText("Oliver Grant"))
    assert pane.draft is not None and "Sammy" in pane.draft.mapping
    assert not [p for p in pane.analysis.problems if p.code == "unresolved_speaker"]
    # undo and redo (the buttons and Ctrl+Z / Ctrl+Shift+Z)
    typed = pane.editor.toPlainText()
    assert pane.undo_button.isEnabled() and not pane.redo_button.isEnabled()
    qtbot.mouseClick(pane.undo_button, Qt.MouseButton.LeftButton)
    assert len(pane.editor.toPlainText()) < len(typed) and pane.redo_button.isEnabled()
    qtbot.mouseClick(pane.redo_button, Qt.MouseButton.LeftButton)
    assert pane.editor.toPlainText() == typed
    await pane.drafts.flush()
    await quiet()
    pane.side.setCurrentWidget(pane.problems_panel)
    shot(pane, "scripts-workspace-light")
    pane.setPalette(dark_palette())
    await quiet()
    shot(pane, "scripts-workspace-dark")
    pane.side.setCurrentWidget(pane.speakers)
    pane.views.setCurrentWidget(pane.structure)
    await quiet()
    shot(pane, "scripts-structure-dark")
    pane.setPalette(QApplication.palette())


async def accept_send_dialog(pane: ScriptsPane, podcast_id: str, *, render: bool = False) -> SendDialog:
    dialog = await until(
        lambda: pane.dialog if isinstance(pane.dialog, SendDialog) and pane.dialog.isVisible() else None
    )
    await dialog.podcast_picker.wait_loaded()
    dialog.podcast_picker.set_selected(podcast_id)
    dialog.render_check.setChecked(render)
    assert dialog.ok_button.isEnabled()
    dialog.ok_button.click()
    return dialog


async def read_podcasts(session: Session) -> None:
    """Read the podcast list once, as the app has by the time someone writes offline (it is cached)."""
    from castdeck.ui.pickers import podcast_feed

    feed = podcast_feed(session)
    while feed.has_more:
        await feed.next_page()


@pytest.mark.asyncio
async def test_an_import_queued_offline_goes_out_exactly_once_on_reconnect(
    qtbot: QtBot, on_line: OnLine, api, shot: Callable[[QWidget, str], Path]
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    show = await new_podcast(session, f"Offline {uuid.uuid4().hex[:6]}")
    await read_podcasts(session)
    pane = await open_pane(qtbot, session, background)
    await new_draft(pane)
    line.down()
    session.went_offline("the test took the network away")
    type_text(
        qtbot, pane, "# Slack water\n[Alex]\nWritten on a train with no signal.\n[Priya]\nAnd sent later."
    )
    pane.script_actions.send("import")
    dialog = await accept_send_dialog(pane, show.id)
    assert "sent once" in dialog.offline.text()
    await until(lambda: pane.draft is not None and pane.draft.state == "queued")
    await until(lambda: line.to("POST", "/v1/episodes/import"))
    assert "Queued" in pane.banner.text and "queued" in pane.info.text()
    shot(pane, "scripts-queued-offline")  # (no quiet(): the session's reconnection probe runs while offline)
    # the network returns: the session reconnects and the outbox sends the import, once
    line.up()
    await until(lambda: pane.draft is not None and pane.draft.state == "imported", timeout=60)
    sent = line.to("POST", "/v1/episodes/import")
    assert [s.fault for s in sent] == ["down", None] and sent[-1].status == 202
    assert len({s.idempotency_key for s in sent}) == 1
    episodes = api.get("/v1/episodes", params={"podcast_id": show.id}).json()[
        "data"
    ]  # counted on the sandbox
    assert [e["id"] for e in episodes] == [pane.draft.episode_id]
    assert f"episode:{pane.draft.episode_id}" in pane.info.text()
    row = pane.list_model.row_of(pane.draft.id)
    assert pane.list_model.drafts[row].state == "imported"
    await quiet()


@pytest.mark.asyncio
async def test_unresolved_speakers_open_the_mapping_and_the_fixed_import_reuses_the_key(
    qtbot: QtBot, on_line: OnLine, shot: Callable[[QWidget, str], Path]
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    show = await new_podcast(session, f"Mapping {uuid.uuid4().hex[:6]}")
    guest = await session.client.hosts.create(
        name=f"Quill {uuid.uuid4().hex[:6]}", backstory="A guest who will be archived before the import.",
        voice_id=1001, personality="Brief.",
    )  # fmt: skip
    pane = await open_pane(qtbot, session, background)
    assert any(h.id == guest.id for h in pane.hosts or [])
    await new_draft(pane)
    type_text(qtbot, pane, f"[Alex]\nOur guest today.\n[{guest.name}]\nThank you for having me.")
    assert pane.analysis is not None and not pane.analysis.errors  # the guest is a host... for now
    await session.client.hosts.delete(guest.id)  # archived elsewhere before the import goes out
    pane.script_actions.send("import")
    await accept_send_dialog(pane, show.id)
    # the service answers 422 unresolved_speakers: the mapping opens on the label it named
    mapping = await until(
        lambda: pane.dialog if isinstance(pane.dialog, MappingDialog) and pane.dialog.isVisible() else None
    )
    assert list(mapping.combos) == [guest.name]
    assert mapping.ok_button.text() == "Save and import again"
    assert all(
        mapping.combos[guest.name].itemData(i) != guest.id for i in range(mapping.combos[guest.name].count())
    )
    assert "refused" in pane.banner.text and "same idempotency key" in pane.banner.text
    assert pane.draft is not None and pane.draft.state == "draft"  # kept, editable
    assert pane.editor.isEnabled() and guest.name in pane.editor.toPlainText()
    shot(mapping, "scripts-mapping-after-refusal")  # (the dialog's own task waits for the answer)
    oliver = next(h for h in pane.hosts or [] if h.name == "Oliver Grant")
    mapping.choose(guest.name, oliver.id)
    mapping.ok_button.click()
    await until(lambda: pane.draft is not None and pane.draft.state == "imported", timeout=60)
    sent = line.to("POST", "/v1/episodes/import")
    assert [s.status for s in sent] == [422, 202]
    assert sent[0].idempotency_key == sent[1].idempotency_key  # spec 4.2: reuse after fixing the input
    assert pane.draft.mapping == {guest.name: oliver.id}
    assert pane.speakers.combos[guest.name].currentText() == "Oliver Grant"
    await quiet()


async def answer(pane: ScriptsPane, kind: type, act: Callable[[QWidget], None]) -> QWidget:
    dialog = await until(
        lambda: pane.dialog if isinstance(pane.dialog, kind) and pane.dialog.isVisible() else None
    )
    act(dialog)
    return dialog


@pytest.mark.asyncio
async def test_files_dropped_opened_and_saved_without_losing_changes_made_elsewhere(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path
) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    text_file = tmp_path / "harbour.md"
    text_file.write_text("# Harbour\n[Alex]\nThe boats come in.\n", encoding="utf-8")
    drop_on(pane, [text_file])
    await until(lambda: pane.draft is not None and pane.draft.file_path == str(text_file))
    await quiet()
    assert pane.editor.toPlainText() == "# Harbour\n[Alex]\nThe boats come in.\n"
    assert pane.draft.title == "harbour.md" and "harbour.md" in pane.info.text()
    type_text(qtbot, pane, "[Priya]\nAnd go out again.")
    await pane.script_actions.save_to(None)
    assert text_file.read_text(encoding="utf-8").endswith("[Priya]\nAnd go out again.")
    # another editor changes the file: saving asks first, and "Cancel" keeps the file as it is
    text_file.write_text("# Harbour\n[Alex]\nChanged in another editor.\n", encoding="utf-8")
    type_text(qtbot, pane, " Mine.")
    saving = pane.run(pane.script_actions.save_to(None))
    question = await answer_confirmation(pane, "Cancel")
    await saving
    assert "changed on disk" in question
    assert text_file.read_text(encoding="utf-8") == "# Harbour\n[Alex]\nChanged in another editor.\n"
    saving = pane.run(pane.script_actions.save_to(None))
    await answer_confirmation(pane, "Replace the file")
    await saving
    assert text_file.read_text(encoding="utf-8").endswith("And go out again. Mine.")
    # a structured file opens as text with the hosts' names, and saves back as JSON (a conversion)
    hosts = {h.name: h.id for h in pane.hosts or []}
    structured = tmp_path / "tides.json"
    structured.write_text(json.dumps({"chapters": [{"title": "Tides", "segments": [
        {"host_id": hosts["Dr. Maya Chen"], "text": "Twice a day."}]}]}))  # fmt: skip
    opened = await pane.script_actions.open_paths_now([str(structured)])
    assert opened is not None and pane.editor.toPlainText() == "# Tides\n\n[Dr. Maya Chen]\nTwice a day.\n"
    out = tmp_path / "tides-again.json"
    await pane.script_actions.save_to(out)
    assert json.loads(out.read_text()) == json.loads(structured.read_text())
    assert "before_conversion" in [v.reason for v in await pane.drafts.history(opened.id)]
    # a file that is not a script is said, not opened
    broken = tmp_path / "broken.json"
    broken.write_text("{ nope")
    assert await pane.script_actions.open_paths_now([str(broken)]) is None
    assert "broken.json is not a structured script" in pane.banner.text
    await quiet()


@pytest.mark.asyncio
async def test_find_replace_rename_and_history(
    qtbot: QtBot, on_line: OnLine, shot: Callable[[QWidget, str], Path]
) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    await new_draft(pane, SCRIPT)
    draft_id = pane.draft.id if pane.draft else ""
    # find and replace
    pane.focus_filter()
    assert pane.find_bar.isVisible()
    qtbot.keyClicks(pane.find_bar.find_edit, "tide")
    assert pane.find_bar.count.text() == "1 of 2"
    pane.find_bar.replace_edit.setText("current")
    qtbot.mouseClick(pane.find_bar.replace_all_button, Qt.MouseButton.LeftButton)
    await until(lambda: "tide" not in pane.editor.toPlainText().replace("tides", ""))
    assert "# The current turns" in pane.editor.toPlainText()
    assert "Replaced 2 matches" in pane.banner.text
    pane.editor.undo()  # one undo step brings both back
    assert "# The tide turns" in pane.editor.toPlainText() and "between tides" in pane.editor.toPlainText()
    await quiet()
    shot(pane, "scripts-find-replace")
    pane.find_bar.close_bar()
    # rename a speaker everywhere (its host goes with it)
    pane.refresh_panels()
    pane.speakers.select("Alex")
    qtbot.mouseClick(pane.speakers.rename_button, Qt.MouseButton.LeftButton)
    await answer(pane, RenameDialog, lambda d: (d.edit.setText("Alexandra"), d.ok_button.click()))
    await until(lambda: pane.editor.toPlainText().count("[Alexandra]") == 2)
    assert "[Alex]" not in pane.editor.toPlainText()
    # the history holds the versions from before each of them; restore the first
    await quiet()
    versions = await pane.drafts.history(draft_id)
    assert {"before_replace", "before_rename"} <= {v.reason for v in versions}
    before_replace = next(v for v in versions if v.reason == "before_replace")
    pane.script_actions.show_history()
    history = await answer(pane, HistoryDialog, lambda d: None)
    row = next(
        i
        for i in range(history.list.count())
        if history.list.item(i).data(Qt.ItemDataRole.UserRole) == before_replace.id
    )
    history.list.setCurrentRow(row)
    await until(lambda: history.restore_button.isEnabled())
    assert "# The tide turns" in history.preview.toPlainText()
    shot(history, "scripts-history")
    history.restore_button.click()
    await until(lambda: "[Alex]" in pane.editor.toPlainText())
    assert pane.editor.toPlainText() == SCRIPT
    assert "before_restore" in [v.reason for v in await pane.drafts.history(draft_id)]
    await quiet()


@pytest.mark.asyncio
async def test_the_structured_view_edits_the_same_script(qtbot: QtBot, on_line: OnLine) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    await new_draft(pane, SCRIPT)
    pane.views.setCurrentWidget(pane.structure)
    tree = pane.structure.tree
    await until(lambda: tree.topLevelItemCount() == 2)
    # a turn moved into the other chapter (as a drop leaves the tree), then the chapters swapped
    second = tree.topLevelItem(1)
    moved = second.takeChild(1)  # Maya's turn
    tree.topLevelItem(0).insertChild(0, moved)
    tree.dropped.emit()
    await until(
        lambda: [s.label for s in pane.analysis.script.chapters[0].segments] == ["Maya", "Alex", "Priya"]
    )
    assert (
        "Title: Slack water" in pane.editor.toPlainText() and "[MUSIC: a swell]" in pane.editor.toPlainText()
    )
    await until(lambda: tree.topLevelItemCount() == 2 and tree.topLevelItem(0).childCount() == 3)
    top = tree.takeTopLevelItem(1)
    tree.insertTopLevelItem(0, top)
    tree.dropped.emit()
    await until(
        lambda: [c.title for c in pane.analysis.script.chapters] == ["Why it matters", "The tide turns"]
    )
    # an impossible drop (a turn outside any chapter) changes nothing
    await until(lambda: tree.topLevelItem(1).childCount() == 3)
    text = pane.editor.toPlainText()
    stray = tree.topLevelItem(1).takeChild(0)
    tree.addTopLevelItem(stray)
    tree.dropped.emit()
    assert pane.editor.toPlainText() == text
    await until(lambda: tree.topLevelItemCount() == 2)
    # a turn's host, chosen in the view, becomes its label line
    child = tree.topLevelItem(0).child(0)  # Alex: Sailors wait for it.
    assert child.text(1) == "Alex Rivera" and tree.itemWidget(child, 1) is None
    tree.setCurrentItem(child)  # the selected turn shows its host list
    combo = tree.itemWidget(child, 1)
    assert combo.currentText() == "Alex Rivera"
    combo.setCurrentIndex(combo.findText("Priya Natarajan"))
    await until(lambda: pane.analysis.script.chapters[0].segments[0].label == "Priya")
    # a chapter renamed in the view
    await until(lambda: tree.topLevelItemCount() == 2)
    tree.topLevelItem(0).setText(0, "Why slack water matters")
    assert "# Why slack water matters" in pane.editor.toPlainText()
    # every one of them is one undo step in the text
    for _ in range(4):
        pane.editor.undo()
    assert pane.editor.toPlainText() == SCRIPT
    await quiet()


@pytest.mark.asyncio
async def test_writing_with_no_service_reachable_at_all(qtbot: QtBot, cache, tmp_path: Path) -> None:
    """The app started with no service: drafts, checks and estimates work, against the last known balance."""
    from castdeck.services.profiles import Profile

    session = Session(
        Profile("Nowhere", "http://127.0.0.1:9"), "sk_nowhere", cache, runtime=RUNTIME
    )  # nothing listens there
    cache.put("Nowhere", "account", {"id": "balance", "balance": 1234.0})
    background = Background(session, tmp_path / "background")
    try:
        pane = ScriptsPane(session, background)
        qtbot.addWidget(pane)
        pane.show()
        pane.activate()
        await until(lambda: pane._cached_balance == 1234.0)
        await until(
            lambda: pane._activated and not [t for t in pane.work.pending() if t.get_name() == "load hosts"]
        )
        assert pane.hosts is None  # the hosts were never read and the service cannot be asked
        await new_draft(pane)
        type_text(qtbot, pane, "[Alex]\nNo network, no problem.")
        assert pane.analysis is not None and pane.analysis.estimate.words == 4
        assert "of 1,234 (last known balance)" in pane.status.text()
        assert [p.code for p in pane.analysis.problems] == ["speaker_unknown"]  # the hosts are not known
        await pane.drafts.flush()
        stored = pane.drafts.store.get(pane.draft.id if pane.draft else "")
        assert stored is not None and stored.text == "[Alex]\nNo network, no problem."
        await until(lambda: "hosts are not known yet" in pane.speakers.note.text())
    finally:
        await background.close()
        await session.close()


@pytest.mark.asyncio
async def test_a_deleted_draft_can_be_brought_back(qtbot: QtBot, on_line: OnLine) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    await new_draft(pane, "[Alex]\nKeep me.\n")
    draft_id = pane.draft.id if pane.draft else ""
    await pane.drafts.flush()
    deleting = pane.run(pane.script_actions._delete(pane.draft))  # type: ignore[arg-type]
    question = await answer_confirmation(pane, "Delete")
    await deleting
    assert "Put “Keep me.” aside?" in question
    assert pane.draft is None and not pane.editor.isEnabled() and pane.list_model.row_of(draft_id) < 0
    assert pane.banner_button.text() == "Undo delete"
    qtbot.mouseClick(pane.banner_button, Qt.MouseButton.LeftButton)
    await until(lambda: pane.draft is not None and pane.draft.id == draft_id)
    assert pane.editor.toPlainText() == "[Alex]\nKeep me.\n" and pane.list_model.row_of(draft_id) >= 0
    await quiet()


@pytest.mark.asyncio
async def test_a_folder_dropped_opens_its_scripts_in_name_order_and_says_what_the_batch_needs(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot
) -> None:
    pane = await open_pane(qtbot, on_line.session, on_line.background)
    await until(lambda: pane.hosts is not None)
    host = (pane.hosts or [])[0].name
    season = tmp_path / "Season 2"
    (season / "extra").mkdir(parents=True)
    (season / "Episode 10.md").write_text(f"[{host}]\nThe tenth.\n", encoding="utf-8")
    (season / "Episode 2.txt").write_text(f"[{host}]\nThe second.\n\n[Guest]\nThanks.\n", encoding="utf-8")
    (season / "Episode 1.txt").write_text(f"[{host}]\nThe first.\n# Empty\n", encoding="utf-8")
    (season / "extra" / "Episode 11.md").write_text(
        f"[{host}]\nA bonus.\n\n[guest]\nAgain.\n", encoding="utf-8"
    )
    (season / ".draft.txt").write_text("[X]\nHidden.\n", encoding="utf-8")
    (season / "cover.png").write_bytes(b"\x89PNG")
    drop_on(pane, [season])
    await until(lambda: pane.draft is not None and pane.draft.title == "Episode 11.md")
    titles = [d.title for d in pane.list_model.drafts]
    assert [t for t in titles if t.startswith("Episode")] == [
        "Episode 11.md",
        "Episode 10.md",
        "Episode 2.txt",
        "Episode 1.txt",
    ]  # newest first
    said = await until(lambda: pane.banner.text if pane.banner.text.startswith("Opened ") else None)
    assert said.startswith("Opened 4 scripts as drafts: ") and " credits in all." in said
    assert "3 have errors to correct: Episode 1.txt (1), Episode 2.txt (1), Episode 11.md (1)." in said
    assert "No host is called “Guest” (in 2 of them)." in said
    assert ".draft.txt" not in titles and "cover.png" not in titles
    await quiet()
    shot(pane, "scripts-folder-dropped")
