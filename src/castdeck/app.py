"""The desktop app: the qasync loop, the connection, the main window (the QApplication and the
early window are made before this module loads: see :mod:`castdeck.startup`).

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
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from castdeck.api import CastdeckError, Client
from castdeck.api.clock import SYSTEM_CLOCK, Clock
from castdeck.app_process import settle_startup_objects, setup_logging, show_bug
from castdeck.failures import display, start_failed
from castdeck.services.background import Background
from castdeck.services.collector import QuietCollector
from castdeck.services.event_loop import new_event_loop
from castdeck.services.profiles import KeyStore, Profile, ProfileStore, environment_profile
from castdeck.services.runtime import Runtime
from castdeck.services.sandbox_process import SANDBOX_KEY, SandboxError, SandboxProcess
from castdeck.services.session import Session
from castdeck.services.settings import Settings
from castdeck.services.start_choice import SANDBOX_PROFILE, STARTUP_PROBE, start_choice, start_pane
from castdeck.services.tasks import end_owned, owned_scopes
from castdeck.startup import RESOURCES, build_parser, user_data_dir
from castdeck.store.cache import Cache
from castdeck.store.sqlite import StoreError
from castdeck.ui.connect_dialog import ConnectDialog, Connection
from castdeck.ui.early import EarlyWindow
from castdeck.ui.early.window import PICTURE_SIZE
from castdeck.ui.main_window import MainWindow
from castdeck.ui.pictured import PicturedPane
from castdeck.ui.pixmap_lru import pictures_budget
from castdeck.ui.welcome import WelcomeDialog
from castdeck.ui.widgets import run_dialog

__all__ = ["RESOURCES", "STARTUP_PROBE", "CastdeckApp", "build_parser", "main", "run_app", "user_data_dir"]

log = logging.getLogger("castdeck")
STORE_PROBLEM_TITLE = "Castdeck cannot open its data"
HAND_OVER_LIMIT = 3.0
"""Seconds the early window waits for the real list before the real window takes its place anyway
(a slow network: the user gets a window that answers, its list still loading)."""


class CastdeckApp:
    """Owns the connection, the sandbox child and the window for the app's lifetime."""

    def __init__(
        self,
        args: argparse.Namespace,
        data_dir: Path,
        *,
        client_factory: Callable[[str, str], Client] | None = None,
        early: EarlyWindow | None = None,
        clock: Clock = SYSTEM_CLOCK,
        runtime: Runtime | None = None,
    ) -> None:
        """``client_factory(base_url, api_key)`` makes each session's client (the default: the
        client with its usual timeouts and retries). ``early``: the early window already shown
        (:mod:`castdeck.startup`), which the real window replaces once its list has rows.
        ``clock``: the sessions' time (a factory's clients should be given the same one).
        ``runtime``: where the app's work runs (its task runner and threads): built here unless
        given (the suite hands every app and session it builds the one it watches)."""
        self.args = args
        self.runtime = runtime if runtime is not None else Runtime.build()
        self.tasks = self.runtime.tasks
        self.data_dir = data_dir
        self.client_factory = client_factory
        self.clock = clock
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
        self.early = early
        self.early_painted = False
        """The early window said "painted" to the benchmark's probe (:func:`run_app`)."""
        if early is not None:
            early.closeRequested.connect(self._early_closed)

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
        (0: the user cancelled the connection; 2: the sandbox did not start, or a data file cannot
        be used, which the user is told in a message box)."""
        try:
            opened = await self.open()
        except SandboxError as error:
            self._drop_early()
            await self.shutdown()
            code = start_failed(error, reason=str(error), box=False)
            if display():
                await self._tell("Castdeck could not start", f"Castdeck could not start: {error}")
            return code
        except StoreError as error:
            # A data file from a newer Castdeck, or one that could not be brought up to date: said
            # plainly, the file left as it is, and nothing started on top of it.
            log.error("%s", error)
            print(f"castdeck: {error}", file=sys.stderr)
            self._drop_early()
            await self.shutdown()
            await self._tell(STORE_PROBLEM_TITLE, str(error))
            return 2
        return None if opened else 0

    async def open(self) -> bool:
        """Connect (starting the sandbox child with ``--sandbox``) and open the window; False when the
        user cancelled the connection dialog (or closed the early window before anything started).
        :meth:`run` does this and then waits for the quit."""
        if self.early is not None and self.early.close_requested:
            self._drop_early()
            return False
        if self.cache is None:
            self.cache = Cache(self.data_dir / "cache.sqlite3")
        connection = await self._first_connection()
        if connection is None:
            self._drop_early()
            return False
        if self.early is not None and self.early.profile != connection.profile.name:
            self._drop_early()  # it shows another profile's list
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
        self._drop_early()
        if self.window is not None:
            self.window.close()
        self.finished.set()

    def _early_closed(self) -> None:
        """The user closed the early window: the app ends (before it opens, see :meth:`open` and
        :meth:`_open_window`; once the real window is built, as its close button does)."""
        if self.window is not None:
            self._stop_requested()

    def _drop_early(self) -> None:
        """The early window goes (a dialog comes first, or the app ends, or it showed another list)."""
        early, self.early = self.early, None
        if early is not None:
            early.dismiss()

    async def _first_connection(self) -> Connection | None:
        """What :func:`start_choice` says (the early window asked it too), the saved profile's key
        from the keychain, and the welcome or the connect dialog when those do not say enough."""
        choice = start_choice(sandbox=self.args.sandbox, profile=self.args.profile)
        if choice.kind == "sandbox":  # --sandbox, or chosen in the welcome and no account since
            return await self._start_sandbox()
        env = environment_profile() if choice.kind == "environment" else None
        if env is not None:
            return Connection(env[0], env[1], None, False)
        profile = self.profiles.get(choice.profile) if choice.kind == "saved" and choice.profile else None
        key = self.keys.get(profile.name) if profile else None
        if profile is not None and key:
            return Connection(profile, key, None, True)
        self._drop_early()  # a dialog asks first
        gc.enable()  # and the start waits for the user: no reason to keep the collector off
        if choice.kind == "welcome":
            return await self._welcome()
        return await self._ask_connection()

    async def _start_sandbox(self) -> Connection:
        """The embedded sandbox as a child process (``--sandbox``, or the welcome's choice)."""
        if self.sandbox is None:
            self.sandbox = SandboxProcess(self.args.data or self.data_dir / "sandbox", speed=self.args.speed)
        url = await self.sandbox.start()
        print(f"Castdeck sandbox running at {url}", flush=True)
        return Connection(Profile(SANDBOX_PROFILE, url, sandbox=True), SANDBOX_KEY, None, False)

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
                self.runtime.settings.mark_welcome_done(sandbox=True)
                assert isinstance(started, Connection)
                return started
            if choice is None:
                self.runtime.settings.mark_welcome_done()
                if self.sandbox is not None:  # "Not now" while the sandbox was starting
                    await self.sandbox.stop()
                    self.sandbox = None
                return None
            connection = await self._ask_connection()
            if connection is not None:
                self.runtime.settings.mark_welcome_done()
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
            connection.profile,
            connection.api_key,
            self.cache,
            runtime=self.runtime,
            client_factory=self.client_factory,
            clock=self.clock,
        )
        try:
            background = Background(session, self.data_dir / "background")
        except StoreError:
            self.tasks.start(session.close(), name="close session")
            raise
        return session, background

    def _open_window(self, connection: Connection) -> None:
        self.session, self.background = self._new_session(connection)
        assert self.background is not None
        self.window = MainWindow(self.session, self.background, start_pane=start_pane())
        self.window.restore_geometry()
        self.window.closing.connect(self.finished.set)
        self.window.switchProfileRequested.connect(lambda: self.tasks.start(self.switch_profile()))
        self.window.restartSandboxRequested.connect(lambda: self.tasks.start(self.restart_sandbox()))
        if self.sandbox is not None:
            self.sandbox.crashed.connect(self._sandbox_crashed)
        if os.environ.get(STARTUP_PROBE):
            self._probe_first_paint(self.window.current_pane())
        early = self.early
        if early is None:
            self.window.show()
        elif early.close_requested:  # closed while the app loaded: it ends without opening
            self.finished.set()
        else:  # built hidden; shown in the early window's place once its list has rows
            self.tasks.start(self._hand_over(self.window, early), name="hand over the early window")
        if self.runtime.settings.welcome_done:
            self.window.offer_first_steps()  # until dismissed, after the first-run welcome
        self.tasks.start(self.session.start(), on_error=self._connect_failed, name="connect")
        assert self.background is not None
        self.background.start()

    async def _hand_over(self, window: MainWindow, early: EarlyWindow) -> None:
        """Once the start pane has what it reads when it opens (its first page, the names and the
        filter choices its rows and header show), or after :data:`HAND_OVER_LIMIT`, the real
        window takes the early one's place."""
        pane = window.current_pane()
        if pane is not None:
            try:
                await asyncio.wait_for(_settled(pane), HAND_OVER_LIMIT)
            except TimeoutError:
                log.info(
                    "the start pane was still loading after %s s: the window opens anyway", HAND_OVER_LIMIT
                )
        if self.early is early and self.window is window:
            self.early = None
            if isinstance(pane, PicturedPane):  # the covers it decoded: the list does not decode them again
                pane.take_pictures(early.images, PICTURE_SIZE)
            early.hand_over(window)
            log.info("the main window took the early window's place")

    def _probe_first_paint(self, pane: Any) -> None:
        """Benchmarks: say when the real window has painted the pane's first rows ("live N", after
        "painted N", which the early window said when there was one), then close."""
        app = self

        def painted() -> None:
            if not app.early_painted:
                print("painted", pane.model.rowCount(), flush=True)
            print("live", pane.model.rowCount(), flush=True)
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
        self.tasks.start(self.session.start(), on_error=self._connect_failed, name="connect")
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
        self._drop_early()
        if self._signal_timer is not None:
            self._signal_timer.stop()
        if self.window is not None:
            self.window.close_work()  # nothing the window shows starts work from here on
            self.window.notifier.close()
        if self.background is not None:
            await self.background.close()
        if self.session is not None:
            await self.session.close()
        await end_owned(QApplication.topLevelWidgets())  # the dialogs' and windows' own work
        await self.tasks.cancel_all()
        if self.sandbox is not None:
            await self.sandbox.stop()
        if self.cache is not None:
            self.cache.close()
        await asyncio.to_thread(self.runtime.settings.flush)  # the settings last changed, on disk first


