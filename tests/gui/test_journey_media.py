"""A creator's journey per media kind (Video, Short, Voiceover) through the real main window on a
laptop's screen, by mouse and keyboard: the pane from the sidebar, its New button, the create
dialog filled in, Create; the Jobs dock opens by itself and its card follows the job to its end;
the row says Completed without a Refresh; the details preview the file, Play plays it, Download
saves it where the creator says. Each step asserts what the creator sees, that every window lies
within the screen, and keeps a screenshot in the light and the dark scheme."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QComboBox, QListWidget, QPlainTextEdit, QWidget
from pytestqt.qtbot import QtBot

from castdeck.ui.dialogs.media_dialog import MediaCreateDialog
from castdeck.ui.main_window import MainWindow
from castdeck.ui.panes.media import MediaPane
from castdeck.ui.pickers import ID_ROLE
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import answer_save_dialog
from tests.gui.journey import both_schemes, click_sidebar, every_window_on_screen, open_main_window


@dataclass(frozen=True)
class Kind:
    pane: str  # the sidebar's row
    noun: str  # video, short, voiceover
    label: str  # what the card calls it: Video, Short, Voiceover
    words: str  # typed into the prompt, or the voiceover's direction


KINDS = [
    Kind("Videos", "video", "Video", "A short explainer on how a tide mill grinds grain"),
    Kind("Shorts", "short", "Short", "Why a tide pool warms faster than the sea"),
    Kind("Voiceovers", "voiceover", "Voiceover", "Walk through the diagram slowly, channel first."),
]
VISUAL = "Tidal array diagram"  # a seeded upload with prepared visuals (the voiceover narrates it)


def named(root: QWidget, cls: type[Any], name: str) -> Any:
    """The one visible widget of ``cls`` under ``root`` whose accessible name is ``name`` (what a
    screen reader, and a person, knows it by), or, for a value with no field name beside it,
    whose accessible description is (its name is the value: castdeck.ui.accessible)."""
    found = [w for w in root.findChildren(cls)
             if name in (w.accessibleName(), w.accessibleDescription()) and w.isVisible()]  # fmt: skip
    assert len(found) == 1, (name, [w.accessibleName() for w in root.findChildren(cls) if w.isVisible()])
    return found[0]


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.accessibleName()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


async def tick(qtbot: QtBot, items: QListWidget, text: str | None = None) -> str:
    """Tick an item of a picker's list as a person does: a click on its row, then Space. The first
    enabled item when ``text`` is None, else the one whose text starts with ``text``; its id."""
    await until(lambda: items.count() > 0)

    def wanted(row: int) -> bool:
        item = items.item(row)
        usable = bool(item.flags() & Qt.ItemFlag.ItemIsEnabled)
        return usable and (text is None or item.text().startswith(text))

    row = next(r for r in range(items.count()) if wanted(r))
    item = items.item(row)
    items.scrollToItem(item)
    qtbot.mouseClick(items.viewport(), Qt.MouseButton.LeftButton, pos=items.visualItemRect(item).center())
    assert items.currentItem() is item
    QTest.keyClick(items, Qt.Key.Key_Space)
    assert item.checkState() == Qt.CheckState.Checked, item.text()
    return str(item.data(ID_ROLE))


async def pick_second(combo: QComboBox) -> str:
    """Choose a combo box's second entry (the first host, after "The saved narrator") with the
    keyboard: the focus on it, then Down (the offscreen platform cannot give a popup list the
    keyboard, so its list is not opened); the text now shown."""
    await until(lambda: combo.count() > 1 and combo.itemData(1) is not None)
    assert combo.currentIndex() == 0
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    await until(combo.hasFocus)
    QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentIndex() == 1
    return combo.currentText()


def status_cell(pane: MediaPane, media_id: str) -> str:
    """The Status column's text on the item's row, as the table shows it."""
    row = pane.model.row_of(media_id)
    assert row >= 0, media_id
    index = pane.proxy.mapFromSource(pane.model.index(row, 1))
    return str(index.data(Qt.ItemDataRole.DisplayRole))


async def fill_the_dialog(qtbot: QtBot, dialog: MediaCreateDialog, kind: Kind) -> None:
    """The prompt (or a voiceover's direction) typed, a host picked, a voiceover's visuals ticked."""
    create = named(dialog, QAbstractButton, f"Create {kind.noun}")
    assert not create.isEnabled()  # nothing asked for yet
    if kind.noun == "voiceover":
        visuals = named(dialog, QListWidget, "Visuals")
        await tick(qtbot, visuals, VISUAL)
        assert f"1. {VISUAL}" in named(dialog, QWidget, "Presentation order").text()
        direction = named(dialog, QPlainTextEdit, "Direction")
        qtbot.mouseClick(direction.viewport(), Qt.MouseButton.LeftButton)
        qtbot.keyClicks(direction, kind.words)
        assert direction.toPlainText() == kind.words
        host = await pick_second(named(dialog, QComboBox, "Host"))
        assert host and host != "The saved narrator"
    else:
        prompt = named(dialog, QPlainTextEdit, "Prompt")
        qtbot.mouseClick(prompt.viewport(), Qt.MouseButton.LeftButton)
        qtbot.keyClicks(prompt, kind.words)
        assert prompt.toPlainText() == kind.words
        await tick(qtbot, named(dialog, QListWidget, "Hosts"))
        sources = named(dialog, QListWidget, "Research sources")  # offered; none ticked: optional
        await until(lambda: sources.count() > 0)
    await until(create.isEnabled)
    assert dialog.problem.text() == ""


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", KINDS, ids=[k.noun for k in KINDS])
async def test_a_media_item_created_followed_played_and_saved(
    qtbot: QtBot, on_line: OnLine, shot: Any, tmp_path: Path, kind: Kind
) -> None:
    on_line.background.jobs.default_interval = 0.3  # (the service's own hints are shorter still)
    window: MainWindow = await open_main_window(qtbot, on_line)
    name = f"journey-{kind.noun}"

    # the pane, from the sidebar
    pane = click_sidebar(qtbot, window, kind.pane)
    assert isinstance(pane, MediaPane) and pane.kind == kind.noun
    await until(lambda: pane.model.rowCount() > 0 and not pane.model.loading)
    assert not window.jobs_dock.isVisible()
    every_window_on_screen()
    both_schemes(shot, window, f"{name}-1-pane")

    # New: the create dialog, on the screen, filled by keys and mouse
    new = named(window, QAbstractButton, f"New {kind.noun}")
    await until(new.isEnabled)
    click(qtbot, new)
    dialog = await until(lambda: pane.dialog if isinstance(pane.dialog, MediaCreateDialog) else None)
    await until(dialog.isVisible)
    assert dialog.windowTitle() == f"New {kind.noun}"
    every_window_on_screen()
    await fill_the_dialog(qtbot, dialog, kind)
    every_window_on_screen()
    both_schemes(shot, dialog, f"{name}-2-dialog")

    # Create: the dialog closes, the new item is selected, the Jobs dock opens with its card
    click(qtbot, named(dialog, QAbstractButton, f"Create {kind.noun}"))
    await until(lambda: not dialog.isVisible())
    await until(lambda: pane.current is not None and pane.current.status == "generating")
    media_id = str(pane.current.id)
    title = pane.current.title or f"Untitled {kind.noun}"
    await until(window.jobs_dock.isVisible)
    assert pane.details.heading.text() == title
    assert pane.details.value_of("Status") == "Generating"
    assert pane.details.value_of("Status check").startswith("Started at ")
    card = await until(lambda: window.jobs_panel.card(f"job:{kind.noun}:{media_id}"))
    assert card.view.title == title and card.view.kind == kind.noun
    await until(lambda: card.status_label.text().startswith("Generating"))
    every_window_on_screen()
    both_schemes(shot, window, f"{name}-3-started")

    # the card follows the job to its end; the row and the details say Completed (no Refresh)
    await until(lambda: card.view.state == "completed", timeout=240)
    assert card.status_label.text() == "Finished"
    assert {"open", "download", "dismiss"} <= set(card.buttons)
    await until(lambda: status_cell(pane, media_id) == "Completed")
    await until(lambda: pane.details.value_of("Status") == "Completed")
    assert pane.details.value_of("Status check") is None  # the started note ended with the job
    assert window.notifier.history[-1].title == f"{kind.label} finished"

    # the details preview the file: its still until it plays, its length read
    preview = pane.preview
    await until(lambda: preview.state == "ready", timeout=120)
    assert preview.isVisible() and preview.player_bar is not None and preview.player_bar.isVisible()
    await until(lambda: preview.video.still is not None, timeout=60)
    assert preview.status.text() == "Downloaded"
    assert preview.playback is not None
    await until(lambda: preview.playback.duration > 0)
    await until(lambda: pane.details.value_of("Duration") not in (None, "Not known yet"))
    every_window_on_screen()
    both_schemes(shot, window, f"{name}-4-completed")

    # Play: the position advances (silently here: no sound server), the button says Pause
    seen: list[float] = []
    preview.playback.frame.connect(seen.append)
    play = named(preview, QAbstractButton, "Play")
    click(qtbot, play)
    await until(lambda: preview.playback.playing)
    await until(lambda: len(seen) > 5 and seen[-1] > seen[0] + 0.5, timeout=30)
    assert play.accessibleName() == "Pause"
    elapsed = named(preview, QWidget, "Elapsed time")
    await until(lambda: elapsed.text() not in ("", "00:00"), timeout=30)  # the time shown moves on
    every_window_on_screen()
    both_schemes(shot, window, f"{name}-5-playing")
    click(qtbot, play)
    await until(lambda: not preview.playback.playing)
    assert play.accessibleName() == "Play"

    # Download: the save dialog, answered with a path; the file is there and the pane says where
    click(qtbot, named(pane.details, QAbstractButton, f"Download {kind.noun}"))
    saving = await until(lambda: pane.saver.dialog)
    every_window_on_screen()
    target = tmp_path / f"journey-{uuid.uuid4().hex[:6]}.mp4"
    await answer_save_dialog(qtbot, saving, target, suffix=".mp4")
    await until(lambda: pane.banner.text == f"Saved “{title}” to {target}.", timeout=60)
    assert pane.banner.isVisible()
    assert target.is_file() and target.stat().st_size > 1000
    assert pane.download_view is not None and pane.download_view.headline.text() == "● Ready to download"
    every_window_on_screen()
    both_schemes(shot, window, f"{name}-6-saved")
    await quiet()
