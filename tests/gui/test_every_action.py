"""Every button and link a creator can click in the real window on a laptop's screen does what it
says or says why not, in place: each one is clicked with the mouse, in a state where it is enabled,
and something a person can notice must follow — a window or a menu, a request to the service, a
message, the clipboard, another pane or row, a toggled check, a part of the window shown or hidden,
a text changed. Never nothing.

What is clicked is found by walking the widget tree (every visible, enabled ``QAbstractButton`` and
every link of a ``QLabel``) in the pane (its header, list and details), and in a case of its own in
the Jobs dock's cards, the first-steps strip, the window's banner and the status bar: a button added
later is covered without a line here. Each pane is one case, so a failure names its pane; every
button that did nothing is named in one failure, with its place, accessible name and text.

A destructive action (Delete, Unpublish, Archive…) must ask first: the confirmation is answered
Cancel, and nothing may be deleted. Windows and dialogs a click opens are closed again (Escape,
Cancel, Close). A message that says something went to the clipboard must be true. No signed
address reaches the terminal from any click.

Before each click the app is still (no work running, no request in flight, no timer of the window
due, no job followed), so what changes is the click's doing. The chosen option of an exclusive pair
(Table while the table shows) is clicked once the other was chosen; what puts its place away
(Dismiss, Close, Clear) is clicked last; what a click brings (Pause after Play, a banner's Dismiss)
is clicked next. A report of every click and its effect is written to artifacts/every-action/.

Not reached here, for want of a state the sandbox gives: the window banner's Restart sandbox and
Open in Scripts (after a crash), the dock's Show older jobs (over 30 cards), Send now and Check
again (a write waiting to be resent, a job past its deadline), and the upload queue.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QRadioButton,
    QScrollArea,
    QTabBar,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from castdeck.api.models import Episode, MediaJob, Podcast, Source
from castdeck.sandbox.seed_content import PODCASTS
from castdeck.services.publish import never_rendered
from castdeck.ui.jobs.card import JobCard
from castdeck.ui.main_window import MainWindow
from castdeck.ui.pane import ResourcePane
from castdeck.ui.panes import pane_specs
from castdeck.ui.scripts.pane import ScriptsPane
from castdeck.ui.widgets import Banner, alive
from tests.gui.conftest import ARTIFACTS, OnLine, quiet, until
from tests.gui.helpers import new_podcast
from tests.gui.journey import click_sidebar, every_window_on_screen, link_position, open_main_window

EFFECT_WAIT = 10.0
"""Seconds a click has to show its effect (a request may wait its turn on a loaded machine)."""

DESTRUCTIVE = re.compile(r"^(Delete|Unpublish|Archive|Remove|Discard)\b", re.IGNORECASE)
"""What a button whose name starts so does cannot be undone on the service: it must ask first."""

CLOSERS = re.compile(r"^(Dismiss|Close|Clear|✕)", re.IGNORECASE)
"""Buttons that put away what the others are in (a card, a strip, a bar): clicked last."""

EXCLUDED: dict[str, str] = {
    # QDockWidget's own title-bar buttons: Qt's window controls, which Castdeck neither adds nor
    # changes (floating the dock makes it a window of its own; View ▸ Jobs, Ctrl+J, shows it again).
    "qt_dockwidget_closebutton": "the Jobs dock's close button (Qt's)",
    "qt_dockwidget_floatbutton": "the Jobs dock's float button (Qt's)",
}
"""Buttons not clicked, by object name, and why. Quit is a menu action, not a button: not walked."""

SIGNED = re.compile(r"signature=[0-9a-f]{12}", re.IGNORECASE)


# --- what can be clicked ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One thing a creator can click: a button, or one link of a label."""

    area: str  # where it is: a pane's title, "Jobs", "First steps", "Window", "Status bar"
    kind: str  # "button" or "link"
    name: str  # what a screen reader says (the accessible name), else its text
    text: str  # what it shows
    nth: int  # among the targets of the same area, kind and name, in the order of the widget tree

    def __str__(self) -> str:
        shown = f" (shows “{self.text}”)" if self.text and self.text != self.name else ""
        number = f" #{self.nth + 1}" if self.nth else ""
        return f"{self.area}: {self.kind} “{self.name}”{number}{shown}"


@dataclass
class Found:
    widget: QWidget
    href: str | None = None  # a link's address


