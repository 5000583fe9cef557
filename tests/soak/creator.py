"""The soak's hands: what a creator does with the real window, as small awaitable moves.

Clicks are real mouse clicks (``QTest.mouseClick``) on visible, enabled widgets; text is typed key
by key (``QTest.keyClicks``) into the focused field; dialogs are the app's own, opened by its own
buttons and accepted with their own buttons. Every wait is on something the app shows or stores
(a dialog closing, a row appearing, a state changing), with a generous timeout, never on time.

What a creator asked the service to start (generations) or to receive (uploaded files) is counted
here, on the driver's side, as the app takes it on; the service's own count comes from its database.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QDialog, QWidget

from castdeck.app import CastdeckApp
from castdeck.services.background import Background
from castdeck.services.session import ConnectionState, Session
from castdeck.ui.forms import FormDialog
from castdeck.ui.main_window import MainWindow
from castdeck.ui.widgets import alive
from tests.soak.service import Service

__all__ = ["Ask", "Creator", "NotOnline", "StepFailed", "until"]

D = TypeVar("D", bound=QDialog)

WAIT = 90.0
"""Seconds any single wait may take before the step counts as failed (the machine may be loaded)."""


class StepFailed(AssertionError):
    """The app did not do what the step expected within the wait."""


class NotOnline(Exception):
    """The app left the online state during the step, and the control the step needed says so
    (disabled, its tooltip giving the reason), as it should: the step ends there, not failed."""


async def until(predicate: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Until ``predicate()`` is truthy (the loop runs meanwhile: Qt events, requests); returns it."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise StepFailed(f"{what}: not within {timeout:.0f} s")
        await asyncio.sleep(0.02)


async def taken_up_again(queue: Any, failed: list[Any]) -> None:
    """After "Retry failed": until each of ``failed`` has been taken up again. One that fails again
    at once (a fifth of the requests fail) is failed with a newer change: taken up all the same,
    and the creator's next look retries it again. Waiting for "not failed" alone missed those."""
    before = {item.id: item.updated_at for item in failed}
    await until(
        lambda: all(
            (now := queue.item(item_id)) is None or now.state != "failed" or now.updated_at > changed
            for item_id, changed in before.items()
        ),
        "the failed uploads taken up again",
    )


@dataclass
class Ask:
    """One generation the creator asked for and the app took on."""

    kind: str  # episode_generate, episode_import, media_create
    token: str
    step: str
    how: str  # what the app said: accepted, following (409), kept (no answer yet), queued (Scripts)


