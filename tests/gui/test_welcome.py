"""The very first run: a welcome offers the sandbox (started and connected in one click) or the
studio's account; the window then shows the first steps up to the first generated episode. Neither
comes back once left, and the welcome never shows when something already says how to connect."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from castdeck.app import CastdeckApp, build_parser
from castdeck.services.background import Background
from castdeck.services.profiles import KeyStore, Profile, ProfileStore
from castdeck.services.session import ConnectionState
from castdeck.services.settings import GUIDE_DISMISSED, WELCOME_DONE
from castdeck.store.cache import Cache
from castdeck.ui.connect_dialog import ConnectDialog
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.main_window import MainWindow
from castdeck.ui.welcome import WelcomeDialog
from tests.conftest import DEMO_KEY, RunningSandbox
from tests.gui.conftest import open_session, quiet, settle, until
from tests.gui.helpers import dark_palette
from tests.runner import RUNNER, RUNTIME

PROMPT = "Why lighthouses were painted in stripes, told by two keepers over a cup of tea."


@pytest.fixture(autouse=True)
def no_connection_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CASTDECK_BASE_URL", raising=False)
    monkeypatch.delenv("CASTDECK_API_KEY", raising=False)


def arguments(tmp_path: Path, *extra: str) -> argparse.Namespace:
    """A plain ``castdeck`` (its sandbox, when one is started, fast and in the test's folder)."""
    return build_parser().parse_args(["--data", str(tmp_path / "sb"), "--speed", "50", *extra])


async def first_screen(app: CastdeckApp) -> QWidget:
    """What the app shows first: a modal dialog, or the window when it needed none."""
    RUNNER.start(app.open(), name="open the app")
    return await until(lambda: QApplication.activeModalWidget() or app.window, timeout=60)


def tab_order(dialog: QWidget, start: QWidget) -> list[str]:
    """The buttons Tab reaches from ``start``, by accessible name, until it comes round again."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    names, widget = [], start
    for _ in range(10):
        if isinstance(widget, QPushButton):
            names.append(widget.accessibleName())
        widget = widget.nextInFocusChain()
        while not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus and widget.isVisibleTo(dialog)):
            widget = widget.nextInFocusChain()
        if widget is start:
            break
    return names


@pytest.mark.asyncio
async def test_first_run_sandbox_in_one_click_then_first_steps_and_neither_comes_back(
    qtbot: QtBot, tmp_path: Path, shot
) -> None:
    app = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    try:
        dialog = await first_screen(app)
        assert isinstance(dialog, WelcomeDialog)
        await until(dialog.isActiveWindow)
        shot(dialog, "welcome")
        # keyboard: the two choices and "Not now" are reached with Tab, each with its name
        assert dialog.focusWidget() is dialog.sandbox_button
        assert tab_order(dialog, dialog.sandbox_button) == [
            "Try the sandbox",
            "Connect my account",
            "Not now",
        ]
        assert "nothing leaves this computer" in dialog.sandbox_button.accessibleDescription().lower()
        assert "api key" in dialog.account_button.accessibleDescription().lower()

        dialog.sandbox_button.setFocus()
        qtbot.keyClick(dialog.sandbox_button, Qt.Key.Key_Space)  # one key: the sandbox starts
        await until(lambda: app.window is not None, timeout=60)
        window = app.window
        assert window is not None and app.session is not None and app.sandbox is not None
        qtbot.addWidget(window)
        assert app.session.profile.sandbox and app.session.profile.base_url == app.sandbox.base_url
        assert window.sandbox_strip.isVisible()
        await until(lambda: app.session.state is ConnectionState.ONLINE)
        assert QSettings().value(WELCOME_DONE) in (True, "true")

        guide = window.first_steps
        assert guide.isVisible()
        buttons = guide.buttons
        assert [b.accessibleName() for b in buttons.values()] == [
            "Step 1: Meet the demo hosts",
            "Step 2: Pick or create a podcast",
            "Step 3: Generate your first episode",
        ]
        assert all(b.accessibleDescription() == "not done yet" for b in buttons.values())
        shot(window, "first-steps")

        buttons["hosts"].click()  # 1: the demo hosts
        hosts = window.current_pane()
        assert hosts is window.pane("Hosts")
        await until(lambda: hosts.model.rowCount() > 0 and not hosts.model.loading)
        assert buttons["hosts"].accessibleDescription() == "done"

        buttons["podcast"].click()  # 2: the demo podcasts, and where new ones are made
        assert window.current_pane() is window.pane("Podcasts")
        assert buttons["podcast"].accessibleDescription() == "done"

        buttons["episode"].click()  # 3: the generate dialog, over the Episodes pane
        episodes = window.pane("Episodes")
        assert window.current_pane() is episodes
        generate = await until(lambda: getattr(episodes, "dialog", None))
        assert isinstance(generate, GenerateDialog) and generate.isVisible()
        await generate.podcast_picker.wait_loaded()
        await until(lambda: generate.podcast_picker.selected_id() is not None)
        generate.prompt_edit.setPlainText(PROMPT)
        generate.length_spin.setValue(1)
        await until(generate.submit_button.isEnabled)
        generate.submit_button.click()
        await generate.wait_sent()
        # started, not done: it is ticked once the episode is ready (test_journey_first_episode)
        await until(lambda: buttons["episode"].accessibleDescription().startswith("started"))
        assert guide.title.text() == "First steps"
        shot(window, "first-steps-started")

        guide.dismiss_button.click()
        assert not guide.isVisible()
        assert QSettings().value(GUIDE_DISMISSED) in (True, "true")
    finally:
        await app.shutdown()

    # the next start: no welcome and no guide; the sandbox chosen the first time opens again
    again = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    try:
        shown = await first_screen(again)
        assert shown is again.window and again.window is not None
        qtbot.addWidget(again.window)
        assert again.session is not None and again.session.profile.sandbox
        assert not again.window.first_steps.isVisible()
        assert not [
            w for w in QApplication.topLevelWidgets() if isinstance(w, WelcomeDialog) and w.isVisible()
        ]
        await until(lambda: again.session is not None and again.session.state is ConnectionState.ONLINE)
    finally:
        await again.shutdown()


@pytest.mark.asyncio
async def test_connect_my_account_opens_the_connect_dialog_and_not_now_ends_for_good(
    qtbot: QtBot, tmp_path: Path
) -> None:
    app = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    opening = RUNNER.start(app.open(), name="open the app")
    welcome = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(welcome, WelcomeDialog)
    welcome.account_button.click()
    connect = await until(lambda: isinstance(m := QApplication.activeModalWidget(), ConnectDialog) and m)
    connect.reject()  # cancelled: back to the welcome, which is not done yet
    welcome = await until(lambda: isinstance(m := QApplication.activeModalWidget(), WelcomeDialog) and m)
    assert QSettings().value(WELCOME_DONE) is None
    welcome.not_now.click()
    assert await opening is False  # the app ends, as a cancelled connect dialog ends it
    assert app.window is None and app.sandbox is None
    assert QSettings().value(WELCOME_DONE) in (True, "true")
    await app.shutdown()

    # the next start asks how to connect as before: the welcome does not come back
    again = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    opening = RUNNER.start(again.open(), name="open the app again")
    shown = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(shown, ConnectDialog)
    shown.reject()
    assert await opening is False
    await again.shutdown()


@pytest.mark.asyncio
async def test_not_now_while_the_sandbox_starts_stops_it(qtbot: QtBot, tmp_path: Path) -> None:
    app = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    opening = RUNNER.start(app.open(), name="open the app")
    welcome = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(welcome, WelcomeDialog)
    welcome.sandbox_button.click()
    assert welcome.progress.isVisible() and "Starting the sandbox" in welcome.status.text()
    assert not welcome.sandbox_button.isEnabled() and not welcome.account_button.isEnabled()
    sandbox = await until(lambda: app.sandbox is not None and app.sandbox.running and app.sandbox)
    welcome.not_now.click()
    assert await opening is False
    assert not sandbox.running and app.sandbox is None
    await app.shutdown()


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["saved profile", "environment", "--sandbox"])
async def test_the_welcome_never_shows_when_a_connection_is_known(
    qtbot: QtBot, tmp_path: Path, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "saved profile":
        ProfileStore().save(Profile("Studio", sandbox.base_url))
        KeyStore().save("Studio", DEMO_KEY)
        ProfileStore().set_last_used("Studio")
    elif how == "environment":
        monkeypatch.setenv("CASTDECK_BASE_URL", sandbox.base_url)
        monkeypatch.setenv("CASTDECK_API_KEY", DEMO_KEY)
    app = CastdeckApp(
        arguments(tmp_path, *(["--sandbox"] if how == "--sandbox" else [])),
        tmp_path / "data",
        runtime=RUNTIME,
    )
    try:
        shown = await first_screen(app)
        assert shown is app.window and app.window is not None
        qtbot.addWidget(app.window)
        assert not app.window.first_steps.isVisible()  # the guide follows the welcome only
        await until(lambda: app.session is not None and app.session.state is ConnectionState.ONLINE)
        assert QSettings().value(WELCOME_DONE) is None
    finally:
        await app.shutdown()


@pytest.mark.asyncio
async def test_a_profile_named_on_the_command_line_is_asked_for_not_welcomed(
    qtbot: QtBot, tmp_path: Path
) -> None:
    app = CastdeckApp(
        arguments(tmp_path, "--profile", "Studio"), tmp_path / "data", runtime=RUNTIME
    )  # not saved here
    opening = RUNNER.start(app.open(), name="open the app")
    shown = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(shown, ConnectDialog)
    shown.reject()
    assert await opening is False
    assert QSettings().value(WELCOME_DONE) is None
    await app.shutdown()


@pytest.mark.asyncio
async def test_a_sandbox_that_cannot_start_is_said_in_the_welcome_and_the_choice_stays(
    qtbot: QtBot, tmp_path: Path, shot
) -> None:
    (tmp_path / "sb").write_text("a file where the sandbox's data folder should be")
    app = CastdeckApp(arguments(tmp_path), tmp_path / "data", runtime=RUNTIME)
    qt = QApplication.instance()
    assert isinstance(qt, QApplication)
    light = qt.palette()
    qt.setPalette(dark_palette())
    try:
        opening = RUNNER.start(app.open(), name="open the app")
        welcome = await until(lambda: QApplication.activeModalWidget())
        assert isinstance(welcome, WelcomeDialog)
        welcome.sandbox_button.click()
        await until(lambda: "The sandbox did not start" in welcome.status.text())
        assert welcome.sandbox_button.isEnabled() and welcome.account_button.isEnabled()
        assert not welcome.progress.isVisible()
        shot(welcome, "welcome-dark-sandbox-failed")
        welcome.not_now.click()
        assert await opening is False
    finally:
        qt.setPalette(light)
        await app.shutdown()


@pytest.mark.asyncio
async def test_on_an_account_the_first_steps_tick_what_the_studio_already_has(
    qtbot: QtBot, tmp_path: Path, sandbox: RunningSandbox, cache: Cache
) -> None:
    session = await open_session(sandbox.base_url, cache, name="Studio", sandbox=False)
    background = Background(session, tmp_path / "background")
    background.start()
    try:
        QSettings().setValue(WELCOME_DONE, True)
        window = MainWindow(session, background, start_pane="Account")
        qtbot.addWidget(window)
        window.show()
        assert window.offer_first_steps()
        guide = window.first_steps
        assert guide.buttons["hosts"].accessibleName() == "Step 1: Create a host"
        # the demo studio has hosts, podcasts and episodes: one short read each ticks them
        await until(lambda: all(b.accessibleDescription() == "done" for b in guide.buttons.values()))
        assert guide.title.text() == "First steps — all done"
        await quiet()
    finally:
        await settle()
        await background.close()
        await session.close()
