"""``DownloadSaver``: a finished file saved where the creator says, inside the app.

A job card's Download and a media pane's Download both ask for a file name (in the Downloads
folder, named after the title), then fetch the signed address with the credential-free client
(:class:`castdeck.services.downloads.Downloads`; the API key never goes to it) and say where the
file went, or why not. No browser is involved, so nothing depends on one being there.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from castdeck.api.errors import CastdeckError
from castdeck.services.downloads import Downloads
from castdeck.services.messages import error_text
from castdeck.services.settings import Settings
from castdeck.services.tasks import TaskScope

from .file_dialogs import use_folder
from .widgets import alive

__all__ = ["DownloadSaver", "file_name_for"]


def file_name_for(title: str, url: str, fallback: str) -> str:
    """A file name from the item's title and the address's suffix (``fallback`` without one)."""
    suffix = Path(urlparse(url).path).suffix or fallback
    stem = re.sub(r"[^\w\- ]+", "", title.split(":", 1)[-1]).strip()[:60] or "castdeck"
    return stem + suffix


class DownloadSaver(QObject):
    """Asks where to save, saves, and says so through :attr:`said` (text, kind)."""

    said = Signal(str, str)

    def __init__(self, downloads: Downloads, settings: Settings, parent: QWidget) -> None:
        super().__init__(parent)
        self._downloads = downloads
        self._settings = settings
        self._parent = parent
        self.work = TaskScope(self)
        self.dialog: QFileDialog | None = None
        """The open "Save the file" dialog (tests answer it)."""

    def ask(self, title: str, url: str, fallback: str) -> QFileDialog:
        """The file dialog for ``url``; once a file is chosen the download starts."""
        dialog = QFileDialog(self._parent, "Save the file")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        use_folder(self._settings, dialog, "saves", file_name_for(title, url, fallback))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.save(title, url, Path(path)))
        self.dialog = dialog
        dialog.open()
        return dialog

    def save(self, title: str, url: str, dest: Path) -> None:
        self.said.emit(f"Downloading “{title}”…", "info")

        async def fetch() -> None:
            try:
                await self._downloads.save(url, dest)
            except OSError as error:  # the disk: full, read-only, a folder gone
                if alive(self._parent):
                    self.said.emit(f"Could not save “{title}” to {dest}: {error.strerror or error}", "error")
                return
            if alive(self._parent):
                self.said.emit(f"Saved “{title}” to {dest}.", "info")

        def failed(error: CastdeckError) -> None:
            if alive(self._parent):
                self.said.emit(f"Could not save “{title}”: {error_text(error)}", "error")

        self.work.start(fetch(), on_error=failed, name="download")
