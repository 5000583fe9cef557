"""The job tracker: the one holder of the state of every long-running thing the app follows.

Episodes being generated, publishes waiting for rendering, Video/Short/Voiceover jobs and
sources being processed are each followed by :func:`castdeck.api.polling.poll` (the one poll
loop: never earlier than ``Retry-After``, ``poll_after_seconds`` or the 202's ``first_poll_after``;
faults backed off; every poll waiting its turn in the client's shared request budget). While the
session is not online the tracker pauses (the session probes on its own). At the local deadline a
job becomes ``still_running``: still running on the service, not cancelled (the service has no
cancel); :meth:`JobTracker.check_again` follows it again.

Panes, the Jobs dock and dialogs never poll: they read :meth:`JobTracker.job` and listen to
:attr:`JobTracker.jobChanged`. State lives in memory here and is written to the store on the
session's disk thread, in order (the UI thread never waits on the disk); a job is stored before
its first poll, so :meth:`JobTracker.resume` picks the profile's running jobs up after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from castdeck.api import ApiError, ForbiddenError, NotFoundError, UnauthorizedError
from castdeck.api.polling import (
    DEFAULT_POLL_INTERVAL,
    StillRunning,
    poll,
)
from castdeck.store.jobs import Job, JobStore
from castdeck.store.kinds import JOB_KINDS

from .job_kinds import RUNNING, UPDATES, fetch, hint, request_id_of
from .messages import error_text, quoted
from .session import Session

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_POLL_INTERVAL",
    "ENDED_KEPT",
    "Finish",
    "Job",
    "JobTracker",
    "job_text",
    "still_running_text",
]

log = logging.getLogger(__name__)

DEFAULT_DEADLINE = 1800.0
"""Seconds a job is followed before it is reported ``still_running``."""

ENDED_KEPT = 50
"""Finished and failed jobs the tracker keeps (the most recently ended): an older one is forgotten,
as "Clear finished" does, so a long session's Jobs dock and job store do not grow without end."""


@dataclass(frozen=True)
class Finish:
    """What a kind's finishing step decided once its poll ended: the job's new fields, and when
    ``again_after`` is set, to follow it again after that many seconds (a publish that met 422)."""

    update: dict[str, Any]
    again_after: float | None = None


Finisher = Callable[[Job, Any], Awaitable[Finish]]


def job_text(job: Job) -> str:
    """The state of a job in a sentence (cards, the details of a pane)."""
    name = quoted(job.title) if job.title else job.kind.capitalize()
    if job.state == "still_running":
        return still_running_text(job)
    if job.state == "failed":
        return f"{name} failed: {job.error or 'no reason given'}"
    if job.state == "completed":
        return f"{name} has finished."
    if job.extra.get("accepting"):
        return f"{name} is being accepted by the service; Castdeck follows it (it will not be started twice)."
    phase = (job.phase or "").replace("_", " ")
    progress = f" {job.progress:.0f}%" if job.progress is not None else ""
    return f"{name}: {phase or 'running'}{progress}".strip()


def still_running_text(job: Job) -> str:
    """What a ``still_running`` card says (never "cancelled")."""
    return f"{job.title or job.kind.capitalize()} is still running on the service; check again."


