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

It never lets the pane's splitter make it narrower than the details need (at most
:data:`DETAILS_WIDTH_AT_MOST`): narrower, they were clipped at the right with a horizontal scroll
bar (a laptop with the Jobs dock open). The table beside it gives way instead: its lesser columns
hide (:mod:`castdeck.ui.column_fit`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

__all__ = ["DETAILS_WIDTH_AT_MOST", "DetailsScroll", "details_scroll"]

DETAILS_WIDTH_AT_MOST = 420
"""The most width the details claim from the table beside them (pixels, their scroll bar included)."""


class DetailsScroll(QScrollArea):
    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        inner = self.widget()
        if inner is None:
            return hint
        needed = (
            inner.minimumSizeHint().width()
            + self.verticalScrollBar().sizeHint().width()
            + 2 * self.frameWidth()
        )
        return QSize(max(hint.width(), min(needed, DETAILS_WIDTH_AT_MOST)), hint.height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the details changed: the splitter reads their need again
        return super().eventFilter(watched, event)


def details_scroll(parent: QWidget | None = None) -> QScrollArea:
    area = DetailsScroll(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
    return area
