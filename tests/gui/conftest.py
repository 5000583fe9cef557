"""GUI fixtures: real widgets (pytest-qt) on the app's qasync loop, talking to the real sandbox.

Each test gets a fresh :class:`Session` (demo key, its own cache file), an in-memory keychain and
its own QSettings. ``shot`` saves screenshots into ``artifacts/`` at the repository root.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import pytest
import pytest_asyncio
from keyring.backend import KeyringBackend
from PySide6.QtCore import QCoreApplication, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from castdeck.api.clock import SYSTEM_CLOCK, Clock
from castdeck.services.background import Background
from castdeck.services.profiles import Profile
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from tests import runner as work
from tests.conftest import CLOSED_WITH_THE_SESSION, DEMO_KEY, LEFTOVERS, WRITTEN_BEHIND, RunningSandbox
from tests.helpers import Line
from tests.runner import RUNTIME

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


class MemoryKeyring(KeyringBackend):
    """A keychain that lives in memory, so tests never touch the machine's keychain."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, qapp: QApplication) -> Iterator[None]:
    QCoreApplication.setOrganizationName("CastdeckTests")
    QCoreApplication.setApplicationName("CastdeckTests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    yield
    # before the next test moves the settings
    assert RUNTIME.settings.flush(), "settings remembered by the test were not written"


@pytest.fixture(autouse=True)
def modifiers_released(qapp: QApplication) -> Iterator[None]:
    """No test starts with Shift or Ctrl held. ``qtbot.keyClick`` with modifiers leaves Qt believing
    them held when the key's shortcut hides the widget the keys were sent to (Ctrl+Shift+V in
    test_card_view); a later test's ``selectRow`` then added to the selection as a Shift-click does
    (test_upload_queue's context menu failed in that order)."""
    yield
    held = QGuiApplication.keyboardModifiers()
    if held != Qt.KeyboardModifier.NoModifier:
        keys = {
            Qt.KeyboardModifier.ShiftModifier: Qt.Key.Key_Shift,
            Qt.KeyboardModifier.ControlModifier: Qt.Key.Key_Control,
            Qt.KeyboardModifier.AltModifier: Qt.Key.Key_Alt,
            Qt.KeyboardModifier.MetaModifier: Qt.Key.Key_Meta,
        }
        target = QWidget()
        for modifier, key in keys.items():
            if held & modifier:
                QTest.keyRelease(target, key, Qt.KeyboardModifier.NoModifier)
        target.deleteLater()
    assert QGuiApplication.keyboardModifiers() == Qt.KeyboardModifier.NoModifier


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    store = Cache(tmp_path / "cache.sqlite3")
    yield store
    store.close()


async def open_session(base_url: str, cache: Cache, *, name: str = "Sandbox", key: str = DEMO_KEY,
                       sandbox: bool = True, clock: Clock = SYSTEM_CLOCK) -> Session:  # fmt: skip
    session = Session(Profile(name, base_url, sandbox=sandbox), key, cache, runtime=RUNTIME, clock=clock)
    await session.start()
    return session


@pytest_asyncio.fixture
async def connected(
    sandbox: RunningSandbox, cache: Cache, tmp_path: Path
) -> AsyncIterator[tuple[Session, Background]]:
    """A connected session with its background work (jobs, outbox, uploads), as the app makes them."""
    opened = await open_session(sandbox.base_url, cache)
    background = Background(opened, tmp_path / "background")
    background.start()
    await background.picked_up()  # a short test would otherwise end inside the outbox's first round
    yield opened, background
    await settle()
    await background.close()
    await opened.close()


@pytest.fixture
def session(connected: tuple[Session, Background]) -> Session:
    return connected[0]


@pytest.fixture
def background(connected: tuple[Session, Background]) -> Background:
    """The background work of the ``session`` fixture (given to panes and windows explicitly)."""
    return connected[1]


@dataclass
class OnLine:
    """A session and its background work whose requests (signed-address ones too) go through ``line``."""

    session: Session
    background: Background
    line: Line


@pytest_asyncio.fixture
async def on_line(sandbox: RunningSandbox, cache: Cache, tmp_path: Path) -> AsyncIterator[OnLine]:
    """Like ``session`` and ``background``, with every request on a :class:`~tests.helpers.Line` the
    test can slow down, hold, or break (a lost answer, a network that is down)."""
    from tests.gui.helpers import session_through

    line = Line()
    opened = await session_through(sandbox.base_url, cache, line, signed_too=True)
    background = Background(opened, tmp_path / "background")
    background.start()
    await background.picked_up()  # as ``connected``: a test that takes the line down at once would
    # otherwise hold the first round of resuming, which then outlives the test
    yield OnLine(opened, background, line)
    line.up()
    line.release()
    await settle()
    await background.close()
    await opened.close()


async def settle() -> None:
    """Before a session is closed at the end of a test: short-lived work still running (a load, a
    request the test did not await) is named as a leftover, which fails the test (see
    ``_nothing_left_running`` in tests/conftest.py), and cancelled so the session closes cleanly.
    Long-running followers (job pollers) and the session's reconnection probe are left to their
    owners' ``close()``; whatever those leave running, the check after the teardown names."""
    await asyncio.sleep(0)
    behind = [t for t in work.pending(followers=False) if t.get_name() in WRITTEN_BEHIND]
    await asyncio.gather(*behind, return_exceptions=True)
    left = [t for t in work.pending(followers=False) if t.get_name() not in CLOSED_WITH_THE_SESSION]
    LEFTOVERS.tasks.extend(task.get_name() for task in left)
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)


