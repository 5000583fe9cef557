"""Pickers for dialogs: choose hosts, sources or podcasts from the organization's lists.

``CheckPicker`` is a checkable list filled from a :class:`ListFeed` (every page is read), keeping
the order in which the user ticked items (the service takes voiceover sources in presentation
order). ``ComboPicker`` picks one. Both emit ``changed`` and tell when loading failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.api.models import Host, Podcast, Source
from castdeck.services import catalog
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from .palette import tone

__all__ = [
    "CheckPicker",
    "ComboPicker",
    "host_feed",
    "host_label",
    "podcast_feed",
    "source_feed",
    "source_label",
]

ID_ROLE = Qt.ItemDataRole.UserRole


def host_feed(session: Session) -> ListFeed[Host]:
    return catalog.hosts(session)


def podcast_feed(session: Session) -> ListFeed[Podcast]:
    return catalog.podcasts(session)


def source_feed(session: Session) -> ListFeed[Source]:
    return catalog.sources(session)


def host_label(host: Host) -> str:
    voice = host.voice
    extra = f" — {voice.description}" if voice is not None and voice.description else ""
    return f"{host.name or host.id}{extra}"


def source_label(source: Source) -> str:
    status = f" [{source.status}]" if source.status and source.status != "completed" else ""
    return f"{source.title or source.id} ({source.type or 'source'}){status}"


async def _read_all(feed: ListFeed[Any], limit: int = 2_000) -> tuple[list[Any], bool]:
    items: list[Any] = []
    offline = False
    while feed.has_more and len(items) < limit:
        page = await feed.next_page()
        items.extend(page.items)
        offline = offline or page.offline
    return items, offline


async def _read_through(loading: Callable[[], asyncio.Task[None]]) -> None:
    """Until a picker's list is read: a reload meanwhile replaces the read waited for, and the wait
    goes on to the new one."""
    while not (read := loading()).done():
        await asyncio.wait({read})


class CheckPicker(QWidget):
    """Tick any number of items (``maximum`` caps it); ``selected_ids()`` in the order ticked."""

    changed = Signal()
    loaded = Signal()

    def __init__(
        self,
        feed: ListFeed[Any],
        label: Callable[[Any], str],
        *,
        accepts: Callable[[Any], bool] | None = None,
        maximum: int | None = None,
        name: str = "items",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._label = label
        self._accepts = accepts
        self._name = name
        self.maximum = maximum
        self._order: list[str] = []
        self._wanted: list[str] = []
        self.items: dict[str, Any] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(f"Search {name}")
        self.search.setAccessibleName(f"Search {name}")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.list = QListWidget(self)
        self.list.setAccessibleName(name.capitalize())
        self.list.setMinimumHeight(110)
        self.list.itemChanged.connect(self._item_changed)
        self.status = QLabel("Loading…", self)
        self.status.setWordWrap(True)  # a reason the list could not be read is a sentence or two
        self.status.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        self.work = TaskScope(self)
        self.loading: asyncio.Task[None] = self.work.start(self._load(feed), name=f"load {name}")

    async def _load(self, feed: ListFeed[Any]) -> None:
        try:
            items, offline = await _read_all(feed)
        except CastdeckError as error:
            self._unreadable(f"Could not load the {self._name}: {error}")
            return
        self.list.blockSignals(True)
        for item in items:
            key = str(item.id)
            self.items[key] = item
            row = QListWidgetItem(self._label(item))
            row.setData(ID_ROLE, key)
            allowed = self._accepts is None or self._accepts(item)
            flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
            if allowed:
                flags |= Qt.ItemFlag.ItemIsEnabled
            row.setFlags(flags)
            row.setCheckState(Qt.CheckState.Checked if key in self._wanted else Qt.CheckState.Unchecked)
            self.list.addItem(row)
        self.list.blockSignals(False)
        self._order = [key for key in self._wanted if key in self.items]
        if not items and offline:  # the service unreachable, and no copy kept from an earlier read
            self._unreadable(
                f"Could not load the {self._name}: the service cannot be reached and none were kept "
                "from an earlier visit. Try again once online."
            )
        else:
            self._update_status(offline)
        self.loaded.emit()
        self.changed.emit()

    async def wait_loaded(self) -> None:
        await _read_through(lambda: self.loading)

    def _unreadable(self, text: str) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {tone('problem')};")

    def _update_status(self, offline: bool = False) -> None:
        cap = f" of at most {self.maximum}" if self.maximum else ""
        note = " (cached, offline)" if offline else ""
        self.status.setText(f"{len(self._order)} selected{cap}{note}")
        over = self.maximum is not None and len(self._order) > self.maximum
        self.status.setStyleSheet(f"color: {tone('problem')};" if over else "color: palette(mid);")

    def _item_changed(self, row: QListWidgetItem) -> None:
        key = row.data(ID_ROLE)
        if row.checkState() == Qt.CheckState.Checked and key not in self._order:
            self._order.append(key)
        elif row.checkState() != Qt.CheckState.Checked and key in self._order:
            self._order.remove(key)
        self._update_status()
        self.changed.emit()

    def _filter(self, text: str) -> None:
        needle = text.casefold()
        for i in range(self.list.count()):
            row = self.list.item(i)
            row.setHidden(bool(needle) and needle not in row.text().casefold())

    def selected_ids(self) -> list[str]:
        return list(self._order)

    def set_selected(self, ids: list[str]) -> None:
        self._wanted = [str(i) for i in ids]
        if not self.items:
            return
        self.list.blockSignals(True)
        for i in range(self.list.count()):
            row = self.list.item(i)
            row.setCheckState(
                Qt.CheckState.Checked if row.data(ID_ROLE) in self._wanted else Qt.CheckState.Unchecked
            )
        self.list.blockSignals(False)
        self._order = [key for key in self._wanted if key in self.items]
        self._update_status()
        self.changed.emit()

    def reload(self, feed: ListFeed[Any]) -> None:
        """Read the list again (it could not be read, or items were created since); what is ticked
        stays ticked where it is still listed."""
        self._wanted = self.selected_ids() or self._wanted
        if not self.loading.done():
            self.loading.cancel()
        self.list.blockSignals(True)
        self.list.clear()
        self.list.blockSignals(False)
        self.items = {}
        self.status.setText("Loading…")
        self.status.setStyleSheet("color: palette(mid);")
        self.loading = self.work.start(self._load(feed), name="reload picker")

    def check(self, item_id: str, checked: bool = True) -> None:
        """Tick or untick one item as the user would (tests)."""
        for i in range(self.list.count()):
            row = self.list.item(i)
            if row.data(ID_ROLE) == str(item_id):
                row.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                return
        raise KeyError(item_id)


class ComboPicker(QComboBox):
    """Pick one item (or none, when ``none_label`` is given)."""

    changed = Signal()
    loaded = Signal()

    def __init__(self, feed: ListFeed[Any], label: Callable[[Any], str], *, none_label: str | None = None,
                 name: str = "item", parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setAccessibleName(name.capitalize())
        self._label = label
        self._none_label = none_label
        self._wanted: str | None = None
        self.items: dict[str, Any] = {}
        self.addItem("Loading…", None)
        self.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.work = TaskScope(self)
        self.loading: asyncio.Task[None] = self.work.start(self._load(feed), name=f"load {name}")

    async def _load(self, feed: ListFeed[Any]) -> None:
        try:
            items, _offline = await _read_all(feed)
        except CastdeckError as error:
            self.setItemText(0, f"Could not load: {error}")
            return
        self.blockSignals(True)
        self.clear()
        if self._none_label is not None:
            self.addItem(self._none_label, None)
        for item in items:
            self.items[str(item.id)] = item
            self.addItem(self._label(item), str(item.id))
        if self._wanted is not None:
            self.setCurrentIndex(max(self.findData(self._wanted), 0))
        self.blockSignals(False)
        self.loaded.emit()
        self.changed.emit()

    async def wait_loaded(self) -> None:
        await _read_through(lambda: self.loading)

    def selected_id(self) -> str | None:
        value = self.currentData()
        return str(value) if value else None

    def set_selected(self, item_id: str | None) -> None:
        self._wanted = item_id
        if self.items:
            self.setCurrentIndex(max(self.findData(item_id), 0))

    def reload(self, feed: ListFeed[Any], *, select: str | None = None) -> None:
        """Read the list again (items created since it was read), then choose ``select`` (or keep
        the current choice)."""
        self._wanted = select if select is not None else self.selected_id()
        if not self.loading.done():
            self.loading.cancel()
        self.loading = self.work.start(self._load(feed), name="reload picker")
