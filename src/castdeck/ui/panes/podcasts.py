"""Podcasts: the organization's shows; details with the description rendered safely; create and edit."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QPushButton, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Podcast
from castdeck.services import catalog
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from ..dialogs.podcast_dialog import PodcastDialog
from ..pane import link_label
from ..pickers import host_feed
from ..pictured import PicturedPane
from ..resource_model import Column, format_time
from .hosts import plain_value

__all__ = ["NameBook", "PodcastsPane", "podcast_columns"]

VISIBILITY_NOTES = {
    "private": "Private: the website and RSS feed are off. Make the podcast public or unlisted to share it.",
}


class NameBook(QObject):
    """Names of related items (hosts, podcasts, sources) for details and columns, read once in the
    background and again on :meth:`reload`; ``updated`` fires when a list has arrived."""

    updated = Signal()

    def __init__(
        self,
        feeds: dict[str, Callable[[], ListFeed[Any]]],
        label: dict[str, Callable[[Any], str]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._feeds = feeds
        self._label = label
        self.items: dict[str, dict[str, Any]] = {kind: {} for kind in feeds}
        self._loading: dict[str, asyncio.Task[None]] = {}
        self.work = TaskScope(self)  # the reads must not outlive the pane that shows their names

    def load(self, kind: str) -> None:
        """Read ``kind`` unless it is read or being read."""
        if kind not in self._loading:
            self._loading[kind] = self.work.start(self._read(kind), name=f"names of {kind}")

    def reload(self) -> None:
        for kind in list(self._loading):
            task = self._loading.pop(kind)
            if not task.done():
                task.cancel()
            self.load(kind)

    async def _read(self, kind: str) -> None:
        feed = self._feeds[kind]()
        found: dict[str, Any] = {}
        with contextlib.suppress(CastdeckError):
            while feed.has_more and len(found) < 5_000:
                page = await feed.next_page()
                found.update((str(item.id), item) for item in page.items)
        if found:
            self.items[kind] = found
            self.updated.emit()

    def get(self, kind: str, item_id: Any) -> Any:
        return self.items.get(kind, {}).get(str(item_id))

    def name(self, kind: str, item_id: Any) -> str:
        item = self.get(kind, item_id)
        return self._label[kind](item) if item is not None else str(item_id)

    def names(self, kind: str, ids: list[Any] | None) -> str:
        return ", ".join(self.name(kind, i) for i in ids or [])

    async def wait(self, kind: str) -> None:
        """Until ``kind`` has been read (tests)."""
        self.load(kind)
        task = self._loading[kind]
        if not task.done():
            await asyncio.wait({task})


def _languages(podcast: Podcast) -> str:
    return ", ".join(podcast.languages or [])


def podcast_columns() -> list[Column]:
    return [
        Column("Title", lambda p: p.title or p.id),
        Column("Visibility", lambda p: (p.visibility or "").capitalize()),
        Column(
            "Episodes",
            lambda p: p.episode_count,
            sort_key=lambda p: p.episode_count if isinstance(p.episode_count, int) else -1,
            align_right=True,
        ),
        Column("Language", _languages),
        Column("Order", lambda p: (p.episode_order or "").capitalize()),
        Column("Updated", lambda p: format_time(p.updated_at), sort_key=lambda p: p.updated_at or ""),
    ]


class PodcastsPane(PicturedPane):
    title = "Podcasts"
    kind = "podcast"
    new_label = "New podcast"
    openRequested = Signal(str, str)  # ("podcast_analytics", id): the Analytics button

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.setup_pictures()
        self.dialog: PodcastDialog | None = None
        for label in (self.details.heading, self.details.note, self.banner.label):
            label.setTextFormat(Qt.TextFormat.PlainText)  # they show service text (titles, errors)
        self.names = NameBook({"host": lambda: host_feed(session)}, {"host": lambda h: h.name or h.id}, self)
        self.names.updated.connect(self._names_arrived)
        self.edit_button = QPushButton("Edit…", self)
        self.edit_button.setAccessibleName("Edit podcast")
        self.edit_button.setToolTip("Change the title, description, language, visibility or hosts")
        self.edit_button.clicked.connect(self.edit_current)
        self.writes(self.edit_button)
        self.edit_button.hide()
        self.analytics_button = QPushButton("Analytics", self)
        self.analytics_button.setAccessibleName("Podcast analytics")
        self.analytics_button.setToolTip("How this podcast and its episodes are doing")
        self.analytics_button.clicked.connect(self._show_analytics)
        self.analytics_button.hide()

    # --- ResourcePane --------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        return podcast_columns()

    def open_list(self) -> ListFeed[Podcast]:
        return catalog.podcasts(self.session, self.page_size)

    def reload(self) -> None:
        super().reload()
        self.names.reload()
        self.names.load("host")

    async def fetch_item(self, item: Podcast) -> Podcast:
        return await catalog.podcast(self.session, item.id)

    async def read_item(self, podcast_id: str) -> Podcast:
        return await catalog.podcast(self.session, podcast_id)

    def card_subtitle(self, item: Podcast) -> str:
        count = item.episode_count
        episodes = "" if count is None else f"{count:,} episode{'' if count == 1 else 's'}"
        visibility = (item.visibility or "").capitalize()
        return " · ".join(part for part in (visibility, episodes) if part)

    def show_item(self, item: Podcast) -> None:
        self.names.load("host")
        public = item.visibility in ("public", "unlisted")
        count = item.episode_count
        rows: list[tuple[str, Any]] = [
            ("Visibility", plain_value((item.visibility or "—").capitalize())),
            ("Episodes", "—" if count is None else f"{count:,}"),
            ("Language", plain_value(_languages(item))),
            ("Episode order", plain_value((item.episode_order or "—").capitalize())),
            ("Hosts", plain_value(self.names.names("host", item.host_ids))),
            ("Website", link_label(item.url, "Open the podcast's website") if item.url else "—"),
            ("RSS feed", link_label(item.rss_feed_url, "Open the RSS feed") if item.rss_feed_url else "—"),
            ("Created", format_time(item.created_at)),
            ("Updated", format_time(item.updated_at)),
            ("Podcast ID", plain_value(item.id)),
        ]
        note = None if public else VISIBILITY_NOTES.get(item.visibility or "")
        self.show_cover(item)
        self.details.show_facts(item.title or item.id, rows, text=item.description or "", note=note)
        self.details.set_actions([self.edit_button, self.analytics_button])

    def new_item(self) -> None:
        self.dialog = self.open_dialog(PodcastDialog(self.session, parent=self), self._saved)

    # --- actions -------------------------------------------------------------------------------------------

    def edit_current(self) -> None:
        if isinstance(self.current, Podcast):
            self.dialog = self.open_dialog(
                PodcastDialog(self.session, self.current, parent=self), self._saved
            )

    def _show_analytics(self) -> None:
        if isinstance(self.current, Podcast):
            self.openRequested.emit("podcast_analytics", str(self.current.id))

    def _saved(self, dialog: PodcastDialog) -> None:
        if isinstance(dialog.result_value, Podcast):
            self.item_changed(dialog.result_value)
            verb = "Saved" if dialog.podcast is not None else "Created"
            self.banner.show_message(f"{verb} the podcast “{dialog.result_value.title}”.", kind="info")

    def _names_arrived(self) -> None:
        if isinstance(self.current, Podcast):
            self.show_item(self.current)
