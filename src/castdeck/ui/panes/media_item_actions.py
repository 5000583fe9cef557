"""A media item's actions in its pane's details: Retry, Download, Open in studio and Refresh status.

Retry (a failed or idle job, after a confirmation) starts a new attempt under the same id; the
client sends a new idempotency key each time. Download asks the service where the file is and
saves it where the creator says; Refresh status asks the service once. What Download and a
status check said stays in the pane (its ``deliveries`` and ``status_notes``), shown in the
details until the item changes state; this builds the buttons and does what they ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPushButton

from castdeck.api.models import MediaJob
from castdeck.services.media_actions import RETRYABLE, DownloadCheck, StatusCheck

from ..widgets import ask, open_web_link

if TYPE_CHECKING:
    from .media import MediaPane

__all__ = ["ItemButtons", "MediaItemActions"]


class ItemButtons(NamedTuple):
    retry: QPushButton | None  # a failed or idle job only
    download: QPushButton
    studio: QPushButton
    status: QPushButton


class MediaItemActions(QObject):
    """The actions of the item shown in one media pane."""

    def __init__(self, pane: MediaPane) -> None:
        super().__init__(pane)
        self.pane = pane

    def buttons(self, item: MediaJob) -> ItemButtons:
        pane = self.pane
        noun = pane.info.noun
        key = str(item.id)
        retry = None
        if (item.status or "").lower() in RETRYABLE:
            retry = QPushButton("Retry", pane)
            retry.setAccessibleName(f"Retry {noun}")
            retry.setToolTip(f"Start a new attempt of this {noun} (same id)")
            retry.clicked.connect(lambda: pane.run(self._retry(key), f"Could not retry the {noun}"))
            pane.writes(retry)
        download = QPushButton("Download", pane)
        download.setAccessibleName(f"Download {noun}")
        download.setToolTip(f"Ask the service where the {noun} file can be downloaded")
        download.clicked.connect(lambda: self.start_download(key))
        studio = QPushButton("Open in studio", pane)
        studio.setAccessibleName(f"Open {noun} in the studio")
        studio.setToolTip(item.studio_url or "The service gave no studio address")
        studio.setEnabled(bool(item.studio_url))
        studio.clicked.connect(lambda: open_web_link(item.studio_url or "", pane))
        status = QPushButton("Refresh status", pane)
        status.setAccessibleName(f"Refresh {noun} status")
        status.setToolTip("Ask the service for the current status once")
        status.clicked.connect(lambda: pane.run(self._check_status(key), f"Could not read the {noun} status"))
        return ItemButtons(retry, download, studio, status)

    async def _retry(self, key: str) -> None:
        pane = self.pane
        item = pane.item_of(key)
        if item is None:
            return
        noun = pane.info.noun
        confirmed = await ask(
            pane, f"Retry {noun}",
            f"Start a new attempt of “{pane.title_of(item)}”? It keeps its id and holds credits again "
            "while it generates.",
            "Retry", destructive=False,
        )  # fmt: skip
        if not confirmed:
            return
        outcome = await pane.media_actions.retry(key)
        pane.deliveries.pop(key, None)  # what Download said belongs to the earlier attempt
        pane.status_notes[key] = outcome.note
        if outcome.item is None:
            pane.reshow(key)
        else:
            pane.item_changed(outcome.item, select=False)

    def start_download(self, key: str) -> None:
        self.pane.run(self._download(key), f"Could not check the {self.pane.info.noun} download")

    async def _download(self, key: str) -> DownloadCheck:
        pane = self.pane
        checked = await pane.media_actions.download(key, pane.item_of(key))
        if checked.status is not None:
            self._status_read(key, checked.status)  # the list still showed an older state
        state = checked.state
        pane.deliveries[key] = state
        if state.saveable and state.url:
            item = pane.item_of(key)
            title = item.title if item is not None and item.title else f"{pane.info.noun} {key}"
            pane.saver.ask(title, state.url, ".mp4")  # saved where the creator says, in the app
        pane.reshow(key)
        return checked

    async def _check_status(self, key: str) -> None:
        self._status_read(key, await self.pane.media_actions.check_status(key))

    def _status_read(self, key: str, check: StatusCheck) -> None:
        """Show what a status check found: its note, and the item in the state it read."""
        pane = self.pane
        pane.status_notes[key] = check.note
        item = pane.item_of(key)
        if item is None:
            return
        if check.changes(item):
            pane.deliveries.pop(key, None)  # what Download said belongs to the earlier state
        pane.item_changed(check.applied_to(item), select=False)
