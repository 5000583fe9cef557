"""What a screen reader gets from a window: a walk over Qt's accessible tree (the ``QAccessible``
interfaces the platform bridge, AT-SPI on Linux, hands to Orca) that lists what it cannot use.

Three rules, each a line in the list it returns:
- every interactive object (button, field, list, cell, menu item...) has a name;
- a label that shows a value is named by its value: its name is neither the field's name that
  labels it (the "Podcast" beside "Podcast" a reader reads twice) nor a name that differs from the
  text it shows (a heading named "Title" instead of the title);
- a table, list or tree cell, or a label showing a sign alone ("—"), reads as something: its
  text, or a description saying what blank means.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from PySide6.QtGui import QAccessible, QAccessibleInterface, QTextDocumentFragment
from PySide6.QtWidgets import QLabel, QWidget

Role = QAccessible.Role
Text = QAccessible.Text

INTERACTIVE = {
    Role.PushButton, Role.CheckBox, Role.RadioButton, Role.ComboBox, Role.EditableText,
    Role.SpinBox, Role.Slider, Role.Dial, Role.Link, Role.PageTab, Role.MenuItem,
    Role.ButtonMenu, Role.ButtonDropDown, Role.ButtonDropGrid, Role.List, Role.Table,
    Role.Tree, Role.ListItem, Role.Cell, Role.TreeItem, Role.HotkeyField, Role.Grip,
}  # fmt: skip
CELLS = {Role.ListItem, Role.Cell, Role.TreeItem}


@dataclass(frozen=True)
class Node:
    """One accessible object met on the walk: its interface and where it is (for messages)."""

    interface: QAccessibleInterface
    path: str

    @property
    def role(self) -> QAccessible.Role:
        return self.interface.role()

    @property
    def name(self) -> str:
        return self.interface.text(Text.Name).strip()

    @property
    def description(self) -> str:
        return self.interface.text(Text.Description).strip()


def interface_of(widget: QWidget) -> QAccessibleInterface:
    found = QAccessible.queryAccessibleInterface(widget)
    assert found is not None, f"{type(widget).__name__} has no accessible interface"
    return found


def walk(root: QWidget, *, hidden: bool = False, limit: int = 20_000) -> Iterator[Node]:
    """Every visible accessible object under ``root``, the root included, depth first; with
    ``hidden``, the hidden ones too (a menu's items before it pops up)."""
    start = interface_of(root)
    waiting = [Node(start, root.windowTitle() or root.accessibleName() or type(root).__name__)]
    met = 0
    while waiting:
        node = waiting.pop()
        if not node.interface.isValid() or (node.interface.state().invisible and not hidden):
            continue
        met += 1
        assert met <= limit, f"more than {limit} accessible objects under {node.path}"
        yield node
        children = [node.interface.child(i) for i in range(node.interface.childCount())]
        for child in reversed([c for c in children if c is not None]):
            waiting.append(Node(child, f"{node.path} › {describe(child)}"))


def where(node: Node) -> str:
    """A cell's row and column ("row 3 of 'Published'") where the view tells."""
    cell = node.interface.tableCellInterface()
    if cell is None:
        return ""
    headers = [h.text(Text.Name) for h in cell.columnHeaderCells() if h is not None]
    column = repr(headers[0]) if headers else str(cell.columnIndex() + 1)
    return f"(row {cell.rowIndex() + 1} of {column})"


def describe(interface: QAccessibleInterface) -> str:
    name = interface.text(Text.Name).strip()
    kind = interface.role().name
    return f"{kind} {name!r}" if name else kind


def plain(text: str) -> str:
    """What a label's text reads as: rich text reduced to its words, mnemonics and a trailing colon
    dropped, spaces folded, case ignored."""
    if "<" in text and ">" in text:
        text = QTextDocumentFragment.fromHtml(text).toPlainText()
    text = re.sub(r"&(?=\S)", "", text).strip().rstrip(":").strip()
    return " ".join(text.split()).casefold()


def words(text: str) -> str:
    """A label's words alone (its signs dropped: a coloured dot, a dash), to compare a name with."""
    return " ".join(re.findall(r"[^\W_]+", plain(text)))


def labels_of(node: Node) -> list[str]:
    """The names of the labels that label ``node`` (Qt's label relation: a buddy, a form row)."""
    return [
        other.text(Text.Name)
        for other, _ in node.interface.relations(QAccessible.RelationFlag.Label)
        if other is not None
    ]


def problems(root: QWidget, *, hidden: bool = False) -> list[str]:
    """What a screen reader cannot use under ``root``, a line each (empty: nothing); ``hidden``:
    the hidden objects too (a menu's items)."""
    found: list[str] = []
    for node in walk(root, hidden=hidden):
        role, name = node.role, node.name
        if role in CELLS:
            if not name and not node.description:
                found.append(
                    f"{node.path} {where(node)}: a blank cell that says nothing (no text, no description)"
                )
        elif role in INTERACTIVE and not name:
            found.append(f"{node.path}: an unnamed {role.name}")
        label = node.interface.object()
        if not isinstance(label, QLabel):
            continue  # (a field's name is its label's: what it holds is its value, read after it)
        fields = {plain(field) for field in labels_of(node)}
        if name and plain(name) in fields:
            found.append(f"{node.path}: reads its field's name {name!r}, not the value it shows")
        if (
            label.text().strip()
            and not label.accessibleName()
            and not words(label.text())
            and not node.description
        ):
            found.append(
                f"{node.path}: shows {label.text().strip()!r} alone and says nothing of what it means"
            )
        if label.accessibleName() and label.text().strip():
            shown = words(label.text())
            if shown and shown not in words(label.accessibleName()):
                found.append(
                    f"{node.path}: named {label.accessibleName()!r} but shows {plain(label.text())!r}"
                )
    return found
