"""Helpers shared by the GUI (and service) tests: sessions whose requests go through a test's own
transport, podcasts to work on, the Episodes pane, and a real drop of files."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
import shiboken6
from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPoint,
    QPointF,
    Qt,
    QUrl,
)
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QImage, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from castdeck.api import Client
from castdeck.api.clock import SYSTEM_CLOCK, Clock
from castdeck.api.models import Episode, Host, Podcast
from castdeck.services.background import Background
from castdeck.services.profiles import Profile
from castdeck.services.session import Session
from castdeck.store.cache import Cache
from castdeck.ui.panes.episodes import EpisodesPane
from tests.conftest import DEMO_KEY
from tests.gui.conftest import until
from tests.runner import RUNTIME


async def session_through(
    base_url: str,
    cache: Cache,
    transport: httpx.AsyncBaseTransport,
    *,
    signed_too: bool = False,
    clock: Clock = SYSTEM_CLOCK,
) -> Session:
    """A started session whose API requests (and signed-address requests with ``signed_too``) go
    through ``transport``; the client's own retries are off, so every resend is the app's under test.
    ``clock``: the session's and its client's time (a test's own, to move it forward)."""
    session = Session(
        Profile("Sandbox", base_url, sandbox=True), DEMO_KEY, cache, runtime=RUNTIME, clock=clock,
        client_factory=lambda url, key: Client(
            url, key, timeout=20.0, max_retries=0, http_transport=transport,
            signed_transport=transport if signed_too else None, clock=clock,
        ),
    )  # fmt: skip
    await session.start()
    return session


async def first_host(session: Session) -> Host:
    async for host in session.client.hosts.list(limit=100):
        return host
    raise AssertionError("the sandbox has no hosts")


async def new_podcast(session: Session, title: str, **fields: object) -> Podcast:
    host = await first_host(session)
    return await session.client.podcasts.create(title=title, host_ids=[host.id], **fields)


async def rendered_drafts(
    session: Session, podcast_id: str, titles: list[str], *, render: bool = True
) -> list[Episode]:
    """Drafts made the way a creator makes them (an imported script, rendered), titled, in order."""
    host = await first_host(session)
    client = session.client
    accepted = [
        await client.episodes.import_script(
            podcast_id=podcast_id, script=f"[{host.name}]\nA short word for {title}.\n", render=render
        )
        for title in titles
    ]
    done = await asyncio.gather(*(client.episodes.wait(one.data.id, timeout=240) for one in accepted))
    for episode, title in zip(done, titles, strict=True):
        assert episode.generation is not None and episode.generation.state == "completed", episode
        await client.episodes.update(episode.id, title=title)
    return [await client.episodes.get(one.data.id) for one in accepted]


async def make_pane(
    qtbot: QtBot, session: Session, background: Background, podcast: Podcast | None = None
) -> EpisodesPane:
    """The Episodes pane, shown, filtered to ``podcast`` when given, with its first page read."""
    pane = EpisodesPane(session, background)
    qtbot.addWidget(pane)
    pane.resize(1100, 700)
    await pane.podcast_filter.wait_loaded()
    if podcast is not None:
        pane.podcast_filter.setCurrentIndex(pane.podcast_filter.findData(podcast.id))
    pane.show()
    pane.activate()
    await until(
        lambda: not pane.model.loading and (pane.model.rowCount() > 0 or not pane.model.canFetchMore())
    )
    return pane


async def answer_save_dialog(qtbot: QtBot, dialog: QFileDialog | None, path: Path, *, suffix: str) -> None:
    """Answer an open "Save the file" dialog with ``path``: the name it offers ends with ``suffix``;
    in ``path``'s folder, its name is typed over the offered one and Return pressed; the dialog
    closes. (The folder is chosen directly: typing a whole path would pop up the name completer,
    which the offscreen platform cannot give the keyboard to.)"""
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.acceptMode() == QFileDialog.AcceptMode.AcceptSave
    offered = dialog.selectedFiles()
    assert offered and offered[0].endswith(suffix), offered
    dialog.setDirectory(str(path.parent))
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    assert isinstance(name, QLineEdit) and name.isVisible()
    name.setFocus()
    name.selectAll()
    qtbot.keyClicks(name, path.name)
    assert name.text() == path.name
    completer = name.completer()
    assert completer is not None and not completer.popup().isVisible()  # Return goes to the dialog
    QTest.keyClick(name, Qt.Key.Key_Return)
    await until(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible())


def drop_on(widget: QWidget, paths: list[Path], *, direct: Any = None) -> None:
    """A real drag enter and drop with file URLs (QMimeData), as a file manager sends them.

    A drop without a drag in progress never reaches a widget through the event system, so the drop
    event goes to ``direct`` (the widget's handler) as the pane test does."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    enter = QDragEnterEvent(QPoint(10, 10), *args)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(10, 10), *args)
    (direct or widget.dropEvent)(event)
    assert event.isAccepted()


def dark_palette() -> QPalette:
    """What the platform gives when the system turns dark (screenshots and palette tests)."""
    palette = QPalette()
    for role, color in (
        (QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
        (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#262626"),
        (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#353535"),
        (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#2f65ca"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.Mid, "#8a8a8a"),
        (QPalette.ColorRole.Link, "#7ab7ff"), (QPalette.ColorRole.PlaceholderText, "#8a8a8a"),
    ):  # fmt: skip
        palette.setColor(role, QColor(color))
    # what is disabled reads dimmer, as in the platforms' dark schemes (setColor above set every group)
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Button, QColor("#2e2e2e"))
    return palette


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: type, *names: str) -> dict[str, int]:
    """Count the calls of the methods ``names`` of ``owner``, by name. Set it before any instance
    is made: PySide keeps the Python method it first finds for a call from Qt, so wrappers set
    later count nothing of what Qt calls."""
    calls = dict.fromkeys(names, 0)
    for name in names:
        original = getattr(owner, name)

        def counted(self: object, *args: Any, _name: str = name, _original: Any = original) -> Any:
            calls[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(owner, name, counted)
        _COUNTERS.append(counted)
    return calls


_COUNTERS: list[Any] = []
"""Every counting wrapper :func:`count_calls` made, for the whole run: PySide keeps the method it
found for an instance without a reference of its own, and a wrapper freed once the test undoes it
while a model made under it still lives (and paints) crashes the process."""


def answer_in_one_call(model: QAbstractItemModel, index: QModelIndex, role: int) -> Any:
    """What ``model.multiData`` puts in a span asking ``role`` alone that held a leftover value
    (a span holds whatever was asked before: every role must be answered or cleared)."""
    asked = QModelRoleData(role)
    asked.setData("left over")
    model.multiData(index, QModelRoleDataSpan(asked))
    return asked.data()


def on_screen_as_painted_afresh(window: QWidget, *parts: QWidget) -> bool:
    """Whether the pixels of ``window`` (a top-level widget) on the screen are those a full paint of
    it gives now: what Qt left unpainted after a change (static contents) is not stale. With
    ``parts``, only theirs are compared (what a test is about; the rest of the window may change
    meanwhile for reasons of its own)."""
    shape = QImage.Format.Format_RGB32
    if not parts:
        screen = window.screen().grabWindow(window.winId()).toImage()
        return bool(screen.convertToFormat(shape) == window.grab().toImage().convertToFormat(shape))
    for part in parts:
        at = part.mapTo(window, QPoint(0, 0))
        screen = window.screen().grabWindow(window.winId(), at.x(), at.y(), part.width(), part.height())
        if screen.toImage().convertToFormat(shape) != part.grab().toImage().convertToFormat(shape):
            return False
    return True
