"""``castdeck --sandbox`` in-process: the window is marked Sandbox, a crashed sandbox is reported
with a restart button, and restarting brings the same data back on a new port."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from castdeck.app import CastdeckApp, build_parser
from castdeck.services.session import ConnectionState
from tests.gui.conftest import settle, until


@pytest.mark.asyncio
async def test_sandbox_window_crash_and_restart(qtbot: QtBot, tmp_path: Path, shot) -> None:
    args: argparse.Namespace = build_parser().parse_args(
        ["--sandbox", "--data", str(tmp_path / "sb"), "--speed", "50"]
    )
    app = CastdeckApp(args, tmp_path / "data")
    try:
        connection = await app._first_connection()
        assert connection is not None and connection.profile.sandbox
        app._open_window(connection)
        window = app.window
        assert window is not None and app.session is not None and app.sandbox is not None
        qtbot.addWidget(window)
        assert "Sandbox" in window.windowTitle()
        assert window.sandbox_strip.isVisible() and "SANDBOX" in window.sandbox_strip.text()
        await until(lambda: app.session.state is ConnectionState.ONLINE)
        await until(lambda: "creator" in window.status.plan.text())
        first_url = app.sandbox.base_url

        pid = app.sandbox._process.processId()  # the sandbox dies under us
        os.kill(pid, signal.SIGKILL)
        await until(lambda: window.restart_button.isVisible())
        assert "sandbox" in window.banner.text.lower() and "log" in window.banner.text
        assert app.session.state is ConnectionState.OFFLINE
        shot(window, "app-sandbox-crashed")

        window.restart_button.click()
        await until(
            lambda: app.session.state is ConnectionState.ONLINE and not window.restart_button.isVisible(),
            timeout=40,
        )
        assert app.sandbox.base_url and app.sandbox.base_url != first_url
        assert app.session.profile.base_url == app.sandbox.base_url
    finally:
        await settle()
        await app.shutdown()
    assert not app.sandbox.running
