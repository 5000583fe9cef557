"""What a screen reader is told about a widget where Qt's defaults do not say it. Light on purpose
(QtWidgets only): the early window uses it too.

Qt names a label by its text unless an accessible name is set, and a form row's label labels its
field (the "label" relation), so a value in a form reads as "Podcast: The Curious Current" with no
help. What needs saying: a value with no field name beside it on screen (:func:`shows_value`), a
blank value (:func:`set_value`), a blank table cell (:data:`BLANK_CELL`), and the dividers and grips
Qt leaves unnamed (:func:`name_grips`).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QSizeGrip, QSplitter

__all__ = ["BLANK", "BLANK_CELL", "NOT_SET", "name_grips", "set_value", "shows_value"]

BLANK = "—"
"""What a value that is not there shows."""
NOT_SET = "Not set"
"""What a screen reader says for it (a dash read aloud says nothing)."""
BLANK_CELL = "None"
"""What a blank table cell reads as, unless its column says better ("Not published")."""


def shows_value(label: QLabel, field: str) -> QLabel:
    """``label`` shows the value of ``field`` with no field name on screen beside it (a status line,
    a count): a screen reader reads the label's text, the value, as its name and ``field`` as its
    description. A value beside its field's name in a form needs neither: the form makes the name
    its label, and naming the value after the field would hide the value (read "Podcast, Podcast")."""
    label.setAccessibleName("")
    label.setAccessibleDescription(field)
    return label


def set_value(label: QLabel, value: object, *, blank: str = NOT_SET) -> QLabel:
    """Show ``value`` in ``label``, or :data:`BLANK` when there is none (``None``, empty, or the
    dash a caller already wrote for it), which a screen reader is told means ``blank``."""
    shown = "" if value is None else str(value).strip()
    missing = shown in ("", BLANK)
    label.setText(BLANK if missing else str(value))
    label.setAccessibleDescription(blank if missing else "")
    return label


def name_grips(window: QMainWindow | QSplitter, name: str) -> None:
    """Name what the creator drags to resize: a splitter's dividers ("``name``", numbered when it
    has several) or a main window's size grip in its status bar."""
    if isinstance(window, QSplitter):
        handles = [window.handle(i) for i in range(1, window.count())]
        for number, handle in enumerate(handles, start=1):
            handle.setAccessibleName(name if len(handles) == 1 else f"{name} {number}")
        return
    for grip in window.statusBar().findChildren(QSizeGrip):
        grip.setAccessibleName(name)
