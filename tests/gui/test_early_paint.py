"""The early window: with the start pane's list in the cache, the app shows it before the rest of the
app has loaded, then the real window takes its place once its own list has rows; the user ends up
with the real window only, showing the same rows. Without a cache, or when a dialog comes first,
there is no early window."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from castdeck.app import CastdeckApp
from castdeck.services.profiles import Profile, ProfileStore, environment_profile
from castdeck.services.settings import GUIDE_DISMISSED, LAST_PANE, WELCOME_DONE, Settings
from castdeck.services.start_choice import (
    first_steps_pending,
    saved_profile_names,
    start_choice,
    start_pane,
)
from castdeck.startup import build_parser, early_window, parse_args
from castdeck.store.cache import Cache
from castdeck.ui.column_fit import TITLE_AT_LEAST
from castdeck.ui.connect_dialog import ConnectDialog
from castdeck.ui.early import EarlyWindow
from tests.conftest import DEMO_KEY, RunningSandbox, wait_for
from tests.gui.accessibility import problems
from tests.gui.conftest import ARTIFACTS, until
from tests.gui.helpers import dark_palette
from tests.runner import RUNNER, RUNTIME

ROOT = Path(__file__).resolve().parents[2]


def plain() -> argparse.Namespace:
    return build_parser().parse_args([])


def visible_windows() -> list[QWidget]:
    return [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isWindow()]


def table_texts(table: object) -> list[list[str]]:
    """The cell texts a table view shows, row by row, in view order."""
    model = table.model()  # type: ignore[attr-defined]
    return [
        [str(model.index(row, column).data() or "") for column in range(model.columnCount())]
        for row in range(model.rowCount())
    ]


@pytest.fixture
def studio(sandbox_factory, monkeypatch: pytest.MonkeyPatch) -> RunningSandbox:
    """A sandbox of its own whose episodes have stopped changing (the seeded generations ended), as
    the environment's connection."""
    running: RunningSandbox = sandbox_factory(
        "--speed", "50", "--no-seed-media"
    )  # no renders to queue behind
    api = running.client(DEMO_KEY)

    def settled() -> bool:
        episodes = api.get("/v1/episodes", params={"limit": 100}).json()["data"]
        return all((e.get("generation") or {}).get("state") != "generating" for e in episodes)

    wait_for(settled, timeout=120)
    monkeypatch.setenv("CASTDECK_BASE_URL", running.base_url)
    monkeypatch.setenv("CASTDECK_API_KEY", DEMO_KEY)
    return running


async def fill_the_cache(data: Path, args: argparse.Namespace | None = None) -> list[list[str]]:
    """A first start: the Episodes list and its podcasts' names are read (and cached) once no
    episode is generating any more; the window is closed as the user closes it (its place and size
    are kept). Returns the rows it showed."""
    app = CastdeckApp(args or plain(), data, runtime=RUNTIME)
    try:
        assert await app.open()
        assert app.window is not None
        pane = app.window.current_pane()

        def settled() -> bool:
            if pane.model.loading or not pane.model.rowCount():
                return False
            if any(e.generation is not None and e.generation.state == "generating" for e in pane.model.items):
                pane.refresh()  # the seeded generations end soon: read the list again
                return False
            return True

        await until(settled, timeout=120, interval=0.5)
        await pane.names.wait("podcast")
        await pane.podcast_filter.wait_loaded()
        pane.table.viewport().repaint()  # the covers of the rows in view are asked for, fetched and kept
        await until(lambda: pane.pictures.idle and pane.pictures.loaded > 0)
        rows = table_texts(pane.table)
        app.window.close()
    finally:
        await app.shutdown()
    return rows


