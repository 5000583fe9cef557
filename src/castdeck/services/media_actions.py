"""What the Videos, Shorts and Voiceovers panes and their create dialogs ask of the service (spec
2.9, 3.1, 4.6), as workflows that answer with typed results and the words to show.

:class:`MediaActions` serves one collection: its list, one item read anew, its options, a status
check (``GET …/status``, with the note that says what it found), a retry (through the outbox with a
new idempotency key, after the pane's confirmation), a download check (``GET …/download``: the
delivery as :class:`DownloadState`, with the status read again when the list still showed an older
state) and a create (through the outbox). Whatever is read is handed to the job tracker too, so
the Jobs dock and the pane follow one state. The widgets state intents and show the results.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from castdeck.api import Accepted, Client
from castdeck.api.models import MediaJob, MediaOptions, MediaStatus
from castdeck.api.resources.base import body_of
from castdeck.api.resources.media import MediaResource

from .downloads import Downloads
from .jobs import JobTracker
from .listing import ListFeed, list_key
from .session import Session
from .starting import JobStarter, Started, started_text

__all__ = [
    "COLLECTIONS",
    "RETRYABLE",
    "DownloadCheck",
    "DownloadState",
    "MediaActions",
    "MediaCollection",
    "RetryOutcome",
    "StatusCheck",
    "format_duration",
    "format_seconds",
    "started_note",
    "status_text",
]

STATUS_TEXT = {"idle": "Idle", "generating": "Generating", "completed": "Completed", "failed": "Failed"}
RETRYABLE = ("failed", "idle")
"""The states a retry starts a new attempt from (spec 3.1)."""


@dataclass(frozen=True)
class MediaCollection:
    name: str  # the path segment: videos, shorts, voiceovers
    kind: str  # the object: video, short, voiceover
    title: str  # Videos
    noun: str  # video
    auto_orientation: str  # what AUTO (or no orientation) means here

    def resource(self, client: Client) -> MediaResource:
        resources: dict[str, MediaResource] = {
            "videos": client.videos, "shorts": client.shorts, "voiceovers": client.voiceovers,
        }  # fmt: skip
        return resources[self.name]


COLLECTIONS: dict[str, MediaCollection] = {
    "videos": MediaCollection("videos", "video", "Videos", "video", "landscape (16:9)"),
    "shorts": MediaCollection("shorts", "short", "Shorts", "short", "portrait (9:16)"),
    "voiceovers": MediaCollection("voiceovers", "voiceover", "Voiceovers", "voiceover", "landscape (16:9)"),
}


# --- words -------------------------------------------------------------------------------------------------


def status_text(status: str | None) -> str:
    return STATUS_TEXT.get(status or "", (status or "").replace("_", " ").capitalize())


def format_duration(seconds: float | None) -> str:
    """``420`` → ``7 min``, ``90`` → ``1 min 30 s``, ``3600`` → ``1 h``; empty for none. A part of
    a second is dropped, as the player's clock drops it (56.6 s reads 56 s in both)."""
    if seconds is None:
        return ""
    total = int(float(seconds))
    if total < 60:
        return f"{total} s"
    minutes, rest = divmod(total, 60)
    if rest:
        return f"{minutes} min {rest} s"
    if minutes >= 60 and minutes % 60 == 0:
        return f"{minutes // 60} h"
    return f"{minutes} min"


def format_seconds(seconds: float | None) -> str:
    """A wait the service suggests: ``0.2 s``, ``5 s``, ``1 min``."""
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f} s".replace(".0 s", " s")
    return format_duration(seconds)


def _now() -> str:
    return time.strftime("%H:%M:%S")


def _hint(accepted: Accepted[Any]) -> str:
    wait = accepted.retry_after
    return f" The service suggests checking in {format_seconds(wait)}." if wait else ""


def started_note(accepted: Accepted[Any]) -> str:
    """The details' note once the service accepted a create."""
    return f"Started at {_now()}.{_hint(accepted)}"


# --- results -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusCheck:
    """What one ``GET …/status`` said, and the note that says it."""

    status: MediaStatus
    note: str

    def changes(self, item: MediaJob) -> bool:
        """Whether the item as shown is in another state than the one just read."""
        return self.status.status != item.status

    def applied_to(self, item: MediaJob) -> MediaJob:
        """``item`` with the state just read."""
        answer = self.status
        update: dict[str, Any] = {"status": answer.status, "phase": answer.phase, "error": answer.error}
        for field in ("generation_id", "studio_url"):
            if getattr(answer, field) is not None:
                update[field] = getattr(answer, field)
        return item.model_copy(update=update)


