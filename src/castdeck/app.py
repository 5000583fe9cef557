"""The desktop app: QApplication, the qasync loop, the connection, the main window.

castdeck                      the last used profile; the welcome on the very first run; else the
                              connect dialog
castdeck --sandbox            the embedded sandbox as a child process, with the demo key
castdeck --profile NAME       a saved profile
CASTDECK_BASE_URL and CASTDECK_API_KEY override both.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import logging.handlers
import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from castdeck.api import CastdeckError, Client
from castdeck.services.background import Background
from castdeck.services.collector import QuietCollector
from castdeck.services.event_loop import new_event_loop
from castdeck.services.profiles import KeyStore, Profile, ProfileStore, environment_profile
from castdeck.services.sandbox_process import SANDBOX_KEY, SandboxError, SandboxProcess
from castdeck.services.session import Session
from castdeck.services.tasks import tasks
from castdeck.store.cache import Cache
from castdeck.store.sqlite import StoreError
from castdeck.ui.connect_dialog import ConnectDialog, Connection
from castdeck.ui.main_window import MainWindow
from castdeck.ui.welcome import SANDBOX_CHOSEN, WelcomeDialog, mark_welcome_done, welcome_done
from castdeck.ui.widgets import run_dialog

__all__ = ["CastdeckApp", "main", "user_data_dir"]

log = logging.getLogger("castdeck")
# Beside src/ in a checkout; inside the bundle's own folder (sys._MEIPASS) in the installed app.
RESOURCES = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[2])) / "resources"
STORE_PROBLEM_TITLE = "Castdeck cannot open its data"
STARTUP_PROBE = "CASTDECK_STARTUP_PROBE"  # benchmarks: a pane title; print "painted" once its rows show


def user_data_dir() -> Path:
    """Where Castdeck keeps its data on this platform."""
    return Path(platformdirs.user_data_dir("castdeck", appauthor=False))


def _setup_logging(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        data_dir / "castdeck.log", maxBytes=2_000_000, backupCount=2
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    # httpx logs every request line at INFO; request lines carry no key, but keep the log quiet.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def settle_startup_objects() -> None:
    """Move everything start-up created (modules, classes, validators, the window) out of the
    garbage collector's reach. They live as long as the app; without this, every full collection
    walks them again, and with ten thousand rows loaded one such walk stalled the event loop for
    60 ms (benchmarks/episodes_scale.py)."""
    gc.collect()
    gc.freeze()


class CastdeckApp:
    """Owns the connection, the sandbox child and the window for the app's lifetime."""

    def __init__(
        self,
        args: argparse.Namespace,
        data_dir: Path,
        *,
        client_factory: Callable[[str, str], Client] | None = None,
    ) -> None:
        """``client_factory(base_url, api_key)`` makes each session's client (the default: the
        client with its usual timeouts and retries)."""
        self.args = args
        self.data_dir = data_dir
        self.client_factory = client_factory
        self.cache: Cache | None = None  # opened by open(): a file it cannot use is said in words
        self.profiles = ProfileStore()
        self.keys = KeyStore()
        self.sandbox: SandboxProcess | None = None
        self.session: Session | None = None
        self.background: Background | None = None
        self.window: MainWindow | None = None
        self.finished = asyncio.Event()
        self._signal_timer: QTimer | None = None
        self.collector = QuietCollector()

    # --- start ---------------------------------------------------------------------------------------------

    async def run(self) -> int:
        self._handle_signals()
        code = await self.start()
        if code is not None:
            return code
        # Once the first screen is up and its first requests answered (not before the first paint).
        QTimer.singleShot(1500, self._settled)
        await self.finished.wait()
        await self.shutdown()
        return 0

    def _settled(self) -> None:
        settle_startup_objects()
        self.collector.start()  # full collections at quiet moments from here on

    async def start(self) -> int | None:
        """:meth:`open`, saying what stopped it: None once the window is open, else the exit code
        (0: the user cancelled the connection; 1: the sandbox did not start; 2: a data file cannot
        be used, which the user is told in a message box)."""
        try:
            opened = await self.open()
        except SandboxError as error:
            print(f"castdeck: {error}", file=sys.stderr)
            await self.shutdown()
            return 1
        except StoreError as error:
            # A data file from a newer Castdeck, or one that could not be brought up to date: said
            # plainly, the file left as it is, and nothing started on top of it.
            log.error("%s", error)
            print(f"castdeck: {error}", file=sys.stderr)
            await self.shutdown()
            await self._tell(STORE_PROBLEM_TITLE, str(error))
            return 2
        return None if opened else 0

    async def open(self) -> bool:
        """Connect (starting the sandbox child with ``--sandbox``) and open the window; False when the
        user cancelled the connection dialog. :meth:`run` does this and then waits for the quit."""
        if self.cache is None:
            self.cache = Cache(self.data_dir / "cache.sqlite3")
        connection = await self._first_connection()
        if connection is None:
            return False
        self._open_window(connection)
        return True

    async def _tell(self, title: str, text: str) -> None:
        """A message the user must read before the app ends (no window is open to show it)."""
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Close)
        box.setTextFormat(Qt.TextFormat.PlainText)
        await run_dialog(box)
        box.deleteLater()

    def _handle_signals(self) -> None:
        """Ctrl+C or a termination request closes the app as the window's close button does."""
        loop = asyncio.get_running_loop()

        def stop(_signum: int, _frame: object) -> None:
            loop.call_soon_threadsafe(self._stop_requested)

        for name in ("SIGINT", "SIGTERM"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), stop)
        # Python runs signal handlers only between bytecodes: wake it while Qt waits for events.
        self._signal_timer = QTimer()
        self._signal_timer.start(250)
        self._signal_timer.timeout.connect(lambda: None)

    def _stop_requested(self) -> None:
        if self.window is not None:
            self.window.close()
        self.finished.set()

    async def _first_connection(self) -> Connection | None:
        if self.args.sandbox:
            return await self._start_sandbox()
        env = environment_profile()
        if env is not None:
            return Connection(env[0], env[1], None, False)
        name = self.args.profile or self.profiles.last_used()
        profile = self.profiles.get(name) if name else None
        key = self.keys.get(profile.name) if profile else None
        if profile is not None and key:
            return Connection(profile, key, None, True)
        if not self.args.profile and not self.profiles.profiles():
            if not welcome_done():
                return await self._welcome()
            if QSettings().value(SANDBOX_CHOSEN, False) in (True, "true"):
                return await self._start_sandbox()  # chosen in the welcome, and no account since
        return await self._ask_connection()

    async def _start_sandbox(self) -> Connection:
        """The embedded sandbox as a child process (``--sandbox``, or the welcome's choice)."""
        if self.sandbox is None:
            self.sandbox = SandboxProcess(self.args.data or self.data_dir / "sandbox", speed=self.args.speed)
        url = await self.sandbox.start()
        print(f"Castdeck sandbox running at {url}", flush=True)
        return Connection(Profile("Sandbox", url, sandbox=True), SANDBOX_KEY, None, False)

    async def _welcome(self) -> Connection | None:
        """The first run: the welcome, until the sandbox runs, an account is connected, or "Not now"
        (None: the app ends, as when the connect dialog is cancelled). Cancelling the connect
        dialog goes back to the welcome. Once left, it is never shown again."""
        while True:
            dialog = WelcomeDialog(self._start_sandbox)
            result = await run_dialog(dialog)
            choice, started = (dialog.choice if result else None), dialog.result_value
            dialog.deleteLater()
            if choice == "sandbox":
                mark_welcome_done(sandbox=True)
                assert isinstance(started, Connection)
                return started
            if choice is None:
                mark_welcome_done()
                if self.sandbox is not None:  # "Not now" while the sandbox was starting
                    await self.sandbox.stop()
                    self.sandbox = None
                return None
            connection = await self._ask_connection()
            if connection is not None:
                mark_welcome_done()
                return connection

    async def _ask_connection(self) -> Connection | None:
        dialog = ConnectDialog(self.profiles, self.keys, self.window)
        result = await run_dialog(dialog)
        connection = dialog.result_value if result else None
        dialog.deleteLater()
        return connection

    def _new_session(self, connection: Connection) -> tuple[Session, Background]:
        """A session with its background work (jobs, outbox, uploads) stored in the data folder.
        Raises :class:`StoreError` when those files cannot be used (nothing is left open then)."""
        assert self.cache is not None
        session = Session(
            connection.profile, connection.api_key, self.cache, client_factory=self.client_factory
        )
        try:
            background = Background(session, self.data_dir / "background")
        except StoreError:
            tasks.start(session.close(), name="close session")
            raise
        return session, background

    def _open_window(self, connection: Connection) -> None:
        self.session, self.background = self._new_session(connection)
        start_pane = os.environ.get(STARTUP_PROBE) or MainWindow.remembered_pane() or "Episodes"
        assert self.background is not None
        self.window = MainWindow(self.session, self.background, start_pane=start_pane)
        self.window.restore_geometry()
        self.window.closing.connect(self.finished.set)
        self.window.switchProfileRequested.connect(lambda: tasks.start(self.switch_profile()))
        self.window.restartSandboxRequested.connect(lambda: tasks.start(self.restart_sandbox()))
        if self.sandbox is not None:
            self.sandbox.crashed.connect(self._sandbox_crashed)
        if os.environ.get(STARTUP_PROBE):
            self._probe_first_paint(self.window.current_pane())
        self.window.show()
        if welcome_done():
            self.window.offer_first_steps()  # until dismissed, after the first-run welcome
        tasks.start(self.session.start(), on_error=self._connect_failed, name="connect")
        assert self.background is not None
        self.background.start()

    def _probe_first_paint(self, pane: Any) -> None:
        """Benchmarks: say when the pane's first rows have been painted, then close."""
        app = self

        def painted() -> None:
            print("painted", pane.model.rowCount(), flush=True)
            app._stop_requested()

        class Probe(QObject):
            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                if event.type() == QEvent.Type.Paint and pane.model.rowCount() > 0:
                    watched.removeEventFilter(self)
                    QTimer.singleShot(0, painted)
                return False

        self._probe = Probe(pane)
        pane.table.viewport().installEventFilter(self._probe)

    def _connect_failed(self, error: CastdeckError) -> None:
        if self.window is not None and self.session is not None and self.session.online is False:
            self.window.banner.show_error(error, "Could not connect")

    # --- while running -------------------------------------------------------------------------------------

    async def switch_profile(self) -> None:
        connection = await self._ask_connection()
        if connection is None or self.window is None:
            return
        try:
            session, background = self._new_session(connection)
        except StoreError as error:  # the old connection stays as it was
            log.error("%s", error)
            self.window.banner.show_message(
                f"Could not open {connection.profile.name}: {error}", kind="error"
            )
            return
        old, old_background = self.session, self.background
        if old_background is not None:
            await old_background.close()  # stored as it is; resumed when that profile is opened again
        self.session, self.background = session, background
        self.window.set_session(self.session, self.background)
        tasks.start(self.session.start(), on_error=self._connect_failed, name="connect")
        self.background.start()
        if old is not None:
            await old.close()

    def _sandbox_crashed(self, message: str) -> None:
        log.warning("%s", message)
        if self.session is not None:
            self.session.went_offline("the sandbox stopped")
        if self.window is not None:
            self.window.sandbox_crashed(message)

    async def restart_sandbox(self) -> None:
        if self.sandbox is None or self.window is None or self.session is None:
            return
        self.window.banner.show_message("Starting the sandbox again…", kind="info")
        self.window.restart_button.hide()
        try:
            url = await self.sandbox.start()
        except SandboxError as error:
            self.window.sandbox_crashed(str(error))
            return
        self.session.rebind(url)
        self.window.sandbox_restarted()
        await self.session.refresh_account()
        self.session.reconnected.emit()

    async def shutdown(self) -> None:
        self.collector.stop()
        if self._signal_timer is not None:
            self._signal_timer.stop()
        if self.window is not None:
            self.window.close_work()  # nothing the window shows starts work from here on
            self.window.notifier.close()
        if self.background is not None:
            await self.background.close()
        if self.session is not None:
            await self.session.close()
        await tasks.cancel_all()
        if self.sandbox is not None:
            await self.sandbox.stop()
        if self.cache is not None:
            self.cache.close()


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    """A bug: logged with its traceback, shown as a message (never a traceback dialog)."""
    log.error("unexpected error\n%s", "".join(traceback.format_exception(kind, error, tb)))
    app = QApplication.instance()
    window = (
        next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None) if app else None
    )
    if window is not None:
        window.banner.show_message(
            f"Something went wrong inside Castdeck ({kind.__name__}: {error}). Details are in the log.",
            kind="error",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="castdeck", description="Castdeck desktop studio")
    parser.add_argument("--sandbox", action="store_true", help="run on the embedded sandbox service")
    parser.add_argument("--data", type=Path, default=None, help="sandbox data folder")
    parser.add_argument("--speed", type=float, default=1.0, help="sandbox work-time scale (default 1)")
    parser.add_argument("--profile", default=None, help="open this saved profile")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    QCoreApplication.setOrganizationName("Castdeck")
    QCoreApplication.setApplicationName("Castdeck")
    QGuiApplication.setDesktopFileName("castdeck")  # the launcher and icon of castdeck.desktop (Wayland)
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    # The loop ends when CastdeckApp.run returns, not when a window closes (a dialog closing before
    # the main window opens would otherwise stop qasync's loop under the running coroutine).
    app.setQuitOnLastWindowClosed(False)
    icon = RESOURCES / "castdeck.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    data_dir = user_data_dir()
    _setup_logging(data_dir)
    sys.excepthook = _excepthook
    castdeck = CastdeckApp(args, data_dir)
    with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
        return runner.run(castdeck.run())
