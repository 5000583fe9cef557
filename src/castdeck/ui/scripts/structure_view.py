"""The structured view of a script: chapters and their turns, a host per turn, reordered by drag and
drop. It edits the same text as the editor: a new host changes the turn's label line, a new chapter
title its ``#`` line, a drop rewrites the text with every line kept (see
:mod:`castdeck.scripts.edits`), each as one undo step in the editor.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from castdeck.scripts import Analysis, HostRef
from castdeck.scripts.edits import Blocks, assemble, blocks_of
from castdeck.scripts.lines import label_key

from .colors import assign_slots, is_dark, speaker_color
from .panels import color_icon

__all__ = ["StructureView"]

REF = Qt.ItemDataRole.UserRole  # ("chapter", index) or ("segment", chapter index, segment index)


class _Tree(QTreeWidget):
    dropped = Signal()

    def dropEvent(self, event: QDropEvent) -> None:
        super().dropEvent(event)
        self.dropped.emit()


class StructureView(QWidget):
    """``textRequested(text)``: the whole script rewritten (a reordering); ``segmentHost(segment, host
    label)``; ``chapterTitle(chapter index, title)``."""

    textRequested = Signal(str)
    segmentLabelRequested = Signal(int, int, str)  # chapter index, segment index, new label
    chapterTitleRequested = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("structure_view")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        hint = QLabel(
            "Drag turns and chapters to reorder them; choose a host for a turn; double-click a chapter to "
            "rename it. Every change is made in the text too (Ctrl+Z undoes it).",
            self,
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        layout.addWidget(hint)
        self.tree = _Tree(self)
        self.tree.setAccessibleName("Chapters and turns")
        self.tree.setHeaderLabels(["Chapter / turn", "Host", "Words"])
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(False)
        self.tree.setColumnWidth(1, 200)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        layout.addWidget(self.tree, 1)
        self.tree.dropped.connect(self._dropped)
        self.tree.itemChanged.connect(self._renamed)
        self.tree.currentItemChanged.connect(self._show_host_choice)
        self._combo_item: QTreeWidgetItem | None = None
        self.analysis: Analysis | None = None
        self._blocks: Blocks | None = None
        self._hosts: list[HostRef] | None = None
        self._mapping: dict[str, str] = {}
        self._filling = False

    def set_script(self, analysis: Analysis, hosts: list[HostRef] | None, mapping: dict[str, str]) -> None:
        self.analysis = analysis
        self._blocks = blocks_of(analysis.script)
        self._hosts, self._mapping = hosts, mapping
        self._fill()

    def _host_choices(self) -> list[tuple[str, str, str | None]]:
        """(shown, label to write, host id) for each host a turn can be given: a host keeps the label
        the script already uses for it, else the one mapped to it, else its name. Labels that resolve
        to no host are listed too."""
        analysis = self.analysis
        assert analysis is not None
        used: dict[str, str] = {}
        for label in analysis.script.labels:
            found = analysis.resolutions.get(label)
            if found is not None and found.host_id is not None:
                used.setdefault(found.host_id, label)
        for label, host_id in self._mapping.items():
            used.setdefault(host_id, label)
        choices: list[tuple[str, str, str | None]] = [
            (host.name, used.get(host.id, host.name), host.id) for host in self._hosts or ()
        ]
        for label in analysis.script.labels:
            found = analysis.resolutions.get(label)
            if (
                found is None
                or found.host_id is None
                or found.host_id not in {h.id for h in self._hosts or ()}
            ):
                choices.append((f"{label} (no host)", label, None))
        return choices

    def _fill(self) -> None:
        analysis = self.analysis
        if analysis is None:
            return
        self._filling = True
        current = self.tree.currentItem()
        keep = current.data(0, REF) if current is not None else None
        self.tree.setUpdatesEnabled(False)
        self._combo_item = None
        self.tree.clear()
        dark = is_dark(self)
        slots = assign_slots(analysis.script.labels)
        choices = self._host_choices()
        for c_index, chapter in enumerate(analysis.script.chapters):
            top = QTreeWidgetItem(
                [
                    chapter.title or "Untitled chapter",
                    "",
                    str(sum(len(s.text.split()) for s in chapter.segments)),
                ]
            )
            top.setData(0, REF, ("chapter", c_index))
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
            flags |= Qt.ItemFlag.ItemIsDropEnabled
            if chapter.line is not None:
                flags |= Qt.ItemFlag.ItemIsEditable
            top.setFlags(flags)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            for s_index, segment in enumerate(chapter.segments):
                preview = " ".join(segment.text.split()[:12])
                child = QTreeWidgetItem([f"{segment.label}: {preview}", "", str(len(segment.text.split()))])
                child.setData(0, REF, ("segment", c_index, s_index))
                child.setIcon(0, color_icon(speaker_color(segment.label, dark, slots)))
                child.setToolTip(0, segment.text[:400])
                child.setFlags(
                    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
                )
                top.addChild(child)
                found = analysis.resolutions.get(segment.label)
                host_id = found.host_id if found is not None else None
                shown = next((name for name, _label, h in choices if h is not None and h == host_id), None)
                child.setText(1, shown or f"{segment.label} (no host)")
                child.setToolTip(1, "Select the turn to choose its host")
            top.setExpanded(True)
        self.tree.invisibleRootItem().setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsDropEnabled)
        self.tree.setUpdatesEnabled(True)
        self._filling = False
        if keep:  # the same place stays selected (with its host list) after a change
            self.select(keep)

    def select(self, ref: tuple[object, ...]) -> QTreeWidgetItem | None:
        """Select the chapter ``("chapter", c)`` or turn ``("segment", c, s)``."""
        root = self.tree.invisibleRootItem()
        for i in range(root.childCount()):
            top = root.child(i)
            items = [top, *(top.child(j) for j in range(top.childCount()))]
            for item in items:
                if tuple(item.data(0, REF) or ()) == tuple(ref):
                    self.tree.setCurrentItem(item)
                    return item
        return None

    def _show_host_choice(
        self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None = None
    ) -> None:
        """The host of the selected turn is chosen in a list shown on its row (one list at a time:
        600 of them would take seconds to build)."""
        if self._combo_item is not None:
            self.tree.removeItemWidget(self._combo_item, 1)
            self._combo_item = None
        ref = current.data(0, REF) if current is not None else None
        if current is None or not ref or ref[0] != "segment" or self.analysis is None:
            return
        c_index, s_index = int(ref[1]), int(ref[2])
        chapters = self.analysis.script.chapters
        if c_index >= len(chapters) or s_index >= len(chapters[c_index].segments):
            return
        segment = chapters[c_index].segments[s_index]
        found = self.analysis.resolutions.get(segment.label)
        host_id = found.host_id if found is not None else None
        combo = QComboBox(self.tree)
        combo.setAccessibleName(f"Host of turn {s_index + 1} in chapter {c_index + 1}")
        selected = -1
        for shown, label, choice_host in self._host_choices():
            combo.addItem(shown, label)
            mine = choice_host == host_id if choice_host is not None else label_key(label) == segment.key
            if mine and selected < 0:
                selected = combo.count() - 1
        combo.setCurrentIndex(max(selected, 0))
        combo.currentIndexChanged.connect(
            lambda _i, box=combo: self.segmentLabelRequested.emit(c_index, s_index, str(box.currentData()))
        )
        self.tree.setItemWidget(current, 1, combo)
        self._combo_item = current

    def _renamed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0:
            return
        ref = item.data(0, REF)
        if ref and ref[0] == "chapter":
            self.chapterTitleRequested.emit(int(ref[1]), item.text(0).strip())

    def order(self) -> list[tuple[int, list[tuple[int, int]]]] | None:
        """The chapters and turns as the tree holds them now: (chapter, [(chapter, turn)]); None when a
        drop put something where it cannot be (a turn outside a chapter, a chapter inside one)."""
        out: list[tuple[int, list[tuple[int, int]]]] = []
        root = self.tree.invisibleRootItem()
        for i in range(root.childCount()):
            top = root.child(i)
            ref = top.data(0, REF)
            if not ref or ref[0] != "chapter":
                return None
            turns: list[tuple[int, int]] = []
            for j in range(top.childCount()):
                child = top.child(j)
                child_ref = child.data(0, REF)
                if not child_ref or child_ref[0] != "segment" or child.childCount():
                    return None
                turns.append((int(child_ref[1]), int(child_ref[2])))
            out.append((int(ref[1]), turns))
        return out

    def apply_order(self, order: list[tuple[int, list[tuple[int, int]]]]) -> str | None:
        """The text with chapters and turns in ``order`` (None when nothing moved)."""
        if self._blocks is None:
            return None
        blocks = self._blocks
        original = [
            (c, [(c, s) for s in range(len(chapter.segments))]) for c, chapter in enumerate(blocks.chapters)
        ]
        if order == original:
            return None
        moved = Blocks(blocks.preamble, [])
        for c_index, turns in order:
            source = blocks.chapters[c_index]
            chapter = type(source)(source.heading, list(source.header), [])
            chapter.segments = [blocks.chapters[c].segments[s] for c, s in turns]
            moved.chapters.append(chapter)
        return assemble(moved)

    def _dropped(self) -> None:
        order = self.order()
        text = self.apply_order(order) if order is not None else None
        if text is None:
            self._fill()  # an impossible drop (or none): show the script as it is
            return
        self.textRequested.emit(text)
