"""Dropping real files on the Sources pane and on the Voiceover dialog's visuals: the upload queue view,
its controls, and the sources the service ends up with (against the real sandbox)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, QSettings, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPaintEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTableView, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api.uploads import CHUNK_SIZE
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.services.settings import CONCURRENCY_KEY
from castdeck.store.uploads import UploadItem
from castdeck.ui.dialogs.media_dialog import MediaCreateDialog
from castdeck.ui.file_dialogs import folder_for
from castdeck.ui.panes.media import VoiceoversPane
from castdeck.ui.panes.sources import SourcesPane
from castdeck.ui.upload_queue import (
    ETA,
    FILE,
    ITEM_ROLE,
    PROGRESS,
    PROGRESS_ROLE,
    SPEED,
    STATE,
    UploadQueueModel,
    UploadQueueView,
    format_bytes,
    format_eta,
)
from castdeck.ui.widgets import rows_stay_put
from tests.gui.accessibility import problems
from tests.gui.conftest import OnLine, quiet, shown_pane, until
from tests.gui.helpers import (
    answer_in_one_call,
    count_calls,
    dark_palette,
    drop_on,
    on_screen_as_painted_afresh,
)

# --- fixtures and helpers -------------------------------------------------------------------------------------


@pytest.fixture
def fast(background: Background) -> Background:
    """The session's background work, reading uploaded sources again soon (the sandbox runs fast)."""
    background.jobs.default_interval = 0.3
    return background


def png(path: Path, color: str = "#2e7d32") -> Path:
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    assert image.save(str(path), "PNG")
    return path


def pdf(path: Path, size: int = 0) -> Path:
    """A one-page PDF; ``size`` pads it (sparsely) to that many bytes."""
    body = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\nBT (Tidal array channel layout) Tj ET\n%%EOF\n"
    path.write_bytes(body)
    if size > len(body):
        with path.open("r+b") as handle:
            handle.truncate(size)
    return path


def folder_to_drop(root: Path) -> tuple[Path, dict[str, str]]:
    """A folder with good files, a refused one and hidden entries; returns it and {name: kind}."""
    folder = root / "Research"
    (folder / "more").mkdir(parents=True)
    (folder / "tide-notes.txt").write_text("Tides rise twice a day along the estuary.\n", encoding="utf-8")
    (folder / "more" / "kelp.md").write_text("# Kelp\n\nKelp forests grow fast.\n", encoding="utf-8")
    png(folder / "array-photo.png")
    (folder / "empty.txt").write_bytes(b"")  # refused: the file is empty
    (folder / ".hidden-draft.txt").write_text("not for upload", encoding="utf-8")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "skip.txt").write_text("never uploaded", encoding="utf-8")
    return folder, {
        "tide-notes.txt": "good",
        "kelp.md": "good",
        "array-photo.png": "good",
        "empty.txt": "refused",
    }


async def open_sources(qtbot: QtBot, session: Session, background: Background) -> SourcesPane:
    pane = SourcesPane(session, background)
    return await shown_pane(qtbot, pane)


def queue_view(pane: SourcesPane) -> UploadQueueView:
    assert pane.queue_view is not None
    return pane.queue_view


def by_name(view: UploadQueueView) -> dict[str, UploadItem]:
    return {item.name: item for item in view.model.items()}


def cell(
    view: UploadQueueView, item: UploadItem, column: int, role: int = Qt.ItemDataRole.DisplayRole
) -> Any:
    return view.model.index(view.model.row_of(item.id), column).data(role)


async def shown_later(view: UploadQueueView | None = None) -> None:
    """Before a screenshot: the queue's coalesced totals line has been written (its timer no longer
    waits) and the layouts that changed have been done (a few turns of the loop)."""
    if view is not None:
        await until(lambda: not view._refresh.isActive())
    for _ in range(3):
        await asyncio.sleep(0)


