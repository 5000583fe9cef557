"""What every kind of background job shares: the worker processes and the records it reads.

``JobBase`` holds the runner's state, the pool of spawned worker processes that synthesis and
encoding run in (``_work``: progress from the time spent, a floor on the time taken, one retry
in a fresh worker when one dies), and the helpers the kinds of job have in common: updating a
record's freshest copy, a host's voice, the speakers of some hosts and the texts of the
attached sources.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .clock import CLOCK
from .db import Record
from .render_cache import cached_render
from .service import Sandbox, now_iso
from .writer_model import SourceText, Speaker

__all__ = ["DEFAULT_VOICE", "JobBase"]

# one logger for every part of the job runner, by the name its records have always had
log = logging.getLogger("castdeck.sandbox.jobs")

DEFAULT_VOICE = {"language": "en", "espeak_voice": "en-us", "variant": None, "rate": 150, "pitch": 50}


class JobBase:
    """The state and helpers of the job runner that every kind of job uses."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.db = sandbox.db
        self.settings = sandbox.settings
        self.running: dict[str, asyncio.Task[None]] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._closing = False
        self._seed_lane: asyncio.Semaphore | None = None
        """The seeded demo's own renders take one worker fewer than there are (one at least), so a
        creator's generation never waits behind all of them."""

    # worker processes -------------------------------------------------------------------------------
    @property
    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=max(1, self.settings.workers),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
            )
        return self._pool

    # helpers -----------------------------------------------------------------------------------------------
    def _update(self, kind: str, record_id: str, change: Callable[[Record], None]) -> Record | None:
        """Apply a change to the freshest copy of a record (users may edit it meanwhile)."""
        record = self.db.get(kind, record_id)
        if record is None:
            return None
        change(record)
        record.data["updated_at"] = now_iso()
        with self.db.transaction():
            self.db.save(record)
        return record

    def _voice(self, host_id: str) -> dict[str, Any]:
        host = self.db.get("host", host_id)
        voice = self.db.get("voice", str(host.data.get("voice_id"))) if host is not None else None
        spec = dict(DEFAULT_VOICE)
        if voice is not None:
            spec.update(voice.meta.get("espeak") or {})
        return spec

    def _speakers(self, host_ids: list[str]) -> list[Speaker]:
        speakers = []
        for host_id in host_ids:
            host = self.db.get("host", host_id)
            name = str(host.data.get("name")) if host is not None else host_id
            title = host.data.get("title") if host is not None else None
            speakers.append(Speaker(host_id=host_id, name=name, title=title))
        return speakers

    def _sources(self, source_ids: list[str]) -> tuple[list[SourceText], list[dict[str, Any]]]:
        texts, skipped = [], []
        for source_id in source_ids:
            source = self.db.get("source", source_id)
            if source is None:
                skipped.append({"id": source_id, "title": None, "url": None, "reason": "deleted"})
                continue
            url = (
                (source.data.get("metadata") or {}).get("url")
                if isinstance(source.data.get("metadata"), dict)
                else None
            )
            status = source.data.get("status")
            if status != "completed":
                reason = {
                    "error": "failed processing",
                    "processing": "still processing",
                    "awaiting_upload": "upload never completed",
                }.get(str(status), str(status))
                skipped.append(
                    {"id": source_id, "title": source.data.get("title"), "url": url, "reason": reason}
                )
                continue
            texts.append(
                SourceText(title=str(source.data.get("title") or ""), text=str(source.meta.get("text", "")))
            )
        return texts, skipped

    async def _work(
        self,
        function: Callable[[dict[str, Any]], dict[str, Any]],
        spec: dict[str, Any],
        floor_seconds: float,
        on_progress: Callable[[float], None],
        expected_seconds: float,
        *,
        seeding: bool = False,
    ) -> dict[str, Any]:
        """Run synthesis in the worker process; report progress from the time spent against the
        expected time; take at least ``floor_seconds``. ``seeding``: the seeded demo's media, run
        in fewer workers than there are (see ``_seed_lane``)."""
        if seeding:
            if self._seed_lane is None:
                self._seed_lane = asyncio.Semaphore(max(1, self.settings.workers - 1))
            async with self._seed_lane:
                return await self._work(function, spec, floor_seconds, on_progress, expected_seconds)
        loop = asyncio.get_running_loop()
        started = CLOCK.monotonic()
        expected = max(expected_seconds, floor_seconds, 0.5)
        folder = str(self.settings.render_cache) if self.settings.render_cache else None
        work = functools.partial(cached_render, function, spec, folder=folder)
        for attempt in range(2):
            future: asyncio.Future[dict[str, Any]] = loop.run_in_executor(self.pool, work)
            while True:
                done, _ = await asyncio.wait({future}, timeout=0.5)
                elapsed = CLOCK.monotonic() - started
                if done and elapsed >= floor_seconds:
                    break
                on_progress(min(0.97, elapsed / expected))
            try:
                return future.result()
            except BrokenProcessPool:
                # The worker died (killed, out of memory): a fresh one gets the job once more.
                # While the sandbox shuts down the job stays stored and resumes on the next start.
                self._pool = None
                if self._closing:
                    raise asyncio.CancelledError from None
                if attempt:
                    raise
                log.warning("speech worker died; running the job again in a new worker")
        raise AssertionError("unreachable")


def _worker_init() -> None:
    """Workers leave Ctrl+C and SIGTERM to the server, which shuts them down in order, and end
    themselves when the server is gone (killed, crashed) instead of lingering as orphans."""
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:

        def exit_with_parent() -> None:
            parent.join()
            os._exit(0)

        threading.Thread(target=exit_with_parent, name="exit-with-parent", daemon=True).start()
