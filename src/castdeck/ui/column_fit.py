"""``ColumnFit``: a table's title column keeps a readable width; lesser columns give way first.

A pane's table has a title column that stretches and lesser columns of set widths. On a laptop
with the Jobs dock open the table is narrow, and the title shrank to its thumbnail ("Tur…")
behind a horizontal scroll bar. Now, when the title would be narrower than :data:`TITLE_AT_LEAST`,
the rightmost lesser column is hidden, and so on; when the table widens again they come back in
their order, each as soon as the title keeps its width with it. Which columns show depends on the
width alone (and the creator's choices), never on the order the widths came in.

The header's context menu (a right-click on it) lists the lesser columns: ticking one shows it
and keeps it shown however narrow the table (the creator's choice wins over the fit; the title
may then scroll), unticking one hides it for good. "Fit columns to the width" hands every column
back to the fit.

Light on purpose (QtCore, QtGui, QtWidgets): the early window fits its table the same way, so
both look alike at any width.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHeaderView, QTableView

__all__ = ["KEEP_AT_LEAST", "TITLE_AT_LEAST", "ColumnFit"]

TITLE_AT_LEAST = 200
"""The narrowest the title column becomes while a lesser column could give way (pixels)."""

KEEP_AT_LEAST = 120
"""The narrowest a column that never hides becomes (its text elided) once every lesser column is
hidden and the title still lacks room: a source's long name no longer pushes the table into
scrolling sideways. It widens back to its own width first, before a lesser column returns."""


class ColumnFit(QObject):
    """Hides and shows ``table``'s lesser columns to keep the ``title`` column (the one that
    stretches) at least :data:`TITLE_AT_LEAST` wide. Columns in ``keep`` never hide (a host's
    name, where the voice column stretches)."""

    def __init__(
        self,
        table: QTableView,
        *,
        title: int = 0,
        keep: tuple[int, ...] = (),
        at_least: int = TITLE_AT_LEAST,
        follow_viewport: bool = True,
    ) -> None:
        super().__init__(table)
        self.table = table
        self.title = title
        self.keep = frozenset(keep)
        self.at_least = at_least
        self.chosen: dict[int, bool] = {}
        """Columns the creator showed (True) or hid (False) from the header's menu."""
        self.actions: dict[int, QAction] = {}
        self._widths: dict[int, int] = {}
        """The width each column had when it was hidden (a hidden section's size reads 0)."""
        self._natural: dict[int, int] = {}
        """The width each column of ``keep`` was given (sized to its text, or by the creator), which
        the fit narrows when room is short and gives back when it returns."""
        self._fitting = False
        self._due = False
        header = table.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        model = table.model()
        for column in range(model.columnCount() if model is not None else 0):
            if column != self.title and column not in self.keep:
                action = QAction(header)
                action.setCheckable(True)
                action.toggled.connect(lambda on, c=column: self._toggled(c, on))
                header.addAction(action)
                self.actions[column] = action
        separator = QAction(header)
        separator.setSeparator(True)
        header.addAction(separator)
        self.fit_action = QAction("Fit columns to the width", header)
        self.fit_action.triggered.connect(self.forget_choices)
        header.addAction(self.fit_action)
        self._name_actions()
        if model is not None:
            model.headerDataChanged.connect(self._name_actions)
        header.sectionResized.connect(self._resized)
        if follow_viewport:
            # Asking for the viewport costs 10 ms the first time in a process (PySide walks every
            # QObject class to wrap it, see ui/pyside_types.py): the early window, which must paint
            # at once and lives a second or two, answers to its title's resizes alone.
            table.viewport().installEventFilter(self)

    # --- the header's menu ---------------------------------------------------------------------------------

    def _name_actions(self, *_: object) -> None:
        model = self.table.model()
        for column, action in self.actions.items():
            name = model.headerData(column, Qt.Orientation.Horizontal) if model is not None else None
            action.setText(f"Show {name}" if name else f"Show column {column + 1}")
            self._tick(column)

    def _tick(self, column: int) -> None:
        action = self.actions.get(column)
        if action is not None:
            action.blockSignals(True)
            action.setChecked(not self.table.isColumnHidden(column))
            action.blockSignals(False)

    def _toggled(self, column: int, shown: bool) -> None:
        self.chosen[column] = shown
        self._show(column, shown)
        self.fit()

    def _show(self, column: int, shown: bool) -> None:
        if shown == (not self.table.isColumnHidden(column)):
            return
        header = self.table.horizontalHeader()
        if not shown:
            if header.sectionSize(column) > 0:
                self._widths[column] = header.sectionSize(column)
            self.table.setColumnHidden(column, True)
            return
        self.table.setColumnHidden(column, False)
        width = self._widths.get(column)
        if width and header.sectionResizeMode(column) == QHeaderView.ResizeMode.Interactive:
            header.resizeSection(column, width)  # as it was, whatever Qt kept of a hidden section

    def forget_choices(self) -> None:
        """Every column is the fit's again (the menu's last item)."""
        self.chosen.clear()
        self.fit()

    # --- the fit -------------------------------------------------------------------------------------------

    def _resized(self, column: int, _old: int, new: int) -> None:
        if column == self.title:
            self._fit_soon()
        elif column in self.keep and not self._fitting and new > 0:
            self._natural[column] = new  # sized to its text, or dragged: its own width from now on

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The viewport's width is what the fit answers to. The title's resize alone missed a
        # width that changed while the title stayed put (at its narrowest, or laid out before the
        # viewport had its width), and the table then scrolled sideways until the next resize.
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self._fit_soon()
        return False

    def _fit_soon(self) -> None:
        # Not from inside the header's own relayout: hiding and sizing sections there left a
        # section 983,040 px wide. Once, at the next turn of the loop, for any number of resizes.
        if not self._fitting and not self._due:
            self._due = True
            QTimer.singleShot(0, self, self._fit_due)

    def _fit_due(self) -> None:
        self._due = False
        self.fit()

    def fit(self) -> None:
        """Hide or show lesser columns for the table's present width."""
        header = self.table.horizontalHeader()
        if header.sectionResizeMode(self.title) != QHeaderView.ResizeMode.Stretch:
            return  # not sized yet: nothing stretches into the room left
        if not self.table.isVisible():
            return  # not laid out yet: its width means nothing (it fits when shown and resized)
        self._fitting = True
        try:
            order = [c for c in range(header.count()) if c != self.title and c not in self.keep]
            # from all shown (but those the creator hid), the rightmost gives way first, and so on;
            # worked out first, then only what changes is changed (a column hidden and shown again
            # repaints every row)
            width = {c: self._width_of(c) for c in range(header.count()) if c != self.title}
            narrowable = [
                c for c in self.keep if header.sectionResizeMode(c) == QHeaderView.ResizeMode.Interactive
            ]
            for column in narrowable:
                width[column] = self._natural.setdefault(column, header.sectionSize(column))
            hidden = {c for c in order if self.chosen.get(c) is False}
            spare = self.table.viewport().width() - sum(w for c, w in width.items() if c not in hidden)
            for column in reversed(order):
                if spare >= self.at_least:
                    break
                if column in self.chosen or column in hidden:
                    continue
                hidden.add(column)
                spare += width[column]
            # every lesser column gone and still short: the kept columns give way, widest first
            for column in sorted(narrowable, key=width.__getitem__, reverse=True):
                give = max(0, min(self.at_least - spare, width[column] - KEEP_AT_LEAST))
                spare += give
                if header.sectionSize(column) != width[column] - give:
                    header.resizeSection(column, width[column] - give)
            for column in order:
                self._show(column, column not in hidden)
        finally:
            self._fitting = False
        for column in self.actions:
            self._tick(column)

    def _width_of(self, column: int) -> int:
        """The column's width when shown: now, or as it was when it was hidden."""
        header = self.table.horizontalHeader()
        if not self.table.isColumnHidden(column):
            return header.sectionSize(column)
        return self._widths.get(column) or header.defaultSectionSize()

    def hidden(self) -> list[int]:
        """The lesser columns hidden now (tests, the early window's likeness)."""
        return [c for c in range(self.table.horizontalHeader().count()) if self.table.isColumnHidden(c)]