def _anchors(label: QLabel) -> list[tuple[str, str]]:
    """The links of a label showing rich text: (address, text) each."""
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and "<" in text
    )
    if not rich:
        return []
    found = re.findall(r"<a\s[^>]*href=[\"']([^\"']*)[\"'][^>]*>(.*?)</a>", text, re.IGNORECASE | re.DOTALL)
    return [(href, re.sub(r"<[^>]+>", "", shown)) for href, shown in found]


def _shown(widget: QWidget) -> bool:
    opacity = widget.property("opacity")  # a line edit's clear button fades in and out with the text
    if isinstance(opacity, float) and opacity < 0.5:
        return False
    return widget.isVisible() and widget.isEnabled() and widget.width() > 0 and widget.height() > 0


def clickables(areas: dict[str, QWidget]) -> dict[Target, Found]:
    """Every visible, enabled button and every link of a label in ``areas``, in tree order."""
    found: dict[Target, Found] = {}
    for area, root in areas.items():
        if not root.isVisible():
            continue
        counts: Counter[tuple[str, str]] = Counter()
        for widget in [root, *root.findChildren(QWidget)]:
            if isinstance(widget, QAbstractButton):
                if not _shown(widget) or widget.objectName() in EXCLUDED:
                    continue
                if isinstance(widget.parentWidget(), QTabBar):
                    continue  # a tab bar's scroll arrows: the tab bar's, not an action
                name = widget.accessibleName() or widget.text() or widget.toolTip()
                key = ("button", name)
                found[Target(area, "button", name, widget.text(), counts[key])] = Found(widget)
                counts[key] += 1
            elif isinstance(widget, QLabel) and _shown(widget):
                for href, text in _anchors(widget):
                    key = ("link", text)
                    found[Target(area, "link", text, href, counts[key])] = Found(widget, href)
                    counts[key] += 1
    return found


# --- what a click did ---------------------------------------------------------------------------------------


def _describe(widget: QWidget) -> str:
    return f"{type(widget).__name__}:{widget.accessibleName() or widget.objectName()}"


def _text_of(widget: QWidget) -> str | None:
    if isinstance(widget, QLabel):
        return widget.text()
    if isinstance(widget, QLineEdit):
        return widget.text()
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return widget.toPlainText()
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QAbstractButton):
        return widget.text()
    if isinstance(widget, JobCard):
        return widget.accessibleDescription()
    return None


@dataclass(frozen=True)
class Seen:
    """What a person can notice of the app at one moment."""

    windows: frozenset[str]
    requests: int
    clipboard: str
    pane: str
    selection: str | None
    checked: bool | None
    messages: frozenset[str]
    parts: Counter[str]
    texts: tuple[tuple[str, str], ...]


@dataclass
class Case:
    """One pane's case: the window, the pane it is about, and what was clicked so far."""

    qtbot: QtBot
    on_line: OnLine
    window: MainWindow
    title: str
    data: dict[str, Any]
    log: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    signed: set[str] = field(default_factory=set)


_TITLES = [spec.title for spec in pane_specs()]


def _windows(main: QWidget) -> dict[str, QWidget]:
    shown = {}
    for widget in QApplication.topLevelWidgets():
        if widget is main or not widget.isVisible() or widget.windowType() == Qt.WindowType.ToolTip:
            continue
        shown[f"{type(widget).__name__} “{widget.windowTitle()}” @{id(widget)}"] = widget
    return shown


def _selection(pane: Any) -> str | None:
    if isinstance(pane, ResourcePane):
        return str(pane.current.id) if pane.current is not None else None
    if isinstance(pane, ScriptsPane):
        return pane.draft.id if pane.draft is not None else None
    return None


def _listed(pane: Any, item_id: str) -> bool:
    if isinstance(pane, ResourcePane):
        return pane.model.row_of(item_id) >= 0
    if isinstance(pane, ScriptsPane):
        return pane.list_model.row_of(item_id) >= 0
    return False


def _messages(window: MainWindow) -> frozenset[str]:
    found = {f"banner: {b.text}" for b in window.findChildren(Banner) if b.isVisible() and b.text}
    if window.status.currentMessage():
        found.add(f"status bar: {window.status.currentMessage()}")
    return frozenset(found)


