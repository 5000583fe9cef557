"""A machine where QtMultimedia cannot be loaded (Linux without libpulse0): every pane and the Listen
window still work, and the player's place says what is missing and the command that installs it.
And a pane that fails to build: a placeholder with the reason in its place, the sidebar and the
stack in agreement, a start on it falls back to Episodes.

The import is made to fail for real where the app makes it: the app's one door to QtMultimedia
(``castdeck.ui.multimedia``, the only module a lint rule lets import it) is refused the import with
the error a machine without libpulse gives, and is asked anew."""

from __future__ import annotations

import builtins
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode
from castdeck.services.background import Background
from castdeck.services.session import Session
from castdeck.transcript import normalise
from castdeck.ui import multimedia
from castdeck.ui.listen.listen_window import ListenWindow
from castdeck.ui.main_window import MainWindow
from castdeck.ui.pane import ResourcePane
from castdeck.ui.pane_failed import PaneFailed
from castdeck.ui.panes import pane_specs
from castdeck.ui.panes.media import VideosPane
from tests.conftest import RunningSandbox, wait_for
from tests.gui.conftest import quiet, until
from tests.gui.listen_helpers import generate_spoken_episode, server_words
from tests.gui.media_preview_helpers import TIDAL, downloadable, select

SCREEN = (1280, 720)


