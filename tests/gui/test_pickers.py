"""The pickers in dialogs (hosts, sources, visuals): what they say when the list cannot be read."""

from __future__ import annotations

import asyncio

import pytest
from pytestqt.qtbot import QtBot

from castdeck.services.session import ConnectionState
from castdeck.ui.pickers import CheckPicker, host_feed, host_label
from tests.gui.conftest import OnLine, quiet, until


@pytest.mark.asyncio
async def test_a_list_unreadable_offline_with_nothing_kept_says_so_and_reads_again_once_online(
    qtbot: QtBot, on_line: OnLine
) -> None:
    session = on_line.session
    on_line.line.down()  # before anything was read: nothing is kept on this computer
    picker = CheckPicker(host_feed(session), host_label, name="hosts")
    qtbot.addWidget(picker)
    picker.show()
    await picker.wait_loaded()
    assert picker.list.count() == 0
    assert picker.status.text() == (
        "Could not load the hosts: the service cannot be reached and none were kept from an earlier "
        "visit. Try again once online."
    )

    on_line.line.up()
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    picker.reload(host_feed(session))
    await picker.wait_loaded()
    assert picker.list.count() > 0
    assert picker.status.text() == "0 selected"

    on_line.line.down()  # now a copy is kept: it is shown, and marked as such
    picker.reload(host_feed(session))
    await picker.wait_loaded()
    assert picker.list.count() > 0
    assert picker.status.text() == "0 selected (cached, offline)"
    on_line.line.up()  # (the session's probe for the service ends once it answers)
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await quiet()


@pytest.mark.asyncio
async def test_waiting_for_the_list_outlasts_a_reload_begun_meanwhile(qtbot: QtBot, on_line: OnLine) -> None:
    session = on_line.session
    picker = CheckPicker(host_feed(session), host_label, name="hosts")
    qtbot.addWidget(picker)
    first = picker.loading
    waiting = session.tasks.start(picker.wait_loaded(), name="wait for the hosts")
    await asyncio.sleep(0)  # the wait begins on the first read
    picker.reload(host_feed(session))  # the first read is cancelled; the wait goes on to the second
    await waiting
    assert first.cancelled()
    assert picker.loading.done() and not picker.loading.cancelled()
    assert picker.list.count() > 0
    await quiet()