@dataclass
class Creator:
    app: CastdeckApp
    service: Service
    rng: random.Random
    files: Path
    run_tag: str
    asks: list[Ask] = field(default_factory=list)
    uploads: list[str] = field(default_factory=list)
    """File names the app queued for upload (not refused locally)."""
    refused_locally: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    """Generations the service refused (4xx): not asked twice, reported."""
    upload_retries: int = 0
    upload_failures: dict[str, int] = field(default_factory=dict)
    """Why uploads stopped as failed (the row's message, its first words), and how often."""
    """Times the creator pressed "Retry failed" in the upload queue."""
    step: str = "start"
    notes: list[str] = field(default_factory=list)
    """Failures the app showed the creator, who tried again (an error banner instead of a dialog)."""
    _tokens: int = 0

    # --- the app's parts -----------------------------------------------------------------------------------

    @property
    def window(self) -> MainWindow:
        assert self.app.window is not None
        return self.app.window

    @property
    def session(self) -> Session:
        assert self.app.session is not None
        return self.app.session

    @property
    def background(self) -> Background:
        assert self.app.background is not None
        return self.app.background

    def token(self, what: str) -> str:
        """A word no other request of the run holds: it finds the request at the service."""
        self._tokens += 1
        return f"soak{self.run_tag}{what}{self._tokens:04d}"

    def watch_uploads(self) -> None:
        def changed(item: Any) -> None:
            if item.state == "failed":
                reason = " ".join(str(item.error or "").split()[:18])
                self.upload_failures[reason] = self.upload_failures.get(reason, 0) + 1

        self.background.uploads.itemChanged.connect(changed)

    def asked(self, kind: str, token: str, how: str) -> None:
        self.asks.append(Ask(kind, token, self.step, how))

    @property
    def online(self) -> bool:
        return self.session.state is ConnectionState.ONLINE

    # --- moves ---------------------------------------------------------------------------------------------

    def click(self, widget: QAbstractButton | QWidget, pos: QPoint | None = None) -> None:
        name = widget.accessibleName() or widget.objectName() or str(widget)
        reason = self.session.write_block_reason
        if (
            widget.isVisible()
            and not widget.isEnabled()
            and reason is not None
            and widget.toolTip() == reason
        ):
            raise NotOnline(f"{name} is disabled: {reason}")
        if not widget.isVisible() or not widget.isEnabled():
            raise StepFailed(f"{name} cannot be clicked")
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos or QPoint())

    async def type(self, widget: QWidget, text: str) -> None:
        """Type ``text`` key by key; the loop turns between keys, as it does between a person's."""
        widget.setFocus()
        for char in text:
            if char == "\n":
                QTest.keyClick(widget, Qt.Key.Key_Return)
            else:
                QTest.keyClicks(widget, char)
            await asyncio.sleep(0)

    async def show_pane(self, title: str) -> Any:
        """Click the pane's entry in the navigation sidebar; the pane once it has been shown."""
        sidebar = self.window.sidebar
        row = next(r for r in range(sidebar.count()) if sidebar.item(r).text() == title)
        rect = sidebar.visualItemRect(sidebar.item(row))
        self.click(sidebar.viewport(), rect.center())
        pane = await until(
            lambda: self.window.current_pane() if sidebar.currentRow() == row else None, f"the {title} pane"
        )
        await until(lambda: getattr(pane, "_activated", True), f"the {title} pane activated")
        return pane

    async def loaded(self, pane: Any) -> None:
        """The pane's list has read its first page (or shows the cached one)."""
        model = getattr(pane, "model", None)
        if model is not None and hasattr(model, "loading"):
            await until(lambda: not model.loading, f"{pane.title} list loaded")

    async def open_dialog(self, owner: Any, button: QWidget, kind: type[D], what: str) -> D:
        """Click ``button``; the new dialog of ``kind`` that ``owner`` opens (and keeps as
        ``owner.dialog``) once it is shown. When the owner says instead, in its error banner, that
        the dialog could not be opened (what it reads first failed), dismiss that and click again,
        as a creator would, up to three times."""
        banner = getattr(owner, "banner", None)
        for _ in range(3):
            before = getattr(owner, "dialog", None)
            if banner is not None and banner.isVisible() and banner.kind == "error":
                self.click(banner.close_button)
            self.click(button)

            def shown(before: Any = before) -> D | str | None:
                dialog = owner.dialog
                if dialog is not before and isinstance(dialog, kind) and alive(dialog) and dialog.isVisible():
                    return dialog
                if banner is not None and banner.isVisible() and banner.kind == "error":
                    return "error"
                return None

            found = await until(shown, what)
            if not isinstance(found, str):
                return found
            shown = banner.text.splitlines()[0][:100] if banner is not None and banner.text else ""
            self.notes.append(f"{self.step}: {shown}")
        raise StepFailed(f"{what}: the pane said {banner.text if banner is not None else ''!r} three times")

    async def submit(self, dialog: FormDialog, *, attempts: int = 3) -> bool:
        """Press the dialog's submit button until the service takes it (True) or, after a failure that
        is shown in the dialog, ``attempts`` times; then Cancel (False). Offline: Cancel at once."""
        for _ in range(attempts):
            if not dialog.submit_button.isEnabled():
                break
            self.click(dialog.submit_button)
            await dialog.wait_sent()
            if dialog.result() == QDialog.DialogCode.Accepted and not dialog.isVisible():
                return True
        await self.cancel(dialog)
        return False

    async def cancel(self, dialog: QDialog) -> None:
        if dialog.isVisible():
            dialog.reject()
        await until(lambda: not dialog.isVisible(), "the dialog closed")

    async def select_row(self, pane: Any, accept: Callable[[Any], bool]) -> Any | None:
        """Click a row whose item ``accept`` takes (chosen at random); its details once shown."""
        rows = [r for r in range(pane.proxy.rowCount()) if accept(pane.model.item(self._source_row(pane, r)))]
        if not rows:
            return None
        row = self.rng.choice(rows)
        index = pane.proxy.index(row, 0)
        pane.table.scrollTo(index)
        self.click(pane.table.viewport(), pane.table.visualRect(index).center())
        item = pane.model.item(self._source_row(pane, row))
        await until(
            lambda: pane.current is not None and str(pane.current.id) == str(item.id), "the row selected"
        )
        return pane.current

    @staticmethod
    def _source_row(pane: Any, row: int) -> int:
        return int(pane.proxy.mapToSource(pane.proxy.index(row, 0)).row())
