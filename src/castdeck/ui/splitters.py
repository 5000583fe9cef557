"""Where the creator put a pane's dividers, kept: the list and the details, the script panels.

Light on purpose (QtCore, QtWidgets): the early window restores the Episodes divider the same way,
so it opens where the real window will.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QSplitter

from castdeck.services.settings import Settings

__all__ = ["keep_sizes", "restore_sizes"]


def restore_sizes(splitter: QSplitter, name: str, settings: Settings) -> bool:
    """Put ``splitter``'s dividers where they were left under ``name``; False when never moved."""
    saved = settings.splitter_state(name)
    return saved is not None and bool(splitter.restoreState(saved))


class _RestoreWhenLaidOut(QObject):
    """Restores once the splitter is shown at its size: restored earlier, the first layout spread
    its growth over the parts by their stretch and moved the divider from where it was left."""

    def __init__(self, splitter: QSplitter, name: str, settings: Settings) -> None:
        super().__init__(splitter)
        self.name = name
        self.settings = settings
        splitter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(watched, QSplitter) or event.type() not in (QEvent.Type.Show, QEvent.Type.Resize):
            return False
        if watched.isVisible() and watched.width() > 0:
            watched.removeEventFilter(self)
            restore_sizes(watched, self.name, self.settings)
            self.deleteLater()
        return False


def keep_sizes(splitter: QSplitter, name: str, settings: Settings) -> None:
    """Restore ``splitter`` as left (once it is shown at its size), and remember each move the
    creator makes (written off the UI thread, a drag's many moves in one write)."""
    if splitter.isVisible() and splitter.width() > 0:
        restore_sizes(splitter, name, settings)
    else:
        _RestoreWhenLaidOut(splitter, name, settings)
    splitter.splitterMoved.connect(lambda *_: settings.set_splitter_state(name, splitter.saveState()))
