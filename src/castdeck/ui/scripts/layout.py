"""The Scripts pane's widgets, made and laid out: the buttons over the banner, then the drafts list,
the editor's views and the side panels side by side, and the pane's keys.

:func:`build_widgets` lays them out in the pane and connects them to what the
:class:`~castdeck.ui.scripts.actions.ScriptActions` do (Open…, Save, History…, the speakers'
mapping...); it returns them as a :class:`ScriptsWidgets`, which the pane unpacks onto itself under
the names it always had (``pane.editor``, ``pane.save_button``...) and wires to what it does itself
(opening a clicked draft, jumping to a problem). Nothing here reads a draft or the service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..accessible import name_grips
from ..splitters import keep_sizes
from ..widgets import Banner, heading_label
from .draft_list import DraftDelegate, DraftListModel
from .structure_view import StructureView
from .text_page import ScriptPanels, TextPage, push_button

if TYPE_CHECKING:
    from castdeck.services.settings import Settings

    from .actions import ScriptActions

__all__ = ["ScriptsWidgets", "build_widgets"]


@dataclass(frozen=True, slots=True)
class ScriptsWidgets:
    """What :func:`build_widgets` made, by the names the pane keeps them under."""

    new_button: QPushButton
    open_button: QPushButton
    save_button: QPushButton
    save_as_button: QPushButton
    history_button: QPushButton
    import_button: QPushButton
    generate_button: QPushButton
    banner: Banner
    """The banner's own button (hidden until a message names one, as "Show history" does)."""
    list_model: DraftListModel
    list_view: QListView
    delete_button: QPushButton
    info: QLabel
    """The line above the editor: the open draft's title, its file and its state."""
    views: QTabWidget
    """The Text and Structure views of the open draft."""
    text_page: TextPage
    structure: StructureView
    side: ScriptPanels
    splitter: QSplitter


def build_widgets(pane: QWidget, actions: ScriptActions, settings: Settings,
                  new_draft: Callable[[], object]) -> ScriptsWidgets:  # fmt: skip
    """Lay the Scripts workspace out in ``pane``, its buttons and keys calling ``actions`` (New calls
    ``new_draft``); the dividers are where the creator left them, as ``settings`` remember."""
    act = actions
    outer = QVBoxLayout(pane)
    top = QHBoxLayout()
    top.addWidget(heading_label("Scripts", pane))
    top.addStretch(1)

    def b(text: str, name: str, tip: str, slot: Callable[[], object], row: QHBoxLayout) -> QPushButton:
        return push_button(pane, text, name, tip, slot, row)

    new_button = b("New", "New draft", "A new script draft (Ctrl+N)", new_draft, top)
    open_button = b("Open…", "Open a script file", "Open a .txt, .md or .json script (Ctrl+O); "
                    "you can also drop files here", act.open_file_dialog, top)  # fmt: skip
    save_button = b(
        "Save to file", "Save to file", "Write the draft to its file (Ctrl+S)", act.save_file, top
    )
    save_as_button = b("Save as…", "Save as", "Write the draft to a .txt, .md or .json (structured) file "
                       "(Ctrl+Shift+S)", act.save_as, top)  # fmt: skip
    history_button = b("History…", "Version history", "Earlier versions of this draft (Ctrl+Shift+H)",
                       act.show_history, top)  # fmt: skip
    import_button = b("Import…", "Import as episode", "Import the script as an episode (Ctrl+I)",
                      lambda: act.send("import"), top)  # fmt: skip
    generate_button = b("Generate…", "Generate from script", "Generate an episode from the script "
                        "(Ctrl+G)", lambda: act.send("generate"), top)  # fmt: skip
    outer.addLayout(top)
    banner = Banner(pane)  # its action button offers "Undo delete", "Show history"
    outer.addWidget(banner)

    split = QSplitter(Qt.Orientation.Horizontal, pane)
    split.setChildrenCollapsible(False)
    left = QWidget(split)
    left_layout = QVBoxLayout(left)
    left_layout.setContentsMargins(0, 0, 0, 0)
    list_model = DraftListModel(pane)
    list_view = QListView(left)
    list_view.setObjectName("drafts")
    list_view.setAccessibleName("Drafts")
    list_view.setModel(list_model)
    list_view.setItemDelegate(DraftDelegate(list_view))
    list_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)  # a batch: Ctrl/Shift+click
    list_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    list_view.setUniformItemSizes(True)
    list_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    left_layout.addWidget(list_view, 1)
    list_row = QHBoxLayout()
    delete_button = b("Delete…", "Delete draft", "Put this draft aside (Delete in the list; you can undo it)",
                      act.delete_current, list_row)  # fmt: skip
    list_row.addStretch(1)
    left_layout.addLayout(list_row)

    center = QWidget(split)
    center_layout = QVBoxLayout(center)
    center_layout.setContentsMargins(0, 0, 0, 0)
    info = QLabel(center)
    info.setObjectName("draft_info")
    info.setWordWrap(True)
    info.setTextFormat(Qt.TextFormat.RichText)
    center_layout.addWidget(info)
    views = QTabWidget(center)
    views.setAccessibleName("Script views")
    text_page = TextPage(views)
    text_page.find_bar.replaceAllRequested.connect(act.replace_all)
    views.addTab(text_page, "Text")
    structure = StructureView(views)
    structure.textRequested.connect(act.reorder)
    structure.segmentLabelRequested.connect(act.set_segment_label)
    structure.chapterTitleRequested.connect(act.set_chapter_title)
    views.addTab(structure, "Structure")
    center_layout.addWidget(views, 1)

    side = ScriptPanels(split)
    side.speakers.mappingChanged.connect(act.map_speaker)
    side.speakers.renameRequested.connect(act.rename_speaker)
    split.addWidget(left)
    split.addWidget(center)
    split.addWidget(side)
    split.setStretchFactor(0, 2)
    split.setStretchFactor(1, 5)
    split.setStretchFactor(2, 3)
    split.setSizes([260, 620, 360])
    name_grips(split, "Divider between the script panels")
    keep_sizes(split, "scripts", settings)  # where the creator left the dividers
    outer.addWidget(split, 1)

    # While the pane is shown, wherever the focus is in the window (the sidebar just clicked, the
    # Jobs dock): a shortcut in a tooltip works whenever its pane is on screen.
    context = Qt.ShortcutContext.WindowShortcut
    find_bar = text_page.find_bar
    for keys, slot in (
        ("Ctrl+O", act.open_file_dialog), ("Ctrl+S", act.save_file), ("Ctrl+Shift+S", act.save_as),
        ("Ctrl+H", lambda: find_bar.open_bar(replace=True)), ("F3", find_bar.find_next),
        ("Shift+F3", find_bar.find_previous), ("Ctrl+Shift+H", act.show_history),
        ("Ctrl+I", lambda: act.send("import")), ("Ctrl+G", lambda: act.send("generate")),
    ):  # fmt: skip
        QShortcut(QKeySequence(keys), pane, slot, context=context)
    QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), list_view, act.delete_current,
              context=Qt.ShortcutContext.WidgetShortcut)  # fmt: skip
    return ScriptsWidgets(
        new_button=new_button, open_button=open_button, save_button=save_button,
        save_as_button=save_as_button, history_button=history_button, import_button=import_button,
        generate_button=generate_button, banner=banner,
        list_model=list_model, list_view=list_view, delete_button=delete_button, info=info,
        views=views, text_page=text_page, structure=structure, side=side, splitter=split,
    )  # fmt: skip
