"""``details_scroll``: the scroll area around a pane's details (the pane and the early window).

Its vertical scroll bar is always there (disabled while the details fit). The details hold
content that is taller when wider, such as the preview's picture (its height 9/16 of its width).
A scroll bar shown only as needed can then have no stable state:
- with the bar, the details are narrower, so shorter, so they fit, and the bar goes;
- without it, they are wider, so taller, and no longer fit.
Qt resizes the widget from inside its own resize to settle this. Where the details are a pixel
too tall at the wider width, it never settles, and the stack overflows (the soak found this as
a crash 11,000 frames deep; a Windows main thread has 1 MiB of stack). With the bar's room always
kept, the details' width never depends on their height.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

__all__ = ["details_scroll"]


def details_scroll(parent: QWidget | None = None) -> QScrollArea:
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
    return area
