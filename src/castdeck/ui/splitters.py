"""Where the creator put a pane's dividers, kept: the list and the details, the script panels.

Light on purpose (QtCore, QtWidgets): the early window restores the Episodes divider the same way,
so it opens where the real window will.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject
from PySide6.QtWidgets import QSplitter

from castdeck.services import settings_later

__all__ = ["keep_sizes", "restore_sizes"]


def _key(name: str) -> str:
    return f"splitters/{name}"


def restore_sizes(splitter: QSplitter, name: str) -> bool:
    """Put ``splitter``'s dividers where they were left under ``name``; False when never moved."""
    saved = settings_later.recall(_key(name))
    if isinstance(saved, QByteArray | bytes) and saved:
        return bool(splitter.restoreState(QByteArray(saved)))
    return False


class _RestoreWhenLaidOut(QObject):
    """Restores once the splitter is shown at its size: restored earlier, the first layout spread
    its growth over the parts by their stretch and moved the divider from where it was left."""

    def __init__(self, splitter: QSplitter, name: str) -> None:
        super().__init__(splitter)
        self.name = name
        splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(watched, QSplitter) or event.type() not in (QEvent.Type.Show, QEvent.Type.Resize):
            return False
        if watched.isVisible() and watched.width() > 0:
            watched.removeEventFilter(self)
            restore_sizes(watched, self.name)
            self.deleteLater()
        return False


def keep_sizes(splitter: QSplitter, name: str) -> None:
    """Restore ``splitter`` as left (once it is shown at its size), and remember each move the
    creator makes (written off the UI thread, a drag's many moves in one write)."""
    if splitter.isVisible() and splitter.width() > 0:
        restore_sizes(splitter, name)
    else:
        _RestoreWhenLaidOut(splitter, name)
    splitter.splitterMoved.connect(lambda *_: settings_later.remember(_key(name), splitter.saveState()))
