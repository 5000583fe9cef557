"""Offline: when the service goes away, panes show what was cached, marked offline, writing is
disabled with the reason, and everything comes back by itself when the service returns."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from castdeck.services.background import Background
from castdeck.services.session import ConnectionState
from castdeck.store.cache import Cache
from castdeck.ui.main_window import MainWindow
from tests.conftest import RunningSandbox
from tests.gui.conftest import open_session, quiet, until
from tests.helpers import FastClock


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.asyncio
async def test_cached_data_offline_and_recovery(
    qtbot: QtBot, sandbox_factory: Callable[..., RunningSandbox], cache: Cache, tmp_path: Path, shot
) -> None:
    port = free_port()
    data = tmp_path / "service"
    service = sandbox_factory("--port", str(port), "--speed", "50", "--no-seed-media", data_dir=data)
    session = await open_session(service.base_url, cache, clock=FastClock(10))  # the probe's delays, 10x
    background = Background(session, tmp_path / "background")
    window = MainWindow(session, background)
    qtbot.addWidget(window)
    window.show()
    voices = window.show_pane("Voices")
    await until(lambda: voices.model.rowCount() == 24 and not voices.model.loading)
    hosts = window.show_pane("Hosts")
    await until(lambda: hosts.model.rowCount() > 0 and not hosts.model.loading)
    host_count = hosts.model.rowCount()
    assert hosts.new_button is not None and hosts.new_button.isEnabled()

    service.stop()
    hosts.refresh()
    await until(lambda: session.state is ConnectionState.OFFLINE)
    await until(lambda: hosts.model.offline and hosts.model.rowCount() == host_count)
    assert hosts.offline_banner.isVisible() and "Offline" in hosts.offline_banner.text
    assert not hosts.new_button.isEnabled()
    assert "Offline" in hosts.new_button.toolTip()
    assert "Offline" in window.status.connection.text()
    hosts.table.selectRow(0)
    await until(lambda: hosts.current is not None)
    voices = window.show_pane("Voices")
    voices.refresh()
    await until(lambda: voices.model.offline and voices.model.rowCount() == 24)
    shot(window, "app-offline")

    sandbox_factory(
        "--port", str(port), "--speed", "50", "--no-seed-media", data_dir=data
    )  # the service returns
    await until(lambda: session.state is ConnectionState.ONLINE, timeout=40)
    await until(
        lambda: not voices.model.offline and voices.model.rowCount() == 24 and not voices.model.loading
    )
    assert not voices.offline_banner.isVisible()
    hosts = window.show_pane("Hosts")
    await until(lambda: not hosts.model.offline and hosts.new_button.isEnabled())
    await quiet()  # the reads the panes started on their return
    await background.close()
    await session.close()