# --- the Sources pane -------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_dropping_a_folder_uploads_the_good_files_and_refuses_the_rest(
    qtbot: QtBot,
    session: Session,
    background: Background,
    fast: Background,
    tmp_path: Path,
    shot,
    qtmodeltester,
) -> None:
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    assert not view.isVisible()  # nothing queued yet
    folder, expected = folder_to_drop(tmp_path)
    single = png(tmp_path / "harbour-map.png", "#1565c0")
    expected["harbour-map.png"] = "good"

    drop_on(pane.drop_area, [folder, single], direct=pane.drop_area.dropEvent)
    await until(lambda: len(view.model.items()) == len(expected))
    qtmodeltester.check(view.model)
    assert view.isVisible()
    assert set(by_name(view)) == set(expected)  # hidden files and hidden folders were skipped
    refused = by_name(view)["empty.txt"]
    assert refused.state == "refused"
    assert cell(view, refused, STATE) == f"Refused: {refused.error}" and "empty" in (refused.error or "")
    assert "not sent" in cell(view, refused, STATE, Qt.ItemDataRole.ToolTipRole)
    assert cell(view, refused, PROGRESS, PROGRESS_ROLE) == -1  # no bar for a refused file
    assert "was refused" in pane.banner.text and "empty.txt" in pane.banner.text

    good = [name for name, kind in expected.items() if kind == "good"]
    await until(lambda: all(by_name(view)[n].state == "done" for n in good))
    done = [by_name(view)[n] for n in good]
    assert all(cell(view, i, PROGRESS, PROGRESS_ROLE) == 100 for i in done)
    # every uploaded file is a source in the list, and the list follows its processing to the end
    ids = [str(i.source_id) for i in done]
    await until(lambda: all(pane.model.row_of(s) >= 0 for s in ids))
    await until(
        lambda: all(pane.model.item(pane.model.row_of(s)).status == "completed" for s in ids), timeout=60
    )
    await until(lambda: all(cell(view, i, STATE) == "Uploaded · ready" for i in done), timeout=60)
    total = sum(i.size for i in done)
    await until(lambda: view.totals.text().startswith(f"4 of 4 files · {format_bytes(total)} of"))
    assert "1 refused" in view.totals.text()
    qtmodeltester.check(view.model)
    for source_id in ids:  # the service has each file once
        assert (await session.client.sources.get(source_id)).status == "completed"

    await quiet()
    await shown_later(view)
    shot(pane, "upload-queue-sources-finished")
    shot(view, "upload-queue-finished")
    assert problems(pane) == []  # a screen reader reads every file's row, its state and its progress

    # the context menu offers the same actions as the buttons, for the row under the pointer
    row_rect = view.table.visualRect(view.model.index(view.model.row_of(refused.id), 0))
    menu = view.build_menu(row_rect.center())  # what a right click pops up (offscreen cannot pop up)
    assert [i.id for i in view.selected_items()] == [refused.id]
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == ["Pause", "Resume", "Cancel", "Retry", "Pause all", "Resume all", "Cancel all",
                     "Retry failed", "Clear finished"]  # fmt: skip
    assert problems(menu, hidden=True) == []
    assert view.actions_by_name["retry"].isEnabled() and not view.actions_by_name["pause"].isEnabled()
    # Retry on the refused file looks at it again, and says so (it is still empty)
    view.buttons["retry"].click()
    await until(lambda: "checked again at" in (by_name(view)["empty.txt"].error or ""))
    again = by_name(view)["empty.txt"]
    assert again.state == "refused" and "checked again at" in cell(view, again, STATE)
    # fixed on disk, then retried: it goes
    (folder / "empty.txt").write_text("Not empty any more.", encoding="utf-8")
    view.select_ids([again.id])
    view.buttons["retry"].click()
    await until(lambda: by_name(view)["empty.txt"].state == "done", timeout=60)

    # clearing finished rows empties the queue and hides it
    view.buttons["clear"].click()
    await until(lambda: view.model.rowCount() == 0)
    await until(lambda: not view.isVisible())
    await quiet()


