"""Two creator journeys through the real main window on a laptop's screen, by mouse and keyboard: a
folder dropped on Sources (some of its files refused), and a podcast's figures in Analytics saved as
CSV. Each step asserts what the creator sees, and that every window shown lies within the screen."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QPushButton,
    QTableView,
    QTreeView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from castdeck.api.models.limits import MAX_UPLOAD_BYTES
from castdeck.api.uploads import CHUNK_SIZE
from castdeck.services.analytics_export import APP_HEADER, EPISODE_HEADER
from castdeck.store.uploads import UploadItem
from castdeck.ui.analytics.episode_table import COLUMNS, EPISODE_ID_ROLE
from castdeck.ui.cells import format_time
from castdeck.ui.panes.analytics import AnalyticsPane
from castdeck.ui.panes.episodes import EpisodesPane
from castdeck.ui.panes.sources import STATUS_COLUMN, SourcesPane
from castdeck.ui.upload_queue import ETA, PROGRESS, PROGRESS_ROLE, SPEED, STATE, UploadQueueView, format_bytes
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import answer_save_dialog, drop_on
from tests.gui.journey import (
    both_schemes,
    click_sidebar,
    double_click_row,
    every_window_on_screen,
    open_main_window,
)

TOOLTIP = Qt.ItemDataRole.ToolTipRole
DOWNLOADS = next(i for i, c in enumerate(COLUMNS) if c.figure == "downloads.total")
VIEWS_7 = next(i for i, c in enumerate(COLUMNS) if c.figure == "video_views.last_7_days")

# --- steps -----------------------------------------------------------------------------------------------------


def png(path: Path) -> Path:
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor("#2e7d32"))
    assert image.save(str(path), "PNG")
    return path


def pdf(path: Path, size: int = 0) -> Path:
    """A one-page PDF; ``size`` pads it (sparsely: no disk is used) to that many bytes."""
    body = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\nBT (Tidal array channel layout) Tj ET\n%%EOF\n"
    path.write_bytes(body)
    if size > len(body):
        with path.open("r+b") as handle:
            handle.truncate(size)
    return path


def rows(view: UploadQueueView) -> dict[str, UploadItem]:
    return {item.name: item for item in view.model.items()}


def shown(view: UploadQueueView, name: str, column: int, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
    row = view.model.row_of(rows(view)[name].id)
    return view.model.index(row, column).data(role)


def click_row(qtbot: QtBot, table: QAbstractItemView, row: int) -> None:
    index = table.model().index(row, 0)
    table.scrollTo(index)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center())


def button(parent: QWidget, name: str) -> Any:
    """The button a person sees under this accessible name (exactly one)."""
    found = [w for w in parent.findChildren(QWidget) if w.accessibleName() == name and w.isVisible()]
    assert len(found) == 1, (name, found)
    return found[0]


# --- a folder dropped on Sources ---------------------------------------------------------------------------


def folder_to_drop(root: Path) -> tuple[Path, list[str], list[str]]:
    """A folder of research with a sub-folder and a hidden draft: the files the service takes, and
    the files it refuses (empty, a video, a type it does not take, one byte over the size limit)."""
    folder = root / "Reef research"
    (folder / "field notes").mkdir(parents=True)
    (folder / "tide-notes.txt").write_text("Tides rise twice a day along the estuary.\n", encoding="utf-8")
    (folder / "field notes" / "kelp.md").write_text("# Kelp\n\nKelp forests grow fast.\n", encoding="utf-8")
    png(folder / "reef-photo.png")
    pdf(folder / "survey.pdf", 3 * CHUNK_SIZE)
    (folder / "empty.txt").write_bytes(b"")
    (folder / "dive.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64)
    (folder / "backup.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    pdf(folder / "atlas.pdf", MAX_UPLOAD_BYTES + 1)  # sparse: no disk is used
    (folder / ".draft.txt").write_text("hidden: never uploaded", encoding="utf-8")
    return folder, ["kelp.md", "reef-photo.png", "survey.pdf", "tide-notes.txt"], [
        "atlas.pdf", "backup.zip", "dive.mp4", "empty.txt",
    ]  # fmt: skip


@pytest.mark.asyncio
async def test_a_folder_dropped_on_sources_uploads_what_the_service_takes_and_says_why_not_for_the_rest(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot: Any
) -> None:
    session, background, line = on_line.session, on_line.background, on_line.line
    background.jobs.default_interval = 0.3  # the sandbox runs fast: processing ends soon
    window = await open_main_window(qtbot, on_line)
    pane = click_sidebar(qtbot, window, "Sources")
    assert isinstance(pane, SourcesPane)
    await until(lambda: pane.model.rowCount() > 0 and not pane.model.loading)
    listed = pane.model.rowCount()
    assert pane.status.text().startswith(f"{listed:,} sources shown")
    view = pane.queue_view
    assert view is not None and not view.isVisible()  # nothing queued yet
    folder, good, refused = folder_to_drop(tmp_path)

    # the drop: every file listed at once with its state, each refused one saying why
    line.hold_bodies(after=1)  # the survey's bytes stop a chunk in, until the test lets them go
    drop_on(pane.drop_area, [folder], direct=pane.drop_area.dropEvent)
    await until(lambda: view.model.rowCount() == 8)
    await until(view.isVisible)
    assert sorted(rows(view)) == sorted(good + refused)  # the sub-folder's file too; not the hidden one
    for name in refused:
        assert rows(view)[name].state == "refused"
        assert shown(view, name, PROGRESS, PROGRESS_ROLE) == -1  # no bar: nothing is sent
        assert "The file was not sent. Fix it and choose Retry" in shown(view, name, STATE, TOOLTIP)
    assert shown(view, "empty.txt", STATE) == "Refused: The file is empty."
    assert shown(view, "dive.mp4", STATE) == (
        "Refused: Video files are not accepted; extract the audio track (for example as MP3) and upload "
        "that instead."
    )
    assert shown(view, "backup.zip", STATE).startswith("Refused: .zip files are not supported for uploads;")
    assert shown(view, "atlas.pdf", STATE) == (
        "Refused: The file is 104,857,601 bytes; the service accepts at most 104,857,600 bytes (100 MiB)."
    )
    assert pane.banner.text == (
        "4 files were refused and not sent (4 of 8 queued as sources). The Uploads list says why for each file."
    )
    # the survey on its way: a bar part of the way, the totals counting the four files to send
    await asyncio.wait_for(line.holding.wait(), timeout=30)
    await until(lambda: shown(view, "survey.pdf", STATE) == "Uploading")
    assert 0 < shown(view, "survey.pdf", PROGRESS, PROGRESS_ROLE) < 100
    await until(
        lambda: " of 4 files · " in view.totals.text() and view.totals.text().endswith(" · 4 refused")
    )
    assert not view.reason.isVisible()  # nothing selected
    # held, the survey sends nothing: after a moment the line no longer claims a speed or a time left
    await until(lambda: "/s" not in view.totals.text() and shown(view, "survey.pdf", SPEED) == "", timeout=10)
    assert shown(view, "survey.pdf", STATE) == "Uploading" and shown(view, "survey.pdf", ETA) == ""
    every_window_on_screen()
    view.table.scrollTo(view.model.index(view.model.row_of(rows(view)["survey.pdf"].id), 0))
    await laid_out(view)
    both_schemes(shot, window, "journey-sources-1-dropped")

    # a refused row, clicked: its whole reason under the list; Retry looks at the file again, says so
    click_row(qtbot, view.table, view.model.row_of(rows(view)["empty.txt"].id))
    assert [i.name for i in view.selected_items()] == ["empty.txt"]
    assert view.reason.isVisible() and view.reason.text() == (
        "empty.txt: Refused: The file is empty. The file was not sent. Fix it and choose Retry, or remove it "
        "with Clear finished."
    )
    retry = button(view, "Retry")
    assert (
        retry.isEnabled() and not button(view, "Pause").isEnabled() and not button(view, "Cancel").isEnabled()
    )
    qtbot.mouseClick(retry, Qt.MouseButton.LeftButton)
    await until(lambda: "(checked again at " in shown(view, "empty.txt", STATE))
    assert rows(view)["empty.txt"].state == "refused"
    assert "(checked again at " in view.reason.text()
    # fixed on disk, then Retry: it goes like the others, and the banner no longer counts it
    (folder / "empty.txt").write_text("Reef survey: 14 sites, 3 bleached.\n", encoding="utf-8")
    qtbot.mouseClick(retry, Qt.MouseButton.LeftButton)
    await until(lambda: rows(view)["empty.txt"].state != "refused")
    good.append("empty.txt")
    refused.remove("empty.txt")
    await until(lambda: not view.reason.isVisible())  # no problem left to explain
    assert pane.banner.text == (
        "3 files were refused and not sent (5 of 8 queued as sources). The Uploads list says why for each file."
    )
    # a video says what to do instead, whole, however narrow its cell
    click_row(qtbot, view.table, view.model.row_of(rows(view)["dive.mp4"].id))
    assert view.reason.text() == (
        "dive.mp4: Refused: Video files are not accepted; extract the audio track (for example as MP3) and "
        "upload that instead. The file was not sent. Fix it and choose Retry, or remove it with Clear finished."
    )
    await laid_out(view)
    both_schemes(shot, window, "journey-sources-2-why-refused")

    # the bytes let go: each accepted file uploaded, then a source in the list (no Refresh), followed
    # by the queue and the list to its end, and counted under the list
    line.release()
    await until(lambda: all(rows(view)[n].state == "done" for n in good), timeout=60)
    assert all(shown(view, n, PROGRESS, PROGRESS_ROLE) == 100 for n in good)
    ids = {n: str(rows(view)[n].source_id) for n in good}
    assert len(set(ids.values())) == len(good)  # one source each
    await until(lambda: all(pane.model.row_of(s) >= 0 for s in ids.values()))
    await until(
        lambda: all(pane.model.item(pane.model.row_of(s)).status == "completed" for s in ids.values()),
        timeout=60,
    )
    await until(lambda: all(shown(view, n, STATE) == "Uploaded · ready" for n in good), timeout=60)
    for name, source_id in ids.items():
        row = pane.proxy.mapFromSource(pane.model.index(pane.model.row_of(source_id), 0)).row()
        assert [pane.proxy.index(row, c).data() for c in (0, 1, 2)] == [name, "File", "Ready"]
    assert pane.status.text().startswith(f"{listed + len(good):,} sources shown")
    await until(lambda: view.totals.text() == f"5 of 5 files · {format_bytes(total_size(view, good))} of "
                f"{format_bytes(total_size(view, good))} · 3 refused")  # fmt: skip
    on_service = {s.id: s async for s in session.client.sources.list(limit=100)}
    for name, source_id in ids.items():  # on the service: each file once, processed
        assert on_service[source_id].status == "completed" and on_service[source_id].title == name
    assert sum(1 for s in on_service.values() if s.title in refused) == 0  # nothing refused was sent
    await until(lambda: background.jobs.following == 0, timeout=60)
    await quiet(timeout=60)
    await laid_out(view)
    both_schemes(shot, window, "journey-sources-3-uploaded")

    # the Jobs dock (Ctrl+J) agrees, and the queue and the list stay readable beside it
    QTest.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    await until(window.jobs_dock.isVisible)
    panel = window.jobs_panel
    await until(lambda: panel.uploads_button.isVisible() and panel.pending_builds() == 0)
    assert panel.uploads_button.text().startswith("Uploads: 5 of 5 done · 3 need attention")
    for name, source_id in ids.items():
        card = panel.card(f"job:source:{source_id}")
        assert card is not None, name
        assert (card.title_label.text(), card.status_label.text()) == (name, "Ready to use")
    await until(lambda: view.table.horizontalHeader().sectionSize(STATE) >= 300)  # the reasons have room
    assert view.table.isColumnHidden(ETA) and view.table.isColumnHidden(SPEED)  # the totals say both
    assert not view.table.isColumnHidden(PROGRESS)
    await until(lambda: pane.table.isColumnHidden(4))  # the list: its creation time gives way first
    assert not pane.table.isColumnHidden(STATUS_COLUMN)  # ... never the status: "Ready" stays in sight
    processing = pane.table.fontMetrics().horizontalAdvance("Processing…")
    assert pane.table.horizontalHeader().sectionSize(STATUS_COLUMN) > processing + 6  # never "Processin…"
    every_window_on_screen()
    await laid_out(view)
    both_schemes(shot, window, "journey-sources-4-jobs-dock")

    # from another pane, the dock's uploads line shows the queue, the first file needing attention selected
    click_row(qtbot, view.table, view.model.row_of(rows(view)["kelp.md"].id))
    assert [i.name for i in view.selected_items()] == ["kelp.md"] and not view.reason.isVisible()
    click_sidebar(qtbot, window, "Podcasts")
    qtbot.mouseClick(button(window.jobs_dock, "Uploads"), Qt.MouseButton.LeftButton)
    await until(lambda: window.current_pane() is pane)
    assert window.sidebar.currentItem().text() == "Sources"
    assert [i.name for i in view.selected_items()] == ["atlas.pdf"]
    assert QApplication.focusWidget() is view.table
    assert view.reason.text().startswith("atlas.pdf: Refused: The file is 104,857,601 bytes;")
    assert "(100 MiB)." in view.reason.text()

    # Clear finished: the rows go, the queue goes, and the banner about them goes too
    clear = button(view, "Clear finished")
    assert clear.isEnabled()
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    await until(lambda: view.model.rowCount() == 0)
    await until(lambda: not view.isVisible())
    assert not pane.banner.isVisible()
    await until(lambda: not panel.uploads_button.isVisible())  # (its line is written a moment later)
    assert pane.status.text().startswith(f"{listed + len(good):,} sources shown")  # the sources stay

    # Add files…: the file dialog, on the screen, answered by a click on the file in its list, then Open
    notes = tmp_path / "harbour-notes.txt"
    notes.write_text("The harbour mouth narrows at low tide.\n", encoding="utf-8")
    qtbot.mouseClick(button(pane, "Add files to upload"), Qt.MouseButton.LeftButton)
    dialog = await until(lambda: pane.file_dialog)
    assert isinstance(dialog, QFileDialog)
    await until(dialog.isVisible)
    assert dialog.windowTitle() == "Add files to upload"
    assert dialog.selectedNameFilter().startswith("Files the service accepts (")
    every_window_on_screen()
    both_schemes(shot, dialog, "journey-sources-5-add-files")
    dialog.setDirectory(str(notes.parent))  # (the creator's way there, by the folders on the left)
    await open_in(qtbot, dialog, notes)
    await until(lambda: "harbour-notes.txt" in rows(view))
    await until(lambda: rows(view)["harbour-notes.txt"].state == "done", timeout=60)
    assert not pane.banner.isVisible()  # nothing refused: nothing to say
    source_id = str(rows(view)["harbour-notes.txt"].source_id)
    await until(lambda: pane.model.row_of(source_id) >= 0)
    assert pane.status.text().startswith(f"{listed + len(good) + 1:,} sources shown")
    await until(lambda: shown(view, "harbour-notes.txt", STATE) == "Uploaded · ready", timeout=60)
    assert (await session.client.sources.get(source_id)).status == "completed"
    await until(lambda: background.jobs.following == 0, timeout=60)
    await quiet(timeout=60)
    await laid_out(view)
    both_schemes(shot, window, "journey-sources-6-added")


def total_size(view: UploadQueueView, names: list[str]) -> int:
    return sum(rows(view)[n].size for n in names)


async def laid_out(view: UploadQueueView) -> None:
    """Before a screenshot: the queue's coalesced totals line is written and layouts are done."""
    await until(lambda: not view._refresh.isActive())
    for _ in range(3):
        await asyncio.sleep(0)


