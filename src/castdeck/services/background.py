"""One session's background work: the job tracker, the outbox, the upload queue and the workflows
built on them (starting a job, publishing, downloading a result), wired together.

The tracker is the one holder of job state. The outbox stores each accepted write together with
its tracked job (one database, one transaction) and hands the job to the tracker; the upload
queue's completed files become tracked source jobs. Everything is stored per profile in the app's
data folder (``background.sqlite3`` for jobs and the outbox, ``uploads.sqlite3``);
:meth:`Background.start` picks up what an earlier run left: jobs followed again, unanswered writes
resent with their keys, unfinished uploads resumed.

Whoever needs the background work is given this object (the window gives it to its panes and
they to their dialogs); there is no global registry.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from castdeck.store.background import BackgroundStore
from castdeck.store.outbox import OutboxEntry
from castdeck.store.uploads import UploadItem, UploadStore

from .batch_sending import BatchSender
from .downloads import Downloads
from .drafts import Drafts
from .jobs import JobTracker
from .media_cache import EpisodeMedia
from .media_files import MediaFiles
from .outbox import Outbox
from .publish import Publisher
from .script_sending import ScriptSender
from .session import Session
from .starting import JobStarter
from .uploads import UploadQueue
from .work import WorkLog

__all__ = ["Background"]

log = logging.getLogger(__name__)


class Background(QObject):
    """The tracker, outbox, upload queue and workflows of one session, sharing its connection state."""

    def __init__(
        self,
        session: Session,
        data_dir: Path,
        *,
        media_dir: Path | None = None,
        drafts_dir: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``media_dir`` holds the listened episodes' audio and timestamps (default: ``media``
        beside ``data_dir``, in the user data folder); the files of finished videos, shorts and
        voiceovers and their stills go beside it (``media-files``). ``drafts_dir``: where script
        drafts live (default: ``drafts`` beside ``data_dir``; drafts belong to no profile)."""
        super().__init__(parent)
        self.session = session
        data_dir.mkdir(parents=True, exist_ok=True)
        self.store = BackgroundStore(data_dir / "background.sqlite3", legacy_dir=data_dir)
        try:
            self.drafts = Drafts(
                drafts_dir or data_dir.parent / "drafts", runtime=session.runtime, parent=self
            )
        except BaseException:
            self.store.close()
            raise
        self.upload_store = UploadStore(data_dir / "uploads.sqlite3")
        self.jobs = JobTracker(session, self.store.jobs, parent=self)
        self.outbox = Outbox(session, self.store.outbox, self.jobs, parent=self)
        self.work = WorkLog(self.jobs, self.outbox, parent=self)
        """One record per thing the creator started, from its write to its job's end (the Jobs dock's model)."""
        self.uploads = UploadQueue(session, self.upload_store, parent=self)
        self.starter = JobStarter(self.outbox)
        self.publisher = Publisher(session, self.jobs, parent=self)
        self.downloads = Downloads(session)
        cap = session.runtime.settings.media_cache_megabytes * 1024 * 1024
        media_root = media_dir or data_dir.parent / "media"
        self.media = EpisodeMedia(session, media_root, cap)
        self.media_files = MediaFiles(session, media_root.with_name(f"{media_root.name}-files"), cap)
        self.scripts = ScriptSender(self.drafts, self.outbox, self.starter, session, parent=self)
        self.batches = BatchSender(self.drafts, self.scripts, self.outbox, self.jobs, session, parent=self)
        """Batches of drafts sent to one podcast, in order, exactly once (a season at once)."""
        self.uploads.sourceUploaded.connect(self._uploaded)
        self._started = False
        self._closed = False
        self._resuming: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Pick up what an earlier run left (once)."""
        if self._started:
            return
        self._started = True
        self._resuming = self.session.tasks.start(self._resume(), name="resume background work")
        self.uploads.concurrency = self.session.runtime.settings.upload_concurrency(
            UploadQueue.DEFAULT_CONCURRENCY
        )
        self.uploads.start()

    async def _resume(self) -> None:
        await self.scripts.reconcile()  # before the outbox resends: queued drafts hear how their requests end
        if self._closed:
            return
        await self.batches.resume()  # batches cut short go on, in order, under the keys their plans hold
        if self._closed:
            return
        await self.jobs.resume()
        if not self._closed and (flushing := self.outbox.flush()) is not None:
            await asyncio.gather(flushing, return_exceptions=True)  # its faults are its own to report
        if not self._closed:
            await self.scripts.give_owed_titles()  # sent drafts whose episodes still await their titles

    async def picked_up(self) -> None:
        """Until what :meth:`start` set going has ended: the jobs resumed and the outbox's first
        round of resending."""
        if self._resuming is not None:
            await asyncio.gather(self._resuming, return_exceptions=True)

    async def close(self) -> None:
        """Stop everything running; what is unfinished stays stored for the next start."""
        if self._closed:
            return
        self._closed = True
        resuming, self._resuming = self._resuming, None
        if resuming is not None and not resuming.done():
            resuming.cancel()
            await asyncio.gather(resuming, return_exceptions=True)
        await self.batches.close()  # no batch sends its next draft while the rest closes
        await self.scripts.close()  # no draft changes start once the drafts close
        await self.drafts.close()  # what was typed is saved first
        await self.uploads.close()
        await self.outbox.close()
        await self.publisher.close()
        await self.jobs.close()
        await self.media_files.close()
        self.upload_store.close()
        self.store.close()

    # --- wiring ------------------------------------------------------------------------------------------------

    def entries(self) -> list[OutboxEntry]:
        return self.outbox.entries()

    def _uploaded(self, item: UploadItem, source: Any) -> None:
        if self._closed or not item.source_id:
            return
        # A source that already ended is read once at once to record it.
        first = 0.0 if getattr(source, "status", None) in ("completed", "error") else None
        self.jobs.track(
            "source",
            item.source_id,
            title=f"Source: {getattr(source, 'title', None) or item.name}",
            first_poll_after=first,
            extra={"file": item.name, "upload": item.id, "prepare_visuals": item.prepare_visuals},
        )