@pytest.fixture
def no_multimedia(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """QtMultimedia cannot be imported by the app in this test (and can again after it).

    Python's own record of modules is left alone: an earlier test in this worker may have loaded
    QtMultimedia, and Qt's bindings look its types up there when they wrap an object. Emptying it
    (``sys.modules[...] = None``, as this fixture did) made such a lookup fail inside a window's
    closeEvent, and crashed the worker, whenever the files met in that order."""
    real_import = builtins.__import__

    def refusing(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if name.startswith("PySide6.QtMultimedia") and (globals or {}).get("__name__") == multimedia.__name__:
            raise ImportError("libpulse.so.0: cannot open shared object file: No such file or directory")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", refusing)
    multimedia.forget()
    assert not multimedia.available()
    yield
    monkeypatch.undo()
    multimedia.forget()


@pytest.fixture(scope="module")
def spoken(sandbox: RunningSandbox) -> dict[str, Any]:
    return generate_spoken_episode(sandbox, "Listening without a player")


async def open_window(qtbot: QtBot, session: Session, background: Background, start: str) -> MainWindow:
    window = MainWindow(session, background, start_pane=start)
    qtbot.addWidget(window)
    window.resize(*SCREEN)
    window.show()
    return window


def click_sidebar(qtbot: QtBot, window: MainWindow, title: str) -> None:
    """Click the pane's row in the sidebar, as a person does."""
    row = [spec.title for spec in pane_specs()].index(title)
    rect = window.sidebar.visualItemRect(window.sidebar.item(row))
    qtbot.mouseClick(window.sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def in_agreement(window: MainWindow) -> str:
    """The sidebar's selected title and the pane the stack shows must be the same one."""
    row = window.sidebar.currentRow()
    assert window.stack.currentIndex() == row
    assert window.stack.currentWidget() is window.pane(window.sidebar.item(row).text())
    return window.sidebar.item(row).text()


def listen_button(pane: Any) -> QPushButton | None:
    return next(
        (
            b
            for b in pane.details.findChildren(QPushButton)
            if b.accessibleName() == "Listen to the episode" and b.isVisible()
        ),
        None,
    )


async def episode_shown(
    qtbot: QtBot, session: Session, background: Background, episode: Episode
) -> tuple[Any, QPushButton]:
    """The window on Episodes with ``episode`` in the details; its pane and its Listen button."""
    window = await open_window(qtbot, session, background, "Episodes")
    pane = window.pane("Episodes")
    pane.reveal(str(episode.id))
    await until(lambda: pane.details.value_of("Episode ID") == str(episode.id))
    return pane, await until(lambda: listen_button(pane))


def says_how_to_install(text: str) -> None:
    assert "could not be loaded" in text, text
    assert re.search(r"libpulse\.so\.0.*(apt-get|dnf) install -y (libpulse0|pulseaudio-libs)", text), text


# --- without QtMultimedia ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_without_qtmultimedia_every_pane_opens_and_a_video_says_what_to_install(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox, no_multimedia: None,
    shot: Any,
) -> None:  # fmt: skip
    downloadable(sandbox, "videos", TIDAL)
    window = await open_window(qtbot, session, background, "Episodes")
    for spec in pane_specs():
        click_sidebar(qtbot, window, spec.title)
        assert in_agreement(window) == spec.title
        pane = window.stack.currentWidget()
        assert not isinstance(pane, PaneFailed), pane.reason.text()  # type: ignore[attr-defined]
        if isinstance(pane, ResourcePane):
            await until(lambda p=pane: p.model.rowCount() > 0 and not p.model.loading, timeout=30)
            assert not pane.banner.isVisible(), pane.banner.text
    assert not multimedia.available()  # the door stayed shut: every pane built without a player

    click_sidebar(qtbot, window, "Videos")
    pane = window.stack.currentWidget()
    assert isinstance(pane, VideosPane)
    item = next(job for job in pane.model.items if job.title == TIDAL)
    await select(pane, str(item.id))
    preview = pane.preview
    await until(lambda: preview.state == "ready", timeout=60)  # downloaded and kept: it plays elsewhere
    assert preview.player_bar is None and preview.playback is None
    assert preview.player_missing is not None and preview.player_missing.isVisible()
    says_how_to_install(preview.player_missing.text())
    assert preview.video.text.startswith("Castdeck cannot play it on this computer")
    assert preview.status.text() == "Downloaded"
    # a click on the picture or Space does nothing but what is said
    qtbot.mouseClick(preview.video, Qt.MouseButton.LeftButton)
    QTest.keyClick(preview.video, Qt.Key.Key_Space)
    assert preview.state == "ready"
    shot(window, "no-multimedia-videos")
    await quiet()


@pytest.mark.asyncio
async def test_without_qtmultimedia_the_listen_window_reads_searches_copies_and_exports(
    qtbot: QtBot, session: Session, background: Background, sandbox: RunningSandbox, spoken: dict[str, Any],
    no_multimedia: None, tmp_path: Path, shot: Any,
) -> None:  # fmt: skip
    episode = Episode.model_validate(spoken)
    pane, listen = await episode_shown(qtbot, session, background, episode)
    qtbot.mouseClick(listen, Qt.MouseButton.LeftButton)
    listening = pane.listen_window
    assert isinstance(listening, ListenWindow)
    await until(lambda: listening.loaded is not None or listening.banner.isVisible())
    assert listening.loaded is not None, listening.banner.text
    truth = normalise(server_words(sandbox, str(episode.id)))
    transcript = listening.view.transcript
    assert transcript is not None
    assert [w.text for w in transcript.words] == [w.text for w in truth.words]
    assert listening.playback is None and listening.player_bar is None
    assert listening.player_missing is not None and listening.player_missing.isVisible()
    says_how_to_install(listening.player_missing.text())
    assert not listening.banner.isVisible()

    # search
    listening.activateWindow()
    listening.view.setFocus()
    QTest.keyClick(listening.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = listening.search_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    QTest.keyClicks(bar.edit, "tide")
    expected = sum(len(re.findall("tide", w.text, flags=re.IGNORECASE)) for w in truth.words)
    assert bar.count.text() == f"1 of {expected}"
    QTest.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    # a word clicked is lit, as if heard
    target = len(transcript.words) // 2
    QTest.mouseClick(listening.view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     listening.view.point_of_word(target))  # fmt: skip
    assert listening.view.current == target
    # copy a selection with times
    start, end = listening.view.point_of_word(1), listening.view.point_of_word(4)
    viewport = listening.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, end)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    qtbot.mouseClick(listening.copy_button, Qt.MouseButton.LeftButton)
    words = " ".join(w.text for w in transcript.words[1:5])
    assert QGuiApplication.clipboard().text() == f"[00:00:00] {transcript.speaker_name(transcript.words[1].speaker)}: {words}"  # fmt: skip
    # export
    dialog = listening.ask_export("txt")
    target_file = tmp_path / "episode.txt"
    dialog.selectFile(str(target_file))
    dialog.accept()
    await until(
        lambda: listening.banner.isVisible() and listening.banner.text.startswith("Saved episode.txt")
    )
    assert words in " ".join(target_file.read_text(encoding="utf-8").split())
    shot(listening, "no-multimedia-listen")
    listening.close()
    await quiet()


# --- a pane that fails to build ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_pane_that_fails_to_build_says_why_in_its_place_and_can_be_tried_again(
    qtbot: QtBot, session: Session, background: Background, monkeypatch: pytest.MonkeyPatch, shot: Any
) -> None:
    monkeypatch.setitem(sys.modules, "castdeck.ui.panes.media", None)  # its module cannot be imported
    window = await open_window(qtbot, session, background, "Videos")
    # the start pane failed: the window opened on Episodes and says why
    assert in_agreement(window) == "Episodes"
    assert window.banner.isVisible()
    assert window.banner.text.startswith("Videos could not be opened (a part of Castdeck could not be loaded")
    assert "so Castdeck opened on Episodes" in window.banner.text

    click_sidebar(qtbot, window, "Videos")
    assert in_agreement(window) == "Videos"
    failed = window.stack.currentWidget()
    assert isinstance(failed, PaneFailed) and failed.isVisible()
    assert failed.heading.text() == "Videos could not be opened"
    assert "castdeck.ui.panes.media" in failed.reason.text()
    shot(window, "pane-failed")
    qtbot.mouseClick(failed.copy_button, Qt.MouseButton.LeftButton)
    report = QGuiApplication.clipboard().text()
    assert report.startswith("Castdeck ") and "the Videos pane could not be opened" in report
    assert "Traceback" in report and "ModuleNotFoundError" in report
    assert failed.copied.text().startswith("The report is on the clipboard")

    # another pane and back: still agreeing; then the cause goes, and "Try again" builds the real one
    click_sidebar(qtbot, window, "Hosts")
    assert in_agreement(window) == "Hosts"
    click_sidebar(qtbot, window, "Videos")
    assert window.stack.currentWidget() is failed
    monkeypatch.undo()  # the module can be imported again (the one the test imported)
    qtbot.mouseClick(failed.retry_button, Qt.MouseButton.LeftButton)
    assert in_agreement(window) == "Videos"
    assert isinstance(window.stack.currentWidget(), VideosPane)
    await until(lambda: window.pane("Videos").model.rowCount() > 0, timeout=30)
    await quiet()


@pytest.mark.asyncio
async def test_a_listen_window_that_fails_to_build_says_why_in_a_window_of_its_own(
    qtbot: QtBot, session: Session, background: Background, spoken: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch, shot: Any,
) -> None:  # fmt: skip
    episode = Episode.model_validate(spoken)
    pane, listen = await episode_shown(qtbot, session, background, episode)
    monkeypatch.setitem(sys.modules, "castdeck.ui.listen.listen_window", None)
    qtbot.mouseClick(listen, Qt.MouseButton.LeftButton)
    failed = pane.listen_failed
    assert failed is not None and failed.isVisible() and pane.listen_window is None
    assert failed.windowTitle() == "Listen — could not be opened"
    assert "castdeck.ui.listen.listen_window" in failed.failed.reason.text()
    shot(failed, "listen-failed")
    qtbot.mouseClick(failed.failed.copy_button, Qt.MouseButton.LeftButton)
    assert "the Listen pane could not be opened" not in QGuiApplication.clipboard().text()
    assert "the Listen window could not be opened" in QGuiApplication.clipboard().text()
    monkeypatch.undo()  # installed, say: Try again opens the window
    qtbot.mouseClick(failed.failed.retry_button, Qt.MouseButton.LeftButton)
    listening = pane.listen_window
    assert isinstance(listening, ListenWindow) and listening.isVisible()
    await until(lambda: listening.loaded is not None or listening.banner.isVisible())
    assert listening.loaded is not None, listening.banner.text
    # the player has opened the audio before the window closes: closed while FFmpeg still opened
    # it, Qt warned "Could not open media … Immediate exit requested" (one run in five)
    status = multimedia.require().QMediaPlayer.MediaStatus
    opened = (status.LoadedMedia, status.BufferedMedia, status.EndOfMedia, status.InvalidMedia)
    await until(lambda: listening.playback is not None and listening.playback.player.mediaStatus() in opened)
    listening.close()
    await quiet()


# --- the real entry point ------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def castdeck_command(tmp_path: Path, *args: str, blocked: str = "", env: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """How to run ``castdeck ARGS`` as the console script does, in user folders of its own;
    ``blocked``: a module that cannot be imported in that process."""
    script = (
        "import sys\n"
        + (f"sys.modules[{blocked!r}] = None\n" if blocked else "")
        + "from castdeck.__main__ import run\n"
        + f"sys.argv = ['castdeck', *{list(args)!r}]\n"
        + "run()\n"
    )
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CASTDECK_")},
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        **(env or {}),
    }
    return {"args": [sys.executable, "-c", script], "env": environment, "cwd": ROOT, "text": True}


def castdeck_process(tmp_path: Path, *args: str, blocked: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(
        **castdeck_command(tmp_path, *args, blocked=blocked, env=env), capture_output=True, timeout=120
    )


def log_of(tmp_path: Path) -> str:
    path = tmp_path / "xdg" / "castdeck" / "castdeck.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_start_whose_saved_pane_fails_opens_on_episodes_and_says_why(tmp_path: Path) -> None:
    settings = tmp_path / "config" / "Castdeck" / "Castdeck.conf"
    settings.parent.mkdir(parents=True)
    settings.write_text("[window]\nlast_pane=Videos\n", encoding="utf-8")  # as a window closed on Videos
    process = subprocess.Popen(
        **castdeck_command(tmp_path, "--sandbox", "--data", str(tmp_path / "sandbox"), "--speed", "50",
                           blocked="castdeck.ui.panes.media"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for(lambda: "so Castdeck opened on Episodes" in log_of(tmp_path) or process.poll() is not None)
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)  # as the window's close button
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.startswith("Castdeck sandbox running at ")
    assert "Traceback" not in err
    log = log_of(tmp_path)
    assert "the Videos pane could not be built" in log and "ModuleNotFoundError" in log
    assert "Videos could not be opened (a part of Castdeck could not be loaded" in log
    assert "last_pane=Episodes" in settings.read_text(encoding="utf-8")  # the window closed on Episodes


def test_a_start_that_fails_says_it_in_one_line_and_exits_2(tmp_path: Path) -> None:
    done = castdeck_process(tmp_path, "--sandbox", blocked="castdeck.app")
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("castdeck: could not start: a part of Castdeck could not be loaded")
    assert "castdeck.app" in lines[0] and lines[0].endswith("castdeck.log)")
    log = log_of(tmp_path)
    assert "Traceback" in log and "ModuleNotFoundError" in log


def test_a_windowing_platform_qt_cannot_open_ends_with_one_line_and_exit_2(tmp_path: Path) -> None:
    done = castdeck_process(tmp_path, env={"QT_QPA_PLATFORM": "nowhere"})
    assert done.returncode == 2
    ours = [line for line in done.stderr.splitlines() if line.startswith("castdeck:")]
    assert len(ours) == 1, done.stderr
    assert ours[0].startswith("castdeck: could not start: Qt cannot open windows")
    assert "no Qt platform plugin could be initialized" in log_of(tmp_path)


def test_nothing_that_needs_a_colour_or_a_constant_loads_the_player() -> None:
    """Importing the panes, the Listen window and the colour and text modules loads no player:
    QtMultimedia is loaded only when a player or preview is built (castdeck.ui.multimedia)."""
    script = (
        "import sys\n"
        "import castdeck.ui.palette, castdeck.ui.listen, castdeck.ui.listen.colors, castdeck.ui.preview\n"
        "import castdeck.ui.scripts.colors, castdeck.ui.panes.media_download\n"
        "light = sorted(m for m in ('castdeck.ui.listen.listen_window', 'castdeck.ui.listen.playback',\n"
        "                           'castdeck.ui.preview.preview') if m in sys.modules)\n"
        "import castdeck.ui.panes.media, castdeck.ui.panes.episodes, castdeck.ui.listen.listen_window\n"
        "print(light, 'PySide6.QtMultimedia' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] False"


def test_no_module_but_the_one_door_imports_qtmultimedia(tmp_path: Path) -> None:
    """The project's lint rule (ruff's banned-api) refuses an import of QtMultimedia in any module
    but castdeck.ui.multimedia (tests/unit/test_architecture.py runs ruff on the whole project)."""
    ruff = Path(sys.executable).with_name("ruff")
    probe = tmp_path / "player.py"
    probe.write_text("from PySide6 import QtMultimedia\n\nprint(QtMultimedia)\n", encoding="utf-8")
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(probe)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert "TID251 `PySide6.QtMultimedia` is banned: import it through castdeck.ui.multimedia" in done.stdout
