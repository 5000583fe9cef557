"""The side panels of the script editor: problems, the outline of chapters and turns, and speakers.

Each panel rebuilds only when what it shows changed, and a click jumps the editor to the place
(``jumpRequested(line, column)``).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from castdeck.scripts import Analysis, HostRef, Problem
from castdeck.scripts.estimate import speaking_seconds
from castdeck.scripts.lines import label_key

from .colors import assign_slots, is_dark, speaker_color

__all__ = ["OutlinePanel", "ProblemsPanel", "SpeakersPanel", "color_icon", "minutes_text"]

POSITION = Qt.ItemDataRole.UserRole


def minutes_text(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"


def color_icon(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


class ProblemsPanel(QListWidget):
    """Every problem of the script, in text order; click (or Enter) to jump to it."""

    jumpRequested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("problems")
        self.setAccessibleName("Problems")
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        self._shown: tuple[tuple[int, int, str, str], ...] = ()
        style = self.style()
        self._icons = {
            True: style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical),
            False: style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning),
        }
        self.itemActivated.connect(self._jump)
        self.itemClicked.connect(self._jump)

    def set_problems(self, problems: Sequence[Problem]) -> bool:
        """Show ``problems``; False when they are the ones already shown (nothing rebuilt)."""
        key = tuple((p.line, p.column, p.severity, p.message) for p in problems)
        if key == self._shown:
            return False
        self._shown = key
        self.setUpdatesEnabled(False)
        self.clear()
        for problem in problems:
            scope = {"import": " (import)", "generate": " (Generate from script)"}.get(problem.scope, "")
            item = QListWidgetItem(
                self._icons[problem.is_error], f"Line {problem.line + 1}: {problem.message}{scope}"
            )
            item.setData(POSITION, (problem.line, problem.column))
            item.setToolTip(
                f"{problem.severity.capitalize()} at line {problem.line + 1}, column {problem.column + 1}"
            )
            self.addItem(item)
        if not problems:
            done = QListWidgetItem("No problems: the script can be imported and generated.")
            done.setFlags(Qt.ItemFlag.NoItemFlags)
            self.addItem(done)
        self.setUpdatesEnabled(True)
        return True

    def _jump(self, item: QListWidgetItem) -> None:
        position = item.data(POSITION)
        if position is not None:
            self.jumpRequested.emit(position[0], position[1])


class OutlinePanel(QTreeWidget):
    """Chapters and speaker turns (with their speaker's colour); click to jump."""

    jumpRequested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outline")
        self.setAccessibleName("Outline")
        self.setHeaderLabels(["Chapter / turn", "Time"])
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.header().setStretchLastSection(False)
        self.setUniformRowHeights(True)
        self._shown: object = None
        self.itemClicked.connect(self._jump)
        self.itemActivated.connect(self._jump)

    def forget_shown(self) -> None:
        """Build again on the next update even if the script is unchanged (the palette changed:
        the speakers' colours differ between light and dark)."""
        self._shown = None

    def set_script(self, analysis: Analysis) -> None:
        script = analysis.script
        key = tuple(
            (c.title, c.line, tuple((s.label, s.line, s.text[:60]) for s in c.segments))
            for c in script.chapters
        )
        if key == self._shown:
            return
        self._shown = key
        dark = is_dark(self)
        slots = assign_slots(script.labels)
        self.setUpdatesEnabled(False)
        self.clear()
        for number, chapter in enumerate(script.chapters, 1):
            seconds = sum(speaking_seconds(s.text) for s in chapter.segments)
            top = QTreeWidgetItem([f"{number}. {chapter.title or 'Untitled chapter'}", minutes_text(seconds)])
            top.setData(0, POSITION, (chapter.line if chapter.line is not None else chapter.start_line, 0))
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            for segment in chapter.segments:
                first = " ".join(segment.text.split()[:9])
                child = QTreeWidgetItem(
                    [f"{segment.label}: {first}", minutes_text(speaking_seconds(segment.text))]
                )
                child.setIcon(0, color_icon(speaker_color(segment.label, dark, slots)))
                child.setData(
                    0, POSITION, (segment.label_line if segment.label_line is not None else segment.line, 0)
                )
                child.setToolTip(0, segment.text[:400])
                top.addChild(child)
            self.addTopLevelItem(top)
            top.setExpanded(True)
        self.setUpdatesEnabled(True)

    def _jump(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        position = item.data(0, POSITION)
        if position is not None:
            self.jumpRequested.emit(position[0], position[1])


NOT_MAPPED = "__name__"


class SpeakersPanel(QWidget):
    """The speakers of the script: a stable colour, their turns and minutes, the host each resolves
    to (by name, or chosen here: the mapping), and "rename everywhere"."""

    mappingChanged = Signal(str, object)  # label, host id or None (match by name again)
    renameRequested = Signal(str)  # label
    jumpRequested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("speakers")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 4, self)
        self.table.setAccessibleName("Speakers")
        self.table.setHorizontalHeaderLabels(["Speaker", "Turns", "Time", "Host"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.rename_button = QPushButton("Rename everywhere…", self)
        self.rename_button.setAccessibleName("Rename speaker everywhere")
        self.rename_button.setToolTip(
            "Change this speaker's label on every line where it appears (one undo step)"
        )
        self.rename_button.clicked.connect(self._rename)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(mid);")
        row.addWidget(self.rename_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self.table.cellDoubleClicked.connect(self._jump)
        self._shown: object = None
        self.combos: dict[str, QComboBox] = {}
        self.labels: list[str] = []
        self._lines: dict[str, int] = {}

    def forget_shown(self) -> None:
        """Build again on the next update even if the script is unchanged (the palette changed:
        the speakers' colours differ between light and dark)."""
        self._shown = None

    def set_script(self, analysis: Analysis, hosts: list[HostRef] | None, mapping: dict[str, str]) -> None:
        estimate = analysis.estimate
        turns: dict[str, int] = {}
        for segment in analysis.script.segments:
            turns[segment.label] = turns.get(segment.label, 0) + 1
        rows = [
            (label, turns.get(label, 0), round(estimate.seconds_by_speaker.get(label, 0.0)),
             analysis.resolutions[label].host_id if label in analysis.resolutions else None,
             analysis.resolutions[label].how if label in analysis.resolutions else None)
            for label in analysis.script.labels
        ]  # fmt: skip
        mapped_keys = {label_key(k): v for k, v in mapping.items()}
        key = (tuple(rows), tuple((h.id, h.name) for h in hosts or ()), tuple(sorted(mapped_keys.items())))
        self._lines = {
            label: (analysis.script.label_lines.get(label_key(label)) or [0])[0]
            for label in analysis.script.labels
        }
        if key == self._shown:
            return
        self._shown = key
        selected = self.selected_label()
        dark = is_dark(self)
        slots = assign_slots(analysis.script.labels)
        self.labels = [r[0] for r in rows]
        self.combos = {}
        self.table.setUpdatesEnabled(False)
        self.table.setRowCount(len(rows))
        names = {h.id: h.name for h in hosts or ()}
        for index, (label, count, seconds, host_id, how) in enumerate(rows):
            name = QTableWidgetItem(label)
            name.setIcon(color_icon(speaker_color(label, dark, slots), 14))
            name.setData(POSITION, label)
            self.table.setItem(index, 0, name)
            self.table.setItem(index, 1, QTableWidgetItem(str(count)))
            self.table.setItem(index, 2, QTableWidgetItem(minutes_text(seconds)))
            combo = QComboBox(self.table)
            combo.setAccessibleName(f"Host for {label}")
            by_name = names.get(host_id or "", host_id) if how == "name" else None
            combo.addItem(f"By name: {by_name}" if by_name else "Not resolved: choose a host", NOT_MAPPED)
            for host in hosts or ():
                combo.addItem(host.name, host.id)
            chosen = mapped_keys.get(label_key(label))
            if chosen is not None and combo.findData(chosen) < 0:
                combo.addItem(f"{chosen} (not an active host)", chosen)
            combo.setCurrentIndex(combo.findData(chosen) if chosen is not None else 0)
            combo.currentIndexChanged.connect(lambda _i, lb=label, c=combo: self._mapped(lb, c))
            self.table.setCellWidget(index, 3, combo)
            self.combos[label] = combo
        self.table.setUpdatesEnabled(True)
        if selected in self.labels:
            self.table.selectRow(self.labels.index(selected))
        elif self.labels:
            self.table.selectRow(0)
        self.rename_button.setEnabled(bool(self.labels))
        self.note.setText(
            "The hosts are not known yet (offline, never loaded): labels are matched by name when the script "
            "is sent."
            if hosts is None
            else "A label matches a host by name unless you choose one here."
        )

    def selected_label(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if rows and 0 <= rows[0].row() < len(self.labels):
            return self.labels[rows[0].row()]
        return None

    def select(self, label: str) -> None:
        keys = [label_key(x) for x in self.labels]
        if label_key(label) in keys:
            self.table.selectRow(keys.index(label_key(label)))

    def _mapped(self, label: str, combo: QComboBox) -> None:
        value = combo.currentData()
        self.mappingChanged.emit(label, None if value == NOT_MAPPED else str(value))

    def _rename(self) -> None:
        label = self.selected_label()
        if label is not None:
            self.renameRequested.emit(label)

    def _jump(self, row: int, _column: int) -> None:
        if 0 <= row < len(self.labels):
            self.jumpRequested.emit(self._lines.get(self.labels[row], 0), 0)
