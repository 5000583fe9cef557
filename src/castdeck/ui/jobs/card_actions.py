"""What a job card's buttons do in the Jobs dock: open, copy the error, the studio, play, download,
retry, check again, send now and dismiss.

The dock builds and places the cards; this answers their ``actionRequested`` for the card's
record in the work log. Downloads save where the creator says, through one saver made for the
bound session's downloads (forgotten when the dock is bound to another session); a media item
asks the service for its file first, and a file still being prepared or none at all is said in
the dock's banner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

from castdeck.api.errors import CastdeckError
from castdeck.store.jobs import Job
from castdeck.store.kinds import MEDIA_KINDS, collection_of

from ..download_saver import DownloadSaver
from ..widgets import alive, ask, open_web_link
from .card import CardView

if TYPE_CHECKING:
    from .panel import JobsPanel

__all__ = ["CardActions"]


class CardActions(QObject):
    """The actions of the cards of one :class:`JobsPanel`."""

    def __init__(self, panel: JobsPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.saver: DownloadSaver | None = None
        """Saves a finished file where the creator says (made for the bound session's downloads)."""

    def act(self, key: str, action: str) -> None:
        panel = self.panel
        background = panel.background
        view = panel.views.get(key)
        if background is None or view is None:
            return
        record = background.work.record(key)
        job = record.job if record is not None else None
        if action == "open" and job is not None:
            panel.openRequested.emit(job.kind, job.resource_id)
        elif action == "copy_error":
            text = f"{view.title}: {view.detail or view.status}"
            if view.request_id:
                text += f"\nRequest ID: {view.request_id}"
            QGuiApplication.clipboard().setText(text)
            copied = "The error and its request ID are" if view.request_id else "The error is"
            panel.banner.show_message(f"{copied} on the clipboard.", kind="info")
        elif action == "studio" and view.links.get("studio_url"):
            open_web_link(str(view.links["studio_url"]), panel)
        elif action == "play" and job is not None and job.kind == "episode":
            panel.listenRequested.emit(job.resource_id)
        elif action == "download" and job is not None:
            self._download(job, view)
        elif action == "retry" and job is not None:
            panel.work.start(self._retry(job), on_error=self._failed, name="retry job")
        elif action == "check_again" and job is not None:
            background.jobs.check_again(job)
        elif action == "send_now":
            background.outbox.flush()
        elif action == "dismiss":
            background.work.dismiss(key)  # its card goes as the record does

    def _failed(self, error: CastdeckError) -> None:
        if alive(self.panel):
            self.panel.banner.show_error(error)

    async def _retry(self, job: Job) -> None:
        background = self.panel.background
        if background is None or job.kind not in MEDIA_KINDS:
            return
        collection = collection_of(job.kind)
        noun = job.kind
        if not await ask(self.panel, f"Retry the {noun}", f"Start a new attempt of “{job.title}”? The service "
                         "starts it again under the same ID and charges for the new attempt.", "Retry",
                         destructive=False):  # fmt: skip
            return
        background.starter.submit("media_retry", None, collection=collection, resource_id=job.resource_id)

    # --- downloads -------------------------------------------------------------------------------------------

    def _download(self, job: Job, view: CardView) -> None:
        if job.kind == "episode":
            url = view.links.get("audio_url")
            if url:
                self._choose_file(job, str(url), ".mp3")
            return
        self.panel.work.start(self._media_download(job), on_error=self._failed, name="download link")

    async def _media_download(self, job: Job) -> None:
        background = self.panel.background
        if background is None or job.kind not in MEDIA_KINDS:
            return
        answer = await background.downloads.delivery(job.kind, job.resource_id)
        delivery = answer.delivery
        if delivery.kind == "available" and delivery.url:
            self._choose_file(job, delivery.url, ".mp4")
        elif delivery.kind == "preparing":
            self.panel.banner.show_message(
                f"The file of “{job.title}” is being prepared"
                + (f" ({delivery.reason})" if delivery.reason else "")
                + "; try Download again in a minute.",
                kind="info",
            )
        else:
            self.panel.banner.show_message(
                f"The service has no downloadable file for “{job.title}”; open it in the studio instead.",
                kind="warning",
            )

    def _choose_file(self, job: Job, url: str, fallback: str) -> None:
        panel = self.panel
        saver = self.saver
        if saver is None and panel.background is not None:
            saver = self.saver = DownloadSaver(
                panel.background.downloads, panel.background.session.runtime.settings, panel
            )
            saver.said.connect(lambda text, kind: panel.banner.show_message(text, kind=kind))
        if saver is not None:
            saver.ask(job.title or job.kind, url, fallback)
