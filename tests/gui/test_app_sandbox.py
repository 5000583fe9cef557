"""``castdeck --sandbox`` in-process: the window is marked Sandbox, a crashed sandbox is reported
with a restart button, and restarting brings the same data back on a new port."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from castdeck.app import STORE_PROBLEM_TITLE, CastdeckApp, build_parser
from castdeck.services.profiles import ProfileStore
from castdeck.services.session import ConnectionState
from castdeck.ui.connect_dialog import ConnectDialog
from tests.conftest import DEMO_KEY, OTHER_KEY, RunningSandbox
from tests.gui.conftest import until
from tests.runner import RUNNER, RUNTIME


@pytest.mark.asyncio
async def test_sandbox_window_crash_and_restart(qtbot: QtBot, tmp_path: Path, shot) -> None:
    args: argparse.Namespace = build_parser().parse_args(
        ["--sandbox", "--data", str(tmp_path / "sb"), "--speed", "50"]
    )
    app = CastdeckApp(args, tmp_path / "data", runtime=RUNTIME)
    try:
        assert await app.open()
        window = app.window
        assert window is not None and app.session is not None and app.sandbox is not None
        assert app.session.profile.sandbox
        qtbot.addWidget(window)
        assert "Sandbox" in window.windowTitle()
        assert window.sandbox_strip.isVisible() and "SANDBOX" in window.sandbox_strip.text()
        await until(lambda: app.session.state is ConnectionState.ONLINE)
        await until(lambda: window.status.plan.text() == "Plan: Creator")  # as Account writes it
        first_url = app.sandbox.base_url

        pid = app.sandbox.pid  # the sandbox dies under us
        assert pid is not None
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
        await app.shutdown()
    assert not app.sandbox.running


@pytest.mark.asyncio
async def test_environment_profile_then_switch_to_another_profile(
    qtbot: QtBot, tmp_path: Path, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch, shot
) -> None:
    monkeypatch.setenv("CASTDECK_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("CASTDECK_API_KEY", DEMO_KEY)
    app = CastdeckApp(build_parser().parse_args([]), tmp_path / "data", runtime=RUNTIME)
    try:
        assert await app.open()
        window = app.window
        assert window is not None and app.session is not None
        assert app.session.profile.name == "Environment"
        qtbot.addWidget(window)
        assert not window.sandbox_strip.isVisible()
        await until(lambda: "org_demo_studio" in window.status.organization.text())

        switching = RUNNER.start(app.switch_profile())
        dialog = await until(lambda: QApplication.activeModalWidget())
        assert isinstance(dialog, ConnectDialog)
        qtbot.keyClicks(dialog.name, "Northwind")
        dialog.base_url.setText(sandbox.base_url)
        qtbot.keyClicks(dialog.api_key, OTHER_KEY)
        dialog.submit_button.click()
        await switching
        assert app.session.profile.name == "Northwind"
        await until(lambda: "org_northwind_audio" in window.status.organization.text())
        episodes = window.show_pane("Episodes")
        await until(lambda: episodes.model.rowCount() > 0 and not episodes.model.loading)
        assert all(e.podcast_id not in demo_podcasts(sandbox) for e in episodes.model.items)
        assert ProfileStore().last_used() == "Northwind"
    finally:
        await app.shutdown()


def demo_podcasts(sandbox: RunningSandbox) -> set[str]:
    response = sandbox.client(DEMO_KEY).get("/v1/podcasts", params={"limit": 100})
    return {p["id"] for p in response.json()["data"]}


@pytest.mark.asyncio
async def test_a_data_file_from_a_newer_castdeck_is_refused_in_words_and_left_untouched(
    qtbot: QtBot, tmp_path: Path, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASTDECK_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("CASTDECK_API_KEY", DEMO_KEY)
    newer = tmp_path / "data" / "background" / "background.sqlite3"
    newer.parent.mkdir(parents=True)
    with contextlib.closing(sqlite3.connect(newer)) as db:
        db.execute("CREATE TABLE written_by_a_later_release (x)")
        db.execute("PRAGMA user_version = 99")
        db.commit()
    before = newer.read_bytes()

    app = CastdeckApp(build_parser().parse_args([]), tmp_path / "data", runtime=RUNTIME)
    starting = RUNNER.start(app.start(), name="start the app")
    box = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(box, QMessageBox) and box.windowTitle() == STORE_PROBLEM_TITLE
    assert str(newer) in box.text() and "written by a newer Castdeck (schema 99" in box.text()
    assert "the file was left as it is" in box.text()
    box.button(QMessageBox.StandardButton.Close).click()
    assert await starting == 2
    assert app.window is None and app.background is None
    assert newer.read_bytes() == before
    assert sorted(p.name for p in newer.parent.iterdir()) == ["background.sqlite3"]  # no backup, no journal
