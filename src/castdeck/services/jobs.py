"""The job tracker: follows every long-running thing the app started or found running.

Episodes (``generation.state`` and phase), videos, shorts and voiceovers (status and phase) and
sources being processed are polled as the service asks: never earlier than ``Retry-After``,
``poll_after_seconds`` or the ``first_poll_after`` the caller got with the 202 (5 s without a
hint). Faults (no answer, 5xx, 429, a broken answer) are waited out with capped exponential
backoff (a 429's ``Retry-After`` when given). While the session is not online the tracker pauses
(the session probes on its own) and resumes when it is back. At the local deadline a job becomes
``still_running``: still running on the service, not cancelled (the service has no cancel);
:meth:`JobTracker.check_again` follows it again.

Every job is stored before it is polled, so :meth:`JobTracker.resume` picks the profile's running
jobs up again after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Any

from PySide6.QtCore import QObject, Signal

from castdeck.api import APIConnectionError, ApiError, NotFoundError
from castdeck.api.errors import InvalidResponseError, RateLimitedError, ServerError, parse_retry_after
from castdeck.api.models import Episode, MediaStatus, Source
from castdeck.api.polling import MAX_POLL_INTERVAL, backoff_delay, sleep_until
from castdeck.api.transport import RawResponse
from castdeck.store.jobs import JOB_KINDS, Job, JobStore

from .session import Session
from .tasks import tasks

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_POLL_INTERVAL", "Job", "JobTracker", "still_running_text"]

log = logging.getLogger(__name__)

DEFAULT_POLL_INTERVAL = 5.0
"""Seconds between polls when the service gives no hint."""
DEFAULT_DEADLINE = 1800.0
"""Seconds a job is followed before it is reported ``still_running``."""

MEDIA_KINDS = {"video": "videos", "short": "shorts", "voiceover": "voiceovers"}


def still_running_text(job: Job) -> str:
    """What a ``still_running`` card says (never "cancelled")."""
    return f"{job.title or job.kind.capitalize()} is still running on the service; check again."


class JobTracker(QObject):
    """Polls tracked jobs of one session's profile; emits every change and every end."""

    jobChanged = Signal(object)  # Job
    jobFinished = Signal(object)  # Job: completed or failed

    def __init__(
        self,
        session: Session,
        store: JobStore,
        *,
        deadline: float = DEFAULT_DEADLINE,
        default_interval: float = DEFAULT_POLL_INTERVAL,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.store = store
        self.deadline = deadline
        self.default_interval = default_interval
        self._jobs: dict[tuple[str, str], Job] = {}
        self._due: dict[tuple[str, str], float] = {}  # monotonic: no poll before this
        self._pollers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._online = asyncio.Event()
        self._closed = False
        if session.online:
            self._online.set()
        session.stateChanged.connect(self._on_state)
        session.reconnected.connect(self._on_reconnected)

    @property
    def profile(self) -> str:
        return self.session.profile.name

    # --- public --------------------------------------------------------------------------------------------

    def track(
        self,
        kind: str,
        resource_id: str,
        *,
        title: str | None = None,
        first_poll_after: float | None = None,
        request_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Job:
        """Store the job, then follow it (no poll before ``first_poll_after`` seconds, e.g. the
        202's ``Retry-After``). Tracking a job already followed only updates its title.
        ``extra`` is kept with the job (how it was sent, links); polls add to it."""
        if kind not in JOB_KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        key = (kind, resource_id)
        current = self._jobs.get(key)
        if current is not None and key in self._pollers:
            if title and title != current.title:
                current = self._save(current.evolve(title=title))
            return current
        delay = self.default_interval if first_poll_after is None else _hint(first_poll_after)
        delay += _spread(delay)
        now = time.time()
        job = Job(
            self.profile, kind, resource_id, title=title, state="running", request_id=request_id,
            started_at=now, next_poll_at=now + delay, deadline_at=now + self.deadline,
            extra=dict(extra or {}),
        )  # fmt: skip
        job = self._save(job)  # stored before the first request
        self._due[key] = time.monotonic() + delay
        self._start(key)
        self.jobChanged.emit(job)  # its card shows at once, before the first poll
        return job

    def check_again(self, job: Job, *, deadline: float | None = None) -> Job:
        """Follow a ``still_running`` (or any not-followed) job again, with a fresh deadline."""
        key = (job.kind, job.resource_id)
        if key in self._pollers:
            return self._jobs[key]
        now = time.time()
        current = self._jobs.get(key) or self.store.get(self.profile, job.kind, job.resource_id) or job
        wait = max(0.0, current.next_poll_at - now)
        fresh = current.evolve(
            state="running",
            error=None,
            next_poll_at=now + wait,
            deadline_at=now + (deadline or self.deadline),
        )
        fresh = self._save(fresh)
        self._due[key] = time.monotonic() + wait
        self._start(key)
        self.jobChanged.emit(fresh)
        return fresh

    def resume(self) -> list[Job]:
        """Follow the profile's stored running jobs again (after a restart). A job whose deadline
        passed while the app was closed gets a fresh one; stored poll times are still honoured."""
        resumed = []
        now = time.time()
        for job in self.store.list(self.profile, active_only=True):
            key = (job.kind, job.resource_id)
            if key in self._pollers:
                continue
            if job.deadline_at <= now:
                job = self._save(job.evolve(deadline_at=now + self.deadline))
            else:
                self._jobs[key] = job
            self._due[key] = time.monotonic() + max(0.0, job.next_poll_at - now)
            self._start(key)
            resumed.append(job)
        return resumed

    def jobs(self) -> list[Job]:
        """Every stored job of the profile (running, ended, still running)."""
        return self.store.list(self.profile)

    def job(self, kind: str, resource_id: str) -> Job | None:
        return self._jobs.get((kind, resource_id)) or self.store.get(self.profile, kind, resource_id)

    def is_following(self, kind: str, resource_id: str) -> bool:
        return (kind, resource_id) in self._pollers

    def forget(self, job: Job) -> None:
        """Remove a job that is not being followed (a finished card the user closed)."""
        key = (job.kind, job.resource_id)
        if key in self._pollers:
            raise ValueError("the job is still being followed")
        self._jobs.pop(key, None)
        self._due.pop(key, None)
        self.store.remove(self.profile, job.kind, job.resource_id)

    def clear_finished(self) -> int:
        for key, job in list(self._jobs.items()):
            if job.finished:
                del self._jobs[key]
        return self.store.clear_finished(self.profile)

    @property
    def following(self) -> int:
        return len(self._pollers)

    async def close(self) -> None:
        """Stop following (jobs stay stored as they are, to resume later). Nothing keeps running."""
        self._closed = True
        with contextlib.suppress(RuntimeError, TypeError):
            self.session.stateChanged.disconnect(self._on_state)
            self.session.reconnected.disconnect(self._on_reconnected)
        pollers = list(self._pollers.values())
        for task in pollers:
            task.cancel()
        if pollers:
            await asyncio.gather(*pollers, return_exceptions=True)
        self._pollers.clear()

    # --- internals -----------------------------------------------------------------------------------------

    def _on_state(self, _state: str) -> None:
        if self.session.online:
            self._online.set()
        else:
            self._online.clear()

    def _on_reconnected(self) -> None:
        self._online.set()

    def _save(self, job: Job) -> Job:
        stored = self.store.upsert(job)
        self._jobs[(job.kind, job.resource_id)] = stored
        return stored

    def _start(self, key: tuple[str, str]) -> None:
        if self._closed:
            raise RuntimeError("the job tracker is closed")
        task = tasks.start(self._follow(key), name=f"follow {key[0]} {key[1]}", long_running=True)
        self._pollers[key] = task
        task.add_done_callback(lambda finished: self._forget_poller(key, finished))

    def _forget_poller(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        if self._pollers.get(key) is task:
            del self._pollers[key]

    def _emit(self, job: Job) -> None:
        self.jobChanged.emit(job)
        if job.finished:
            self.jobFinished.emit(job)

    async def _follow(self, key: tuple[str, str]) -> None:
        faults = 0
        while True:
            job = self._jobs[key]
            deadline = time.monotonic() + max(0.0, job.deadline_at - time.time())
            due = self._due.get(key, time.monotonic())
            if due >= deadline:
                await sleep_until(deadline)
                self._stop_still_running(key)
                return
            await sleep_until(due)
            if not self._online.is_set():
                log.info("pausing %s %s while offline", *key)
                remaining = deadline - time.monotonic()
                try:
                    async with asyncio.timeout(max(0.0, remaining)):
                        await self._online.wait()
                except TimeoutError:
                    self._stop_still_running(key)
                    return
                continue  # check the hint and the deadline again
            try:
                update, hint = await self._poll(self._jobs[key])
            except (APIConnectionError, ServerError, RateLimitedError, InvalidResponseError) as error:
                retry_after = error.retry_after if isinstance(error, RateLimitedError) else None
                if retry_after is None and isinstance(error, ServerError):
                    retry_after = parse_retry_after(error.headers.get("retry-after"))
                delay = backoff_delay(faults, retry_after)
                faults += 1
                log.info("poll of %s %s failed (%s); next in %.1f s", *key, error, delay)
                self._schedule(key, delay)
                continue
            except NotFoundError as error:
                self._end(key, "failed", f"It no longer exists on the service: {error}", error.request_id)
                return
            except ApiError as error:
                if error.status in (401, 403):
                    self._schedule(key, backoff_delay(faults, None))  # the session is rejected: paused
                    faults += 1
                    continue
                self._end(key, "failed", str(error), error.request_id)
                return
            faults = 0
            job = self._jobs[key]
            if "extra" in update:
                update["extra"] = {**job.extra, **update["extra"]}
            changed = job.evolve(**update)
            if changed.state != "running":
                self._save(changed.evolve(next_poll_at=time.time()))
                self._due.pop(key, None)
                self._release(key)
                self._emit(self._jobs[key])
                return
            delay = self.default_interval if hint is None else hint
            self._schedule(key, delay + _spread(delay), changed)
            self._emit(self._jobs[key])

    def _schedule(self, key: tuple[str, str], delay: float, job: Job | None = None) -> None:
        self._due[key] = time.monotonic() + delay
        base = job or self._jobs[key]
        self._save(base.evolve(next_poll_at=time.time() + delay))

    def _release(self, key: tuple[str, str]) -> None:
        """The poller is ending: no longer following, before anyone hears of the end (a "Check
        again" or a dismissal that follows at once must see the job as not followed)."""
        if self._pollers.get(key) is asyncio.current_task():
            del self._pollers[key]

    def _stop_still_running(self, key: tuple[str, str]) -> None:
        job = self._save(self._jobs[key].evolve(state="still_running"))
        log.info("%s", still_running_text(job))
        self._release(key)
        self._emit(job)

    def _end(self, key: tuple[str, str], state: str, error: str | None, request_id: str | None) -> None:
        job = self._save(self._jobs[key].evolve(state=state, error=error, request_id=request_id))
        self._due.pop(key, None)
        self._release(key)
        self._emit(job)

    async def _poll(self, job: Job) -> tuple[dict[str, Any], float | None]:
        """One observation: the job's new fields and the service's hint (seconds) for the next."""
        client = self.session.client
        transport = client.transport
        if job.kind == "episode":
            response = await self.session.guard(transport.request("GET", f"/v1/episodes/{job.resource_id}"))
            return _episode_update(client.episodes._data(response, Episode), response), _retry_after(response)
        if job.kind == "source":
            response = await self.session.guard(transport.request("GET", f"/v1/sources/{job.resource_id}"))
            return _source_update(client.sources._data(response, Source), response), _retry_after(response)
        collection = MEDIA_KINDS[job.kind]
        resource = getattr(client, collection)
        response = await self.session.guard(
            transport.request("GET", f"/v1/{collection}/{job.resource_id}/status")
        )
        status: MediaStatus = resource._data(response, MediaStatus)
        hints = [h for h in (_retry_after(response), _seconds(status.poll_after_seconds)) if h]
        return _media_update(status, response), (max(hints) if hints else None)


def _spread(delay: float) -> float:
    """A little later than the hint, at random (up to 10 %, at most a second): jobs started together
    would otherwise all poll in the same instant, and their answers arrive in one burst."""
    return random.uniform(0.0, min(1.0, delay * 0.1))


def _hint(seconds: float) -> float:
    return min(max(float(seconds), 0.0), MAX_POLL_INTERVAL)


def _retry_after(response: RawResponse) -> float | None:
    value = parse_retry_after(response.headers.get("retry-after"))
    return None if value is None else _hint(value)


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return _hint(value) if value > 0 else None


def _episode_update(episode: Episode, response: RawResponse) -> dict[str, Any]:
    generation = episode.generation
    state_of = generation.state if generation is not None else None
    if state_of is None:
        state_of = "generating" if episode.status == "generating" else "completed"
    update: dict[str, Any] = {
        "phase": generation.phase if generation is not None else None,
        "progress": _progress(generation.progress_pct if generation is not None else None),
        "request_id": response.request_id,
        "extra": {k: v for k, v in {"audio_url": episode.audio_url, "url": episode.url}.items() if v},
    }
    if episode.title:
        update["title"] = episode.title
    if state_of == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif state_of == "failed":
        message = (generation.error_message if generation else None) or episode.error_message
        update.update(state="failed", error=message or "The generation failed.")
    return update


def _media_update(status: MediaStatus, response: RawResponse) -> dict[str, Any]:
    extra_fields = status.model_extra or {}
    update: dict[str, Any] = {
        "phase": status.phase,
        "progress": _progress(extra_fields.get("progress_pct")),  # not in the spec; used when sent
        "request_id": response.request_id,
        "extra": {k: v for k, v in {"studio_url": status.studio_url}.items() if v},
    }
    if status.status == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif status.status == "failed":
        update.update(state="failed", error=_error_text(status.error) or "The job failed.")
    elif status.status == "idle":
        update.update(state="failed", error="The job has not started (idle); retry it to start it.")
    return update


def _source_update(source: Source, response: RawResponse) -> dict[str, Any]:
    update: dict[str, Any] = {"phase": source.status, "request_id": response.request_id}
    if source.title:
        update["title"] = source.title
    if source.status == "completed":
        update.update(state="completed", progress=100.0, error=None)
    elif source.status == "error":
        update.update(state="failed", error=source.error_message or "Processing the source failed.")
    return update


def _progress(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return min(max(float(value), 0.0), 100.0)


def _error_text(error: object) -> str | None:
    if error is None:
        return None
    if isinstance(error, dict):
        for name in ("message", "detail", "title", "code"):
            if isinstance(error.get(name), str):
                return str(error[name])
        return str(error)
    return str(error)