async def quiet(timeout: float = 30.0) -> None:
    """Until no background work runs. End a test with it (or ``settle()``) when the test started
    work it does not wait for: pytest-qt pumps Qt events after the test, outside the loop."""
    await until(lambda: work.running() == 0, timeout=timeout)
    await asyncio.sleep(0.05)


async def until(predicate: Callable[[], Any], timeout: float = 30.0, interval: float = 0.02) -> Any:
    """Await until ``predicate()`` is truthy (the loop keeps running: Qt events, requests)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        await asyncio.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s; last value: {last!r}")


async def answer_confirmation(parent: QWidget, button_text: str) -> str:
    """Wait for the confirmation box and press one of its buttons; returns the question asked."""
    box = await until(lambda: parent.findChild(QMessageBox, "confirm"))
    await until(box.isVisible)
    text = box.text()
    for button in box.buttons():
        if button.text() == button_text:
            button.click()
            return text
    raise AssertionError(f"no button {button_text!r} in {[b.text() for b in box.buttons()]}")


async def shown_pane(qtbot: Any, pane: Any) -> Any:
    """Show a pane at screenshot size, read its first page and return it."""
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    pane.show()
    pane.activate()
    await until(lambda: pane.model.rowCount() > 0)
    await pane.model.wait_idle()
    return pane


async def check_pages_by_two(qtbot: Any, pane: Any, qtmodeltester: Any) -> None:
    """A pane reading two rows per request: the first page, then ``fetchMore`` for the second."""
    pane.page_size = 2
    qtbot.addWidget(pane)
    pane.activate()  # not shown: only fetchMore reads the next page (a shown view asks by itself)
    await until(lambda: pane.model.rowCount() == 2 and not pane.model.loading)
    assert pane.model.canFetchMore()
    assert "scroll for more" in pane.status.text()
    pane.model.fetchMore()
    await until(lambda: pane.model.rowCount() == 4 and not pane.model.loading)
    qtmodeltester.check(pane.model)
    assert len({str(item.id) for item in pane.model.items}) == 4
    await quiet()  # nothing may run on when the loop stops


@pytest.fixture
def shot() -> Callable[[QWidget, str], Path]:
    """Save a screenshot of a widget into artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)

    def save(widget: QWidget, name: str) -> Path:
        # No processEvents() here: a nested event loop inside a running qasync task never returns.
        path = ARTIFACTS / f"{name}.png"
        assert widget.grab().save(str(path)), path
        return path

    return save
