"""The left side of a resource pane: its table, its cards (for panes that offer them) and its empty
state, in one stack; the Table/Cards switch in the pane's header; the choice kept per pane.

Both views sit on the pane's one proxy and share one selection model, so the filter box, the sort,
paging, the offline cache and the selection (which drives the details) are the same whichever is
shown. The empty state replaces them when the list has been read and holds nothing (or the filter
box hides every row); not while reading, not after a failed read (the error banner speaks), and
not offline without a cached copy (the offline banner speaks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStackedWidget,
    QTableView,
    QToolButton,
    QWidget,
)

from .cover_delegate import PICTURE_ROW_HEIGHT, CoverDelegate
from .empty_state import EmptyState, empty_text, filtered_empty, nothing_matches
from .pane_header import TOGGLE_SHORTCUT, VIEWS, view_switch
from .resource_model import ITEM_ROLE

if TYPE_CHECKING:
    from .card_view import CardView
    from .pane import ResourcePane

__all__ = ["CARD_KINDS", "PICTURE_KINDS", "TOGGLE_SHORTCUT", "PaneViews"]

CARD_KINDS = frozenset({"podcast", "episode", "video", "short", "voiceover"})
"""Panes (by ``kind``) that offer cards; until the panes say it themselves (``cards = True``)."""
PICTURE_KINDS = CARD_KINDS
"""Panes whose table shows a picture before the first column's text (``has_pictures = True``)."""


