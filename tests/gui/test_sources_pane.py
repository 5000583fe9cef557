"""The Sources pane and the source dialog, against the real sandbox."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api import NotFoundError
from castdeck.api.models import Source
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.dialogs.source_dialog import SourceDialog
from castdeck.ui.panes.sources import SourcesPane, metadata_summary
from tests.gui.conftest import answer_confirmation, check_pages_by_two, quiet, shown_pane, until


async def open_pane(qtbot: QtBot, session: Session, background: Background) -> SourcesPane:
    background.jobs.default_interval = 0.2  # the sandbox runs fast: read processing rows soon
    return await shown_pane(qtbot, SourcesPane(session, background))


async def focus(pane: QWidget) -> None:
    """Make the pane the active window with its list focused (shortcuts only fire there)."""
    pane.activateWindow()
    await until(pane.isActiveWindow, timeout=5)
    pane.table.setFocus()


def row_of(pane: SourcesPane, title: str) -> Source | None:
    return next((s for s in pane.model.items if s.title == title), None)


def select(pane: SourcesPane, source_id: str) -> None:
    assert pane.select_id(source_id), source_id
    assert pane.current is not None and str(pane.current.id) == source_id


async def new_source_dialog(pane: SourcesPane) -> SourceDialog:
    pane.new_button.click()
    dialog = pane.dialog
    assert isinstance(dialog, SourceDialog) and dialog.isVisible()
    return dialog


@pytest.mark.asyncio
async def test_sources_pane_lists_status_and_errors(
    qtbot: QtBot, session: Session, background: Background, shot, qtmodeltester
) -> None:
    pane = await open_pane(qtbot, session, background)
    qtmodeltester.check(pane.model)
    qtmodeltester.check(pane.proxy)
    assert pane.drop_area.acceptDrops()
    failed = next((s for s in pane.model.items if s.status == "error"), None)
    assert failed is not None, "the seeded sources include a failed one"
    row = pane.model.row_of(failed.id)
    assert pane.model.index(row, 2).data() == "Failed"
    assert pane.model.index(row, 3).data()  # the error column

    select(pane, failed.id)
    await until(lambda: pane.details.value_of("Source ID") == failed.id)
    assert pane.details.value_of("Status") == "Failed"
    assert pane.details.value_of("Error") == failed.error_message
    assert pane.details.note.isVisible() and failed.error_message in pane.details.note.text()
    assert pane.delete_button.isVisible() and pane.delete_button.isEnabled()
    await quiet()
    shot(pane, "pane-sources")
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_create_url_youtube_and_text_sources(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    pane = await open_pane(qtbot, session, background)
    tag = uuid.uuid4().hex[:6]
    cases = [
        ("url", {"url": "https://example.com/oceans"}, f"Ocean currents {tag}"),
        ("youtube", {"url": "https://youtu.be/dQw4w9WgXcQ"}, f"Reef talk {tag}"),
        ("text", {"content": "Coral reefs cover less than one percent of the ocean floor."}, f"Notes {tag}"),
        ("url", {"url": "https://unreachable.invalid/page"}, f"Broken {tag}"),
    ]
    for kind, fields, title in cases:
        dialog = await new_source_dialog(pane)
        qtbot.mouseClick(dialog.type_choice.buttons[kind], Qt.MouseButton.LeftButton)
        assert dialog.type_choice.value() == kind
        assert dialog.url_edit.isVisible() == (kind != "text")
        assert dialog.content_edit.isVisible() == (kind == "text")
        assert not dialog.submit_button.isEnabled()
        if "url" in fields:
            qtbot.keyClicks(dialog.url_edit, fields["url"])
        else:
            qtbot.keyClicks(dialog.content_edit, fields["content"])
            assert dialog.rows["content"].counter.text().startswith(f"{len(fields['content'])} / 100,000")
        qtbot.keyClicks(dialog.title_edit, title)
        assert dialog.collect() == {"type": kind, **fields, "title": title}
        assert dialog.submit_button.isEnabled(), dialog.problem.text()
        if not title.startswith("Broken"):
            await quiet()
            shot(dialog, f"dialog-source-create-{kind}")
        qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
        await dialog.wait_sent()
        assert dialog.result() == SourceDialog.DialogCode.Accepted, dialog.banner.text
        created = dialog.result_value
        assert isinstance(created, Source) and created.type == kind and created.title == title
        await until(lambda t=title: row_of(pane, t) is not None)
        assert str(pane.current.id) == created.id  # shown and selected right away

    # the rows update by themselves until processing ends
    done = {f"Ocean currents {tag}", f"Reef talk {tag}", f"Notes {tag}"}
    await until(lambda: all((row_of(pane, t) or Source(id="-")).status == "completed" for t in done))
    broken = await until(
        lambda: (s := row_of(pane, f"Broken {tag}")) is not None and s.status == "error" and s
    )
    assert "could not be fetched" in (broken.error_message or "")
    await until(lambda: not pane.polling)
    await until(lambda: pane.details.value_of("Status") == "Failed")  # the selected row's details follow
    assert "could not be fetched" in pane.details.note.text()
    text_row = row_of(pane, f"Notes {tag}")
    assert text_row is not None and "Characters: 59" in (metadata_summary(text_row.metadata) or "")
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_a_processing_row_is_the_trackers_job_not_the_panes(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    pane = await open_pane(qtbot, session, background)
    source = await session.client.sources.create(type="text", content="Kelp forests grow fast.", title="Kelp")
    assert source.status == "processing"
    pane.item_changed(source)  # shown and selected, as after the dialog
    job = background.jobs.job("source", source.id)
    assert job is not None and job.active
    assert background.jobs.is_following("source", source.id) and pane.polling
    # hidden, the pane reads nothing itself; the tracker's one loop goes on
    pane.hide()
    assert background.jobs.is_following("source", source.id)
    await until(
        lambda: (j := background.jobs.job("source", source.id)) is not None and j.state == "completed"
    )
    pane.show()
    await until(lambda: (row_of(pane, "Kelp") or Source(id="-")).status == "completed")
    assert not pane.polling
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_bad_input_is_blocked_inline(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    pane = await open_pane(qtbot, session, background)
    dialog = await new_source_dialog(pane)
    qtbot.mouseClick(dialog.type_choice.buttons["youtube"], Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.url_edit, "https://vimeo.com/76979871")
    url_row = dialog.rows["url"]
    assert not dialog.submit_button.isEnabled()
    assert url_row.error.isVisible() and "YouTube" in url_row.error.text()
    await quiet()
    shot(dialog, "dialog-source-invalid")

    dialog.url_edit.clear()
    qtbot.keyClicks(dialog.url_edit, "https://www.youtube.com/watch?v=abc")
    assert dialog.submit_button.isEnabled() and not url_row.error.isVisible()

    qtbot.mouseClick(dialog.type_choice.buttons["url"], Qt.MouseButton.LeftButton)
    dialog.url_edit.clear()
    qtbot.keyClicks(dialog.url_edit, "ftp://example.com/file")
    assert not dialog.submit_button.isEnabled() and "http" in url_row.error.text()

    qtbot.mouseClick(dialog.type_choice.buttons["text"], Qt.MouseButton.LeftButton)
    dialog.content_edit.setPlainText("x" * 100_001)
    content_row = dialog.rows["content"]
    assert not dialog.submit_button.isEnabled()
    assert content_row.error.isVisible() and "100000" in content_row.error.text().replace(",", "")
    assert "100,001 / 100,000" in content_row.counter.text()
    dialog.reject()
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_delete_an_unused_source(qtbot: QtBot, session: Session, background: Background) -> None:
    title = f"Scratch {uuid.uuid4().hex[:6]}"
    source = await session.client.sources.create(type="text", content="To be deleted.", title=title)
    pane = await open_pane(qtbot, session, background)
    await until(lambda: row_of(pane, title) is not None)
    select(pane, source.id)
    await until(lambda: pane.delete_button.isVisible())

    pane.delete_button.click()
    assert "Delete this source?" in await answer_confirmation(pane, "Cancel")
    await until(lambda: pane.findChild(QMessageBox, "confirm") is None)
    assert row_of(pane, title) is not None

    await focus(pane)
    qtbot.keyClick(pane.table, Qt.Key.Key_Delete)  # the keyboard does what the button does
    assert title in await answer_confirmation(pane, "Delete")
    await until(lambda: row_of(pane, title) is None)
    assert "Deleted" in pane.banner.text
    with pytest.raises(NotFoundError):
        await session.client.sources.get(source.id)
    await quiet()  # nothing may run on when the loop stops


async def used_source_id(session: Session) -> str:
    async for episode in session.client.episodes.list(limit=100):
        if episode.source_ids:
            return episode.source_ids[0]
    raise AssertionError("no seeded episode uses a source")


@pytest.mark.asyncio
async def test_deleting_a_source_in_use_shows_why(
    qtbot: QtBot, session: Session, background: Background, shot
) -> None:
    source_id = await used_source_id(session)
    pane = await open_pane(qtbot, session, background)
    await pane.model.load_all()
    select(pane, source_id)
    pane.delete_button.click()
    await answer_confirmation(pane, "Delete")
    await until(lambda: pane.banner.isVisible() and pane.banner.kind == "error")
    assert "used by" in pane.banner.text and "HTTP 422" in pane.banner.text
    assert pane.banner.request_id
    assert pane.model.row_of(source_id) >= 0  # still listed
    await session.client.sources.get(source_id)  # and still there
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_dropping_a_file_uploads_it_as_a_source(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path
) -> None:
    pane = await open_pane(qtbot, session, background)
    dropped: list[list[Path]] = []
    pane.drop_area.filesDropped.connect(dropped.append)
    folder = tmp_path / "drop"
    folder.mkdir()
    file = folder / "notes.txt"
    file.write_text("Notes on the tides of the Bay of Fundy.", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(file))])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    enter = QDragEnterEvent(QPoint(10, 10), *args)
    QApplication.sendEvent(pane.drop_area, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(10, 10), *args)
    pane.drop_area.dropEvent(event)  # a drop without a real drag in progress never reaches the widget
    assert event.isAccepted()
    assert dropped == [[file]]
    view = pane.queue_view
    await until(lambda: [i.name for i in view.model.items()] == ["notes.txt"])
    await until(lambda: view.model.items()[0].state == "done")
    await until(lambda: pane.model.row_of(str(view.model.items()[0].source_id)) >= 0)
    # its processing followed to the end: the end reads the source again (a task of the pane),
    # which a test ending a moment before it left running
    await until(lambda: background.jobs.following == 0, timeout=60)
    await quiet()


@pytest.mark.asyncio
async def test_the_list_pages(qtbot: QtBot, session: Session, background: Background, qtmodeltester) -> None:
    await check_pages_by_two(qtbot, SourcesPane(session, background), qtmodeltester)
