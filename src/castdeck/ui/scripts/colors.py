"""Colours of the script editor that read well in light and dark palettes.

Every speaker gets a stable colour: the hue comes from a hash of the label (without case or extra
spaces), so "Alex" is the same colour in every session, every draft and on every machine.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from castdeck.scripts.lines import label_key

from .. import palette

__all__ = [
    "SLOTS",
    "assign_slots",
    "chapter_color",
    "is_dark",
    "muted",
    "problem_color",
    "speaker_color",
    "tag_color",
]


def is_dark(widget: QWidget) -> bool:
    return palette.is_dark(widget.palette())


# Ten hues far apart (blue, orange, green, red, purple, brown, pink, teal, olive, indigo), each in a
# darker shade for light backgrounds and a lighter one for dark backgrounds.
_LIGHT = ("#1565c0", "#e65100", "#2e7d32", "#c62828", "#6a1b9a", "#795548", "#ad1457", "#00838f",
          "#827717", "#3949ab")  # fmt: skip
_DARK = ("#64b5f6", "#ffb74d", "#81c784", "#ef9a9a", "#ce93d8", "#bcaaa4", "#f48fb1", "#4dd0e1",
         "#d4e157", "#9fa8da")  # fmt: skip
SLOTS = len(_LIGHT)


def assign_slots(labels: Iterable[str]) -> dict[str, int]:
    """A colour slot per speaker of one script: the label's hash picks it, and a speaker whose slot
    is taken gets the next free one (labels are placed in sorted order, so the result depends only
    on which speakers there are, not on where they first speak)."""
    slots: dict[str, int] = {}
    used: set[int] = set()
    for key in sorted({label_key(label) for label in labels}):
        slot = zlib.crc32(key.encode("utf-8")) % SLOTS
        for step in range(SLOTS):
            if (slot + step) % SLOTS not in used:
                slot = (slot + step) % SLOTS
                break
        used.add(slot)
        slots[key] = slot
    return slots


def speaker_color(label: str, dark: bool, slots: dict[str, int] | None = None) -> QColor:
    key = label_key(label)
    slot = (slots or {}).get(key)
    if slot is None:
        slot = zlib.crc32(key.encode("utf-8")) % SLOTS
    return QColor((_DARK if dark else _LIGHT)[slot])


def muted(widget: QWidget) -> QColor:
    color = widget.palette().color(QPalette.ColorRole.Text)
    color.setAlpha(120)
    return color


def tag_color(dark: bool) -> QColor:
    return QColor("#b39ddb") if dark else QColor("#6a1b9a")


def problem_color(error: bool, dark: bool) -> QColor:
    if error:
        return QColor("#ef5350") if dark else QColor("#c62828")
    return QColor("#ffb74d") if dark else QColor("#b26a00")


def chapter_color(dark: bool) -> QColor:
    return QColor("#90caf9") if dark else QColor("#0d47a1")
