"""``ResourcePane``: a list of one resource beside the details of the selected row.

The pane owns a :class:`ResourceTableModel` (lazy pages), a proxy that sorts and filters it, a
filter box (Ctrl+F), server-side filter controls where a subclass adds them, a "New" action
(Ctrl+N), refresh (F5), an error banner, and an offline banner when it shows cached data. Write
actions registered with :meth:`ResourcePane.writes` are disabled with the reason while the service
cannot be reached or refuses the key.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QItemSelection, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from castdeck.api import CastdeckError
from castdeck.services.listing import ListFeed
from castdeck.services.session import Session
from castdeck.services.tasks import tasks

from .flow_layout import FlowLayout, flow_policy
from .resource_model import Column, ResourceFilterProxy, ResourceTableModel
from .widgets import Banner, SafeTextBrowser, alive, display_text, heading_label, open_web_link

__all__ = ["DetailsPanel", "ResourcePane", "link_label"]

D = TypeVar("D", bound=QDialog)


def link_label(url: str | None, text: str | None = None) -> QLabel:
    """A label holding a web link that opens in the browser (only http and https)."""
    label = QLabel()
    if url:
        shown = (text or url).replace("&", "&amp;").replace("<", "&lt;")
        safe = url.replace('"', "%22")
        label.setText(f'<a href="{safe}">{shown}</a>')
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setOpenExternalLinks(False)
        label.linkActivated.connect(open_web_link)
        label.setAccessibleName(text or url)
        label.setToolTip(url)
    else:
        label.setText("—")
    return label


class DetailsPanel(QWidget):
    """The right side of a pane: a heading, rows of facts, actions, and optional rich text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Details")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 12, 8)
        self.heading = QLabel(self)
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.heading.setFont(font)
        self.heading.setAccessibleName("Title")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        outer.addWidget(self.heading)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Note")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.hide()
        outer.addWidget(self.note)
        self.actions_box = QWidget(self)  # the item's actions: they wrap onto a second row when narrow
        self.actions_box.setAccessibleName("Actions")
        flow_policy(self.actions_box)
        self.actions_row = FlowLayout(self.actions_box)
        outer.addWidget(self.actions_box)
        self.form = QFormLayout()
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        outer.addLayout(self.form)
        self.sections = QVBoxLayout()  # a pane's own parts below the facts (an episode's analytics)
        outer.addLayout(self.sections)
        self.text_heading = QLabel(self)
        self.text_heading.setStyleSheet("font-weight: bold;")
        outer.addWidget(self.text_heading)
        self.text = SafeTextBrowser(self)
        self.text.setAccessibleName("Description")
        self.text.setMinimumHeight(160)
        outer.addWidget(self.text, 1)
        self.placeholder = QLabel("Select a row to see its details.", self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.placeholder)
        outer.addStretch(1)
        self._outer = outer
        self._picture: QWidget | None = None
        self.clear()

    def _text_takes_space(self, yes: bool) -> None:
        self._outer.setStretchFactor(self.text, 1 if yes else 0)
        self._outer.setStretch(self._outer.count() - 1, 0 if yes else 1)

    def add_picture(self, widget: QWidget) -> None:
        """A picture above the heading (a cover), shown with the next item's facts and hidden when
        the details are cleared."""
        widget.setParent(self)
        self._outer.insertWidget(0, widget, 0, Qt.AlignmentFlag.AlignLeft)
        self._picture = widget
        widget.hide()

    def add_section(self, widget: QWidget) -> None:
        """A part of the details below the facts that the pane keeps and fills itself; hidden when
        the details are cleared (the pane shows it again with the next item)."""
        widget.setParent(self)
        self.sections.addWidget(widget)

    def clear(self) -> None:
        self.heading.setText("")
        if self._picture is not None:
            self._picture.hide()
        self.note.hide()
        for index in range(self.sections.count()):
            item = self.sections.itemAt(index)
            section = item.widget() if item is not None else None
            if section is not None:
                section.hide()
        while self.form.rowCount():
            self.form.removeRow(0)
        self._clear_actions()
        self.text_heading.hide()
        self.text.hide()
        self.placeholder.show()
        self._text_takes_space(False)

    def _clear_actions(self) -> None:
        while self.actions_row.count():
            item = self.actions_row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)

    def show_facts(
        self,
        heading: str,
        rows: list[tuple[str, Any]],
        *,
        text: str | None = None,
        text_heading: str = "Description",
        note: str | None = None,
        note_kind: str = "info",
    ) -> None:
        self.placeholder.hide()
        if self._picture is not None:
            self._picture.show()
        self.heading.setText(display_text(heading or "(untitled)"))
        if note:
            colors = {"error": "#c62828", "warning": "#b26a00", "info": "palette(text)"}
            self.note.setStyleSheet(f"color: {colors.get(note_kind, 'palette(text)')};")
            self.note.setText(display_text(note))
            self.note.show()
        else:
            self.note.hide()
        while self.form.rowCount():
            self.form.removeRow(0)
        for label, value in rows:
            if isinstance(value, QLabel) and value.textFormat() == Qt.TextFormat.PlainText:
                value.setText(display_text(value.text()))  # a service value: clipped for display
            if isinstance(value, QWidget):
                self.form.addRow(label, value)
                value.show()
            else:
                shown = QLabel("—" if value in (None, "", []) else display_text(value))
                shown.setTextFormat(Qt.TextFormat.PlainText)
                shown.setWordWrap(True)
                shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                shown.setAccessibleName(label)
                self.form.addRow(label, shown)
                shown.show()
        for row in range(self.form.rowCount()):  # show now, not a loop turn later (screenshots, tests)
            for role in (QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole):
                item = self.form.itemAt(row, role)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    widget.show()
        if text is not None:
            self.text.setPlaceholderText(f"No {text_heading.lower()}.")
            self.text_heading.setText(text_heading)
            self.text_heading.show()
            self.text.set_service_text(text)
            self.text.show()
            self._text_takes_space(True)
        else:
            self.text_heading.hide()
            self.text.hide()
            self._text_takes_space(False)

    def set_actions(self, buttons: list[QAbstractButton]) -> None:
        self._clear_actions()
        for button in buttons:
            button.setParent(self.actions_box)
            self.actions_row.addWidget(button)
            button.show()
        self.actions_row.invalidate()

    def value_of(self, label: str) -> str | None:
        """The text shown for a fact (tests)."""
        for row in range(self.form.rowCount()):
            item = self.form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            shown = item.widget() if item is not None else None
            if isinstance(shown, QLabel) and shown.text() == label:
                field_item = self.form.itemAt(row, QFormLayout.ItemRole.FieldRole)
                field = field_item.widget() if field_item is not None else None
                return field.text() if isinstance(field, QLabel) else None
        return None


