"""The Hosts pane and the host dialog with its voice browser, against the real sandbox."""

from __future__ import annotations

import uuid

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api.models import Host
from castdeck.services.session import Session
from castdeck.ui.dialogs.host_dialog import HostDialog, html_to_text
from castdeck.ui.panes.hosts import HostsPane
from tests.gui.conftest import answer_confirmation, check_pages_by_two, quiet, shown_pane, until

BACKSTORY = "A former radio engineer who explains how sound travels, with patience and dry humour."


async def open_pane(qtbot: QtBot, session: Session) -> HostsPane:
    pane = HostsPane(session)
    return await shown_pane(qtbot, pane)


async def choose_voice(dialog: HostDialog, language: str) -> int:
    """Filter the voice browser by language and pick the first voice shown."""
    browser = dialog.voice_browser
    browser.filters.language.setCurrentIndex(browser.filters.language.findData(language))
    await until(lambda: not browser.model.loading and browser.model.rowCount() > 0)
    assert {v.language for v in browser.model.items} == {language}
    browser.table.selectRow(0)
    chosen = browser.model.item(browser.proxy.mapToSource(browser.proxy.index(0, 0)).row())
    assert browser.selected_voice_id() == chosen.id
    return int(chosen.id)


async def focus(pane: QWidget) -> None:
    """Make the pane the active window with its list focused (shortcuts only fire there)."""
    pane.activateWindow()
    await until(pane.isActiveWindow, timeout=5)
    pane.table.setFocus()


def row_of(pane: HostsPane, name: str) -> Host | None:
    return next((h for h in pane.model.items if h.name == name), None)


