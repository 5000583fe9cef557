"""The desktop app's launch, up to the first paint: the QApplication, and the early window with the
cached list when there is one, painted before the rest of the app loads.

Creators open the app many times a day, and most of its start-up is loading code (pydantic, the
models, httpx, qasync: about three quarters of a second on a fast machine) before anything can be
drawn. So, when the start pane is a list the early window knows (:data:`EARLY_PANES`) and its
list is in the cache of the profile the start will use, the early window shows that list first;
then the rest loads and :func:`castdeck.app.run_app` builds the real window hidden and shows it in
the early one's place once its list has its first rows (from the service, or from the cache when
offline). Without a cache (the first run), on the welcome, when a dialog must ask for the
connection, with the first-steps strip still offered, or on a pane the early window does not know,
the app starts as before: nothing early.

This module and what it imports before the first paint are light on purpose (QtCore, QtGui,
QtWidgets, sqlite3, json; platformdirs only on Windows): a test checks that none of pydantic,
httpx, qasync or the models is loaded before the early window has painted.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEventLoop,
    QMessageLogContext,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from castdeck.data_dir import user_data_dir
from castdeck.redact import redact_urls
from castdeck.services.settings import Settings
from castdeck.services.start_choice import STARTUP_PROBE, first_steps_pending, start_choice, start_pane
from castdeck.store.cache_peek import peek_list
from castdeck.store.picture_files import pictures_dir
from castdeck.ui import icons
from castdeck.ui.early import EARLY_PANES, PANE_TITLES, EarlyWindow

__all__ = [
    "DEFAULTS",
    "RESOURCES",
    "build_parser",
    "early_window",
    "main",
    "parse_args",
    "set_app_icon",
    "show_early",
    "user_data_dir",
]

# Beside src/ in a checkout; inside the bundle's own folder (sys._MEIPASS) in the installed app.
RESOURCES = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[2])) / "resources"
CACHE_FILE = "cache.sqlite3"
ICON_MASKS = "icon-masks"
"""The icons' drawn shapes, kept from one start to the next (see :mod:`castdeck.ui.icons`)."""
NAMES_LIMIT = 5_000
"""Related items read for names (as the panes' name books read at most)."""
PAINT_LIMIT_MS = 2_000
"""How long the launch waits for the early window's first paint before it goes on loading."""
HEAVY_MODULES = (
    "pydantic",
    "httpx",
    "castdeck.api",
    "qasync",
    "castdeck.services.session",
    "castdeck.services.background",
    "castdeck.ui.main_window",
    "castdeck.app",
)
"""What loads after the early window's first paint, in steps, the window repainting between them
(when it is uncovered or resized). ``castdeck.app`` imports them all anyway."""

early_problem: str | None = None
"""Why the early window could not be made (a bug: the app starts without it and logs this)."""


DEFAULTS: dict[str, object] = {"sandbox": False, "data": None, "speed": 1.0, "profile": None}
"""The options of a launch without arguments (:func:`build_parser`'s defaults)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="castdeck", description="Castdeck desktop studio")
    parser.add_argument("--sandbox", action="store_true", help="run on the embedded sandbox service")
    parser.add_argument("--data", type=Path, help="sandbox data folder")
    parser.add_argument("--speed", type=float, help="sandbox work-time scale (default 1)")
    parser.add_argument("--profile", help="open this saved profile")
    parser.set_defaults(**DEFAULTS)
    return parser


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The launch's options. A launch without arguments (from the desktop) gets the defaults without
    building the parser: argparse looks up translations of its own messages when it is made
    (gettext, locale: 2 to 3 ms before the first paint)."""
    if not argv:
        return argparse.Namespace(**DEFAULTS)
    return build_parser().parse_args(argv)