@pytest.mark.asyncio
async def test_the_early_window_shows_the_cached_rows_then_the_real_window_takes_its_place(
    qtbot: QtBot, tmp_path: Path, studio: RunningSandbox, shot
) -> None:
    data = tmp_path / "data"
    first = await fill_the_cache(data)

    early = early_window(plain(), data)
    assert isinstance(early, EarlyWindow)
    try:
        early.show_busy()
        await until(lambda: early.first_painted)
        early.resize(1180, 720)  # the user resizes it while the app loads: the real window keeps that
        rows = early.rows()
        assert rows == first  # the cached list, cell by cell as the real list shows it
        assert early.windowTitle() == "Castdeck — Environment"
        assert early.sidebar.currentItem().text() == "Episodes"
        shot(early, "early-window")

        app = CastdeckApp(plain(), data, early=early, runtime=RUNTIME)
        try:
            assert await app.open()
            window = app.window
            assert window is not None
            qtbot.addWidget(window)
            assert not window.isVisible() and early.isVisible()  # built hidden, until its list has rows
            await until(lambda: window.isVisible() and not shiboken6.isValid(early), timeout=60)
            assert visible_windows() == [window]
            assert window.size() == QSize(1180, 720)

            pane = window.current_pane()
            assert pane.title == "Episodes"
            assert table_texts(pane.table) == rows  # what the user finally sees: the same rows
            header = pane.table.horizontalHeader()
            assert [pane.model.headerData(c, Qt.Orientation.Horizontal) for c in range(len(rows[0]))] == [
                "Title", "Podcast", "Status", "Generation", "Created", "Published",
            ]  # fmt: skip
            assert pane.status.text() == f"{len(rows)} episodes shown"
            # the window is 1180 px wide: the lesser columns nearest the title keep their widths, the
            # rightmost give way to a readable title (as in the early window: the pictures compare)
            shown = [c for c in range(1, 6) if not pane.table.isColumnHidden(c)]
            assert shown == list(range(1, len(shown) + 1)) and len(shown) >= 3
            assert [header.sectionSize(c) for c in shown] == [124, 74, 126, 84, 112][: len(shown)]
            assert header.sectionSize(0) >= TITLE_AT_LEAST
            shot(window, "early-window-then-real")
        finally:
            await app.shutdown()
    finally:
        if shiboken6.isValid(early):
            early.dismiss()


@pytest.mark.asyncio
async def test_the_early_window_looks_like_the_real_one_light_and_dark(
    qtbot: QtBot, tmp_path: Path, studio: RunningSandbox
) -> None:
    await looks_alike(qtbot, tmp_path / "data", plain(), ("light", "dark"))


