"""``ResourceTableModel``: a lazily paged table of one resource list, and the proxy that sorts and
filters it.

Rows arrive page by page: the view asks ``canFetchMore``/``fetchMore`` when it scrolls near the end,
and the model reads the next page from its :class:`~castdeck.services.listing.ListFeed` on the
event loop. Ten thousand rows cost what the rows on screen cost to paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from castdeck.api.errors import CastdeckError
from castdeck.services.listing import ListFeed
from castdeck.services.tasks import TaskScope

from .accessible import BLANK_CELL
from .cells import format_time
from .widgets import display_text

__all__ = [
    "DESCRIPTION_ROLE",
    "ITEM_ROLE",
    "SORT_ROLE",
    "Column",
    "ResourceFilterProxy",
    "ResourceTableModel",
    "answer_roles",
    "clear_roles",
    "each_role",
    "format_time",
]

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ITEM_ROLE = Qt.ItemDataRole.UserRole
DESCRIPTION_ROLE = Qt.ItemDataRole.AccessibleDescriptionRole
_ROLES = frozenset(
    int(role)
    for role in (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        SORT_ROLE,
        ITEM_ROLE,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.TextAlignmentRole,
        DESCRIPTION_ROLE,
        Qt.ItemDataRole.AccessibleTextRole,
    )
)
"""The roles ``data`` answers; views ask many more (fonts, colours, check states) on every paint."""
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_DECORATION = int(Qt.ItemDataRole.DecorationRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_SORT, _ITEM, _DESCRIPTION = int(SORT_ROLE), int(ITEM_ROLE), int(DESCRIPTION_ROLE)
_ACCESSIBLE_TEXT = int(Qt.ItemDataRole.AccessibleTextRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
AnyIndex = QModelIndex | QPersistentModelIndex
RoleData = QModelRoleDataSpan | QModelRoleData
"""What ``multiData`` is given (PySide also takes a single role's data for a span)."""


def each_role(given: RoleData) -> list[QModelRoleData]:
    """The role data of a span (a view into Qt's array: what is set on them reaches the asker)."""
    if isinstance(given, QModelRoleData):
        return [given]
    return [given[at] for at in range(given.size())]  # type: ignore[index] # (PySide's stub lacks it)


def answer_roles(
    span: list[QModelRoleData],
    answered: frozenset[int],
    value: Callable[[Any, int, int], Any],
    item: Any,
    column: int,
) -> None:
    """Fill ``span`` for one cell: ``value(item, column, role)`` for the roles in ``answered``, the
    others cleared (a span holds whatever was asked before)."""
    for asked in span:
        role = asked.role()
        if role in answered:
            asked.setData(value(item, column, role))
        else:
            asked.clearData()


def clear_roles(span: list[QModelRoleData]) -> None:
    """Answer nothing for every role in ``span`` (a cell that does not exist)."""
    for asked in span:
        asked.clearData()


@dataclass(frozen=True)
class Column:
    title: str
    value: Callable[[Any], Any]
    sort_key: Callable[[Any], Any] | None = None
    tooltip: Callable[[Any], str | None] | None = None
    align_right: bool = False
    blank: str = BLANK_CELL
    """What a blank cell of the column reads as to a screen reader ("Not published")."""


class ResourceTableModel(QAbstractTableModel):
    loadingChanged = Signal(bool)
    offlineChanged = Signal(bool)
    pageLoaded = Signal(int)  # rows added
    loadFailed = Signal(object)  # CastdeckError

    def __init__(self, columns: list[Column], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._columns = columns
        self._items: list[Any] = []
        self._ids: dict[str, int] = {}
        self._feed: ListFeed[Any] | None = None
        self._loading: asyncio.Task[None] | None = None
        self.work = TaskScope(self)
        self._has_more = False
        self.offline = False
        self.cached_at: float | None = None
        self.describe: Callable[[Any], str] | None = None
        """The text alternative of a row's picture (its accessible description, first column)."""
        self.decorate: Callable[[Any], Any] | None = None
        """A row's picture before the first column's text (a ``QPixmap``; drawn by Qt's own delegate,
        so painting a row calls into Python only for its data)."""

    # --- Qt model interface --------------------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: AnyIndex, role: int = _DISPLAY) -> Any:
        if role not in _ROLES:
            return None
        row = index.row()  # (an invalid index has row -1)
        if not 0 <= row < len(self._items):
            return None
        return self._value(self._items[row], index.column(), role)

    def multiData(self, index: AnyIndex, roleDataSpan: RoleData) -> None:
        """Every role a delegate asks for one cell, in one call from Qt (Qt's delegate asks seven
        roles per cell when it paints: one call into Python per cell instead of seven)."""
        asked = each_role(roleDataSpan)
        row = index.row()
        if 0 <= row < len(self._items):
            self.fill_roles(row, index.column(), asked)
        else:
            clear_roles(asked)

    def fill_roles(self, row: int, number: int, span: list[QModelRoleData]) -> None:
        """Answer every role in ``span`` for the cell at ``row``, ``number`` (a row that exists);
        the proxy calls this too (Qt's proxies ask their source one role at a time)."""
        answer_roles(span, _ROLES, self._value, self._items[row], number)

    def _value(self, item: Any, number: int, role: int) -> Any:
        # Asked for every cell on screen at each paint: plain int constants, the commonest first.
        column = self._columns[number]
        if role == _DISPLAY:
            value = column.value(item)
            return "" if value is None else display_text(value)
        if role == _ALIGNMENT:
            return _RIGHT if column.align_right else None
        if role == _DECORATION:
            return self.decorate(item) if number == 0 and self.decorate is not None else None
        if role == _SORT:
            key = (column.sort_key or column.value)(item)
            return "" if key is None else key
        if role == _ITEM:
            return item
        if role == _TOOLTIP:
            if column.tooltip is None:
                return None
            tip = column.tooltip(item)
            return None if tip is None else display_text(tip)
        if role == _DESCRIPTION and number == 0 and self.describe is not None:
            return self.describe(item)
        if role == _ACCESSIBLE_TEXT:  # a screen reader reads a blank cell as what blank means
            value = column.value(item)
            return column.blank if value is None or not str(value).strip() else None
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole
        if horizontal and 0 <= section < len(self._columns):
            return self._columns[section].title
        return None

    def canFetchMore(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._has_more and not self.loading

    def fetchMore(self, parent: AnyIndex = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._start_loading()

    # --- loading -------------------------------------------------------------------------------------------

    @property
    def loading(self) -> bool:
        return self._loading is not None and not self._loading.done()

    @property
    def items(self) -> list[Any]:
        return list(self._items)

    def set_feed(self, feed: ListFeed[Any] | None) -> None:
        """Show a new list (after a filter change or a refresh): clears rows and reads the first page."""
        if self._loading is not None and not self._loading.done():
            self._loading.cancel()
        self._loading = None
        old = self._feed
        if old is not None:
            old.close_later()
        self.beginResetModel()
        self._items, self._ids = [], {}
        self._feed = feed
        self._has_more = False  # a view asking fetchMore during the reset must not start a second read
        self.endResetModel()
        if feed is not None:
            self._has_more = True
            self._start_loading()

    def _start_loading(self) -> None:
        if self._feed is None or self.loading:
            return
        self._loading = self.work.start(self._load_page(self._feed), name="load page")
        self.loadingChanged.emit(True)

    async def _load_page(self, feed: ListFeed[Any]) -> None:
        try:
            page = await feed.next_page()
        except CastdeckError as error:
            if feed is self._feed:
                self._has_more = False
                self.loadFailed.emit(error)
            return
        finally:
            if feed is self._feed:
                # once the task is done (``loading`` is false for whoever hears it), if the model still is
                asyncio.get_running_loop().call_soon(self._loading_ended)
        if feed is not self._feed:
            return
        firsts: dict[str, Any] = {}  # an id shown before, or met earlier on this page, is not shown twice
        for item in page.items:
            firsts.setdefault(str(item.id), item)
        fresh = [item for key, item in firsts.items() if key not in self._ids]
        if fresh:
            first = len(self._items)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            for offset, item in enumerate(fresh):
                self._ids[str(item.id)] = first + offset
                self._items.append(item)
            self.endInsertRows()
        self._has_more = page.has_more
        if page.problem is not None:  # some rows could not be read: the others are shown, this says so
            self.loadFailed.emit(page.problem)
        if page.offline != self.offline:
            self.offline = page.offline
            self.cached_at = page.cached_at
            self.offlineChanged.emit(page.offline)
        self.pageLoaded.emit(len(fresh))

    def _loading_ended(self) -> None:
        if shiboken6.isValid(self):
            self.loadingChanged.emit(False)

    async def wait_idle(self) -> None:
        """Until the page being read has arrived (tests and benchmarks)."""
        while self.loading:
            assert self._loading is not None
            await asyncio.wait({self._loading})
            await asyncio.sleep(0)

    async def load_all(self, limit: int = 100_000) -> None:
        """Read every page (used where a picker needs the whole list, such as hosts or voices)."""
        await self.wait_idle()
        while self._has_more and len(self._items) < limit:
            self._start_loading()
            await self.wait_idle()

    # --- edits from the UI ---------------------------------------------------------------------------------

    def row_of(self, item_id: str) -> int:
        return self._ids.get(str(item_id), -1)

    def item(self, row: int) -> Any:
        return self._items[row]

    def upsert(self, item: Any, *, at_top: bool = True) -> int:
        """Show a created or changed item without reloading the list; returns its row."""
        row = self.row_of(str(item.id))
        if row >= 0:
            self._items[row] = item
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._columns) - 1))
            return row
        row = 0 if at_top else len(self._items)
        self.beginInsertRows(QModelIndex(), row, row)
        self._items.insert(row, item)
        self._reindex()
        self.endInsertRows()
        return row

    def remove(self, item_id: str) -> None:
        row = self.row_of(item_id)
        if row < 0:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._items[row]
        self._reindex()
        self.endRemoveRows()

    def _reindex(self) -> None:
        self._ids = {str(item.id): i for i, item in enumerate(self._items)}


class ResourceFilterProxy(QSortFilterProxyModel):
    """Sorts by each column's sort key and filters on any column's text (case-insensitive)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def multiData(self, index: AnyIndex, roleDataSpan: RoleData) -> None:
        """A delegate's roles for one cell, passed to the source in one call (Qt's proxies ask their
        source role by role: seven calls into Python per cell painted)."""
        source = self.sourceModel()
        if isinstance(source, ResourceTableModel):
            mapped = self.mapToSource(index)
            row = mapped.row()
            if 0 <= row < source.rowCount():
                source.fill_roles(row, mapped.column(), each_role(roleDataSpan))
                return
        super().multiData(index, roleDataSpan)

    def lessThan(self, left: AnyIndex, right: AnyIndex) -> bool:
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        try:
            return bool(a < b)
        except TypeError:
            return str(a) < str(b)