def _platform_messages(mode: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    """Qt's messages while the QApplication is made: passed on as Qt prints them, except the fatal
    one (no windowing platform could be opened, after which Qt aborts the process): that start
    ends here, saying in one line what is missing and how to install it (exit code 2)."""
    if mode != QtMsgType.QtFatalMsg:
        print(message, file=sys.stderr, flush=True)
        return
    from castdeck.failures import platform_failed

    os._exit(platform_failed(message, user_data_dir() / "castdeck.log"))


def _qt_messages(mode: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    """Qt's messages once the QApplication is made, as Qt prints them, with any address's query
    taken out: Qt names the address it could not open ("…does not support openUrl() for '…'"),
    and a signed download address carries its signature there."""
    print(redact_urls(message), file=sys.stderr, flush=True)


def make_application() -> QApplication:
    """The QApplication, named as QSettings and the desktop know it (its icon comes with
    :func:`set_app_icon`, after the early window's first paint)."""
    QCoreApplication.setOrganizationName("Castdeck")
    QCoreApplication.setApplicationName("Castdeck")
    QGuiApplication.setDesktopFileName("castdeck")  # the launcher and icon of castdeck.desktop (Wayland)
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication.instance()
    if app is None:
        previous = qInstallMessageHandler(_platform_messages)
        try:
            app = QApplication(sys.argv[:1])
        finally:
            qInstallMessageHandler(previous)
        qInstallMessageHandler(_qt_messages)
    assert isinstance(app, QApplication)
    # The loop ends when CastdeckApp.run returns, not when a window closes (a dialog closing before
    # the main window opens would otherwise stop qasync's loop under the running coroutine; and the
    # early window closes when the real one takes its place).
    app.setQuitOnLastWindowClosed(False)
    return app


def set_app_icon(app: QApplication) -> None:
    """The windows' icon, from the app's SVG. Set after the early window has painted, before the
    main window is made (its tray icon is the same): reading an SVG into a QIcon loads Qt's SVG
    icon plugin, 4 to 6 ms of a start-up measured against a bare window. The desktop, the launcher
    and the installed executable show their own icon meanwhile (castdeck.desktop, the bundle's)."""
    icon = RESOURCES / "castdeck.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))


def early_window(
    args: argparse.Namespace, data_dir: Path, settings: Settings | None = None
) -> EarlyWindow | None:
    """The early window for this start (built, placed as the main window was, not shown), or None
    when the start shows something else first or has nothing cached to show."""
    global early_problem
    settings = settings if settings is not None else Settings()
    stored = settings.qsettings()
    choice = start_choice(sandbox=args.sandbox, profile=args.profile, settings=stored)
    source = EARLY_PANES.get(start_pane(stored))
    if choice.profile is None or source is None or first_steps_pending(stored):
        return None
    if settings.pane_view(source.kind) != "table":  # it draws the table, not the cards
        return None
    cache = data_dir / CACHE_FILE
    try:
        peeked = peek_list(cache, choice.profile, source.list_key, source.page)
        if peeked is None:
            return None
        related = {}
        for kind, key in source.related:
            found = peek_list(cache, choice.profile, key, NAMES_LIMIT)
            related[kind] = found.items if found is not None else []
        pane = source.build(peeked.items, peeked.more, related)
        window = EarlyWindow(
            pane,
            PANE_TITLES,
            profile=choice.profile,
            sandbox=choice.kind == "sandbox",
            settings=settings,
            pictures_dir=pictures_dir(data_dir),
        )
        window.restore_geometry()
    except Exception:  # never a reason not to start: the app opens as it would without a cache
        early_problem = traceback.format_exc()
        return None
    return window


def show_early(window: EarlyWindow, limit_ms: int = PAINT_LIMIT_MS) -> bool:
    """Show the early window and run Qt's loop until it has painted its list (not inside a running
    asyncio loop: this is before qasync starts). False when it did not paint in time (a minimized
    start, a desktop that shows nothing yet)."""
    loop = QEventLoop()
    limit = QTimer(loop)
    limit.setSingleShot(True)
    limit.timeout.connect(loop.quit)
    window.painted.connect(loop.quit)
    window.show_busy()
    if not window.first_painted:
        limit.start(limit_ms)
        loop.exec()
        limit.stop()
    window.painted.disconnect(loop.quit)
    return window.first_painted


def load_heavy(app: QApplication) -> None:
    """Import the rest of the app in steps, letting the early window repaint between them."""
    for name in HEAVY_MODULES:
        importlib.import_module(name)
        app.processEvents()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = make_application()
    data_dir = user_data_dir()
    icons.keep_masks_in(data_dir / ICON_MASKS)
    settings = Settings()
    atexit.register(settings.flush)  # what was changed last is on disk however the process ends
    early = early_window(args, data_dir, settings)
    said = False
    if early is not None:
        if show_early(early) and os.environ.get(STARTUP_PROBE):
            print("painted", early.model.rowCount(), flush=True)
            said = True
        early.decode_pictures()  # its covers come while the rest loads
        load_heavy(app)
    set_app_icon(app)
    from castdeck.app import run_app

    return run_app(
        app, args, data_dir, early, settings=settings, early_painted=said, early_problem=early_problem
    )