class PaneViews(QObject):
    """Owns the stack (table, cards, empty state) of ``pane`` and the switch between the views."""

    viewChanged = Signal(str)

    def __init__(self, pane: ResourcePane, table: QTableView, *, cards: bool, pictures: bool) -> None:
        super().__init__(pane)
        self.pane = pane
        self.table = table
        self.offers_cards = cards
        self.mode = "table"
        self.stack = QStackedWidget(pane)
        self.stack.setAccessibleName(f"{pane.title} list area")
        self.stack.addWidget(table)
        self.cards_view: CardView | None = None  # built when first shown
        self.empty = EmptyState(self.stack)
        self.stack.addWidget(self.empty)
        self.empty.button.clicked.connect(self._next_step)
        self.empty.clear_button.clicked.connect(self._clear_filter)
        self._loaded = False
        self._failed = False
        if pictures:
            covers = CoverDelegate(pane, table)
            table.setItemDelegateForColumn(0, covers)
            table.setIconSize(covers.size)
            table.verticalHeader().setDefaultSectionSize(PICTURE_ROW_HEIGHT)
            pane.model.describe = pane.picture_text
            pane.model.decorate = covers.decoration

        self.switch: QWidget | None = None
        self.table_button: QToolButton | None = None
        self.cards_button: QToolButton | None = None
        self.toggle_action: QAction | None = None
        if cards:
            self._build_switch()

        model, proxy = pane.model, pane.proxy
        model.modelAboutToBeReset.connect(self._reset)
        model.pageLoaded.connect(self._page_loaded)
        model.loadFailed.connect(self._load_failed)
        model.loadingChanged.connect(self.update)
        model.offlineChanged.connect(self.update)
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.modelReset, proxy.layoutChanged):
            signal.connect(self.update)
        pane.filter_edit.textChanged.connect(self.update)
        pane.session.stateChanged.connect(self._write_state)
        self._write_state()

    # --- the switch ----------------------------------------------------------------------------------------

    def _build_switch(self) -> None:
        pane = self.pane
        switch = view_switch(pane, pane.title)
        self.switch, self.table_button, self.cards_button = switch
        for button, mode in ((switch.table_button, "table"), (switch.cards_button, "cards")):
            button.clicked.connect(lambda _checked=False, chosen=mode: self.set_view(chosen))
        action = QAction("Switch between table and cards", pane)
        action.setShortcut(QKeySequence(TOGGLE_SHORTCUT))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)  # whenever the pane is shown
        action.triggered.connect(lambda _checked=False: self.toggle())
        pane.addAction(action)
        self.toggle_action = action

    def restore(self) -> None:
        """Open on the view the user chose last for this pane."""
        if self.offers_cards:
            self.set_view(self.pane.session.runtime.settings.pane_view(self.pane.kind), remember=False)

    def toggle(self) -> None:
        self.set_view("table" if self.mode == "cards" else "cards")

    def set_view(self, mode: str, *, remember: bool = True) -> None:
        """Show the table or the cards (``remember``: keep the choice for this pane)."""
        if mode not in VIEWS or (mode == "cards" and not self.offers_cards):
            raise ValueError(f"this pane has no {mode!r} view")
        if remember:
            self.pane.session.runtime.settings.set_pane_view(self.pane.kind, mode)
        for button, its_mode in ((self.table_button, "table"), (self.cards_button, "cards")):
            if button is not None:
                button.setChecked(mode == its_mode)
        if mode == self.mode:
            return
        had_focus = self._holds_focus(self.view)
        self.mode = mode
        view = self.view
        if mode == "cards":
            self._keep_current_on_first_column()
        self.update()
        current = self.table.selectionModel().currentIndex()
        if current.isValid():
            view.scrollTo(current.siblingAtColumn(0) if mode == "cards" else current)
        if had_focus and self.stack.currentWidget() is view:
            view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.viewChanged.emit(mode)

    @property
    def view(self) -> QAbstractItemView:
        """The view of the chosen mode (shown unless the empty state stands in for it)."""
        if self.mode == "cards":
            return self.cards()
        return self.table

    def cards(self) -> CardView:
        """The card view, built on first use on the same proxy and selection model as the table."""
        if self.cards_view is None:
            from .card_view import CardView  # on first use: start-up does not pay for it (~10 ms)

            view = CardView(self.pane, self.stack)
            view.setAccessibleName(f"{self.pane.title} cards")
            view.setModel(self.pane.proxy)
            view.setSelectionMode(self.table.selectionMode())  # a season is selected in cards too
            own = view.selectionModel()
            view.setSelectionModel(self.table.selectionModel())
            if own is not None:
                own.deleteLater()
            self.stack.insertWidget(1, view)
            self.cards_view = view
        return self.cards_view

    def _keep_current_on_first_column(self) -> None:
        """The card view moves its cursor on column 0; a table cell elsewhere would stall it."""
        selection = self.table.selectionModel()
        current = selection.currentIndex()
        if current.isValid() and current.column() != 0:
            selection.setCurrentIndex(current.siblingAtColumn(0), QItemSelectionModel.SelectionFlag.NoUpdate)

    def scroll_to(self, index: QModelIndex) -> None:
        """Bring ``index`` (of the proxy) into the shown view."""
        self.view.scrollTo(index.siblingAtColumn(0) if self.mode == "cards" else index)

    def repaint_pictures(self, shows: Callable[[Any], bool] | None = None) -> None:
        """Repaint the pictures of the items in view for which ``shows(item)`` holds (every item
        in view when None). Only their cells are painted again: a picture arriving while the
        list scrolls repaints one cell, not the whole list."""
        views: list[QAbstractItemView] = [self.table]
        if self.cards_view is not None:
            views.append(self.cards_view)
        for view in views:
            if shows is None:
                view.viewport().update()
            elif view.isVisible():
                self._repaint_shown(view, shows)

    def _repaint_shown(self, view: QAbstractItemView, shows: Callable[[Any], bool]) -> None:
        proxy = self.pane.proxy
        if view is self.cards_view:
            rows = self.cards_view.shown_rows()
        else:
            first = self.table.rowAt(0)
            last = self.table.rowAt(self.table.viewport().height() - 1)
            rows = range(0) if first < 0 else range(first, (proxy.rowCount() - 1 if last < 0 else last) + 1)
        viewport = view.viewport()
        for row in rows:
            index = proxy.index(row, 0)
            item = index.data(ITEM_ROLE)
            if item is not None and shows(item):
                viewport.update(view.visualRect(index))

    def _holds_focus(self, widget: QWidget) -> bool:
        focus = QApplication.focusWidget()
        return focus is not None and (focus is widget or widget.isAncestorOf(focus))

    # --- the empty state -----------------------------------------------------------------------------------

    def _reset(self) -> None:
        self._loaded = False
        self._failed = False
        self.update()

    def _page_loaded(self, _added: int) -> None:
        self._loaded = True
        self.update()

    def _load_failed(self, _error: object) -> None:
        self._failed = True
        self.update()

    def showing_empty(self) -> bool:
        return self.stack.currentWidget() is self.empty

    def update(self, *_: object) -> None:
        """Show the chosen view, or the empty state when there is nothing to list (see the module)."""
        pane, model = self.pane, self.pane.model
        text = None
        if self._loaded and not self._failed and not model.loading and pane.proxy.rowCount() == 0:
            typed = pane.filter_edit.text()
            if model.rowCount() > 0 and typed:
                text = nothing_matches(typed, pane.title, model.rowCount(), model.canFetchMore())
            elif model.rowCount() == 0 and not (model.offline and model.cached_at is None):
                text = empty_text(pane.kind, pane.title, pane.new_label)
                if pane.server_filters_active():
                    text = filtered_empty(pane.title, text)
        target: QWidget = self.view if text is None else self.empty
        if text is not None and text != self.empty.text:
            self.empty.show_text(text)
        current = self.stack.currentWidget()
        if target is current:
            return
        had_focus = current is not None and self._holds_focus(current)
        self.stack.setCurrentWidget(target)
        if had_focus:
            focus = self.empty.primary if target is self.empty else target
            if focus is not None and focus.isEnabled():
                focus.setFocus(Qt.FocusReason.OtherFocusReason)
            else:
                pane.filter_edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def _write_state(self, *_: object) -> None:
        self.empty.set_reason(self.pane.session.write_block_reason)

    def _next_step(self) -> None:
        self.pane.first_step()

    def _clear_filter(self) -> None:
        self.pane.filter_edit.clear()
        self.pane.filter_edit.setFocus(Qt.FocusReason.OtherFocusReason)