@pytest.mark.asyncio
async def test_the_early_window_looks_like_the_real_one_on_the_sandbox(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CASTDECK_BASE_URL", raising=False)
    monkeypatch.delenv("CASTDECK_API_KEY", raising=False)
    args = build_parser().parse_args(["--sandbox", "--data", str(tmp_path / "sb"), "--speed", "50"])
    await looks_alike(qtbot, tmp_path / "data", args, ("sandbox",))


async def looks_alike(qtbot: QtBot, data: Path, args: argparse.Namespace, palettes: tuple[str, ...]) -> None:
    """After a first start has cached the list: for each palette, the early window, then the real
    one in its place, drawn alike to the pixel but for the status bar (connecting, then online)."""
    await fill_the_cache(data, args)
    qt = QApplication.instance()
    assert isinstance(qt, QApplication)
    light = qt.palette()
    try:
        for name in palettes:
            qt.setPalette(dark_palette() if name == "dark" else light)
            early = early_window(args, data)
            assert isinstance(early, EarlyWindow)
            early.show_busy()
            await until(lambda e=early: e.first_painted)
            early.decode_pictures()  # as the launch does once the first paint is on screen
            await until(lambda e=early: e.pictures_pending == 0)
            assert early.images  # the covers kept by the first start, decoded and shown
            early_picture = early.grab()
            early_top = above_the_status_bar(early_picture, early)
            app = CastdeckApp(args, data, early=early, runtime=RUNTIME)
            try:
                assert await app.open()
                window = app.window
                assert window is not None
                qtbot.addWidget(window)
                await until(lambda e=early, w=window: w.isVisible() and not shiboken6.isValid(e), timeout=60)
                side_by_side_picture(early_picture, window, f"early-and-real-{name}")
                assert early_top == above_the_status_bar(window.grab(), window)
            finally:
                await app.shutdown()
    finally:
        qt.setPalette(light)


def side_by_side_picture(early: QPixmap, window: QWidget, name: str) -> None:
    """artifacts/NAME.png: the early window's picture, and the real window's beside it."""
    a, b = early.toImage(), window.grab().toImage()
    image = QImage(a.width() + b.width() + 16, max(a.height(), b.height()), QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkGray)
    painter = QPainter(image)
    painter.drawImage(0, 0, a)
    painter.drawImage(a.width() + 16, 0, b)
    painter.end()
    ARTIFACTS.mkdir(exist_ok=True)
    assert image.save(str(ARTIFACTS / f"{name}.png"))


def above_the_status_bar(picture: QPixmap, window: QMainWindow) -> QImage:
    return picture.toImage().copy(0, 0, picture.width(), window.statusBar().y())


@pytest.mark.asyncio
async def test_the_early_window_takes_no_input(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    early = early_with_a_cached_list(tmp_path, monkeypatch)
    try:
        early.show_busy()
        await until(lambda: early.first_painted)
        shield = QApplication.focusWidget()
        assert shield is early.shield and shield.cursor().shape() == Qt.CursorShape.BusyCursor
        assert problems(early) == []  # what a screen reader finds while it waits, named and read
        # as the window system delivers them: to the window, at the place of the second row
        viewport = early.table.viewport()
        row = viewport.mapTo(early, early.table.visualRect(early.model.index(1, 0)).center())
        window = early.windowHandle()
        qtbot.mouseClick(window, Qt.MouseButton.LeftButton, pos=row)
        qtbot.mouseDClick(window, Qt.MouseButton.LeftButton, pos=row)
        qtbot.keyClick(window, Qt.Key.Key_Down)
        qtbot.keyClick(window, Qt.Key.Key_Tab)
        assert early.childAt(row) is early.shield
        assert not early.table.selectionModel().hasSelection()
        assert early.sidebar.currentItem().text() == "Episodes"
        assert QApplication.focusWidget() is early.shield
    finally:
        early.dismiss()


@pytest.mark.asyncio
async def test_closing_the_early_window_ends_the_app_before_it_opens(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    early = early_with_a_cached_list(tmp_path, monkeypatch)
    early.show_busy()
    await until(lambda: early.first_painted)
    app = CastdeckApp(plain(), tmp_path / "data", early=early, runtime=RUNTIME)
    early.close()  # the window's close button, while the rest of the app loads
    assert early.close_requested and not early.isVisible()
    assert await app.open() is False
    assert app.window is None and app.session is None
    await app.shutdown()
    await until(lambda: not shiboken6.isValid(early))


@pytest.mark.asyncio
async def test_a_dialog_that_comes_first_closes_the_early_window(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a saved profile whose key the keychain no longer has: the connect dialog asks for it
    monkeypatch.delenv("CASTDECK_BASE_URL", raising=False)
    monkeypatch.delenv("CASTDECK_API_KEY", raising=False)
    ProfileStore().save(Profile("Studio", "http://127.0.0.1:9"))
    ProfileStore().set_last_used("Studio")
    early = early_with_a_cached_list(tmp_path, monkeypatch, profile="Studio")
    early.show_busy()
    await until(lambda: early.first_painted)
    app = CastdeckApp(plain(), tmp_path / "data", early=early, runtime=RUNTIME)
    task = RUNNER.start(app.open(), name="open the app")
    dialog = await until(lambda: QApplication.activeModalWidget())
    assert isinstance(dialog, ConnectDialog)
    assert not shiboken6.isValid(early) or not early.isVisible()
    dialog.reject()
    assert await task is False
    await app.shutdown()


def early_with_a_cached_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str = "Environment"
) -> EarlyWindow:
    """An early window over a cache written as the app writes it (three episodes, one podcast)."""
    cache = Cache(tmp_path / "data" / "cache.sqlite3")
    podcast = {"id": "p1", "title": "Harbour Lights"}
    episodes = [
        {"id": f"e{i}", "podcast_id": "p1", "title": f"Episode {i}", "status": "draft",
         "created_at": "2026-01-0{i}T10:00:00Z", "generation": None}
        for i in (1, 2, 3)
    ]  # fmt: skip
    cache.put_page(profile, "podcasts", "podcast", [podcast], offset=0, last=True)
    cache.put_page(profile, "episodes", "episode", episodes, offset=0, last=True)
    cache.close()
    if profile == "Environment":  # nothing answers there: the app would go on offline
        monkeypatch.setenv("CASTDECK_BASE_URL", "http://127.0.0.1:9")
        monkeypatch.setenv("CASTDECK_API_KEY", "sk_test")
    early = early_window(plain(), tmp_path / "data")
    assert isinstance(early, EarlyWindow)
    assert [row[:3] for row in early.rows()] == [
        [f"Episode {i}", "Harbour Lights", "Draft"] for i in (1, 2, 3)
    ]
    return early


# --- when there is no early window ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_without_a_cache_the_app_starts_as_before(
    qtbot: QtBot, tmp_path: Path, sandbox: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASTDECK_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("CASTDECK_API_KEY", DEMO_KEY)
    data = tmp_path / "data"
    assert early_window(plain(), data) is None
    assert not (data / "cache.sqlite3").exists()  # looking did not make one
    app = CastdeckApp(plain(), data, runtime=RUNTIME)
    try:
        assert await app.open()
        assert app.window is not None and app.window.isVisible()  # shown at once, as before
        qtbot.addWidget(app.window)
        assert not [w for w in visible_windows() if isinstance(w, EarlyWindow)]
    finally:
        await app.shutdown()


def test_no_early_window_on_the_welcome_the_first_steps_or_a_pane_it_does_not_know(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CASTDECK_BASE_URL", raising=False)
    monkeypatch.delenv("CASTDECK_API_KEY", raising=False)
    data = tmp_path / "data"
    cache = Cache(data / "cache.sqlite3")
    for profile in ("Sandbox", "Environment", "Studio"):
        cache.put_page(profile, "episodes", "episode", [{"id": "e1", "title": "One"}], offset=0, last=True)
    cache.close()
    settings = QSettings()
    sandbox = build_parser().parse_args(["--sandbox"])

    assert early_window(plain(), data) is None  # the very first run: the welcome comes first
    settings.setValue(WELCOME_DONE, True)
    assert early_window(sandbox, data) is None  # the first steps are offered after the welcome
    settings.setValue(GUIDE_DISMISSED, True)
    shown = early_window(sandbox, data)
    assert isinstance(shown, EarlyWindow) and shown.rows()[0][0] == "One"
    shown.dismiss()
    assert early_window(plain(), data) is None  # no profile and no sandbox chosen: the connect dialog
    settings.setValue(LAST_PANE, "Hosts")
    assert early_window(sandbox, data) is None  # a pane the early window does not draw
    settings.setValue(LAST_PANE, "Episodes")
    assert early_window(build_parser().parse_args(["--profile", "Studio"]), data) is None  # not saved


def test_a_launch_without_arguments_has_the_parsers_defaults() -> None:
    """A start from the desktop (no arguments) skips building the parser; it gets what the parser
    would have answered, and a start with arguments still goes through the parser."""
    assert parse_args([]) == build_parser().parse_args([])
    assert vars(parse_args([])) == {"sandbox": False, "data": None, "speed": 1.0, "profile": None}
    given = ["--sandbox", "--data", "folder", "--speed", "5"]
    assert parse_args(given) == build_parser().parse_args(given)
    assert parse_args(given).data == Path("folder") and parse_args(given).speed == 5.0


def test_the_start_choice_reads_what_the_app_writes(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The early window decides from QSettings before the app's modules are loaded: it reads the
    keys the app's settings write, the same way."""
    settings = Settings()
    monkeypatch.setenv("CASTDECK_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CASTDECK_API_KEY", "sk_test")
    env = environment_profile()
    assert env is not None and start_choice(sandbox=False, profile=None) == ("environment", env[0].name)
    monkeypatch.delenv("CASTDECK_API_KEY")
    assert start_choice(sandbox=False, profile=None).kind == "welcome"
    settings.mark_welcome_done(sandbox=True)
    assert start_choice(sandbox=False, profile=None) == ("sandbox", "Sandbox")
    assert first_steps_pending() and not settings.guide_dismissed
    settings.dismiss_guide()
    assert settings.guide_dismissed and not first_steps_pending()
    store = ProfileStore()
    store.save(Profile("Studio", "http://127.0.0.1:9"))
    store.save(Profile("Home", "http://127.0.0.1:10"))
    store.set_last_used("Home")
    assert saved_profile_names(QSettings()) == [p.name for p in store.profiles()] == ["Studio", "Home"]
    assert start_choice(sandbox=False, profile=None) == ("saved", "Home")
    assert start_choice(sandbox=False, profile="Studio") == ("saved", "Studio")
    assert start_choice(sandbox=False, profile="Elsewhere").kind == "ask"
    assert start_pane() == "Episodes"
    settings.set_last_pane("Hosts")
    assert settings.flush()
    assert start_pane() == settings.last_pane() == "Hosts"


def test_nothing_heavy_is_loaded_before_the_early_window_has_painted(tmp_path: Path) -> None:
    """In a fresh process, as ``castdeck`` starts: the early window paints with none of pydantic,
    httpx, qasync, asyncio or the models loaded; and from the second start on, with its icons'
    shapes read from the files the first start kept, without QtSvg."""
    cache = Cache(tmp_path / "xdg" / "castdeck" / "cache.sqlite3")
    cache.put_page("Environment", "episodes", "episode", [{"id": "e1", "title": "One"}], offset=0, last=True)
    cache.close()
    script = (
        "import sys, threading\n"
        "from castdeck import startup\n"
        "app = startup.make_application()\n"
        "startup.icons.keep_masks_in(startup.user_data_dir() / startup.ICON_MASKS)  # as main() does\n"
        "early = startup.early_window(startup.parse_args([]), startup.user_data_dir())  # as main() does\n"
        "assert early is not None and startup.show_early(early)\n"
        "heavy = ('pydantic', 'httpx', 'qasync', 'asyncio', 'castdeck.api', 'castdeck.api.models',\n"
        "         'castdeck.services.session', 'castdeck.ui.main_window', 'castdeck.ui.panes.episodes')\n"
        "heavy += ('platformdirs',) if sys.platform != 'win32' else ()  # Windows asks it for the data folder\n"
        "print(sorted(m for m in heavy if m in sys.modules), early.rows(), 'PySide6.QtSvg' in sys.modules)\n"
        "assert app.windowIcon().isNull()  # the app's icon (Qt's SVG plugin) comes after the paint\n"
        "startup.set_app_icon(app)\n"
        "assert not app.windowIcon().pixmap(64, 64).isNull() and early.windowIcon().cacheKey() == app.windowIcon().cacheKey()\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name == 'icon masks':\n"
        "        thread.join()  # the masks drawn are on disk before this start ends\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(tmp_path / "xdg"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "CASTDECK_BASE_URL": "http://127.0.0.1:9",
           "CASTDECK_API_KEY": "sk_test"}  # fmt: skip
    env.pop("CASTDECK_STARTUP_PROBE", None)
    seen = []
    for _start in range(2):
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.strip())
    rows = "[['One', '', '', '', '', '']]"
    assert seen == [f"[] {rows} True", f"[] {rows} False"]  # QtSvg drew the icons at the first start only
    assert len(list((tmp_path / "xdg" / "castdeck" / "icon-masks").glob("*.alpha"))) >= 10