def open_button(dialog: QFileDialog) -> QPushButton:
    box = dialog.findChild(QDialogButtonBox, "buttonBox")
    assert isinstance(box, QDialogButtonBox)
    found = box.button(QDialogButtonBox.StandardButton.Open)
    assert isinstance(found, QPushButton) and found.isVisible()
    return found


async def open_in(qtbot: QtBot, dialog: QFileDialog, path: Path) -> None:
    """Answer an open dialog as a person does: the file clicked in the dialog's list, then Open."""
    view = dialog.findChild(QTreeView, "treeView")
    assert isinstance(view, QTreeView) and view.isVisible()

    def listed() -> Any:
        model, root = view.model(), view.rootIndex()
        rows = (model.index(r, 0, root) for r in range(model.rowCount(root)))
        return next((index for index in rows if index.data() == path.name), None)

    index = await until(listed)  # the file system model reads the folder in the background
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    assert dialog.selectedFiles() == [str(path)]
    opened = open_button(dialog)
    assert opened.isEnabled()
    qtbot.mouseClick(opened, Qt.MouseButton.LeftButton)
    await until(lambda: not dialog.isVisible())


# --- Analytics, saved as CSV ----------------------------------------------------------------------------------


def table_rows(pane: AnalyticsPane) -> list[list[str]]:
    """The episode table as the creator sees it, row by row (with each row's episode id first)."""
    proxy = pane.proxy
    return [
        [str(proxy.index(r, 0).data(EPISODE_ID_ROLE))]
        + [str(proxy.index(r, c).data()) for c in range(proxy.columnCount())]
        for r in range(proxy.rowCount())
    ]


