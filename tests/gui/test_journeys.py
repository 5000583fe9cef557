"""A creator's journeys through the real main window on a laptop's screen, by mouse and keyboard:
each step asserts what the creator sees, and that every window shown lies within the screen."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode
from castdeck.services.publish import NOT_RENDERED_NOTE
from castdeck.services.render_choice import RENDER_OFF_MEANS
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.panes.episodes import EpisodesPane
from castdeck.ui.screen_fit import TITLE_BAR
from castdeck.ui.scripts.dialogs import SendDialog
from castdeck.ui.scripts.pane import ScriptsPane
from tests.gui.conftest import OnLine, quiet, until
from tests.gui.helpers import new_podcast
from tests.gui.journey import (
    both_schemes,
    choose_by_keys,
    click_link,
    click_sidebar,
    double_click_row,
    every_window_on_screen,
    open_main_window,
)


@pytest.mark.asyncio
async def test_ctrl_g_opens_generate_right_after_choosing_episodes_in_the_sidebar(
    qtbot: QtBot, on_line: OnLine
) -> None:
    window = await open_main_window(qtbot, on_line)
    screen = window.screen().availableGeometry()
    assert (window.width(), window.height()) == (1280, screen.height() - TITLE_BAR)  # its 1280 × 800, fitted
    pane = click_sidebar(qtbot, window, "Episodes")
    assert isinstance(pane, EpisodesPane)
    window.sidebar.setFocus()  # the focus in the sidebar, as after moving through it with the keyboard
    await until(lambda: QApplication.focusWidget() is window.sidebar)
    assert "(Ctrl+G)" in pane.generate_button.toolTip()
    await until(pane.generate_button.isEnabled)
    QTest.keyClick(window.sidebar, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    dialog = await until(lambda: pane.dialog if isinstance(pane.dialog, GenerateDialog) else None)
    await until(dialog.isVisible)
    every_window_on_screen()
    # rendering is on unless the creator turned it off, and "off" is explained before the click
    assert dialog.render_check.isChecked()
    assert dialog.rows["render"].widget.isVisibleTo(dialog)
    assert RENDER_OFF_MEANS in [label.text() for label in dialog.findChildren(QLabel)]
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await until(lambda: not dialog.isVisible())
    window.activateWindow()  # (the offscreen platform does not give it back by itself)
    await until(window.isActiveWindow)

    # the same in Scripts: its Ctrl+G and Ctrl+I work with the focus in the sidebar too
    scripts = click_sidebar(qtbot, window, "Scripts")
    assert isinstance(scripts, ScriptsPane)
    await until(lambda: scripts.hosts is not None)
    window.sidebar.setFocus()
    await until(lambda: QApplication.focusWidget() is window.sidebar)
    QTest.keyClick(window.sidebar, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # a new draft
    await until(lambda: scripts.draft is not None and scripts.editor.isEnabled())
    await on_line.background.drafts.flush()  # the new draft on disk before the test ends
    await quiet()  # what the closed Generate dialog was still reading (its lists, the hosts' names)


@pytest.mark.asyncio
async def test_a_draft_imported_as_written_and_its_episode_opened_from_the_scripts_list(
    qtbot: QtBot, on_line: OnLine, shot: Any
) -> None:
    session = on_line.session
    show = await new_podcast(session, f"Journeys {uuid.uuid4().hex[:6]}")
    window = await open_main_window(qtbot, on_line)
    pane = click_sidebar(qtbot, window, "Scripts")
    assert isinstance(pane, ScriptsPane)
    await until(lambda: pane.hosts is not None)
    qtbot.mouseClick(pane.new_button, Qt.MouseButton.LeftButton)
    await until(lambda: pane.draft is not None and pane.editor.isEnabled())
    pane.editor.setFocus()
    hosts = pane.hosts or []
    assert len(hosts) >= 2
    for line in ("# Why rivers bend", f"[{hosts[0].name}]", "Rivers bend because water is lazy.",
                 f"[{hosts[1].name}]", "Or because it is patient."):  # fmt: skip
        qtbot.keyClicks(pane.editor, line)
        qtbot.keyClick(pane.editor, Qt.Key.Key_Return)
    await until(lambda: pane.analysis is not None and not pane.analysis.errors)

    # Ctrl+I: the import dialog, on the laptop, rendering on by default with "off" explained
    QTest.keyClick(pane.editor, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    dialog = await until(lambda: pane.dialog if isinstance(pane.dialog, SendDialog) else None)
    await until(dialog.isVisible)
    every_window_on_screen()
    assert dialog.render_check.isChecked()
    assert RENDER_OFF_MEANS in [label.text() for label in dialog.findChildren(QLabel)]
    await dialog.podcast_picker.wait_loaded()
    choose_by_keys(dialog.podcast_picker, show.title)
    assert dialog.podcast_picker.selected_id() == show.id
    box = dialog.render_check  # this once: a draft, no render (a click on the box at its left)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert not dialog.render_check.isChecked()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    await until(lambda: pane.draft is not None and pane.draft.state == "imported", timeout=60)
    episode_id = pane.draft.episode_id
    assert episode_id and f"episode:{episode_id}" in pane.info.text()
    # the episode carries the draft's title, not its first spoken words (counted on the service)
    await until(lambda: pane.draft is not None and "title_owed" not in pane.draft.options)
    assert (await session.client.episodes.get(episode_id)).title == "Why rivers bend"

    # the draft's row, double-clicked: Episodes opens with the episode selected
    row = pane.list_model.row_of(pane.draft.id)
    double_click_row(qtbot, pane.list_view, row)
    episodes = await until(
        lambda: window.current_pane() if isinstance(window.current_pane(), EpisodesPane) else None
    )
    assert window.sidebar.currentItem().text() == "Episodes"
    await until(lambda: isinstance(episodes.current, Episode) and str(episodes.current.id) == episode_id)
    every_window_on_screen()
    # the count under the list follows the rows the new episode added (no Refresh)
    await until(lambda: episodes.status.text().startswith(f"{episodes.model.rowCount():,} episodes shown"))

    # the link in the draft's info line does the same (back in Scripts first)
    click_sidebar(qtbot, window, "Scripts")
    click_link(qtbot, pane.info, f"episode:{episode_id}")
    await until(lambda: window.current_pane() is episodes)

    # imported without rendering: once written it says why it cannot be published, and offers no Publish
    await until(
        lambda: (
            isinstance(episodes.current, Episode)
            and episodes.current.generation is not None
            and episodes.current.generation.state == "completed"
        ),
        timeout=120,
    )
    await until(lambda: episodes.details.note.text() == NOT_RENDERED_NOTE)
    assert episodes.details.heading.text() == "Why rivers bend"
    assert episodes.details.note.isVisible()
    assert not episodes.publish_button.isVisible() and not episodes.schedule_button.isVisible()
    assert episodes.delete_button.isVisible()
    both_schemes(shot, window, "journey-import-unrendered-draft")
    # the choice is remembered: the next Generate starts with rendering off
    window.activateWindow()
    await until(window.isActiveWindow)
    QTest.keyClick(window.sidebar, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    generate = await until(lambda: episodes.dialog if isinstance(episodes.dialog, GenerateDialog) else None)
    assert not generate.render_check.isChecked()
    generate.reject()
    await on_line.background.drafts.flush()  # the draft's last edits on disk before the test ends
    await quiet()