@dataclass(frozen=True)
class DownloadState:
    """What the last ``GET …/download`` said for one job."""

    kind: str
    url: str | None = None
    origin: str | None = None
    reason: str | None = None
    checked_at: float = 0.0

    @property
    def saveable(self) -> bool:
        return self.kind == "available" and bool(self.url)


@dataclass(frozen=True)
class DownloadCheck:
    """The delivery, and the status read with it when the item as shown had not finished yet (the
    file is there: the list showed an older state)."""

    state: DownloadState
    status: StatusCheck | None = None


@dataclass(frozen=True)
class RetryOutcome:
    """A retry sent: the note to show, and the item's new attempt once the service accepted it
    (``None`` while the request is kept to be sent again, or the service still accepts it)."""

    note: str
    item: MediaJob | None
    started: Started


# --- the workflows -----------------------------------------------------------------------------------------


class MediaActions:
    """The workflows of one collection (``videos``, ``shorts`` or ``voiceovers``)."""

    def __init__(
        self, session: Session, jobs: JobTracker, starter: JobStarter, downloads: Downloads, collection: str
    ) -> None:
        self.session = session
        self.info = COLLECTIONS[collection]
        self._jobs = jobs
        self._starter = starter
        self._downloads = downloads

    def feed(self, page_size: int) -> ListFeed[MediaJob]:
        """The collection's list, newest first, ``page_size`` items a request."""
        info = self.info
        return ListFeed(
            self.session, info.kind, list_key(info.name),
            lambda c: info.resource(c).list(limit=page_size), MediaJob,
        )  # fmt: skip

    async def read(self, media_id: str) -> MediaJob:
        """The item as the service has it now; the tracker hears of it too."""
        item = await self.session.call(lambda c: self.info.resource(c).get(media_id))
        self._jobs.observe(self.info.kind, str(item.id), item)
        return item

    async def options(self) -> MediaOptions:
        return await self.session.call(lambda c: self.info.resource(c).options())

    async def check_status(self, media_id: str) -> StatusCheck:
        """One ``GET …/status``, handed to the tracker; its note says what it found and when."""
        answer = await self.session.call(lambda c: self.info.resource(c).status(media_id))
        self._jobs.observe(self.info.kind, media_id, answer)
        checked = _now()
        status = (answer.status or "").lower()
        if status == "generating":
            hint = answer.poll_after_seconds
            when = f"; the service suggests checking again in {format_seconds(hint)}" if hint else ""
            note = f"Still generating at {checked}{when}."
        elif status == "completed":
            note = f"Completed (checked {checked}). Press Download to get the file."
        else:
            note = f"{status_text(answer.status) or 'Unknown'} (checked {checked})."
        return StatusCheck(answer, note)

    async def retry(self, media_id: str) -> RetryOutcome:
        """A new attempt of a failed or idle item (same id), sent through the outbox with a new key."""
        started = await self._starter.start(
            "media_retry", None, collection=self.info.name, resource_id=media_id
        )
        if not isinstance(started, Accepted):
            return RetryOutcome(started_text(started)[0], None, started)
        note = f"New attempt started at {_now()}.{_hint(started)}"
        return RetryOutcome(note, started.data, started)

    async def download(self, media_id: str, shown: MediaJob | None = None) -> DownloadCheck:
        """Where the item's file can be downloaded, or why not yet. When the file is there but
        ``shown`` (the item as the pane shows it) has not finished, its status is read too."""
        delivery = (await self._downloads.delivery(self.info.kind, media_id)).delivery
        state = DownloadState(delivery.kind, delivery.url, delivery.origin, delivery.reason, time.time())
        status = None
        if shown is not None and state.kind == "available" and shown.status != "completed":
            status = await self.check_status(media_id)
        return DownloadCheck(state, status)

    async def create(self, payload: BaseModel) -> Started:
        """Start a new item through the outbox (stored with its key before it is sent): the accepted
        answer, the followed job, or the kept request. A refusal raises."""
        return await self._starter.start("media_create", body_of(payload), collection=self.info.name)
