"""Where the app's file dialogs open, and what they offer.

A file dialog opened in the app's working directory (wherever Castdeck was started from). Each now
opens in the folder last used for the same purpose (scripts, uploads, covers, saved files,
exports), else where such files usually live (Documents, Pictures, Downloads), and remembers the
folder chosen. "Add files…" offers what the service accepts first, with every file second.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog

from castdeck.api.models import MIME_BY_EXTENSION
from castdeck.services.settings import Settings

__all__ = ["UPLOAD_FILTER", "folder_for", "remember_folder", "use_folder"]

_PLACES = {
    "scripts": QStandardPaths.StandardLocation.DocumentsLocation,
    "uploads": QStandardPaths.StandardLocation.DocumentsLocation,
    "covers": QStandardPaths.StandardLocation.PicturesLocation,
    "saves": QStandardPaths.StandardLocation.DownloadLocation,
    "exports": QStandardPaths.StandardLocation.DocumentsLocation,
}

UPLOAD_FILTER = (
    "Files the service accepts ("
    + " ".join(f"*{ext}" for ext in sorted(MIME_BY_EXTENSION))
    + ");;All files (*)"
)


def folder_for(settings: Settings, purpose: str) -> str:
    """The folder last used for ``purpose`` while it exists, else where such files usually live."""
    last = settings.folder(purpose)
    if last and Path(last).is_dir():
        return last
    place = QStandardPaths.writableLocation(
        _PLACES.get(purpose, QStandardPaths.StandardLocation.HomeLocation)
    )
    if place and Path(place).is_dir():
        return place
    # no Documents (Pictures, Downloads) folder here: a dialog sent to one that does not exist
    # opened in the working directory
    return str(Path.home())


def remember_folder(settings: Settings, purpose: str, chosen: str) -> None:
    """Keep the folder of ``chosen`` (a file, or a folder) for the next dialog of ``purpose``."""
    if not chosen:
        return
    path = Path(chosen)
    settings.set_folder(purpose, str(path if path.is_dir() else path.parent))


def use_folder(
    settings: Settings, dialog: QFileDialog, purpose: str, name: str | None = None, *, near: str | None = None
) -> QFileDialog:
    """Open ``dialog`` in the folder for ``purpose`` (or beside ``near``, a file the item already
    has), proposing ``name``; the folder of what is chosen is remembered."""
    beside = Path(near).parent if near else None
    dialog.setDirectory(
        str(beside) if beside is not None and beside.is_dir() else folder_for(settings, purpose)
    )
    if name:
        dialog.selectFile(name)
    dialog.filesSelected.connect(
        lambda files: remember_folder(settings, purpose, files[0]) if files else None
    )
    return dialog
