"""``ResourcePane``: a list of one resource beside the details of the selected row.

The pane owns a :class:`ResourceTableModel` (lazy pages), a proxy that sorts and filters it, a
filter box (Ctrl+F), server-side filter controls where a subclass adds them, a "New" action
(Ctrl+N), refresh (F5), an error banner, and an offline banner when it shows cached data. Write
actions registered with :meth:`ResourcePane.writes` are disabled with the reason while the service
cannot be reached or refuses the key.

Panes with ``cards`` also show their rows as cards with pictures (Table/Cards in the header,
Ctrl+Shift+V); panes with ``has_pictures`` show a small picture in the table's first column. Pictures
come from the hooks :meth:`ResourcePane.picture`, :meth:`~ResourcePane.picture_text`,
:meth:`~ResourcePane.card_title` and :meth:`~ResourcePane.card_subtitle`; a subclass calls
:meth:`~ResourcePane.pictures_changed` when pictures arrive. An empty list shows what the pane is for
and the next step (see :mod:`castdeck.ui.pane_views`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QItemSelection, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from castdeck.api.errors import CastdeckError
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session
from castdeck.services.tasks import TaskScope

from .accessible import name_grips, shows_value
from .cells import shown_count
from .column_fit import ColumnFit
from .cover_delegate import Tiles
from .details_panel import DetailsPanel, link_label
from .empty_state import EmptyState
from .pane_views import CARD_KINDS, PICTURE_KINDS, PaneViews
from .resource_model import Column, ResourceFilterProxy, ResourceTableModel
from .scroll import details_scroll
from .splitters import keep_sizes
from .widgets import Banner, alive, heading_label, name_clear_button, rows_stay_put

if TYPE_CHECKING:
    from .card_view import CardView

__all__ = ["DetailsPanel", "ResourcePane", "link_label"]

D = TypeVar("D", bound=QDialog)


class ResourcePane(QWidget):
    """Subclasses set ``title``, ``kind`` and ``new_label`` and implement :meth:`columns`,
    :meth:`open_list` and :meth:`show_item`; :meth:`new_item` when they can create."""

    title = ""
    kind = ""
    STRETCH_COLUMN = 0
    """The column that takes the width left (the title); lesser columns give way to keep it readable."""
    new_label: str | None = None
    dialog: Any = None
    """The dialog the pane opened last (see :meth:`open_dialog`)."""
    page_size = 100
    """Rows per request (the service allows 1..100); tests lower it to exercise paging."""
    cards = False
    """The pane offers a card view beside its table (also when its ``kind`` is in ``CARD_KINDS``)."""
    has_pictures = False
    """The table shows each row's picture before the first column's text (also for ``PICTURE_KINDS``)."""
    many = False
    """Several rows can be selected at once (Ctrl+click, Shift+click, Ctrl+A); the pane then shows
    them together (:meth:`show_many`) instead of one row's details."""
    selectionChangedItem = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.work = TaskScope(self)
        """The pane's own work (reads, actions): ended when the pane closes (:func:`close_owned`)."""
        self.session = session
        self.tiles = Tiles(session.runtime.pictures_memory, self)
        """The placeholder and row-sized tiles its table and cards draw (:class:`PictureSource`)."""
        self.setAccessibleName(self.title)
        self._write_controls: list[QWidget] = []
        self._activated = False
        self.current: Any = None
        self._detail_task: asyncio.Task[None] | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 4)
        header = self.header_row = QHBoxLayout()  # panes add their own buttons to it
        header.addWidget(heading_label(self.title, self))
        header.addSpacing(12)
        self.filters = QHBoxLayout()
        header.addLayout(self.filters)
        header.addStretch(1)
        self.cards = bool(self.cards or self.kind in CARD_KINDS)
        self.has_pictures = bool(self.has_pictures or self.kind in PICTURE_KINDS)
        view_switch_at = header.count()
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter (Ctrl+F)")
        self.filter_edit.setAccessibleName(f"Filter {self.title}")
        name_clear_button(self.filter_edit, "Clear the filter", "Clear the filter (Escape)")
        clear_filter = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.filter_edit)
        clear_filter.setContext(Qt.ShortcutContext.WidgetShortcut)  # Escape in the box, as its ✕ says
        clear_filter.activated.connect(self.filter_edit.clear)
        self.filter_edit.setMaximumWidth(260)
        header.addWidget(self.filter_edit)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setAccessibleName(f"Refresh {self.title}")
        self.refresh_button.setToolTip("Reload from the service (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        header.addWidget(self.refresh_button)
        self.new_button: QPushButton | None = None
        self.dialog: QDialog | None = None
        """The dialog opened last (``open_dialog``)."""
        if self.new_label:
            self.new_button = QPushButton(self.new_label, self)
            self.new_button.setAccessibleName(self.new_label)
            self.new_button.setToolTip(f"{self.new_label} (Ctrl+N)")
            self.new_button.clicked.connect(self.new_item)
            header.addWidget(self.new_button)
            self.writes(self.new_button)
        outer.addLayout(header)

        self.banner = Banner(self)
        outer.addWidget(self.banner)
        self.offline_banner = Banner(self)
        self.offline_banner.close_button.hide()
        outer.addWidget(self.offline_banner)
        self.extra_top = QVBoxLayout()
        outer.addLayout(self.extra_top)

        self.model = ResourceTableModel(self.columns(), self)
        self.proxy = ResourceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.table = QTableView(self.splitter)
        self.table.setModel(self.proxy)
        self.table.setAccessibleName(f"{self.title} list")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(
            QAbstractItemView.SelectionMode.ExtendedSelection
            if self.many
            else QAbstractItemView.SelectionMode.SingleSelection
        )
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setHighlightSections(False)
        self.table.setWordWrap(False)
        rows_stay_put(self.table.viewport())  # the upload queue or a banner coming paints no row again
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.column_fit = ColumnFit(
            self.table, title=self.STRETCH_COLUMN, keep=(0,) if self.STRETCH_COLUMN else ()
        )
        """The title column keeps a readable width; lesser columns give way first (the header's
        context menu brings them back)."""
        self.views = PaneViews(self, self.table, cards=self.cards, pictures=self.has_pictures)
        """The table, the cards and the empty state in one stack, and the switch between them."""
        self.view_stack = self.views.stack
        self.empty_state: EmptyState = self.views.empty
        self.writes(self.empty_state.button)
        if self.views.switch is not None:
            header.insertWidget(view_switch_at, self.views.switch)
            header.insertSpacing(view_switch_at + 1, 6)
        self.details_scroll = details_scroll(self.splitter)
        self.details = DetailsPanel()
        self.details_scroll.setWidget(self.details)
        self.splitter.addWidget(self.view_stack)
        self.splitter.addWidget(self.details_scroll)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([620, 420])
        name_grips(self.splitter, "Divider between the list and the details")
        outer.addWidget(self.splitter, 1)
        self.status = QLabel(self)
        shows_value(self.status, f"{self.title} list status")
        self.status.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.status)

        self.model.loadFailed.connect(
            lambda error: self.banner.show_error(error, f"Could not load {self.title.lower()}")
        )
        self.model.offlineChanged.connect(self._offline_changed)
        self.model.pageLoaded.connect(self._update_status)
        self.model.loadingChanged.connect(self._update_status)
        # a row added or removed outside a page (a generation started, an item deleted, a job's
        # end): the count follows at once ("14 shown" beside 16 rows until Refresh, before)
        self.model.rowsInserted.connect(self._update_status)
        self.model.rowsRemoved.connect(self._update_status)
        self.model.rowsInserted.connect(self._first_rows)
        self._sized = False
        self._reselect: str | None = None
        self.model.modelReset.connect(self._cleared)
        session.stateChanged.connect(self._state_changed)
        session.reconnected.connect(self._reconnected)
        self._state_changed()
        self.views.restore()

    # --- for subclasses ------------------------------------------------------------------------------------

    def columns(self) -> list[Column]:
        raise NotImplementedError

    def open_list(self) -> ListFeed[Any]:
        raise NotImplementedError

    def show_item(self, item: Any) -> None:
        """Fill the details panel for ``item`` (called for the list row, then for the fresh copy)."""
        raise NotImplementedError

    async def fetch_item(self, item: Any) -> Any:
        """The fresh copy of ``item`` (by default, the list row itself)."""
        return item

    def new_item(self) -> None:
        """Ctrl+N and the New button: open the create dialog (panes with ``new_label`` override this)."""

    def can_create(self) -> bool:
        """Whether the pane has a New button (Ctrl+N is disabled on the others)."""
        return self.new_button is not None

    def first_step(self) -> None:
        """The empty list's button: New by default; a kind with a better first step overrides it."""
        self.new_item()

    def filter_values(self) -> dict[str, str | None]:
        """The filters the service applies to the list (a podcast, a status); none by default."""
        return {}

    def server_filters_active(self) -> bool:
        """Whether filters the service applies narrow the list: an empty list then says so."""
        return any(self.filter_values().values())

    # --- pictures (cards and the table's first column) -----------------------------------------------------

    def picture(self, item: Any, size: QSize) -> QPixmap | None:
        """The item's picture scaled to ``size`` (device-independent pixels; for sharp pictures on
        high-density screens, a pixmap of ``size`` times the ratio with ``setDevicePixelRatio``), or
        ``None`` while it loads or when there is none: a placeholder tile is drawn then. Called on
        every paint of the item: return a kept pixmap, never load or scale here."""
        return None

    def picture_text(self, item: Any) -> str:
        """The text alternative of the item's picture (the card's accessible description)."""
        return f"Cover of {self.card_title(item)}"

    def card_title(self, item: Any) -> str:
        return str(getattr(item, "title", None) or getattr(item, "name", None) or "(untitled)")

    def card_subtitle(self, item: Any) -> str:
        return ""

    def pictures_changed(self, shows: Callable[[Any], bool] | None = None) -> None:
        """Pictures arrived: repaint the items in view whose picture changed (``shows(item)``
        holds; every item in view when None), nothing more."""
        self.views.repaint_pictures(shows)

    # --- table and cards -----------------------------------------------------------------------------------

    @property
    def view_mode(self) -> str:
        """``"table"`` or ``"cards"``: the view the user chose."""
        return self.views.mode

    @property
    def cards_view(self) -> CardView | None:
        """The card view, once it was first shown (``None`` before, and in panes without cards)."""
        return self.views.cards_view

    @property
    def table_button(self) -> QToolButton | None:
        """The header's "Table" switch (``None`` in panes without cards)."""
        return self.views.table_button

    @property
    def cards_button(self) -> QToolButton | None:
        """The header's "Cards" switch (``None`` in panes without cards)."""
        return self.views.cards_button

    def set_view(self, mode: str, *, remember: bool = True) -> None:
        """Show ``"table"`` or ``"cards"``; ``remember`` keeps the choice for this pane."""
        self.views.set_view(mode, remember=remember)

    def toggle_view(self) -> None:
        """Ctrl+Shift+V: the other view."""
        self.views.toggle()

    # --- shared behaviour ----------------------------------------------------------------------------------

    def open_dialog(self, dialog: D, done: Callable[[D], None]) -> D:
        """Open a dialog window-modally (never ``exec()``), kept as ``self.dialog`` (tests find it
        there); ``done(dialog)`` runs once the service accepted what it sent."""
        old = self.dialog
        if old is not None and alive(old) and not old.isVisible():
            old.deleteLater()
        self.dialog = dialog
        dialog.accepted.connect(lambda: done(dialog))
        dialog.open()
        return dialog

    def writes(self, *controls: QWidget) -> None:
        """Register controls that write: they are disabled with the reason while writing is impossible."""
        reason = self.session.write_block_reason
        for control in controls:
            self._write_controls.append(control)
            self._apply_write_state(control, reason)

    def _apply_write_state(self, control: QWidget, reason: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # a control deleted with its details
            base_tip = control.property("baseToolTip")
            if base_tip is None:
                base_tip = control.toolTip()
                control.setProperty("baseToolTip", base_tip)
            control.setEnabled(reason is None)
            control.setToolTip(reason or base_tip)

    def activate(self) -> None:
        """Called when the pane is first shown: reads the first page."""
        if not self._activated:
            self._activated = True
            keep_sizes(
                self.splitter, self.kind or self.title.lower(), self.session.runtime.settings
            )  # where the creator left the divider
            self.reload()

    def reload(self) -> None:
        self.banner.hide()
        self.model.set_feed(self.open_list())

    def refresh(self) -> None:
        """F5: read the list again from the first page, keeping the selection when the row remains."""
        keep = getattr(self.current, "id", None)
        self._activated = True
        self.reload()
        if keep is not None:
            self._reselect = str(keep)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def run(self, coro: Coroutine[Any, Any, Any], context: str = "") -> asyncio.Task[Any]:
        """Start work whose service errors land in the pane's banner."""
        return self.work.start(coro, on_error=lambda error: self.banner.show_error(error, context))

    def select_id(self, item_id: str) -> bool:
        row = self.model.row_of(str(item_id))
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        self.table.selectRow(index.row())
        self.views.scroll_to(index)
        return True

    def reveal(self, item_id: str) -> None:
        """Select the item with this id; when the list has not loaded it, read it from the service."""
        self.activate()
        if self.select_id(item_id):
            return
        self.run(self._reveal(item_id), "Could not read the item")

    async def read_item(self, item_id: str) -> Any:
        """The item with this id as the service has it now (``None``: this kind is not read one by one)."""
        return None

    async def _reveal(self, item_id: str) -> None:
        item = await self.read_item(item_id)
        if item is None:
            self.banner.show_message(f"That {self.kind or 'item'} is not in this list.", kind="info")
            return
        self.item_changed(item)

    def item_changed(self, item: Any, *, select: bool = True) -> None:
        """A create or edit succeeded: show the new state in the list and the details."""
        self.model.upsert(item)
        self.work.start(self.session.cache_record(self.kind, item.model_dump(mode="json")), name="cache item")
        if select:
            self.select_id(str(item.id))
        if self.current is not None and str(self.current.id) == str(item.id):
            self.current = item
            self.show_item(item)

    def item_removed(self, item_id: str) -> None:
        self.model.remove(item_id)
        self.work.start(self.session.uncache_record(self.kind, item_id), name="uncache item")
        if self.current is not None and str(self.current.id) == str(item_id):
            self.current = None
            self.details.clear()

    def selected_items(self) -> list[Any]:
        """The rows selected, in the order the list shows them."""
        indexes = sorted(self.table.selectionModel().selectedRows(), key=lambda index: index.row())
        return [self.model.item(self.proxy.mapToSource(index).row()) for index in indexes]

    def show_many(self, items: list[Any]) -> None:
        """Several rows are selected (only in a pane with :attr:`many`)."""

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = self.table.selectionModel().selectedRows()
        if not indexes:
            return
        if len(indexes) > 1:
            if self._detail_task is not None and not self._detail_task.done():
                self._detail_task.cancel()
            self.current = None
            self.show_many(self.selected_items())
            return
        source = self.proxy.mapToSource(indexes[0])
        item = self.model.item(source.row())
        self.current = item
        self.show_item(item)
        self.selectionChangedItem.emit(item)
        if self._detail_task is not None and not self._detail_task.done():
            self._detail_task.cancel()
        self._detail_task = self.work.start(self._refresh_details(item), name="details")

    async def _refresh_details(self, item: Any) -> None:
        try:
            fresh = await self.fetch_item(item)
        except CastdeckError:
            cached = await self.session.cached_record(self.kind, str(item.id))
            if cached is not None and self.current is item:
                with contextlib.suppress(Exception):
                    fresh = type(item).model_validate(cached)
                    self.current = fresh
                    self.show_item(fresh)
            return
        if fresh is item or self.current is not item:
            return
        await self.session.cache_record(self.kind, fresh.model_dump(mode="json"))
        if self.current is item:
            self.current = fresh
            row = self.model.row_of(str(fresh.id))
            if row >= 0:
                self.model.upsert(fresh)
            self.show_item(fresh)

    def _first_rows(self) -> None:
        if not self._sized and self.model.rowCount() > 0:
            self._sized = True
            QTimer.singleShot(0, self._size_and_fit_columns)
        if self._reselect is not None and self.select_id(self._reselect):
            self._reselect = None

    def _size_and_fit_columns(self) -> None:
        self._size_columns()
        self.column_fit.fit()

    def _size_columns(self) -> None:
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        for column in range(1, self.model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.table.resizeColumnToContents(column)
            header.resizeSection(column, min(max(header.sectionSize(column) + 8, 56), 220))
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def _cleared(self) -> None:
        self._update_status()

    def _update_status(self, *_: object) -> None:
        self.status.setText(
            shown_count(
                self.model.rowCount(), self.title.lower(),
                more=self.model.canFetchMore(), loading=self.model.loading,
            )
        )  # fmt: skip

    def _offline_changed(self, offline: bool) -> None:
        if offline:
            when = ""
            if self.model.cached_at:
                when = " from " + time.strftime("%Y-%m-%d %H:%M", time.localtime(self.model.cached_at))
            if self.model.cached_at is None and self.model.rowCount() == 0:
                text = f"Offline: the service cannot be reached, and no {self.title.lower()} were cached yet."
            else:
                text = f"Offline: showing the {self.title.lower()} cached{when}. They update when the service returns."
            self.offline_banner.show_message(text, kind="offline")
        else:
            self.offline_banner.hide()

    def _state_changed(self, *_: object) -> None:
        reason = self.session.write_block_reason
        self._write_controls = [c for c in self._write_controls if alive(c)]
        for control in self._write_controls:
            self._apply_write_state(control, reason)
        self.on_write_state(reason)

    def on_write_state(self, reason: str | None) -> None:
        """Subclasses with extra write controls outside ``writes`` can react here."""

    def _reconnected(self) -> None:
        if self._activated:
            QTimer.singleShot(0, self.refresh)


def wire_async(button: QAbstractButton, factory: Callable[[], Coroutine[Any, Any, Any]], pane: ResourcePane,
               context: str = "") -> None:  # fmt: skip
    """Run ``factory()`` on the pane's runner when the button is clicked."""
    button.clicked.connect(lambda: pane.run(factory(), context))