def seen(case: Case, clicked: QWidget | None) -> Seen:
    window = case.window
    parts: Counter[str] = Counter()
    texts: list[tuple[str, str]] = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget is window.status.activity:
            continue
        described = _describe(widget)
        parts[described] += 1
        text = _text_of(widget)
        if text is not None and widget is not clicked:
            texts.append((described, text))
    pane = window.current_pane()
    return Seen(
        windows=frozenset(_windows(window)),
        requests=len(case.on_line.line.sent),
        clipboard=QGuiApplication.clipboard().text(),
        pane=type(pane).__name__,
        selection=_selection(pane),
        checked=(
            clicked.isChecked()
            if isinstance(clicked, QAbstractButton) and alive(clicked) and clicked.isCheckable()
            else None
        ),
        messages=_messages(window),
        parts=parts,
        texts=tuple(texts),
    )


def effects(case: Case, before: Seen, after: Seen) -> list[str]:
    """What changed between two moments, as a person would say it."""
    said = []
    if after.windows - before.windows:
        said.append("opened " + ", ".join(sorted(after.windows - before.windows)))
    if after.requests > before.requests:
        sent = case.on_line.line.sent[before.requests : after.requests]
        said.append("sent " + ", ".join(f"{s.method} {s.path}" for s in sent[:3]))
    if after.clipboard != before.clipboard:
        said.append("put text on the clipboard")
    if after.pane != before.pane:
        said.append(f"showed {after.pane}")
    elif after.selection != before.selection:
        said.append("selected another row")
    if after.checked != before.checked:
        said.append("toggled its check")
    if after.messages - before.messages:
        said.append("said " + " | ".join(sorted(after.messages - before.messages))[:160])
    if after.parts != before.parts:
        came = sorted((after.parts - before.parts).keys())[:3]
        went = sorted((before.parts - after.parts).keys())[:3]
        said.append(f"showed {came} hid {went}")
    if after.texts != before.texts:
        said.append("changed a text")
    return said


# --- clicking -------------------------------------------------------------------------------------------------


def _timers_due(window: QWidget) -> list[str]:
    """The window's single-shot timers still to fire (a panel that follows typing, a hint that
    hides): what they change would look like the next click's doing."""
    return [
        timer.objectName() or type(timer.parent()).__name__
        for timer in window.findChildren(QTimer)
        if timer.isActive() and timer.isSingleShot()
    ]


def _fading(window: QWidget) -> list[QWidget]:
    """Buttons fading in or out (a line edit's clear button comes and goes with the text)."""
    return [
        button
        for button in window.findChildren(QAbstractButton)
        if isinstance(opacity := button.property("opacity"), float) and 0.0 < opacity < 1.0
    ]


async def settle(case: Case) -> None:
    """Until nothing runs, no request is in flight, no draft waits to be saved, no timer of the
    window is due and no job is followed: what happens after a click is then the click's."""
    await case.on_line.background.drafts.flush()
    await quiet()
    await until(lambda: case.window.status.activity.isHidden() and not _timers_due(case.window))
    await until(lambda: not _fading(case.window))
    assert case.on_line.background.jobs.following == 0, "a job is followed: its polls would look like effects"


def into_view(widget: QWidget) -> None:
    """Scroll every scroll area around ``widget`` to show it, as a creator scrolls to it."""
    parent = widget.parentWidget()
    while parent is not None:
        area = parent.parentWidget()
        if isinstance(area, QScrollArea) and parent is area.viewport():
            area.ensureWidgetVisible(widget, 4, 4)
        parent = parent.parentWidget()


