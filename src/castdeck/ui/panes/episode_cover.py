"""Replacing an episode's cover: an image dropped on the cover in its details, or chosen with
"Replace cover…". The file gets the same local checks as an upload (JPEG, PNG or WebP by name
and by its first bytes, not empty, at most 10 MB) before anything is sent; then it goes to the
episode image endpoint once (a write without an idempotency key is never repeated by itself)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QPushButton

from castdeck.api.errors import CastdeckError, UploadError
from castdeck.api.models import Episode
from castdeck.services import catalog

from ..file_dialogs import use_folder

if TYPE_CHECKING:
    from .episodes import EpisodesPane

__all__ = ["CoverReplacer"]

FILTER = "Images (*.jpg *.jpeg *.png *.webp *.JPG *.JPEG *.PNG *.WEBP)"


class CoverReplacer(QObject):
    """The pane's "Replace cover…" button and the drop on its cover."""

    def __init__(self, pane: EpisodesPane) -> None:
        super().__init__(pane)
        self.pane = pane
        self.button = QPushButton("Replace cover…", pane)
        self.button.setAccessibleName("Replace cover")
        self.button.setToolTip("Choose a JPEG, PNG or WebP image for this episode's cover, or drop one on it")
        self.button.clicked.connect(self.choose)
        self.button.hide()
        pane.writes(self.button)
        pane.cover.fileDropped.connect(self.replace)
        self.chooser: QFileDialog | None = None
        self.sending = False

    def on_write_state(self, reason: str | None) -> None:
        self.pane.cover.set_droppable(reason is None)

    def choose(self) -> None:
        if not isinstance(self.pane.current, Episode):
            return
        if self.chooser is None:
            self.chooser = use_folder(
                self.pane.session.runtime.settings,
                QFileDialog(self.pane, "Choose the episode's cover", "", FILTER),
                "covers",
            )
            self.chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
            self.chooser.setAccessibleName("Choose a cover image")
            self.chooser.fileSelected.connect(lambda chosen: self.replace(Path(chosen)))
        self.chooser.open()

    def replace(self, path: Path) -> None:
        episode = self.pane.current
        if not isinstance(episode, Episode) or self.sending:
            return
        self.pane.work.start(self._send(episode, Path(path)), name="replace cover")

    async def _send(self, episode: Episode, path: Path) -> None:
        pane = self.pane
        try:
            await catalog.check_cover_file(pane.session, path)
        except UploadError as error:
            pane.banner.show_message(f"“{path.name}” was not sent: {error.reason}.", kind="error")
            return
        except OSError as error:
            pane.banner.show_message(
                f"“{path.name}” cannot be read: {error.strerror or error}.", kind="error"
            )
            return
        self.sending = True
        pane.cover.set_busy("Sending the new cover…")  # replace() ignores asks until it is done
        try:
            result = await catalog.replace_episode_cover(pane.session, str(episode.id), path)
        except CastdeckError as error:
            pane.banner.show_error(error, "The cover was not replaced")
            return
        finally:
            self.sending = False
            pane.cover.set_busy("")
        updated = episode.model_copy(update={"image_url": result.image_url})
        pane.item_changed(updated, select=False)
        pane.banner.show_message(
            f"The cover of “{episode.title or 'the episode'}” was replaced.", kind="info"
        )
