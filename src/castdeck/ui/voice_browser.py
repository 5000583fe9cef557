"""``VoiceBrowser``: choose a voice from the catalogue, with the service-side filters and the details
of the chosen voice.

The chosen voice stays chosen while the user changes the filters (a filter that hides it does not
unselect it); :meth:`VoiceBrowser.select_voice` picks one by id (an edit dialog shows the host's
current voice), even when the catalogue has not been read yet.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from castdeck.services.session import Session

from .accessible import set_value, shows_value
from .panes.voices import VoiceFilters, voice_columns, voice_facts, voice_feed
from .resource_model import ResourceFilterProxy, ResourceTableModel
from .widgets import describe_error

__all__ = ["VoiceBrowser", "voice_name"]

HIDDEN_COLUMNS = ("Type", "ID")


def voice_name(voice: Any) -> str:
    """How a voice is named to the user: its description, or its id."""
    if voice is None:
        return ""
    return str(getattr(voice, "description", None) or f"Voice {voice.id}")


def _plain_label(parent: QWidget, what: str | None = None) -> QLabel:
    """A selectable plain-text label: a value its form row labels, or one that says ``what`` it
    shows (no field name beside it on screen)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return shows_value(label, what) if what else label


class VoiceBrowser(QWidget):
    """Filters, a lazily paged table of voices, and the details of the chosen voice."""

    changed = Signal()

    def __init__(self, session: Session, parent: QWidget | None = None, *, page_size: int = 100) -> None:
        super().__init__(parent)
        self.session = session
        self.page_size = page_size
        self.setAccessibleName("Voice browser")
        self._selected_id: int | str | None = None
        self._selected_voice: Any = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        self.filters = VoiceFilters(self)
        self.filters.changed.connect(self.reload)
        outer.addWidget(self.filters)

        body = QHBoxLayout()
        body.setSpacing(8)
        self.model = ResourceTableModel(voice_columns(), self)
        self.proxy = ResourceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setAccessibleName("Voices")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, column_def in enumerate(voice_columns()):
            if column_def.title in HIDDEN_COLUMNS:  # shown beside the table for the chosen voice
                self.table.hideColumn(column)
        self.table.setMinimumHeight(180)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        body.addWidget(self.table, 3)

        side = QWidget(self)
        side.setAccessibleName("Chosen voice")
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.setSpacing(4)
        self.chosen = _plain_label(side, "Chosen voice name")
        font = self.chosen.font()
        font.setBold(True)
        self.chosen.setFont(font)
        side_layout.addWidget(self.chosen)
        self.facts = QFormLayout()
        self.facts.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.facts.setVerticalSpacing(2)
        side_layout.addLayout(self.facts)
        self.note = _plain_label(side, "Chosen voice note")
        self.note.setStyleSheet("color: palette(mid);")
        side_layout.addWidget(self.note)
        side_layout.addStretch(1)
        side.setMinimumWidth(200)
        side.setMaximumWidth(260)
        body.addWidget(side, 2)
        outer.addLayout(body, 1)

        self.status = QLabel(self)
        shows_value(self.status, "Voice list status")
        self.status.setStyleSheet("color: palette(mid);")
        outer.addWidget(self.status)

        self.model.rowsInserted.connect(self._rows_arrived)
        self.model.pageLoaded.connect(self._update_status)
        self.model.loadingChanged.connect(self._update_status)
        self.model.offlineChanged.connect(self._update_status)
        self.model.loadFailed.connect(self._load_failed)
        self._failed: str | None = None
        self._show_chosen()
        self.reload()

    # --- the list ------------------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the catalogue again with the current filters (the choice is kept)."""
        self._failed = None
        self.model.set_feed(voice_feed(self.session, self.filters.values(), self.page_size))
        self._update_status()

    async def wait_idle(self) -> None:
        """Until the page being read has arrived (tests)."""
        await self.model.wait_idle()

    def _load_failed(self, error: BaseException) -> None:
        self._failed = describe_error(error)[0]
        self._update_status()

    def _update_status(self, *_: object) -> None:
        if self._failed:
            self.status.setText(f"Could not load the voices: {self._failed}")
            return
        if self.model.loading:
            self.status.setText("Loading voices…")
            return
        count = self.model.rowCount()
        more = " — scroll for more" if self.model.canFetchMore() else ""
        offline = " (cached, offline)" if self.model.offline else ""
        if count == 0:
            self.status.setText(f"No voice matches these filters{offline}.")
        else:
            self.status.setText(f"{count:,} voice{'s' if count != 1 else ''} shown{more}{offline}")
        self._show_chosen()

    def _rows_arrived(self, *_: object) -> None:
        if self._selected_id is None:
            return
        row = self.model.row_of(str(self._selected_id))
        if row >= 0:
            voice = self.model.item(row)
            self._selected_voice = voice
            self._select_row(row)

    def _select_row(self, row: int) -> None:
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return
        if self.table.selectionModel().isRowSelected(index.row()):
            return
        self.table.selectRow(index.row())
        self.table.scrollTo(index)

    def _selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return  # a filter change cleared the view: the choice stays
        voice = self.model.item(self.proxy.mapToSource(rows[0]).row())
        previous = self._selected_id
        self._selected_id = voice.id
        self._selected_voice = voice
        self._show_chosen()
        if previous != voice.id:
            self.changed.emit()

    # --- the choice ----------------------------------------------------------------------------------------

    def selected_voice_id(self) -> int | str | None:
        return self._selected_id

    def selected_voice(self) -> Any:
        """The chosen voice (a ``Voice``, or the host's voice record in an edit dialog), or ``None``."""
        return self._selected_voice

    def select_voice(self, voice_id: int | str | None, voice: Any = None) -> None:
        """Choose a voice by id; ``voice`` describes it while the catalogue has not shown it yet."""
        previous = self._selected_id
        self._selected_id = voice_id
        row = self.model.row_of(str(voice_id)) if voice_id is not None else -1
        if row >= 0:
            self._selected_voice = self.model.item(row)
            self._select_row(row)
        else:
            self._selected_voice = voice
            if voice_id is None:
                self.table.clearSelection()
        self._show_chosen()
        if previous != voice_id:
            self.changed.emit()

    def _show_chosen(self) -> None:
        while self.facts.rowCount():
            self.facts.removeRow(0)
        if self._selected_id is None:
            self.chosen.setText("No voice chosen yet")
            self.note.setText("Pick a voice in the list; the filters narrow it down.")
            self.note.show()
            return
        voice = self._selected_voice
        if voice is None:
            self.chosen.setText(f"Voice {self._selected_id}")
        else:
            self.chosen.setText(voice_name(voice))
            for label, value in voice_facts(voice):
                shown = set_value(_plain_label(self), value if value not in (None, "") else None)
                self.facts.addRow(label, shown)
        hidden = self.model.row_of(str(self._selected_id)) < 0 and not self.model.loading
        self.note.setText(
            "This voice is not in the list shown; it stays chosen until you pick another." if hidden else ""
        )
        self.note.setVisible(hidden)

    def voice_details(self) -> dict[str, str]:
        """The facts shown for the chosen voice (tests)."""
        shown: dict[str, str] = {}
        for row in range(self.facts.rowCount()):
            label_item = self.facts.itemAt(row, QFormLayout.ItemRole.LabelRole)
            field_item = self.facts.itemAt(row, QFormLayout.ItemRole.FieldRole)
            label = label_item.widget() if label_item is not None else None
            field = field_item.widget() if field_item is not None else None
            if isinstance(label, QLabel) and isinstance(field, QLabel):
                shown[label.text()] = field.text()
        return shown