def click_point(widget: QWidget) -> QPoint:
    if isinstance(widget, QCheckBox | QRadioButton):
        return QPoint(min(8, widget.width() // 2), widget.height() // 2)  # on its box (the whole row is not)
    return widget.rect().center()


def _cancel_button(box: QMessageBox) -> QAbstractButton:
    for button in box.buttons():
        role = box.buttonRole(button)
        if role in (QMessageBox.ButtonRole.RejectRole, QMessageBox.ButtonRole.NoRole):
            return button
    raise AssertionError(f"no Cancel or Close in {box.windowTitle()!r}: {[b.text() for b in box.buttons()]}")


async def close_windows(case: Case, before: frozenset[str]) -> None:
    """Close what the click opened, as a creator does: Cancel or Close in a message, Escape in a
    dialog or a menu, the window's close otherwise; then the main window is active again."""
    for _round in range(5):
        opened = {k: w for k, w in _windows(case.window).items() if k not in before}
        if not opened:
            break
        for window in opened.values():
            if isinstance(window, QMessageBox):
                case.qtbot.mouseClick(_cancel_button(window), Qt.MouseButton.LeftButton)
            elif isinstance(window, QMenu | QDialog):
                QTest.keyClick(window, Qt.Key.Key_Escape)
            else:
                window.close()
        await until(lambda opened=opened: not any(w.isVisible() for w in opened.values()))
    assert not set(_windows(case.window)) - before, "a window the click opened could not be closed"
    case.window.activateWindow()  # (the offscreen platform does not give it back by itself)
    await until(case.window.isActiveWindow)


async def click(case: Case, target: Target, found: Found) -> None:
    widget = found.widget
    into_view(widget)
    assert not widget.visibleRegion().isEmpty(), f"{target} is not on the screen"
    if isinstance(widget, QLabel) and found.href is not None:
        where = link_position(case.window, widget, found.href)
        if SIGNED.search(found.href):
            case.signed.add(found.href)
    else:
        where = click_point(widget)
    case.qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=where)


async def confirmation(case: Case, before: frozenset[str]) -> QMessageBox | None:
    def asked() -> QMessageBox | None:
        for key, window in _windows(case.window).items():
            if key not in before and isinstance(window, QMessageBox) and window.objectName() == "confirm":
                return window
        return None

    try:
        box: QMessageBox = await until(asked, timeout=EFFECT_WAIT)
    except AssertionError:
        return None
    return box


async def try_destructive(case: Case, target: Target, found: Found) -> None:
    """Click, see the question, answer Cancel: nothing may be written or removed."""
    pane = case.window.current_pane()
    chosen = _selection(pane)
    writes = len(case.on_line.line.sent)
    before = seen(case, found.widget)
    await click(case, target, found)
    box = await confirmation(case, before.windows)
    if box is None:
        happened = effects(case, before, seen(case, found.widget)) or ["nothing"]
        case.failures.append(f"{target} did not ask first; it {'; '.join(happened)}")
        await close_windows(case, before.windows)
        return
    question = box.text().splitlines()[0]
    case.qtbot.mouseClick(_cancel_button(box), Qt.MouseButton.LeftButton)
    await until(lambda: not box.isVisible())
    await close_windows(case, before.windows)
    await settle(case)
    written = [f"{s.method} {s.path}" for s in case.on_line.line.sent[writes:] if s.method != "GET"]
    assert not written, f"{target}: Cancel still sent {written}"
    assert chosen is not None and _selection(pane) == chosen, (
        f"{target}: after Cancel the selected item is gone"
    )
    assert _listed(pane, chosen), f"{target}: after Cancel its row left the list"
    case.log.append(f"{target}: asked “{question}”, answered Cancel, nothing removed")


async def try_one(case: Case, target: Target, found: Found) -> None:
    if DESTRUCTIVE.match(target.name) or DESTRUCTIVE.match(target.text):
        await try_destructive(case, target, found)
        return
    before = seen(case, found.widget)
    await click(case, target, found)
    try:
        said = await until(lambda: effects(case, before, seen(case, found.widget)), timeout=EFFECT_WAIT)
    except AssertionError:
        case.failures.append(f"{target} did nothing a person could notice within {EFFECT_WAIT:.0f} s")
        case.log.append(f"{target}: NOTHING")
    else:
        if not set(_windows(case.window)) - before.windows:
            await quiet()  # the whole effect, for the report (a window open may hold work open)
        after = seen(case, found.widget)
        said = effects(case, before, after) or said
        case.log.append(f"{target}: {'; '.join(said)}")
        case.failures += untrue(target, before, after)
    await close_windows(case, before.windows)


def untrue(target: Target, before: Seen, after: Seen) -> list[str]:
    """What a message of the click claims about the clipboard that did not happen."""
    wrong = []
    for message in after.messages - before.messages:
        if "clipboard" in message and after.clipboard == before.clipboard:
            wrong.append(f"{target} said “{message}”, and the clipboard did not change")
        if "clipboard" in message and "request ID" in message and "Request ID" not in after.clipboard:
            wrong.append(f"{target} said “{message}”, and no request ID is on the clipboard")
    return wrong


def _checked_choice(widget: QWidget) -> bool:
    """A chosen option of an exclusive group: clicking it again changes nothing, in any program;
    it is clicked once another option of the group was chosen."""
    if not isinstance(widget, QAbstractButton) or not widget.isCheckable() or not widget.isChecked():
        return False
    group = widget.group()
    return widget.autoExclusive() or (group is not None and group.exclusive())


Enter = Callable[["Case"], Awaitable[None]]


def areas_of(case: Case) -> dict[str, QWidget]:
    if case.title in _TITLES:
        return {case.title: case.window.pane(case.title)}
    window = case.window
    return {"Jobs": window.jobs_dock, "First steps": window.first_steps, "Window": window.banner,
            "Status bar": window.status}  # fmt: skip


async def click_everything(case: Case, situations: list[tuple[str, Enter]]) -> int:
    """In each situation, click every target found there (a target seen in an earlier situation is
    not clicked again); what a click brings (a bar, a banner's button) is found and clicked too."""
    done: set[Target] = set()
    for description, enter in situations:
        await enter(case)
        await settle(case)
        pending = [t for t in clickables(areas_of(case)) if t not in done]
        deferred: set[Target] = set()
        while pending:
            target = next((t for t in pending if not CLOSERS.match(t.name)), pending[0])
            pending.remove(target)
            found = clickables(areas_of(case)).get(target)
            if found is None:
                case.failures.append(f"{target} ({description}) was there, then gone before it was clicked")
                continue
            if _checked_choice(found.widget) and target not in deferred:
                deferred.add(target)
                pending.append(target)
                continue
            done.add(target)
            if not target.name.strip():
                case.failures.append(f"{target} ({description}) has no name a screen reader can say")
            await try_one(case, target, found)
            await settle(case)
            await enter(case)
            await settle(case)
            # what the click brought (Pause after Play, a banner's button) first, while it is fresh
            pending = [t for t in clickables(areas_of(case)) if t not in done and t not in pending] + pending
        every_window_on_screen()
    return len(done)


# --- the states each pane is put in -------------------------------------------------------------------------


async def show(case: Case) -> Any:
    """The case's pane, shown by its row in the sidebar (when it is not the current one)."""
    pane = case.window.pane(case.title)
    if case.window.current_pane() is not pane:
        click_sidebar(case.qtbot, case.window, case.title)
    return pane


async def select(case: Case, item_id: str) -> None:
    """The pane shown with the item's row clicked (read from the service first when the list has
    not loaded it, as a job card's Open does)."""
    pane = await show(case)
    assert isinstance(pane, ResourcePane)
    await until(lambda: not pane.model.loading and pane.model.rowCount() > 0)
    if _selection(pane) == item_id:
        return
    row = pane.model.row_of(item_id)
    if row < 0:
        pane.reveal(item_id)
    else:
        index = pane.proxy.mapFromSource(pane.model.index(row, 0))
        view = pane.views.view
        view.scrollTo(index)
        await until(lambda: view.visualRect(index).isValid())
        case.qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    await until(lambda: _selection(pane) == item_id)


def selecting(key: str) -> Enter:
    async def enter(case: Case) -> None:
        await select(case, case.data[key])

    return enter


async def just_shown(case: Case) -> None:
    await show(case)


async def first_row(case: Case) -> None:
    pane = await show(case)
    assert isinstance(pane, ResourcePane)
    await until(lambda: not pane.model.loading and pane.model.rowCount() > 0)
    await select(case, str(pane.model.item(0).id))


async def nothing_matches(case: Case) -> None:
    """Typed into the filter box: a text no row holds (the list says so, and offers to clear it)."""
    pane = await show(case)
    assert isinstance(pane, ResourcePane)
    if pane.filter_edit.text() != NO_SUCH:
        pane.filter_edit.clear()
        case.qtbot.mouseClick(pane.filter_edit, Qt.MouseButton.LeftButton)
        case.qtbot.keyClicks(pane.filter_edit, NO_SUCH)
    await until(pane.views.showing_empty)


NO_SUCH = "no row holds this"


async def no_episodes_yet(case: Case) -> None:
    """The episodes of a podcast that has none: the list says so and offers the next step. (The
    podcast is chosen in the filter by program: its list is a combo box's popup.)"""
    pane = await show(case)
    await pane.podcast_filter.wait_loaded()
    if pane.podcast_filter.selected_id() != case.data["empty_podcast"]:
        pane.podcast_filter.set_selected(case.data["empty_podcast"])
    await until(pane.views.showing_empty)


def figures_of(key: str) -> Enter:
    """The figures of one podcast, chosen in the pane's picker (by program: a combo box's popup)."""

    async def enter(case: Case) -> None:
        pane = await show(case)
        await pane.podcast_picker.wait_loaded()
        if pane.podcast_picker.selected_id() != case.data[key]:
            pane.podcast_picker.set_selected(case.data[key])
        await until(lambda: pane.figures is not None and pane.figures.analytics.podcast_id == case.data[key])

    return enter


async def prepare_analytics(on_line: OnLine) -> dict[str, Any]:
    """A show with published episodes, and the one whose figures the sandbox's provider is late with."""
    podcasts: list[Podcast] = await _all(on_line.session.client.podcasts.list(limit=100))
    by_title = {p.title: str(p.id) for p in podcasts}
    late = next(p["title"] for p in PODCASTS if p.get("analytics") == "degraded")
    return {"figures": by_title[PODCASTS[0]["title"]], "late": by_title[late]}


async def a_failed_read(case: Case) -> None:
    """The account read again and refused on the way (an error with a request ID to quote)."""
    pane = await show(case)
    if not pane.banner.copy_button.isVisible():
        case.on_line.line.fail_next("GET", "/v1/account", 500)
        case.qtbot.mouseClick(pane.refresh_button, Qt.MouseButton.LeftButton)
        await until(pane.banner.copy_button.isVisible)


async def _all(listing: Any) -> list[Any]:
    return [item async for item in listing]


async def eventually(read: Callable[[], Awaitable[Any]], timeout: float = 60.0) -> Any:
    """Read until the answer is truthy (the sandbox makes its demo media after it starts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = await read()
        if answer:
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {read}")


async def episode_states(on_line: OnLine) -> dict[str, Any]:
    """An episode of each state whose details differ: never rendered, rendered, published."""
    client = on_line.session.client

    async def states() -> dict[str, Any] | None:
        episodes: list[Episode] = await _all(client.episodes.list(limit=100))
        ready = [e for e in episodes if e.generation is None or e.generation.state != "generating"]
        tests: dict[str, Callable[[Episode], bool]] = {
            "unrendered": lambda e: never_rendered(e) and e.generation is not None,
            "rendered": lambda e: e.status == "draft" and not never_rendered(e),
            "published": lambda e: e.status == "published" and bool(e.audio_url),
        }
        found = {what: next((str(e.id) for e in ready if test(e)), None) for what, test in tests.items()}
        return found if all(found.values()) else None

    found: dict[str, Any] = await eventually(states)
    return found


async def prepare_episodes(on_line: OnLine) -> dict[str, Any]:
    found = await episode_states(on_line)
    empty = await new_podcast(on_line.session, f"Nothing yet {uuid.uuid4().hex[:6]}")
    return {**found, "empty_podcast": str(empty.id)}


async def prepare_podcasts(on_line: OnLine) -> dict[str, Any]:
    podcasts: list[Podcast] = await _all(on_line.session.client.podcasts.list(limit=100))
    public = next(p for p in podcasts if p.visibility == "public")
    private = next(p for p in podcasts if p.visibility == "private")
    return {"public": str(public.id), "private": str(private.id)}


def _media(collection: str) -> Callable[[OnLine], Awaitable[dict[str, Any]]]:
    async def prepare(on_line: OnLine) -> dict[str, Any]:
        items: list[MediaJob] = await _all(getattr(on_line.session.client, collection).list(limit=100))
        by_status = {}
        for item in items:
            by_status.setdefault(item.status, str(item.id))
        assert {"completed", "failed"} <= set(by_status), (
            f"the sandbox has no finished and failed {collection}"
        )
        return {"completed": by_status["completed"], "failed": by_status["failed"]}

    return prepare


async def prepare_sources(on_line: OnLine) -> dict[str, Any]:
    sources: list[Source] = await _all(on_line.session.client.sources.list(limit=100))
    web = next(
        s
        for s in sources
        if s.status == "completed" and isinstance(s.metadata, dict) and s.metadata.get("url")
    )
    failed = next(s for s in sources if s.status == "error")
    return {"web": str(web.id), "failed": str(failed.id)}


async def prepare_nothing(on_line: OnLine) -> dict[str, Any]:
    return {}


SCRIPT = """# Why rivers bend

[{first}]
Rivers bend because water is lazy.

[{second}]
Or because it is patient.

[Zed]
Who asked me?
"""


async def prepare_scripts(on_line: OnLine) -> dict[str, Any]:
    hosts = await _all(on_line.session.client.hosts.list(limit=100))
    draft = await on_line.background.drafts.create(SCRIPT.format(first=hosts[0].name, second=hosts[1].name))
    return {"draft": draft.id}


async def scripts_draft(case: Case) -> ScriptsPane:
    pane = await show(case)
    assert isinstance(pane, ScriptsPane)
    await until(lambda: pane.hosts is not None and pane.list_model.row_of(case.data["draft"]) >= 0)
    if pane.draft is None or pane.draft.id != case.data["draft"]:
        index = pane.list_model.index(pane.list_model.row_of(case.data["draft"]), 0)
        pane.list_view.scrollTo(index)
        where = pane.list_view.visualRect(index).center()
        case.qtbot.mouseClick(pane.list_view.viewport(), Qt.MouseButton.LeftButton, pos=where)
        await until(lambda: pane.draft is not None and pane.draft.id == case.data["draft"])
    return pane


def click_tab(case: Case, bar: QTabBar, text: str) -> None:
    index = next(i for i in range(bar.count()) if bar.tabText(i).startswith(text))
    if bar.currentIndex() != index:
        case.qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert bar.currentIndex() == index


def scripts_tab(view: str, side: str) -> Enter:
    async def enter(case: Case) -> None:
        pane = await scripts_draft(case)
        click_tab(case, pane.views.tabBar(), view)
        click_tab(case, pane.side.tabBar(), side)

    return enter


async def scripts_edited(case: Case) -> None:
    """A word typed at the end of the draft: Undo has something to undo."""
    await scripts_tab("Text", "Problems")(case)
    pane = case.window.pane("Scripts")
    if not pane.undo_button.isEnabled() and not pane.redo_button.isEnabled():
        pane.editor.setFocus()
        pane.editor.moveCursor(pane.editor.textCursor().MoveOperation.End)
        case.qtbot.keyClicks(pane.editor, " Indeed.")
        await until(pane.undo_button.isEnabled)


# Jobs: finished cards of each kind (an episode to play, a video to download, a failed video to
# retry, a write the service refused), the first-steps strip offered, the window on Account.


async def prepare_jobs(on_line: OnLine) -> dict[str, Any]:
    data = await episode_states(on_line)
    data.update({f"video_{k}": v for k, v in (await _media("videos")(on_line)).items()})
    return data


async def jobs_shown(case: Case) -> None:
    window, background = case.window, case.on_line.background
    if window.current_pane() is not window.pane("Account"):
        click_sidebar(case.qtbot, window, "Account")
    if not window.jobs_dock.isVisible():
        window.jobs_dock.show()
    wanted = {
        f"job:episode:{case.data['published']}": ("episode", case.data["published"], "Tides"),
        f"job:video:{case.data['video_completed']}": ("video", case.data["video_completed"], "Video"),
        f"job:video:{case.data['video_failed']}": ("video", case.data["video_failed"], "Failed video"),
    }
    for key, (kind, resource_id, title) in wanted.items():
        if window.jobs_panel.card(key) is None:
            background.jobs.track(kind, resource_id, title=title, first_poll_after=0)
    if not any(v.state == "rejected" for v in window.jobs_panel.views.values()):
        background.outbox.submit(
            "episode_generate", {"podcast_id": "no-such-podcast", "prompt": "A refused write"}
        )
    await until(lambda: all((c := window.jobs_panel.card(k)) is not None and c.view.ended for k in wanted))
    await until(lambda: any(c.view.state == "rejected" for c in window.jobs_panel.cards.values()))
    if not window.first_steps.isVisible():
        window.offer_first_steps()


@dataclass(frozen=True)
class Plan:
    prepare: Callable[[OnLine], Awaitable[dict[str, Any]]]
    situations: list[tuple[str, Enter]]


PLANS: dict[str, Plan] = {
    "Podcasts": Plan(prepare_podcasts, [("a public podcast selected", selecting("public")),
                                        ("a private podcast selected", selecting("private"))]),
    "Episodes": Plan(prepare_episodes, [
        ("a draft never rendered selected", selecting("unrendered")),
        ("a rendered draft selected", selecting("rendered")),
        ("a published episode selected", selecting("published")),
        ("the episodes of a podcast that has none", no_episodes_yet),
    ]),
    "Analytics": Plan(prepare_analytics, [("a show's figures", figures_of("figures")),
                                          ("figures the provider is late with", figures_of("late"))]),
    "Hosts": Plan(prepare_nothing, [("a host selected", first_row), ("no host matches the filter", nothing_matches)]),
    "Voices": Plan(prepare_nothing, [("a voice selected", first_row)]),
    "Sources": Plan(prepare_sources, [("a web page selected", selecting("web")),
                                      ("a source that failed selected", selecting("failed"))]),
    "Videos": Plan(_media("videos"), [("a finished video selected", selecting("completed")),
                                      ("a failed video selected", selecting("failed"))]),
    "Shorts": Plan(_media("shorts"), [("a finished short selected", selecting("completed")),
                                      ("a failed short selected", selecting("failed"))]),
    "Voiceovers": Plan(_media("voiceovers"), [("a finished voiceover selected", selecting("completed")),
                                              ("a failed voiceover selected", selecting("failed"))]),
    "Scripts": Plan(prepare_scripts, [
        ("a draft open, its problems beside it", scripts_tab("Text", "Problems")),
        ("its outline", scripts_tab("Text", "Outline")),
        ("its speakers", scripts_tab("Text", "Speakers")),
        ("its structure", scripts_tab("Structure", "Problems")),
        ("a word just typed", scripts_edited),
    ]),
    "Account": Plan(prepare_nothing, [("the account shown", just_shown),
                                      ("a read that failed, its request ID shown", a_failed_read)]),
    "Jobs": Plan(prepare_jobs, [("finished cards in the Jobs dock, the first steps offered", jobs_shown)]),
}  # fmt: skip

CASES = [*(spec.title for spec in pane_specs()), "Jobs"]


def test_every_pane_has_a_plan() -> None:
    assert set(PLANS) == set(CASES)


@pytest.mark.asyncio
@pytest.mark.parametrize("title", CASES)
async def test_every_button_and_link_does_something(
    qtbot: QtBot, on_line: OnLine, capfd: Any, title: str
) -> None:
    plan = PLANS[title]
    data = await plan.prepare(on_line)
    window = await open_main_window(qtbot, on_line)
    window.jobs_dock.show()  # as after a generation started: the pane at its narrowest
    case = Case(qtbot, on_line, window, title, data)
    started = time.monotonic()
    clicked = await click_everything(case, plan.situations)
    report = ARTIFACTS / "every-action" / f"{title}.txt"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(
        f"{clicked} targets in {time.monotonic() - started:.0f} s\n" + "\n".join(case.log) + "\n",
        encoding="utf-8",
    )
    await on_line.background.drafts.flush()
    await quiet()
    err = capfd.readouterr().err
    assert not SIGNED.search(err), "a signed address reached the terminal"
    assert not [url for url in case.signed if url in err]
    assert clicked > 0
    assert not case.failures, f"{len(case.failures)} of {clicked} failed:\n  " + "\n  ".join(case.failures)


@pytest.mark.asyncio
async def test_escape_in_the_filter_box_clears_it_as_its_clear_button_says(
    qtbot: QtBot, on_line: OnLine
) -> None:
    window = await open_main_window(qtbot, on_line)
    pane = click_sidebar(qtbot, window, "Hosts")
    assert isinstance(pane, ResourcePane)
    await until(lambda: pane.model.rowCount() > 0 and not pane.model.loading)
    qtbot.mouseClick(pane.filter_edit, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(pane.filter_edit, NO_SUCH)
    await until(pane.views.showing_empty)
    assert "Escape in the filter box clears it too" in pane.empty_state.clear_button.toolTip()
    clear = next(b for b in pane.filter_edit.findChildren(QAbstractButton) if b.isVisible())
    assert (clear.accessibleName(), clear.toolTip()) == ("Clear the filter", "Clear the filter (Escape)")
    QTest.keyClick(pane.filter_edit, Qt.Key.Key_Escape)
    assert pane.filter_edit.text() == ""
    await until(lambda: not pane.views.showing_empty())
    await quiet()
