"""Background work: episode generation, Video/Short/Voiceover generation and source processing.

Jobs are rows of the ``jobs`` table, written in the same transaction as the resource that
asked for them, so a restart resumes every unfinished job. Writing happens on the event loop
(cheap); speech synthesis and encoding run in a spawned worker process so the server keeps
answering while they run. Simulated work time (scaled by ``--speed``) is a floor: a job takes
at least that long, and longer when the real work does.

This module holds the runner's life cycle: ``JobRunner`` starts every stored job that is not
running, hands it to the runner of its kind (``jobs_episode``, ``jobs_media``, ``jobs_source``)
and ends a job that crashed visibly failed; the worker processes and the helpers the kinds share
are in ``jobs_base``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from .jobs_episode import EpisodeJobs
from .jobs_media import MEDIA_COLLECTIONS, MediaJobs
from .jobs_source import SourceJobs

__all__ = ["JobRunner"]

# one logger for every part of the job runner, by the name its records have always had
log = logging.getLogger("castdeck.sandbox.jobs")


class JobRunner(EpisodeJobs, MediaJobs, SourceJobs):
    """Runs the stored jobs of every kind, each in a task of its own, until the sandbox closes."""

    # lifecycle ----------------------------------------------------------------------------------------
    def kick(self) -> None:
        """Start every stored job that is not running yet."""
        if self._closing:
            return
        for job_id, kind, org_id, spec in self.db.pending_jobs():
            if job_id in self.running:
                continue
            task = asyncio.get_running_loop().create_task(self._run(job_id, kind, org_id, spec), name=job_id)
            self.running[job_id] = task

    async def close(self) -> None:
        self._closing = True
        for task in list(self.running.values()):
            task.cancel()
        for task in list(self.running.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def _run(self, job_id: str, kind: str, org_id: str, spec: dict[str, Any]) -> None:
        try:
            if kind == "episode":
                await self._episode(job_id, org_id, spec)
            elif kind in MEDIA_COLLECTIONS:
                await self._media(job_id, kind, org_id, spec)
            elif kind == "source":
                await self._source(job_id, spec)
            else:
                log.error("unknown job kind %s", kind)
                self.db.finish_job(job_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("job %s crashed", job_id)
            self._abandon(job_id, kind, org_id, spec, exc)
        finally:
            self.running.pop(job_id, None)

    def _abandon(self, job_id: str, kind: str, org_id: str, spec: dict[str, Any], exc: Exception) -> None:
        """A job that crashed ends visibly failed (and its hold released) instead of running again forever."""
        message = f"Internal error in the sandbox: {type(exc).__name__}: {exc}"
        try:
            if kind == "episode":
                self._fail_episode(job_id, org_id, spec["episode_id"], message, 0.0)
                return
            with self.db.transaction():
                if kind in MEDIA_COLLECTIONS:
                    self._update(
                        kind,
                        spec["media_id"],
                        lambda r: r.data.update(
                            status="failed", phase=None, error=message, progress_pct=None
                        ),
                    )
                    self.db.settle(org_id, kind, spec["media_id"], 0.0, "crashed run")
                elif kind == "source":
                    self._update(
                        "source",
                        spec["source_id"],
                        lambda r: r.data.update(status="error", error_message=message),
                    )
                self.db.finish_job(job_id)
        except Exception:
            log.exception("could not record the failure of job %s", job_id)
            self.db.finish_job(job_id)