def click_header(qtbot: QtBot, table: QTableView, column: int) -> None:
    header = table.horizontalHeader()
    where = QPoint(
        header.sectionViewportPosition(column) + header.sectionSize(column) // 2, header.height() // 2
    )
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=where)


def number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.asyncio
async def test_a_podcasts_figures_chosen_in_analytics_and_saved_as_csv_hold_what_the_screen_shows(
    qtbot: QtBot, on_line: OnLine, tmp_path: Path, shot: Any
) -> None:
    line = on_line.line
    window = await open_main_window(qtbot, on_line)
    pane = click_sidebar(qtbot, window, "Analytics")
    assert isinstance(pane, AnalyticsPane)
    picker = pane.podcast_picker
    await picker.wait_loaded()
    first = picker.currentText()
    await until(
        lambda: (
            pane.figures is not None and pane.status.text().startswith(f"{pane.model.rowCount():,} episode")
        )
    )
    assert picker.currentIndex() == 0 and pane.figures is not None
    assert pane.figures.analytics.podcast_id == picker.selected_id()  # the first podcast's, at once
    every_window_on_screen()

    # a podcast chosen in the list with the keys: the list focused, Down until it shows (the list's
    # popup is not opened: the offscreen platform cannot give a popup the keyboard, and says so)
    wanted = "The Curious Current"
    assert first != wanted
    picker.setFocus()
    await until(lambda: QApplication.focusWidget() is picker)
    for _ in range(picker.findText(wanted) - picker.currentIndex()):
        QTest.keyClick(picker, Qt.Key.Key_Down)
    assert picker.currentText() == wanted
    chosen = picker.selected_id()
    await until(lambda: pane.figures is not None and pane.figures.analytics.podcast_id == chosen)
    await until(lambda: pane.refresh_button.isEnabled())
    assert len(line.to("GET", f"/v1/podcasts/{chosen}/analytics")) == 1  # read from the service
    figures = pane.figures.analytics  # the service's answer, as the pane read it
    assert figures.complete and figures.analytics_enabled
    assert not pane.state_banner.isVisible()  # nothing to say about how complete they are

    # the cards, the bars and the table show the service's figures
    totals = figures.totals
    for name in ("downloads", "video_views", "plays", "last_7_days", "last_30_days"):
        assert pane.cards[name].text == f"{round(getattr(totals, name)):,}", name
    # side by side, every figure at the same height (a card with a one-line caption had it lower)
    assert len({card.value.mapTo(pane, QPoint(0, 0)).y() for card in pane.cards.values()}) == 1
    apps = sorted(figures.plays_by_app.items(), key=lambda item: (-item[1], item[0]))
    assert [(n, round(v)) for n, v in pane.apps_chart.bars] == [(n, round(v)) for n, v in apps]
    assert sum(v for _, v in pane.apps_chart.bars) == totals.plays  # the bars add up to the Plays card
    by_id = {e.episode_id: e for e in figures.episodes}
    screen = table_rows(pane)
    assert sorted(r[0] for r in screen) == sorted(by_id)  # every episode, once
    for row in screen:
        entry = by_id[row[0]]
        assert [number(v) for v in row[3:]] == [
            round(entry.downloads.first_7_days), round(entry.downloads.first_30_days), round(entry.downloads.total),
            round(entry.video_views.last_7_days), round(entry.video_views.last_30_days), round(entry.video_views.total),
        ]  # fmt: skip
    assert [number(r[DOWNLOADS + 1]) for r in screen] == sorted(
        (number(r[DOWNLOADS + 1]) for r in screen), reverse=True
    )
    assert pane.status.text().startswith(f"{len(screen):,} episodes · read ")
    assert pane.export_episodes_button.isEnabled() and pane.export_apps_button.isEnabled()
    every_window_on_screen()
    await settle_pane()
    both_schemes(shot, window, "journey-analytics-1-figures")

    # the table sorted by clicks on "Views 7 d": fewest first, then most; the export follows the screen
    header = pane.table.horizontalHeader()
    click_header(qtbot, pane.table, VIEWS_7)
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (
        VIEWS_7,
        Qt.SortOrder.AscendingOrder,
    )
    views = [number(r[VIEWS_7 + 1]) for r in table_rows(pane)]
    assert views == sorted(views) and views[0] == 0  # the drafts first
    click_header(qtbot, pane.table, VIEWS_7)
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    screen = table_rows(pane)
    views = [number(r[VIEWS_7 + 1]) for r in screen]
    assert views == sorted(views, reverse=True) and views[0] > 0
    # Export episodes…: the save dialog, on the screen, proposes a name; answered with one in tmp_path
    qtbot.mouseClick(button(pane, "Export the episode table as CSV"), Qt.MouseButton.LeftButton)
    dialog = await until(lambda: pane.export_dialog)
    await until(dialog.isVisible)
    every_window_on_screen()
    both_schemes(shot, dialog, "journey-analytics-2-save-dialog")
    exports = tmp_path / "exports"
    exports.mkdir()
    target = exports / "episodes of the current.csv"
    await answer_save_dialog(qtbot, dialog, target, suffix=f"{wanted} - episodes.csv")
    await until(lambda: pane.banner.text == f"Saved {len(screen):,} rows to {target}.")
    with target.open(encoding="utf-8-sig", newline="") as handle:
        saved = list(csv.reader(handle))
    assert saved[0] == EPISODE_HEADER
    data = saved[1:]
    assert [r[1] for r in data] == [r[0] for r in screen]  # the episodes in the order shown
    for written, seen in zip(data, screen, strict=True):
        assert written[0] == seen[1]  # the title
        assert [int(v) for v in written[4:]] == [number(v) for v in seen[3:]]  # the six figures
    # when published: the day on the screen, the moment in the file; else the status, in both
    published = [r for r in data if r[3]]
    unpublished = [r for r in data if not r[3]]
    assert published and unpublished  # the podcast has both (drafts too)
    shown_published = {r[0]: r[2] for r in screen}
    for written in published:
        assert written[2] == "published" and shown_published[written[1]] == format_time(written[3])[:10]
    for written in unpublished:
        assert shown_published[written[1]] == written[2].capitalize()
    await settle_pane()
    both_schemes(shot, window, "journey-analytics-3-episodes-saved")

    # Export apps…: the plays by app, as the bars show them, with each app's share of the plays
    qtbot.mouseClick(button(pane, "Export plays by app as CSV"), Qt.MouseButton.LeftButton)
    dialog = await until(lambda: pane.export_dialog if pane.export_dialog is not dialog else None)
    await until(dialog.isVisible)
    every_window_on_screen()
    assert Path(dialog.directory().absolutePath()) == exports  # where the last export went
    await until(lambda: pane.findChildren(QFileDialog) == [dialog])  # the last export's dialog is gone
    apps_file = exports / "plays by app.csv"
    await answer_save_dialog(qtbot, dialog, apps_file, suffix=f"{wanted} - plays by app.csv")
    await until(lambda: pane.banner.text == f"Saved {len(apps):,} rows to {apps_file}.")
    with apps_file.open(encoding="utf-8-sig", newline="") as handle:
        saved_apps = list(csv.reader(handle))
    assert saved_apps[0] == APP_HEADER
    assert [(n, int(p)) for n, p, _share in saved_apps[1:]] == [
        (n, round(v)) for n, v in pane.apps_chart.bars
    ]
    top_name, _plays, top_share = saved_apps[1]
    assert pane.apps_chart.tooltip_for(0).endswith(f"({top_share} of all plays)")
    assert top_name == pane.apps_chart.bars[0][0]

    # the top row of the table, double-clicked: Episodes opens with it, its figures in the details
    top_id, top_title = screen[0][0], screen[0][1]
    double_click_row(qtbot, pane.table, 0)
    episodes = await until(
        lambda: window.current_pane() if isinstance(window.current_pane(), EpisodesPane) else None
    )
    assert window.sidebar.currentItem().text() == "Episodes"
    await until(lambda: episodes.current is not None and str(episodes.current.id) == top_id)
    await until(lambda: episodes.details.heading.text() == top_title)
    box = await until(lambda: episodes.analytics_box)
    await until(lambda: box.figures is not None and box.episode_id == top_id)
    assert box.figures is not None and box.isVisible()
    # the details scrolled to the figures, not left at the facts above them
    viewport = episodes.details_scroll.viewport()
    await until(lambda: viewport.rect().contains(box.mapTo(viewport, QPoint(4, 4))))
    read = box.figures.analytics
    assert box.text_of("Downloads, all time") == f"{round(read.downloads.total):,}"
    assert box.text_of("Video views, last 90 days") == f"{round(read.video_views.total):,}"
    assert round(read.downloads.total) >= number(screen[0][DOWNLOADS + 1])  # downloads only grow
    every_window_on_screen()
    await settle_pane()
    both_schemes(shot, window, "journey-analytics-4-episode")

    # back in Analytics by the sidebar: the same podcast, the same order; Refresh reads it again
    assert click_sidebar(qtbot, window, "Analytics") is pane
    assert picker.currentText() == wanted and [r[0] for r in table_rows(pane)] == [r[0] for r in screen]
    qtbot.mouseClick(button(pane, "Refresh analytics"), Qt.MouseButton.LeftButton)
    await until(lambda: len(line.to("GET", f"/v1/podcasts/{chosen}/analytics")) == 2)
    await until(
        lambda: (
            pane.refresh_button.isEnabled()
            and pane.status.text().startswith(f"{len(screen):,} episodes · read ")
        )
    )
    assert pane.figures is not None and pane.figures.analytics.podcast_id == chosen
    # read again, still in the order the creator chose (it went back to the downloads')
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (
        VIEWS_7,
        Qt.SortOrder.DescendingOrder,
    )
    views = [number(r[VIEWS_7 + 1]) for r in table_rows(pane)]
    assert views == sorted(views, reverse=True)

    # beside the Jobs dock (Ctrl+J), narrower: still every figure whole, every window on the screen
    window.activateWindow()  # (the offscreen platform does not give it back after the dialogs)
    await until(window.isActiveWindow)
    QTest.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    await until(window.jobs_dock.isVisible)
    await settle_pane()
    for card in pane.cards.values():
        assert card.value.width() >= card.value.sizeHint().width(), card.label_text  # never cut
    every_window_on_screen()
    both_schemes(shot, window, "journey-analytics-5-beside-the-jobs-dock")
    await quiet()


async def settle_pane() -> None:
    """Before a screenshot: the layouts that changed are done (a few turns of the loop)."""
    await quiet()
    for _ in range(3):
        await asyncio.sleep(0)
