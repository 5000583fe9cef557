"""One session's background work: the job tracker, the outbox and the upload queue, wired together.

The outbox's accepted writes and the upload queue's completed files become tracked jobs, so every
generation and every uploaded source ends on a job card. Everything is stored per profile in the
app's data folder (``jobs.sqlite3``, ``outbox.sqlite3``, ``uploads.sqlite3``); :meth:`start` picks
up what an earlier run left: jobs are followed again, unanswered writes resent with their keys,
unfinished uploads resumed.

Widgets find a session's background work with :meth:`Background.of`.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings

from castdeck.api.resources.base import Accepted
from castdeck.store.jobs import JobStore
from castdeck.store.outbox import OutboxEntry, OutboxStore
from castdeck.store.uploads import UploadItem, UploadStore

from .jobs import JobTracker
from .outbox import Outbox
from .session import Session
from .uploads import UploadQueue

__all__ = ["KIND_BY_COLLECTION", "Background", "job_kind_of", "title_of"]

log = logging.getLogger(__name__)

KIND_BY_COLLECTION = {"videos": "video", "shorts": "short", "voiceovers": "voiceover"}

_by_session: weakref.WeakKeyDictionary[Session, Background] = weakref.WeakKeyDictionary()


def job_kind_of(entry: OutboxEntry) -> str:
    """The kind of job an outbox write starts."""
    if entry.kind in ("episode_generate", "episode_import"):
        return "episode"
    return KIND_BY_COLLECTION.get(entry.collection or "", "video")


def title_of(entry: OutboxEntry, limit: int = 60) -> str:
    """A short name for the job a write starts, from what the user typed."""
    noun = {"episode": "Episode", "video": "Video", "short": "Short", "voiceover": "Voiceover"}[
        job_kind_of(entry)
    ]
    body = entry.body or {}
    text = body.get("title") or body.get("prompt") or body.get("direction") or body.get("script_text")
    if not isinstance(text, str) or not text.strip():
        if entry.kind == "media_retry":
            return f"{noun} (retry)"
        return f"New {noun.lower()}"
    line = " ".join(text.split())
    return f"{noun}: {line[: limit - 1] + '…' if len(line) > limit else line}"


class Background(QObject):
    """The tracker, outbox and upload queue of one session, sharing its connection state."""

    def __init__(self, session: Session, data_dir: Path, *, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        data_dir.mkdir(parents=True, exist_ok=True)
        self.job_store = JobStore(data_dir / "jobs.sqlite3")
        self.outbox_store = OutboxStore(data_dir / "outbox.sqlite3")
        self.upload_store = UploadStore(data_dir / "uploads.sqlite3")
        self.jobs = JobTracker(session, self.job_store, parent=self)
        self.outbox = Outbox(session, self.outbox_store, parent=self)
        self.uploads = UploadQueue(session, self.upload_store, parent=self)
        self.outbox.accepted.connect(self._accepted)
        self.uploads.sourceUploaded.connect(self._uploaded)
        self._started = False
        self._closed = False
        _by_session[session] = self

    @staticmethod
    def of(session: Session | None) -> Background | None:
        """The background work of ``session`` (None when it has none)."""
        return None if session is None else _by_session.get(session)

    def start(self) -> None:
        """Pick up what an earlier run left (once)."""
        if self._started:
            return
        self._started = True
        self.jobs.resume()
        # A write accepted just before the last run ended may not have reached the tracker.
        for entry in self.outbox.entries():
            if (
                entry.state == "sent"
                and entry.resource_id
                and self.jobs.job(job_kind_of(entry), entry.resource_id) is None
            ):
                self._track(entry, None)
        self.outbox.flush()
        saved = QSettings().value("uploads/concurrency", UploadQueue.DEFAULT_CONCURRENCY)
        with contextlib.suppress(TypeError, ValueError):
            self.uploads.concurrency = min(max(int(str(saved)), 1), 8)
        self.uploads.start()

    async def close(self) -> None:
        """Stop everything running; what is unfinished stays stored for the next start."""
        if self._closed:
            return
        self._closed = True
        await self.uploads.close()
        await self.outbox.close()
        await self.jobs.close()
        for store in (self.upload_store, self.outbox_store, self.job_store):
            store.close()
        _by_session.pop(self.session, None)

    # --- wiring ------------------------------------------------------------------------------------------------

    def _accepted(self, entry: OutboxEntry, accepted: Accepted[Any] | None) -> None:
        if self._closed:
            return
        self._track(entry, accepted)

    def _track(self, entry: OutboxEntry, accepted: Accepted[Any] | None) -> None:
        if entry.resource_id is None:
            return
        extra = {
            "outbox_entry": entry.id,
            "attempts": entry.attempts,
            "idempotency_key": entry.idempotency_key,
            "retry": entry.kind == "media_retry",
        }
        if entry.collection:
            extra["collection"] = entry.collection
        data = getattr(accepted, "data", None)
        title = getattr(data, "title", None) or title_of(entry)
        self.jobs.track(
            job_kind_of(entry),
            entry.resource_id,
            title=title,
            first_poll_after=accepted.retry_after if accepted is not None else None,
            request_id=accepted.request_id if accepted is not None else entry.request_id,
            extra=extra,
        )

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
