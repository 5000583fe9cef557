"""A screen reader can use the whole app: every pane (with its details, banners, empty states,
the Jobs dock and its cards, the first steps, the menus, the script editor's problem list), every
dialog and window walked through Qt's accessible tree (tests.gui.accessibility), and the sidebar
switched by its accessible action."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAccessibleActionInterface, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QFormLayout, QLabel, QPushButton, QTableView, QWidget
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.ui.accessible import set_value, shows_value
from castdeck.ui.forms import FormDialog
from castdeck.ui.listen.listen_window import ListenWindow
from castdeck.ui.pane import ResourcePane
from castdeck.ui.pane_failed import WindowFailed
from castdeck.ui.panes import pane_specs
from castdeck.ui.scripts.pane import ScriptsPane
from tests.gui.accessibility import interface_of, problems
from tests.gui.conftest import quiet, until
from tests.gui.every_window import every_dialog
from tests.gui.test_main_window import open_window

WITH_PROBLEMS = "MAYA: Welcome back.\n[Sammy]\nWho am I?\n"


def test_the_walk_finds_what_a_reader_cannot_use(qtbot: QtBot) -> None:
    """The walk itself: each kind of gap is found (it would pass anything otherwise), and the way
    the app fills each leaves nothing."""
    window = QWidget()
    qtbot.addWidget(window)
    form = QFormLayout(window)
    value = QLabel("The Curious Current")
    value.setAccessibleName("Podcast")  # the field's name copied onto its value
    form.addRow("Podcast", value)
    heading = QLabel("Waves vs. tides")
    heading.setAccessibleName("Title")
    form.addRow(heading)
    icon_only = QPushButton()
    form.addRow(icon_only)
    dash = QLabel("—")  # a blank value written as a dash, which a reader reads as nothing
    form.addRow("Website", dash)
    cells = QStandardItemModel(1, 2)
    cells.setHorizontalHeaderLabels(["Title", "Published"])
    cells.setItem(0, 0, QStandardItem("Pilot"))
    cells.setItem(0, 1, QStandardItem(""))
    table = QTableView()
    table.setAccessibleName("Episodes")
    table.setModel(cells)
    form.addRow(table)
    window.show()
    found = problems(window)
    assert [line.rsplit("› ", 1)[1] for line in found] == [
        "StaticText 'Podcast': reads its field's name 'Podcast', not the value it shows",
        "StaticText 'Podcast': named 'Podcast' but shows 'the curious current'",
        "StaticText 'Title': named 'Title' but shows 'waves vs. tides'",
        "Button: an unnamed Button",
        "StaticText '—': shows '—' alone and says nothing of what it means",
        "Cell (row 1 of 'Published'): a blank cell that says nothing (no text, no description)",
    ]

    value.setAccessibleName("")  # the app's ways: the value is the name, the row's label labels it
    shows_value(heading, "Episode title")
    icon_only.setAccessibleName("Refresh")
    set_value(dash, "—")  # a dash a pane already wrote reads as "Not set" too
    blank = cells.item(0, 1)
    assert blank is not None
    blank.setData("Not published", Qt.ItemDataRole.AccessibleTextRole)
    assert problems(window) == []
    reader = interface_of(value)
    assert reader.text(QAccessible.Text.Name) == "The Curious Current"
    assert [
        other.text(QAccessible.Text.Name) for other, _ in reader.relations(QAccessible.RelationFlag.Label)
    ] == ["Podcast"]
    set_value(value, None)
    assert (value.text(), interface_of(value).text(QAccessible.Text.Description)) == ("—", "Not set")


@pytest.mark.asyncio
async def test_every_pane_reads_its_values_and_names_its_blank_cells(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    window = await open_window(qtbot, session, background)
    episode = (await session.client.episodes.list(limit=1).first_page()).items[0]
    background.jobs.track("episode", str(episode.id), title="Followed episode", first_poll_after=0)
    window.jobs_dock.show()  # the Jobs dock open (Ctrl+J), with a card
    await until(lambda: window.jobs_dock.isVisible() and bool(window.jobs_panel.cards))
    window.first_steps.offer()
    found: list[str] = []
    for spec in pane_specs():
        pane = window.show_pane(spec.title)
        if isinstance(pane, ResourcePane):
            await until(lambda p=pane: p.model.rowCount() > 0 and not p.model.loading, timeout=30)
            pane.table.selectRow(0)
            await until(lambda p=pane: p.current is not None)
            await pane.model.wait_idle()
            pane.banner.show_message("The list could not be read again.", kind="error", request_id="req_7")
        if isinstance(pane, ScriptsPane):
            pane.new_item()
            await until(lambda p=pane: p.draft is not None and p.editor.isEnabled())
            pane.editor.setPlainText(WITH_PROBLEMS)
            await until(lambda p=pane: p.problems_panel.count() > 0)
            await background.drafts.flush()  # the draft on disk before the test ends (its autosave)
        await quiet()
        found += [f"[{spec.title}] {line}" for line in problems(window)]
    podcasts = window.show_pane("Podcasts")
    assert isinstance(podcasts, ResourcePane)
    podcasts.filter_edit.setText("no podcast is called this")
    await until(lambda: podcasts.view_stack.currentWidget() is podcasts.empty_state)
    found += [f"[empty] {line}" for line in problems(window)]
    for action in window.menuBar().actions():
        menu = action.menu()
        assert menu is not None, action.text()
        found += [f"[menu {action.text()}] {line}" for line in problems(menu, hidden=True)]
    assert found == []
    # the followed episode (the newest: another test's may still be generating) is followed to its
    # end, whose row the Episodes pane then reads again, before the test ends (CI once caught that
    # read still under way)
    await until(lambda: background.jobs.following == 0, timeout=120)
    await quiet()


@pytest.mark.asyncio
async def test_every_dialog_and_window_reads_its_values(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    found: list[str] = []
    windows: list[Any] = [*await every_dialog(session, background), ListenWindow(background.media),
                          WindowFailed("Listen", RuntimeError("no player"), lambda: None)]  # fmt: skip
    for window in windows:
        if not isinstance(window, WindowFailed):  # (it deletes itself when closed)
            qtbot.addWidget(window)
        window.show()
        await until(window.isVisible)
        if isinstance(window, FormDialog):
            await until(lambda d=window: d.area.widget().isVisible())
        await quiet()
        found += [f"[{type(window).__name__}] {line}" for line in problems(window)]
        window.close()
    assert found == []


@pytest.mark.asyncio
async def test_the_sidebars_accessible_action_switches_the_pane(
    qtbot: QtBot, session: Session, background: Background
) -> None:
    window = await open_window(qtbot, session, background)
    navigation = interface_of(window.sidebar)
    rows = {
        navigation.child(i).text(QAccessible.Text.Name): navigation.child(i)
        for i in range(navigation.childCount())
    }
    assert {spec.title for spec in pane_specs()} <= set(rows)
    for title in ("Hosts", "Scripts", "Episodes"):
        actions = rows[title].actionInterface()
        assert actions is not None
        assert actions.actionNames() == [QAccessibleActionInterface.toggleAction()]
        actions.doAction(QAccessibleActionInterface.toggleAction())  # what Orca's "activate" does
        assert window.current_pane() is window.pane(title)
        assert window.sidebar.currentItem().text() == title
    await quiet()
