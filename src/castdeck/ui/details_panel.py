"""``DetailsPanel``: the right side of a pane (a heading, facts, actions, rich text), and
``link_label`` for web links among the facts."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QFormLayout, QLabel, QVBoxLayout, QWidget

from .accessible import set_value, shows_value
from .flow_layout import FlowLayout, flow_policy
from .palette import tone
from .widgets import SafeTextBrowser, display_text, laid_out, open_web_link

__all__ = ["DetailsPanel", "link_label"]


def link_label(url: str | None, text: str | None = None) -> QLabel:
    """A label holding a web link that opens in the browser (only http and https)."""
    label = QLabel()
    if url:
        shown = (text or url).replace("&", "&amp;").replace("<", "&lt;")
        safe = url.replace('"', "%22")
        label.setText(f'<a href="{safe}">{shown}</a>')
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setOpenExternalLinks(False)
        label.linkActivated.connect(lambda href: open_web_link(href, label))
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
        # named by its text, the item's title (as every value: castdeck.ui.accessible)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        outer.addWidget(self.heading)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        shows_value(self.note, "Note")
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
        for section in laid_out(self.sections):
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
        picture: bool = True,
    ) -> None:
        """``picture``: show the item's picture above the heading (not for several items at once)."""
        self.placeholder.hide()
        if self._picture is not None:
            self._picture.setVisible(picture)
        self.heading.setText(display_text(heading or "(untitled)"))
        if note:
            tones = {"error": "problem", "warning": "warning"}
            shade = tone(tones[note_kind], self.palette()) if note_kind in tones else "palette(text)"
            self.note.setStyleSheet(f"color: {shade};")
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
                shown = QLabel()
                shown.setTextFormat(Qt.TextFormat.PlainText)
                set_value(shown, None if value in (None, "", []) else display_text(value))
                shown.setWordWrap(True)
                shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.form.addRow(label, shown)  # the row's label labels the value (read "Status: Draft")
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