@pytest.mark.asyncio
async def test_hosts_pane_lists_hosts_with_voices(
    qtbot: QtBot, session: Session, shot, qtmodeltester
) -> None:
    pane = await open_pane(qtbot, session)
    qtmodeltester.check(pane.model)
    qtmodeltester.check(pane.proxy)
    assert pane.model.headerData(2, Qt.Orientation.Horizontal) == "Voice"
    assert any(h.voice is not None for h in pane.model.items)

    voiced = next(h for h in pane.model.items if h.voice is not None)
    assert pane.select_id(voiced.id)
    host = pane.current
    assert isinstance(host, Host) and host.voice is not None
    await until(lambda: pane.details.value_of("Host ID") == host.id)
    assert pane.details.heading.text() == host.name
    await until(lambda: pane.details.value_of("Voice ID") == str(host.voice.id))
    assert pane.details.text_heading.text() == "Backstory"
    assert pane.details.text.toPlainText().strip()
    assert pane.edit_button.isVisible() and pane.delete_button.isVisible()
    assert pane.edit_button.isEnabled()
    await quiet()
    shot(pane, "pane-hosts")
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_create_edit_and_archive_a_host(qtbot: QtBot, session: Session, shot) -> None:
    pane = await open_pane(qtbot, session)
    name = f"Rhea {uuid.uuid4().hex[:6]}"

    pane.new_button.click()
    dialog = pane.dialog
    assert isinstance(dialog, HostDialog) and dialog.isVisible()
    await dialog.voice_browser.wait_idle()
    assert not dialog.submit_button.isEnabled()
    qtbot.keyClicks(dialog.name_edit, name)
    qtbot.keyClicks(dialog.title_edit, "Sound engineer")
    dialog.backstory_edit.setPlainText(BACKSTORY)
    qtbot.keyClicks(dialog.personality_edit, "Calm, precise, curious.")
    dialog.guest_check.setChecked(True)
    assert not dialog.submit_button.isEnabled()  # no voice yet
    voice_id = await choose_voice(dialog, "de")
    assert dialog.voice_browser.voice_details()["ID"] == str(voice_id)
    assert dialog.submit_button.isEnabled()
    assert dialog.rows["backstory"].counter.text() == f"{len(BACKSTORY)} / 3,000"
    await quiet()
    shot(dialog, "dialog-host-create")

    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    assert dialog.result() == HostDialog.DialogCode.Accepted, dialog.banner.text
    created = dialog.result_value
    assert isinstance(created, Host) and created.name == name and created.voice_id == voice_id
    assert created.voice is not None and created.voice.language == "de"
    assert created.model_extra.get("is_guest") is True
    await until(lambda: row_of(pane, name) is not None)
    assert pane.current is not None and pane.current.id == created.id  # selected after creation
    await until(lambda: pane.details.value_of("Voice ID") == str(voice_id))
    assert pane.details.value_of("Role") == "Guest"

    # edit (Ctrl+E in the list): only the changed fields are sent
    await focus(pane)
    qtbot.keyClick(pane.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    edit = pane.dialog
    assert isinstance(edit, HostDialog) and edit is not dialog and edit.isVisible()
    assert edit.name_edit.text() == name
    assert edit.backstory_edit.toPlainText() == BACKSTORY  # the service's <p> wrapping is taken off
    assert edit.voice_browser.selected_voice_id() == voice_id
    assert not edit.submit_button.isEnabled()  # nothing changed yet
    edit.title_edit.clear()
    qtbot.keyClicks(edit.title_edit, "Chief engineer")
    edit.guest_check.setChecked(False)
    assert edit.collect() == {"title": "Chief engineer", "is_guest": False}
    assert edit.submit_button.isEnabled()
    await quiet()
    shot(edit, "dialog-host-edit")
    qtbot.mouseClick(edit.submit_button, Qt.MouseButton.LeftButton)
    await edit.wait_sent()
    assert edit.result() == HostDialog.DialogCode.Accepted, edit.banner.text
    await until(lambda: (row_of(pane, name) or Host(id="-")).title == "Chief engineer")
    fresh = await session.client.hosts.get(created.id)
    assert fresh.title == "Chief engineer" and fresh.voice_id == voice_id
    assert html_to_text(fresh.backstory) == BACKSTORY
    await until(lambda: pane.details.value_of("Role") == "Host")

    # archive with confirmation; cancelling first keeps it
    pane.delete_button.click()
    assert "Archive this host?" in await answer_confirmation(pane, "Cancel")
    await until(lambda: pane.findChild(QMessageBox, "confirm") is None)
    assert row_of(pane, name) is not None
    view_row = pane.proxy.mapFromSource(pane.model.index(pane.model.row_of(created.id), 0)).row()
    below = pane.model.item(pane.proxy.mapToSource(pane.proxy.index(view_row + 1, 0)).row())
    pane.delete_button.click()
    assert name in await answer_confirmation(pane, "Archive")
    await until(lambda: row_of(pane, name) is None)
    assert pane.current is not None and pane.current.id == below.id  # the row that took its place
    assert "Archived" in pane.banner.text
    archived = await session.client.hosts.get(created.id)
    assert archived.model_extra.get("archived") is True
    listed = [h.id async for h in session.client.hosts.list(limit=100)]
    assert created.id not in listed
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_short_backstory_is_blocked_inline(qtbot: QtBot, session: Session, shot) -> None:
    pane = await open_pane(qtbot, session)
    pane.new_item()
    dialog = pane.dialog
    assert isinstance(dialog, HostDialog)
    await dialog.voice_browser.wait_idle()
    qtbot.keyClicks(dialog.name_edit, "Short story")
    await choose_voice(dialog, "en")
    qtbot.keyClicks(dialog.backstory_edit, "Too short")
    row = dialog.rows["backstory"]
    assert not dialog.submit_button.isEnabled()
    assert row.error.isVisible() and "at least 10" in row.error.text()
    assert "at least 10" in row.counter.text()
    assert not dialog.rows["name"].error.isVisible()
    await quiet()
    shot(dialog, "dialog-host-invalid")
    qtbot.keyClicks(dialog.backstory_edit, " to tell anyone about.")
    assert dialog.submit_button.isEnabled() and not row.error.isVisible()
    dialog.reject()
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_server_rejection_lands_on_the_voice(qtbot: QtBot, session: Session, shot) -> None:
    """The model accepts any positive voice id; the sandbox refuses one missing from the catalogue
    (a voice withdrawn while the dialog was open)."""
    pane = await open_pane(qtbot, session)
    pane.new_item()
    dialog = pane.dialog
    assert isinstance(dialog, HostDialog)
    await dialog.voice_browser.wait_idle()
    qtbot.keyClicks(dialog.name_edit, f"Ghost {uuid.uuid4().hex[:6]}")
    dialog.backstory_edit.setPlainText(BACKSTORY)
    dialog.voice_browser.select_voice(987654)
    assert dialog.submit_button.isEnabled()
    assert "not in the list shown" in dialog.voice_browser.note.text()
    qtbot.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    await dialog.wait_sent()
    assert dialog.isVisible() and dialog.result_value is None
    voice_row = dialog.rows["voice_id"]
    assert voice_row.error.isVisible() and "987654" in voice_row.error.text()
    assert not dialog.rows["name"].error.isVisible()
    assert "did not accept" in dialog.banner.text and dialog.banner.request_id
    await quiet()
    shot(dialog, "dialog-host-server-error")
    dialog.reject()
    await quiet()  # nothing may run on when the loop stops


@pytest.mark.asyncio
async def test_the_list_pages(qtbot: QtBot, session: Session, qtmodeltester) -> None:
    await check_pages_by_two(qtbot, HostsPane(session), qtmodeltester)