async def _settled(pane: QObject) -> None:
    """Until the work the pane and its parts (list model, name books, pickers) started has ended."""
    while True:
        pending = [task for scope in owned_scopes(pane) for task in scope.pending()]
        if not pending:
            break
        await asyncio.wait(pending)
        await asyncio.sleep(0)  # what their ends scheduled (the model's loadingChanged) runs first
    # and Qt's zero timers the rows started (the pane sizes its columns in one) before this one
    turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def next_turn() -> None:
        if not turn.done():
            turn.set_result(None)

    QTimer.singleShot(0, next_turn)
    await turn


def run_app(
    app: QApplication,
    args: argparse.Namespace,
    data_dir: Path,
    early: EarlyWindow | None = None,
    *,
    settings: Settings | None = None,
    early_painted: bool = False,
    early_problem: str | None = None,
) -> int:
    """The app on ``app`` (made by :func:`castdeck.startup.make_application`) until it quits."""
    setup_logging(data_dir)
    sys.excepthook = show_bug
    if early_problem:
        log.error("the early window could not be made\n%s", early_problem)
    if early is not None:
        log.info(
            "early window: %d cached rows of %s (%s)", early.model.rowCount(), early.pane_title, early.profile
        )
    runtime = Runtime.build(settings=settings, pictures_memory=pictures_budget(app.primaryScreen()))
    castdeck = CastdeckApp(args, data_dir, early=early, runtime=runtime)
    castdeck.early_painted = early_painted
    try:
        with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
            return runner.run(castdeck.run())
    except Exception as error:  # never a silent exit: one line, a message box, the log
        return start_failed(error, stopped=castdeck.window is not None and castdeck.window.isVisible())
    finally:
        runtime.close()  # the loop has ended: its threads end once their last work is done


def main(argv: list[str] | None = None) -> int:
    """The desktop app (as ``castdeck`` starts it: :func:`castdeck.startup.main`)."""
    from castdeck.startup import main as launch

    return launch(argv)