class JobTracker(QObject):
    """Follows the jobs of one session's profile; emits every change and every end."""

    jobChanged = Signal(object)  # Job
    jobFinished = Signal(object)  # Job: completed or failed
    jobForgotten = Signal(object)  # Job: no longer known (dismissed, or past what is kept)

    def __init__(
        self,
        session: Session,
        store: JobStore,
        *,
        deadline: float = DEFAULT_DEADLINE,
        default_interval: float = DEFAULT_POLL_INTERVAL,
        ended_kept: int = ENDED_KEPT,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.store = store
        self.deadline = deadline
        self.default_interval = default_interval
        self.ended_kept = ended_kept
        """Ended jobs kept (see :data:`ENDED_KEPT`); the oldest ended beyond it are forgotten."""
        self._jobs: dict[tuple[str, str], Job] = {}
        self._loaded = False
        self._pollers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._writes: set[asyncio.Task[Any]] = set()
        self._finishers: dict[str, Finisher] = {}
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

    def set_finisher(self, kind: str, finisher: Finisher) -> None:
        """The step that ends a ``kind`` job once its poll ended (the publish service's attempt)."""
        self._finishers[kind] = finisher

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
        return self.follow(self.new_job(kind, resource_id, title=title, first_poll_after=first_poll_after,
                                        request_id=request_id, extra=extra))  # fmt: skip

    def new_job(
        self,
        kind: str,
        resource_id: str,
        *,
        title: str | None = None,
        first_poll_after: float | None = None,
        request_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Job:
        """A running job as :meth:`track` would store it (the outbox stores it itself, in the same
        transaction as the accepted write, then hands it to :meth:`follow`)."""
        if kind not in JOB_KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        now = self.session.clock.time()
        delay = self.default_interval if first_poll_after is None else hint(first_poll_after)
        return Job(
            self.profile, kind, resource_id, title=title, state="running", request_id=request_id,
            started_at=now, next_poll_at=now + delay, deadline_at=now + self.deadline,
            extra=dict(extra or {}), updated_at=now,
        )  # fmt: skip

    def follow(self, job: Job, *, stored: bool = False) -> Job:
        """Follow ``job`` (``stored``: it is already in the store, written with the write that
        started it). A job already followed only takes the new title."""
        key = (job.kind, job.resource_id)
        current = self._jobs.get(key)
        if current is not None and key in self._pollers:
            if job.title and job.title != current.title:
                current = self._save(current.evolve(title=job.title))
            return current
        job = self._save(job, persist=not stored)  # stored before the first request
        self._start(key)
        return job

    def check_again(self, job: Job, *, deadline: float | None = None) -> Job:
        """Follow a ``still_running`` (or any not-followed) job again, with a fresh deadline."""
        key = (job.kind, job.resource_id)
        if key in self._pollers:
            return self._jobs[key]
        now = self.session.clock.time()
        current = self._jobs.get(key) or job
        fresh = self._save(
            current.evolve(
                state="running", error=None, next_poll_at=max(now, current.next_poll_at),
                deadline_at=now + (deadline or self.deadline),
            )
        )  # fmt: skip
        self._start(key)
        return fresh

    async def load(self) -> list[Job]:
        """Read the profile's stored jobs (on the disk thread); once, before anything else."""
        if not self._loaded:
            stored = await self.session.on_disk(self.store.list, self.profile)
            for job in stored:
                key = (job.kind, job.resource_id)
                if key not in self._jobs:
                    self._jobs[key] = job
                    self.jobChanged.emit(job)
            self._loaded = True
            self._forget_oldest_ended()
        return self.jobs()

    async def resume(self) -> list[Job]:
        """Follow the profile's stored running jobs again (after a restart). A job whose deadline
        passed while the app was closed gets a fresh one; stored poll times are still honoured."""
        await self.load()
        resumed = []
        now = self.session.clock.time()
        for key, job in list(self._jobs.items()):
            if job.state != "running" or key in self._pollers or self._closed:
                continue
            if job.deadline_at <= now:
                job = self._save(job.evolve(deadline_at=now + self.deadline))
            self._start(key)
            resumed.append(job)
        return resumed

    def stop(self, job: Job, reason: str) -> Job:
        """Stop following ``job`` and end it as ``failed`` with ``reason`` (a publish the user
        stopped waiting for). Nothing is cancelled on the service."""
        key = (job.kind, job.resource_id)
        poller = self._pollers.pop(key, None)
        if poller is not None:
            poller.cancel()
        return self._save(self._jobs.get(key, job).evolve(state="failed", error=reason))

    def observe(self, kind: str, resource_id: str, observation: Any) -> Job | None:
        """A fresh read of a followed resource made elsewhere (a pane that read the episode, a
        "Refresh status"): the job takes it as if its own poll had seen it, and ends when it says
        the work ended. Jobs whose end is decided by a finishing step (a publish) are left to it.
        Returns the job as it now is (None when no such job is running)."""
        key = (kind, str(resource_id))
        job = self._jobs.get(key)
        if job is None or job.state != "running" or kind in self._finishers:
            return job
        changed = self._observed(key, observation)
        if changed.state != "running":
            poller = self._pollers.pop(key, None)
            if poller is not None and poller is not asyncio.current_task():
                poller.cancel()
        return changed

    def jobs(self) -> list[Job]:
        """Every known job of the profile (running, ended, still running), oldest first."""
        return sorted(self._jobs.values(), key=lambda job: job.started_at)

    def job(self, kind: str, resource_id: str) -> Job | None:
        return self._jobs.get((kind, str(resource_id)))

    def is_following(self, kind: str, resource_id: str) -> bool:
        return (kind, str(resource_id)) in self._pollers

    def forget(self, job: Job) -> None:
        """Remove a job that is not being followed (a finished card the user closed)."""
        key = (job.kind, job.resource_id)
        if key in self._pollers:
            raise ValueError("the job is still being followed")
        known = self._jobs.pop(key, None)
        self._write(self.store.remove, self.profile, job.kind, job.resource_id)
        if known is not None:
            self.jobForgotten.emit(known)

    def clear_finished(self) -> int:
        finished = [key for key, job in self._jobs.items() if job.finished]
        for key in finished:
            del self._jobs[key]
        self._write(self.store.clear_finished, self.profile)
        return len(finished)

    @property
    def following(self) -> int:
        return len(self._pollers)

    async def flush(self) -> None:
        """Wait until every change so far is on disk."""
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)

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
        await self.flush()

    # --- internals -----------------------------------------------------------------------------------------

    def _on_state(self, _state: str) -> None:
        if self.session.online:
            self._online.set()
        else:
            self._online.clear()

    def _on_reconnected(self) -> None:
        self._online.set()

    def _write(self, fn: Callable[..., Any], *args: Any) -> None:
        """Write to the store on the disk thread (one thread: writes land in the order made)."""
        task = self.session.tasks.start(self.session.on_disk(fn, *args), name="store job")
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    def _save(self, job: Job, *, persist: bool = True, emit: bool = True) -> Job:
        job = job.evolve(updated_at=self.session.clock.time())
        self._jobs[(job.kind, job.resource_id)] = job
        if persist:
            self._write(self.store.upsert, job)
        if emit:
            self.jobChanged.emit(job)
            if job.finished:
                self.jobFinished.emit(job)
                self._forget_oldest_ended()
        return job

    def _forget_oldest_ended(self) -> None:
        """Keep the :attr:`ended_kept` most recently ended jobs; forget the others."""
        ended = [job for job in self._jobs.values() if job.finished]
        if len(ended) <= self.ended_kept:
            return
        ended.sort(key=lambda job: job.updated_at)  # stable: the first known go first among equals
        for job in ended[: len(ended) - self.ended_kept]:
            if (job.kind, job.resource_id) not in self._pollers:  # (a poller ending it lets go next)
                self.forget(job)

    def _start(self, key: tuple[str, str]) -> None:
        if self._closed:
            raise RuntimeError("the job tracker is closed")
        task = self.session.tasks.start(
            self._follow(key), name=f"follow {key[0]} {key[1]}", long_running=True
        )
        self._pollers[key] = task
        task.add_done_callback(lambda finished: self._forget_poller(key, finished))

    def _forget_poller(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        if self._pollers.get(key) is task:
            del self._pollers[key]

    def _release(self, key: tuple[str, str]) -> None:
        """The poller is ending: no longer following, before anyone hears of the end (a "Check
        again" or a dismissal that follows at once must see the job as not followed)."""
        if self._pollers.get(key) is asyncio.current_task():
            del self._pollers[key]

    def _end(self, key: tuple[str, str], **update: Any) -> None:
        self._release(key)
        self._save(self._jobs[key].evolve(**update))

    async def _ready(self) -> None:
        await self._online.wait()

    async def _follow(self, key: tuple[str, str]) -> None:
        kind, resource_id = key
        while True:
            job = self._jobs[key]
            now = self.session.clock.time()
            try:
                observed = await poll(
                    f"{kind} {resource_id}",
                    lambda: self.session.guard(fetch(self.session.client, kind, resource_id)),
                    running=RUNNING[kind],
                    timeout=job.deadline_at - now,
                    first_delay=max(0.0, job.next_poll_at - now),
                    budget=self.session.client.budget,
                    ready=self._ready,
                    on_update=lambda observation: self._observed(key, observation),
                    on_schedule=lambda delay: self._scheduled(key, delay),
                    default_interval=self.default_interval,
                    jitter=True,
                    clock=self.session.clock,
                )
            except StillRunning:
                self._end(key, state="still_running")
                log.info("%s", job_text(self._jobs[key]))
                return
            except (UnauthorizedError, ForbiddenError):
                continue  # the key was refused: the session is not online, so the next poll waits
            except NotFoundError as error:
                if self._jobs[key].extra.get("accepting"):
                    self._scheduled(key, self.default_interval)  # named by a 409, not visible yet
                    continue
                self._end(key, state="failed", error=f"It no longer exists on the service: {error_text(error)}",
                          request_id=error.request_id)  # fmt: skip
                return
            except ApiError as error:
                self._end(key, state="failed", error=error_text(error), request_id=error.request_id)
                return
            finisher = self._finishers.get(kind)
            if finisher is None:
                self._release(key)
                return  # the last observation ended the job (see _observed)
            finish = await finisher(self._jobs[key], observed)
            if finish.again_after is None:
                self._end(key, **finish.update)
                return
            self._save(self._jobs[key].evolve(**finish.update))
            self._scheduled(key, finish.again_after)

    def _observed(self, key: tuple[str, str], observation: Any) -> Job:
        job = self._jobs[key]
        update = UPDATES[job.kind](observation)
        extra = {k: v for k, v in job.extra.items() if k != "accepting"}
        update["extra"] = {**extra, **update.get("extra", {})}
        if job.kind in self._finishers:
            update.pop("state", None)  # its finisher decides how it ends
        changed = job.evolve(**update, request_id=request_id_of(observation) or job.request_id)
        if changed.state != "running":
            self._release(key)
        saved = self._save(changed)
        if job.kind == "publish":  # a publish reads the episode: what it saw is the generation's news too
            self.observe("episode", job.resource_id, observation)
        return saved

    def _scheduled(self, key: tuple[str, str], delay: float) -> None:
        job = self._jobs.get(key)
        if job is not None and job.state == "running":
            self._save(job.evolve(next_poll_at=self.session.clock.time() + delay), emit=False)
