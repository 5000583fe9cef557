"""Publishing an episode, now or at a time, as a job with a card.

``publish()`` tries at once. When generation or rendering still runs, the service answers 422 with
``recovery.poll_after_seconds``: the publish becomes a tracked ``publish`` job. The tracker follows
the episode with the one poll loop (never before the hint) and, once it no longer renders, this
service's finishing step publishes; another 422 with a hint waits again, up to
:attr:`Publisher.max_attempts`. A 422 without a hint means the draft was never rendered: that is
said plainly. A publish whose answer was lost is not sent blind: the episode is read first, and
only if it is still unpublished is the publish tried again (a refused publish changed nothing).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QObject

from castdeck.api import ApiError, CastdeckError, UnprocessableError, is_transient
from castdeck.api.models import Episode, PublishResult
from castdeck.api.retry import backoff_delay
from castdeck.store.jobs import Job

from .jobs import Finish, JobTracker
from .messages import error_text
from .session import Session

__all__ = ["NOT_RENDERED", "NOT_RENDERED_NOTE", "PublishBlocked", "Publisher", "never_rendered", "poll_after"]

NOT_RENDERED = (
    "This draft has not been rendered yet, so it cannot be published. Render it in the studio "
    "application first, then publish it here."
)


NOT_RENDERED_NOTE = (
    "Not rendered: this draft cannot be published from Castdeck. Render it in the studio "
    "application, then publish it here. (Generate and Import render by default.)"
)


def never_rendered(episode: Episode) -> bool:
    """A draft the service refuses to publish (spec 2.4: "a completed render exists" is publishing's
    precondition): an empty draft, or a script generated with ``render`` off. Read from the
    ``rendered`` field where the service gives one (the sandbox does), else from the rendered video,
    which only rendering makes. A draft still generating is not counted: publishing waits for it."""
    if episode.status != "draft":
        return False
    if episode.generation is not None and episode.generation.state == "generating":
        return False
    rendered = (episode.model_extra or {}).get("rendered")
    if isinstance(rendered, bool):
        return not rendered
    return episode.video_url is None


class PublishBlocked(CastdeckError):
    """Publishing cannot happen now (never rendered, or rendering did not finish in time)."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def poll_after(error: UnprocessableError) -> float | None:
    recovery = error.recovery
    if recovery is None or recovery.poll_after_seconds is None:
        return None
    return float(recovery.poll_after_seconds)


def blocked(error: UnprocessableError) -> PublishBlocked:
    """The explanation of a 422 without a wait hint: the draft was never rendered (or nothing to do)."""
    said = error.detail or error.title or ""
    action = error.recovery.action if error.recovery is not None else None
    if action == "check_result":  # such as "already published": the service's words say it
        return PublishBlocked(said, error.request_id)
    message = NOT_RENDERED + (f"\n(The service said: {said})" if said else "")
    return PublishBlocked(message, error.request_id)


class Publisher(QObject):
    max_attempts = 60
    """Publish attempts while rendering runs (each after the service's ``poll_after_seconds``)."""

    def __init__(self, session: Session, tracker: JobTracker, *, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._tracker = tracker
        tracker.set_finisher("publish", self._attempt)

    async def publish(self, episode: Episode, scheduled_time: datetime | None = None) -> PublishResult | Job:
        """Publish (or schedule) now; or, while rendering runs, the ``publish`` job that waits for it.
        Raises :class:`PublishBlocked` when it cannot be published (never rendered), or the error."""
        try:
            return await self._publish_once(str(episode.id), scheduled_time)
        except UnprocessableError as error:
            delay = poll_after(error)
            if delay is None:
                raise blocked(error) from None
            request_id = error.request_id
        return self._track(episode, scheduled_time, delay, request_id=request_id)

    def follow_unanswered(self, episode: Episode, scheduled_time: datetime | None, delay: float) -> Job:
        """A publish whose answer was lost (publishing has no idempotency key, so it is never sent
        blind): the ``publish`` job that reads the episode after ``delay`` seconds and publishes
        again only if it is still a draft."""
        return self._track(episode, scheduled_time, delay, answer_lost=True)

    def _track(
        self,
        episode: Episode,
        scheduled_time: datetime | None,
        delay: float,
        *,
        request_id: str | None = None,
        answer_lost: bool = False,
    ) -> Job:
        title = episode.title or "the episode"
        extra: dict[str, Any] = {
            "episode_title": title,
            "scheduled_time": scheduled_time.isoformat() if scheduled_time is not None else None,
            "attempts": 1,
        }
        if answer_lost:
            extra["answer_lost"] = True
        return self._tracker.track("publish", str(episode.id), title=f"Publish: {title}",
                                   first_poll_after=delay, request_id=request_id, extra=extra)  # fmt: skip

    def waiting(self, episode_id: str) -> Job | None:
        """The publish job of an episode while it waits for rendering (None when there is none)."""
        job = self._tracker.job("publish", str(episode_id))
        return job if job is not None and job.active else None

    def stop(self, episode_id: str) -> Job | None:
        """Stop waiting to publish: the episode stays a draft (rendering goes on)."""
        job = self.waiting(episode_id)
        if job is None:
            return None
        title = job.extra.get("episode_title") or "The episode"
        return self._tracker.stop(
            job, f"Stopped waiting: “{title}” stays a draft. Rendering goes on; publish it when it is done."
        )

    async def close(self) -> None:
        """Nothing of its own runs: waiting publishes are the tracker's jobs."""

    async def _publish_once(self, episode_id: str, when: datetime | str | None) -> PublishResult:
        return await self._session.call(lambda c: c.episodes.publish(episode_id, when), write=True)

    async def _attempt(self, job: Job, episode: Any) -> Finish:
        """The tracker's finishing step: rendering has ended (or the hint passed), publish now."""
        attempts = int(job.extra.get("attempts") or 1) + 1
        extra = {**job.extra, "attempts": attempts, "answer_lost": False}
        when = job.extra.get("scheduled_time")
        if (
            job.extra.get("answer_lost")
            and isinstance(episode, Episode)
            and episode.status in ("published", "scheduled")
        ):
            # The last attempt went through; only its answer was lost.
            extra.update(publish_status=episode.status)
            return Finish({"state": "completed", "phase": episode.status, "progress": 100.0, "error": None,
                           "extra": extra})  # fmt: skip
        try:
            result = await self._publish_once(job.resource_id, when)
        except UnprocessableError as error:
            delay = poll_after(error)
            if delay is None:
                return Finish(
                    {"state": "failed", "error": str(blocked(error)), "request_id": error.request_id}
                )
            if attempts >= self.max_attempts:
                return Finish({
                    "state": "failed", "request_id": error.request_id,
                    "error": f"Rendering is still running after {attempts} attempts to publish; publish it again later.",
                })  # fmt: skip
            return Finish({"extra": extra, "phase": "waiting for rendering"}, again_after=delay)
        except CastdeckError as error:
            if not is_transient(error):
                request_id = error.request_id if isinstance(error, ApiError) else None
                return Finish({"state": "failed", "error": error_text(error), "request_id": request_id})
            return Finish(
                {"extra": {**extra, "answer_lost": True}, "phase": "no answer; checking the episode"},
                again_after=backoff_delay(attempts, error.retry_after),
            )
        extra.update(publish_status=result.status, scheduled_time=_text(result.scheduled_time) or when)
        return Finish({"state": "completed", "phase": result.status, "progress": 100.0, "error": None,
                       "extra": extra})  # fmt: skip


def _text(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value) if value else None