@pytest.mark.asyncio
async def test_pause_resume_cancel_and_retry_from_the_buttons(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot, qtmodeltester
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    background.jobs.default_interval = 0.3
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    view.concurrency.setValue(1)  # one at a time: the rest wait their turn
    assert background.uploads.concurrency == 1
    assert session.runtime.settings.flush()  # written off the UI thread
    assert int(QSettings().value(CONCURRENCY_KEY)) == 1  # type: ignore[call-overload]
    # each file's bytes go out a chunk at a time and stop after two chunks until the test lets them go:
    # the first file is caught mid-way however fast the machine is
    line.hold_bodies(after=2)
    files = [pdf(tmp_path / f"deck-{n}.pdf", 6 * CHUNK_SIZE) for n in range(1, 5)]
    refused = tmp_path / "clip.mp4"
    refused.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    drop_on(pane.drop_area, [*files, refused], direct=pane.drop_area.dropEvent)
    await until(lambda: len(view.model.items()) == 5)
    items = view.model.items()
    third, fourth = items[2:4]

    # pause the last one and cancel the third while the first is being sent
    view.select_ids([fourth.id])
    assert view.buttons["pause"].isEnabled() and not view.buttons["resume"].isEnabled()
    view.buttons["pause"].click()
    view.select_ids([third.id])
    view.buttons["cancel"].click()
    await until(lambda: by_name(view)["deck-4.pdf"].state == "paused")
    await until(lambda: by_name(view)["deck-3.pdf"].state == "cancelled")
    assert cell(view, by_name(view)["deck-4.pdf"], STATE) == "Paused"
    assert cell(view, by_name(view)["deck-3.pdf"], PROGRESS, PROGRESS_ROLE) == -1

    # mid-upload (two of six chunks sent): a bar a third of the way, a speed, a time left, the totals
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    first = by_name(view)["deck-1.pdf"]
    assert first.state == "uploading"
    assert cell(view, first, PROGRESS, PROGRESS_ROLE) == 33
    assert background.uploads.transfer(first.id).speed
    view.update_summary()
    shot(view, "upload-queue-mid-upload")
    assert " of 3 files · " in view.totals.text() and "/s · about " in view.totals.text()
    assert cell(view, first, SPEED).endswith("/s")
    assert "1 paused" in view.totals.text() and "1 refused" in view.totals.text()
    qtmodeltester.check(view.model)

    # retry the cancelled one (checked again, queued again) and resume the paused one: both wait
    # behind the first, which is still on its way
    view.select_ids([third.id])
    assert view.buttons["retry"].isEnabled()
    view.buttons["retry"].click()
    await until(lambda: by_name(view)["deck-3.pdf"].state == "queued")
    view.select_ids([fourth.id])
    view.buttons["resume"].click()
    await until(lambda: by_name(view)["deck-4.pdf"].state == "queued")
    assert by_name(view)["deck-1.pdf"].state == "uploading" and by_name(view)["deck-2.pdf"].state == "queued"

    line.release()
    names = ["deck-1.pdf", "deck-2.pdf", "deck-3.pdf", "deck-4.pdf"]
    await until(lambda: all(by_name(view)[n].state == "done" for n in names), timeout=120)
    assert by_name(view)["clip.mp4"].state == "refused"
    assert "video" in (by_name(view)["clip.mp4"].error or "").lower()
    sources = {by_name(view)[n].source_id for n in names}
    assert len(sources) == 4 and None not in sources  # each file became exactly one source
    await until(lambda: all(pane.model.row_of(str(s)) >= 0 for s in sources))
    await until(lambda: not view.buttons["pause_all"].isEnabled() and view.buttons["clear"].isEnabled())
    # the sources' processing is followed to its end, and each end shows (and caches) its source:
    # the test ends after that, not while a source's end is still being shown
    await until(lambda: background.jobs.following == 0, timeout=120)
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_pause_all_resume_all_and_the_keyboard(qtbot: QtBot, on_line: OnLine, tmp_path: Path) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    background.jobs.default_interval = 0.3
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    view.concurrency.setValue(1)
    line.hold_bodies(after=1)  # the first file stops on its way until the test lets it go
    files = [pdf(tmp_path / f"board-{n}.pdf", 3 * CHUNK_SIZE) for n in range(1, 4)]
    drop_on(pane.drop_area, files, direct=pane.drop_area.dropEvent)
    await until(lambda: len(view.model.items()) == 3)
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    assert view.buttons["pause_all"].isEnabled()
    view.buttons["pause_all"].click()
    await until(lambda: [i.state for i in view.model.items()] == ["paused"] * 3)
    await until(view.buttons["resume_all"].isEnabled)
    await until(lambda: "3 paused" in view.totals.text())
    line.release()
    # the keyboard: Ctrl+Alt+R resumes all while the queue has the focus
    pane.activateWindow()
    await until(pane.isActiveWindow, timeout=5)
    view.table.setFocus()
    qtbot.keyClick(
        view.table, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    )
    await until(lambda: all(i.state == "done" for i in view.model.items()), timeout=120)
    assert background.uploads.concurrency == 1
    for name, action in view.actions_by_name.items():
        assert not action.shortcut().isEmpty(), name
        assert view.buttons[name].accessibleName(), name
    assert view.concurrency.accessibleName() == "Uploads at a time"
    # each uploaded source is followed until the service has read it; its end updates the list
    await until(lambda: background.jobs.following == 0, timeout=120)
    await quiet(timeout=60)


class Paints(QObject):
    """The rectangles of every paint of ``widget`` on the screen (``unseen`` grabs it without them)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.widget = widget
        self.rects: list[QRect] = []
        self.on = True
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.on:
            assert isinstance(event, QPaintEvent)
            self.rects.append(event.rect())
        return False


def settled_unseen(window: QWidget, *watching: Paints) -> bool:
    """``on_screen_as_painted_afresh`` for the watched widgets (the list's and the queue's
    viewports), its own paints (a grab paints the widgets) not recorded."""
    for paints in watching:
        paints.on = False
    try:
        return on_screen_as_painted_afresh(
            window, *(paints.widget for paints in watching if paints.widget.isVisible())
        )
    finally:
        for paints in watching:
            paints.on = True


def test_a_list_whose_rows_stay_put_is_painted_whole_in_the_pass_its_width_changes(qtbot: QtBot) -> None:
    """A change of width repaints every row at once: Qt's own repaint of the stretched last column
    comes a pass later, and until then the screen would show it at its old width."""
    model = QStandardItemModel(5, 3)
    for row in range(5):
        for column in range(3):
            model.setItem(row, column, QStandardItem(f"A long enough text in row {row}, column {column}"))
    holder = QWidget()
    qtbot.addWidget(holder)
    holder.resize(640, 320)
    table = QTableView(holder)
    table.setModel(model)
    table.horizontalHeader().setStretchLastSection(True)
    rows_stay_put(table.viewport())
    table.setGeometry(0, 0, 600, 300)
    holder.show()
    qtbot.waitExposed(holder)
    qtbot.waitUntil(lambda: on_screen_as_painted_afresh(holder))
    paints = Paints(table.viewport())
    table.resize(600, 250)  # lower: nothing uncovered, nothing painted
    QCoreApplication.processEvents()
    assert paints.rects == []
    table.resize(480, 250)  # narrower
    QCoreApplication.processEvents()  # one pass of the loop
    assert table.viewport().rect() in paints.rects


@pytest.mark.asyncio
async def test_the_list_keeps_its_rows_unpainted_when_the_queue_comes_and_goes(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path
) -> None:
    """The queue appearing under the sources list only takes height from the list: its rows stay
    where they are, so none is painted again (the queue's first appearance came in the longest pass
    of benchmarks/background_load.py). What the queue uncovers when it goes, and every row when
    the width changes, are painted; the screen holds what a fresh paint gives after each."""
    session, background, line = on_line.session, on_line.background, on_line.line
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    viewport = pane.table.viewport()
    # the width stays whether or not the rows (as many as earlier tests left) fill the shorter list
    pane.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
    await until(lambda: on_screen_as_painted_afresh(pane))
    width, height = viewport.width(), viewport.height()
    paints = Paints(viewport)
    queue_paints = Paints(view.table.viewport())
    line.hold_bodies(after=1)  # the file stays on its way: the queue stays
    drop_on(pane.drop_area, [pdf(tmp_path / "deck.pdf", 3 * CHUNK_SIZE)], direct=pane.drop_area.dropEvent)
    await until(lambda: queue_paints.rects)  # the queue is on the screen
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    await until(lambda: settled_unseen(pane, paints, queue_paints))
    assert viewport.width() == width
    assert viewport.height() < height - 100  # the queue took room from the list
    assert paints.rects == []  # not one row painted again

    view.buttons["cancel_all"].click()
    line.release()
    await until(lambda: view.buttons["clear"].isEnabled())
    view.buttons["clear"].click()
    await until(lambda: not view.isVisible())
    await until(lambda: viewport.height() == height)
    await until(lambda: settled_unseen(pane, paints, queue_paints))
    grown = list(paints.rects)
    assert grown  # the strip the queue uncovered was painted
    assert viewport.rect() not in grown  # and only that
    assert min(rect.top() for rect in grown) > 0

    paints.rects.clear()
    pane.resize(pane.width() - 120, pane.height())
    await until(lambda: viewport.width() < width)
    await until(lambda: viewport.rect() in paints.rects)  # narrower: every row painted again
    await until(lambda: settled_unseen(pane, paints, queue_paints))
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_add_files_opens_a_file_dialog_that_queues(
    qtbot: QtBot, session: Session, background: Background, fast: Background, tmp_path: Path
) -> None:
    pane = await open_sources(qtbot, session, background)
    notes = tmp_path / "estuary.txt"
    notes.write_text("The estuary narrows at the harbour mouth.\n", encoding="utf-8")
    pane.add_files_button.click()
    dialog = pane.file_dialog
    assert dialog is not None
    await until(dialog.isVisible)
    # what the service accepts first, every file second; not the working directory
    filters = dialog.nameFilters()
    assert (
        filters[0].startswith("Files the service accepts (")
        and "*.pdf" in filters[0]
        and "*.mp3" in filters[0]
    )
    assert filters[-1] == "All files (*)"
    # the uploads' folder (Documents, or home where there is none), not the working directory
    assert (
        Path(dialog.directory().absolutePath())
        == Path(folder_for(session.runtime.settings, "uploads"))
        != Path.cwd()
    )
    dialog.filesSelected.emit([str(notes)])  # what choosing the file and pressing Open sends
    dialog.reject()
    view = queue_view(pane)
    await until(lambda: [i.name for i in view.model.items()] == ["estuary.txt"])
    await until(lambda: view.model.items()[0].state == "done")
    await until(lambda: pane.model.row_of(str(view.model.items()[0].source_id)) >= 0)
    # the next time, it opens where the file was chosen
    pane.add_files_button.click()
    again = pane.file_dialog
    assert again is not None and again is not dialog
    await until(again.isVisible)
    assert Path(again.directory().absolutePath()) == tmp_path
    again.reject()
    # the source's processing followed to its end (which reads it again): not cut short by the end
    await until(lambda: background.jobs.following == 0, timeout=60)
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_prepare_visuals_applies_the_narrower_list(
    qtbot: QtBot, session: Session, background: Background, fast: Background, tmp_path: Path
) -> None:
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    notes = tmp_path / "script-notes.txt"
    notes.write_text("Not a visual.\n", encoding="utf-8")
    slide = png(tmp_path / "slide-1.png")
    pane.prepare_visuals.setChecked(True)
    drop_on(pane.drop_area, [notes, slide], direct=pane.drop_area.dropEvent)
    await until(lambda: len(view.model.items()) == 2)
    rows = by_name(view)
    assert rows["script-notes.txt"].state == "refused" and rows["slide-1.png"].prepare_visuals
    assert "visual" in (rows["script-notes.txt"].error or "")
    await until(lambda: by_name(view)["slide-1.png"].state == "done")
    source = await session.client.sources.get(str(by_name(view)["slide-1.png"].source_id))
    assert isinstance(source.metadata, dict) and source.metadata.get("prepare_visuals")
    await until(lambda: background.jobs.following == 0, timeout=60)  # (its end reads it again)
    await quiet(timeout=60)


def test_formats() -> None:
    assert format_bytes(0) == "0 bytes" and format_bytes(1) == "1 byte"
    assert format_bytes(45_000_000) == "45.0 MB" and format_bytes(120_000_000) == "120 MB"
    assert format_eta(None) == "" and format_eta(20) == "about 20 s" and format_eta(185) == "about 3 min"
    assert format_eta(3900) == "about 1 h 5 min"


# --- the Voiceover dialog's visuals -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_visuals_dropped_on_the_voiceover_dialog_are_uploaded_and_ticked(
    qtbot: QtBot, session: Session, background: Background, fast: Background, tmp_path: Path, shot
) -> None:
    pane = VoiceoversPane(session, background)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    pane.new_item()
    dialog = await until(lambda: pane.dialog if pane.dialog is not None and pane.dialog.isVisible() else None)
    assert isinstance(dialog, MediaCreateDialog)
    await dialog.visuals.wait_loaded()
    await dialog.host.wait_loaded()
    drop = dialog.visual_drop
    seeded = next(key for key, s in dialog.visuals.items.items() if s.title == "Tidal array diagram")
    dialog.visuals.check(seeded)  # the user's own tick stays first

    first = png(tmp_path / "channel-map.png", "#00838f")
    second = pdf(tmp_path / "turbine-layout.pdf")
    wrong = tmp_path / "narration.txt"
    wrong.write_text("Not a visual.", encoding="utf-8")
    viewport = dialog.visuals.list.viewport()
    drop_on(viewport, [first, wrong, second], direct=lambda e: drop.eventFilter(viewport, e))
    await until(lambda: len(drop.lines()) == 3)
    assert drop.box.isVisible()
    assert drop.lines()[1].startswith("narration.txt: refused")

    await until(lambda: all("ready" in drop.lines()[i] for i in (0, 2)), timeout=60)
    ids = [str(item.source_id) for item in drop.items if item.state == "done"]
    assert len(ids) == 2
    await until(lambda: dialog.visuals.selected_ids() == [seeded, *ids])  # drop order, after the user's
    assert "ticked" in drop.lines()[0] and "ticked" in drop.lines()[2]
    assert "1. Tidal array diagram, 2. channel-map.png, 3. turbine-layout.pdf" in dialog.order.text()
    assert dialog.submit_button.isEnabled(), dialog.problem.text()
    await quiet(timeout=60)
    await shown_later()
    shot(dialog, "dialog-voiceover-visuals-drop")
    dialog.reject()
    await quiet()


@pytest.mark.asyncio
async def test_a_drop_after_the_upload_queue_stopped_explains(
    qtbot: QtBot, session: Session, background: Background, tmp_path: Path
) -> None:
    pane = await open_sources(qtbot, session, background)
    await background.close()  # as while the app closes or the account changes
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    drop_on(pane.drop_area, [notes], direct=pane.drop_area.dropEvent)
    assert pane.banner.isVisible() and "upload queue has stopped" in pane.banner.text
    assert queue_view(pane).model.rowCount() == 0  # nothing was queued
    await quiet()


@pytest.mark.asyncio
async def test_bytes_sent_repaint_the_progress_cells_and_a_new_state_the_row(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    changed: list[tuple[int, int, int, int]] = []
    view.model.dataChanged.connect(
        lambda first, last, *_: changed.append((first.row(), first.column(), last.row(), last.column()))
    )
    line.hold_bodies(after=3)
    drop_on(pane.drop_area, [pdf(tmp_path / "deck.pdf", 6 * CHUNK_SIZE)], direct=pane.drop_area.dropEvent)
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    item = by_name(view)["deck.pdf"]
    row = view.model.row_of(item.id)
    assert item.state == "uploading"
    assert (row, FILE, row, ETA) in changed  # the row began uploading: all of it
    # the bytes sent so far: progress, speed and time left only, at the queue's pace
    await until(lambda: (row, PROGRESS, row, ETA) in changed)
    assert cell(view, item, PROGRESS, PROGRESS_ROLE) == 50  # three chunks of six, read as shown

    before = len(changed)
    line.release()
    await until(lambda: by_name(view)["deck.pdf"].state == "done", timeout=60)
    assert (row, FILE, row, ETA) in changed[before:]  # done: the state column changed with the row
    assert cell(view, by_name(view)["deck.pdf"], STATE).startswith("Uploaded")
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_the_table_is_painted_from_one_call_per_cell_with_what_data_answers(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt's delegate asks six roles of each cell it paints: the model answers them in one call
    (``multiData``), with what ``data`` answers role by role, unasked leftovers cleared."""
    calls = count_calls(monkeypatch, UploadQueueModel, "multiData", "data")  # before the model is made
    session, background, line = on_line.session, on_line.background, on_line.line
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    model = view.model
    line.hold_bodies(after=3)
    drop_on(pane.drop_area, [pdf(tmp_path / "deck.pdf", 6 * CHUNK_SIZE)], direct=pane.drop_area.dropEvent)
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    (tmp_path / "empty.txt").write_bytes(b"")
    drop_on(pane.drop_area, [tmp_path / "empty.txt"], direct=pane.drop_area.dropEvent)
    await until(lambda: "empty.txt" in by_name(view) and by_name(view)["empty.txt"].state == "refused")
    assert by_name(view)["deck.pdf"].state == "uploading"
    roles = [
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.AccessibleTextRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.CheckStateRole,
        PROGRESS_ROLE,
        ITEM_ROLE,
    ]

    def comparable(value: Any) -> Any:
        return value.color().name() if isinstance(value, QBrush) else value

    answered: dict[int, int] = {}
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            for role in roles:
                answer = answer_in_one_call(model, index, role)
                assert comparable(answer) == comparable(model.data(index, role)), (row, column, role)
                answered[int(role)] = answered.get(int(role), 0) + (answer is not None)
    refused = model.index(model.row_of(by_name(view)["empty.txt"].id), STATE)
    assert model.data(refused, Qt.ItemDataRole.ForegroundRole).color().name() == "#c62828"
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    light = app.palette()
    app.setPalette(dark_palette())
    try:  # on a dark base, a lighter red (the light one read at a contrast of 2 to 1 there)
        assert model.data(refused, Qt.ItemDataRole.ForegroundRole).color().name() == "#ef9a9a"
    finally:
        app.setPalette(light)
    assert answered[int(Qt.ItemDataRole.DisplayRole)] >= 2 * 4  # name, size, state, progress of both
    assert cell(view, by_name(view)["deck.pdf"], PROGRESS, PROGRESS_ROLE) == 50
    assert cell(view, by_name(view)["empty.txt"], PROGRESS, PROGRESS_ROLE) == -1  # no bar
    assert answered[int(Qt.ItemDataRole.FontRole)] == 0

    calls["multiData"] = calls["data"] = 0
    view.table.viewport().grab()
    shown = model.rowCount() * model.columnCount()
    assert 0 < calls["multiData"] <= shown * 2
    assert calls["data"] <= model.rowCount()  # the progress bars' own read of their percent
    monkeypatch.undo()
    line.release()
    await until(lambda: by_name(view)["deck.pdf"].state == "done", timeout=60)
    await quiet(timeout=60)


@pytest.mark.asyncio
async def test_bytes_sent_by_several_files_repaint_their_cells_together(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path
) -> None:
    """Each transfer reports its bytes eight times a second, out of step with the others: the
    model gathers the rows whose bytes moved and repaints their progress cells once per report
    interval, not once per report (ten files sending repainted the table nearly every frame)."""
    session, background, line = on_line.session, on_line.background, on_line.line
    pane = await open_sources(qtbot, session, background)
    view = queue_view(pane)
    line.hold_bodies(after=3)
    files = [pdf(tmp_path / f"deck-{n}.pdf", 6 * CHUNK_SIZE) for n in range(3)]
    drop_on(pane.drop_area, files, direct=pane.drop_area.dropEvent)
    await until(
        lambda: (
            len(by_name(view)) == 3
            and all(cell(view, item, PROGRESS, PROGRESS_ROLE) == 50 for item in by_name(view).values())
        )
    )  # each file held after three chunks of six: no more bytes move
    changed: list[tuple[int, int, int, int]] = []
    view.model.dataChanged.connect(
        lambda first, last, *_: changed.append((first.row(), first.column(), last.row(), last.column()))
    )
    items = list(by_name(view).values())
    rows = sorted(view.model.row_of(item.id) for item in items)
    for item in items:  # three reports in one turn, as the queue sends them
        view.queue.itemChanged.emit(replace(item, sent=item.sent + 1, updated_at=item.updated_at + 1))
    assert changed == []  # gathered, not sent one by one
    await until(lambda: changed != [])
    assert changed == [(rows[0], PROGRESS, rows[-1], ETA)]  # one repaint of the three rows' cells

    # a new state is shown at once, the whole row
    changed.clear()
    first = by_name(view)[items[0].name]
    view.queue.itemChanged.emit(replace(first, state="paused"))
    assert changed == [(view.model.row_of(first.id), FILE, view.model.row_of(first.id), ETA)]
    view.queue.itemChanged.emit(first)
    line.release()
    await until(lambda: all(i.state == "done" for i in by_name(view).values()), timeout=60)
    await quiet(timeout=60)