class ResourcePane(QWidget):
    """Subclasses set ``title``, ``kind`` and ``new_label`` and implement :meth:`columns`,
    :meth:`open_list` and :meth:`show_item`; :meth:`new_item` when they can create."""

    title = ""
    kind = ""
    new_label: str | None = None
    dialog: Any = None
    """The dialog the pane opened last (see :meth:`open_dialog`)."""
    page_size = 100
    """Rows per request (the service allows 1..100); tests lower it to exercise paging."""
    selectionChangedItem = Signal(object)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.work = tasks.scope(self)
        """The pane's own work (reads, actions): ended when the pane closes (:func:`close_owned`)."""
        self.session = session
        self.setAccessibleName(self.title)
        self._write_controls: list[QWidget] = []
        self._activated = False
        self.current: Any = None
        self._detail_task: asyncio.Task[None] | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 4)
        header = QHBoxLayout()
        header.addWidget(heading_label(self.title, self))
        header.addSpacing(12)
        self.filters = QHBoxLayout()
        header.addLayout(self.filters)
        header.addStretch(1)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter (Ctrl+F)")
        self.filter_edit.setAccessibleName(f"Filter {self.title}")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMaximumWidth(260)
        header.addWidget(self.filter_edit)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setAccessibleName(f"Refresh {self.title}")
        self.refresh_button.setToolTip("Reload from the service (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        header.addWidget(self.refresh_button)
        self.new_button: QPushButton | None = None
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
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
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
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.details_scroll = QScrollArea(self.splitter)
        self.details_scroll.setWidgetResizable(True)
        self.details_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.details = DetailsPanel()
        self.details_scroll.setWidget(self.details)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.details_scroll)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([620, 420])
        outer.addWidget(self.splitter, 1)
        self.status = QLabel(self)
        self.status.setAccessibleName(f"{self.title} list status")
        self.status.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.status)

        self.model.loadFailed.connect(
            lambda error: self.banner.show_error(error, f"Could not load {self.title.lower()}")
        )
        self.model.offlineChanged.connect(self._offline_changed)
        self.model.pageLoaded.connect(self._update_status)
        self.model.loadingChanged.connect(self._update_status)
        self.model.rowsInserted.connect(self._first_rows)
        self._sized = False
        self._reselect: str | None = None
        self.model.modelReset.connect(self._cleared)
        session.stateChanged.connect(self._state_changed)
        session.reconnected.connect(self._reconnected)
        self._state_changed()

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
        """Ctrl+N: open the create dialog (panes that can create override this)."""

    # --- shared behaviour ----------------------------------------------------------------------------------

    def open_dialog(self, dialog: D, done: Callable[[D], None]) -> D:
        """Open a dialog window-modally (never ``exec()``), kept as ``self.dialog`` (tests find it
        there); ``done(dialog)`` runs once the service accepted what it sent."""
        old = getattr(self, "dialog", None)
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
        self.table.scrollTo(index)
        return True

    def reveal(self, item_id: str) -> None:
        """Select the item with this id; when the list has not loaded it, read it from the service."""
        self.activate()
        if self.select_id(item_id):
            return
        read = getattr(self, "read_item", None)
        if callable(read):
            self.run(self._reveal(read, item_id), "Could not read the item")

    async def _reveal(self, read: Callable[[str], Coroutine[Any, Any, Any]], item_id: str) -> None:
        self.item_changed(await read(item_id))

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

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = self.table.selectionModel().selectedRows()
        if not indexes:
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
            QTimer.singleShot(0, self._size_columns)
        if self._reselect is not None and self.select_id(self._reselect):
            self._reselect = None

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
        count = self.model.rowCount()
        more = " — scroll for more" if self.model.canFetchMore() else ""
        loading = " — loading…" if self.model.loading else ""
        self.status.setText(f"{count:,} {self.title.lower()} shown{more}{loading}")

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
