"""Background work: episode generation, Video/Short/Voiceover generation and source processing.

Jobs are rows of the ``jobs`` table, written in the same transaction as the resource that
asked for them, so a restart resumes every unfinished job. Writing happens on the event loop
(cheap); speech synthesis and encoding run in a spawned worker process so the server keeps
answering while they run. Simulated work time (scaled by ``--speed``) is a floor: a job takes
at least that long, and longer when the real work does.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from castdeck.api.models import CREDITS_PER_NARRATION_MINUTE

from . import importer, render, writer
from .clock import CLOCK
from .config import FAIL_PHRASE
from .db import Record
from .extract import process_source
from .render_cache import cached_render
from .routes.media import credits_for, estimate
from .service import Sandbox, now_iso
from .writer_model import SourceText, Speaker
from .writer_text import clean_spoken_text

log = logging.getLogger("castdeck.sandbox.jobs")

DEFAULT_VOICE = {"language": "en", "espeak_voice": "en-us", "variant": None, "rate": 150, "pitch": 50}
SIZES = {"LANDSCAPE": (640, 360), "PORTRAIT": (360, 640), "SQUARE": (480, 480)}
MEDIA_COLLECTIONS = {"video": "videos", "short": "shorts", "voiceover": "voiceovers"}


class JobRunner:
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

    # lifecycle ----------------------------------------------------------------------------------------
    @property
    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=max(1, self.settings.workers),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
            )
        return self._pool

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

    # episodes ------------------------------------------------------------------------------------------------
    def _set_generation(self, episode_id: str, **fields: Any) -> Record | None:
        def change(record: Record) -> None:
            generation = dict(record.data.get("generation") or {})
            generation.update(fields)
            record.data["generation"] = generation

        return self._update("episode", episode_id, change)

    async def _episode(self, job_id: str, org_id: str, spec: dict[str, Any]) -> None:
        episode_id = spec["episode_id"]
        record = self.db.get("episode", episode_id)
        if record is None:
            self.db.finish_job(job_id)
            return
        seeding = bool(spec.get("seed_only"))
        scaled = self.settings.scaled
        host_ids = list(record.data.get("host_ids") or [])
        speakers = self._speakers(host_ids)
        if not seeding:
            self._set_generation(episode_id, phase="writing_script", progress_pct=5)
            await CLOCK.sleep(scaled(6))
        lines, title, description, skipped = self._episode_lines(spec, speakers)

        def describe(rec: Record) -> None:
            rec.data["title"] = rec.data.get("title") or title
            rec.data["description"] = rec.data.get("description") or description
            rec.meta["script"] = [[host_ids[i] if i < len(host_ids) else None, text] for i, text in lines]
            if skipped and rec.data.get("generation"):
                rec.data["generation"]["skipped_sources"] = skipped

        self._update("episode", episode_id, describe)
        render_video = bool(spec.get("render"))
        attempt = int(CLOCK.time())
        work = {
            "turns": [
                {"speaker": i, "text": text, "voice": self._voice(host_ids[i] if i < len(host_ids) else "")}
                for i, text in lines
            ],
            "audio_path": str(self.sandbox.file_path(f"episodes/{episode_id}/audio-{attempt}.mp3")),
            "video_path": str(self.sandbox.file_path(f"episodes/{episode_id}/video-{attempt}.mp4"))
            if render_video
            else None,
            "title": title,
            "fail": bool(spec.get("fail")),
        }
        self.sandbox.file_path(f"episodes/{episode_id}").mkdir(parents=True, exist_ok=True)
        words = sum(len(text.split()) for _, text in lines)
        expected = words / 150 * 60 / 40 * (1.6 if render_video else 1.0)
        if not seeding:
            self._set_generation(episode_id, phase="synthesizing_audio", progress_pct=20)

        def progress(fraction: float) -> None:
            if seeding:
                return
            phase = "rendering" if render_video and fraction > 0.65 else "synthesizing_audio"
            self._set_generation(episode_id, phase=phase, progress_pct=round(20 + 78 * fraction))

        floor = 0.0 if seeding else scaled(14 + (8 if render_video else 0))
        try:
            result = await self._work(render.render_episode, work, floor, progress, expected, seeding=seeding)
        except render.SynthesisFailed as failure:
            self._fail_episode(job_id, org_id, episode_id, str(failure), failure.seconds_synthesized)
            return
        except Exception as exc:  # a crashed worker must still end the job visibly
            log.exception("episode %s failed", episode_id)
            self._fail_episode(job_id, org_id, episode_id, f"Internal error during generation: {exc}", 0.0)
            return
        files_root = self.sandbox.files_dir

        def complete(rec: Record) -> None:
            old = [rec.meta.get("audio_file"), rec.meta.get("video_file")]
            rec.meta["audio_file"] = str(self.sandbox.file_path(result["audio_path"]).relative_to(files_root))
            if result.get("video_path"):
                rec.meta["video_file"] = str(
                    self.sandbox.file_path(result["video_path"]).relative_to(files_root)
                )
            rec.meta["rendered"] = bool(rec.meta.get("rendered")) or render_video
            rec.meta["duration"] = result["duration"]
            rec.meta["old_files"] = [
                f for f in old if f and f not in (rec.meta["audio_file"], rec.meta.get("video_file"))
            ]
            if not seeding:
                generation = dict(rec.data.get("generation") or {})
                generation.update(
                    state="completed", completed_at=now_iso(), phase="completed", progress_pct=100
                )
                rec.data["generation"] = generation

        speakers_out = [{"host_id": s.host_id, "name": s.name} for s in speakers]
        with self.db.transaction():
            updated = self._update("episode", episode_id, complete)
            if updated is not None:
                self.db.put_timestamps(episode_id, speakers_out, result["words"])
            if not seeding:
                charge = result["duration"] / 60 * CREDITS_PER_NARRATION_MINUTE
                self.db.settle(org_id, "episode", episode_id, charge, f"narration {result['duration']:.1f} s")
            self.db.finish_job(job_id)

    def _episode_lines(
        self, spec: dict[str, Any], speakers: list[Speaker]
    ) -> tuple[list[tuple[int, str]], str, str, list[dict[str, Any]]]:
        host_index = {s.host_id: i for i, s in enumerate(speakers)}
        if spec.get("mode") == "prompt":
            sources, skipped = self._sources(list(spec.get("source_ids") or []))
            prompt = str(spec["prompt"]).replace(FAIL_PHRASE, "")
            script = writer.write_episode(
                prompt, speakers, sources, float(spec["minutes"]), seed=int(spec["seed"])
            )
            lines = [(line.speaker, line.text) for chapter in script.chapters for line in chapter.lines]
            return lines, script.title, script.description, skipped
        lines = []
        for chapter in spec.get("chapters") or []:
            for host_id, text in chapter["segments"]:
                spoken = clean_spoken_text(str(text).replace(FAIL_PHRASE, " "))
                if spoken.strip():
                    lines.append((host_index.get(host_id, 0), spoken))
        title = spec.get("title") or _title_from(lines)
        names = " and ".join(s.name for s in speakers)
        kind = "Imported script" if spec.get("mode") == "import" else "Scripted episode"
        return lines, title, f"{kind} with {names}.", []

    def _fail_episode(self, job_id: str, org_id: str, episode_id: str, message: str, seconds: float) -> None:
        with self.db.transaction():
            self._set_generation(
                episode_id,
                state="failed",
                completed_at=now_iso(),
                error_message=message,
                phase="failed",
                progress_pct=None,
            )
            charge = seconds / 60 * CREDITS_PER_NARRATION_MINUTE
            self.db.settle(org_id, "episode", episode_id, charge, f"failed run, narration {seconds:.1f} s")
            self.db.finish_job(job_id)

    # videos, shorts and voiceovers ------------------------------------------------------------------------------
    async def _media(self, job_id: str, kind: str, org_id: str, spec: dict[str, Any]) -> None:
        media_id = spec["media_id"]
        record = self.db.get(kind, media_id)
        if record is None:
            self.db.finish_job(job_id)
            return
        seeding = bool(spec.get("seed_only"))
        scaled = self.settings.scaled

        def phase(name: str, pct: int) -> None:
            if not seeding:
                self._update(kind, media_id, lambda r: r.data.update(phase=name, progress_pct=pct))

        host_ids = list(record.data.get("host_ids") or [record.data.get("host_id")])
        speakers = self._speakers([h for h in host_ids if h])
        first = "analyzing_visuals" if kind == "voiceover" else "writing_script"
        phase(first, 5)
        if not seeding:
            await CLOCK.sleep(scaled(5))
            await self._await_sources(list(record.data.get("source_ids") or []))
        turns, slides = self._media_script(kind, record, spec, speakers)
        phase("generating_visuals" if kind != "voiceover" else "writing_script", 25)
        if not seeding:
            await CLOCK.sleep(scaled(5))
        phase("narrating", 40)
        attempt = int(record.data.get("attempt") or 1)
        relative = f"{MEDIA_COLLECTIONS[kind]}/{media_id}/{kind}-{attempt}.mp4"
        self.sandbox.file_path(relative).parent.mkdir(parents=True, exist_ok=True)
        work = {
            "turns": turns,
            "slides": slides,
            "video_path": str(self.sandbox.file_path(relative)),
            "size": list(SIZES.get(str(record.data.get("orientation")), (640, 360))),
            "captions": bool(record.data.get("captions_enabled")) or kind == "short",
            "motion": str(record.data.get("visual_motion") or ("dynamic" if kind == "short" else "static")),
            "fail": bool(spec.get("fail")),
            "title": record.data.get("title") or "",
        }
        words = sum(len(t["text"].split()) for t in turns)

        def progress(fraction: float) -> None:
            if not seeding:
                name = "rendering" if fraction > 0.5 else "narrating"
                self._update(
                    kind,
                    media_id,
                    lambda r: r.data.update(phase=name, progress_pct=round(40 + 58 * fraction)),
                )

        floor = 0.0 if seeding else scaled(16)
        try:
            result = await self._work(
                render.render_media, work, floor, progress, words / 150 * 60 / 25, seeding=seeding
            )
        except Exception as exc:
            seconds = exc.seconds_synthesized if isinstance(exc, render.SynthesisFailed) else 0.0
            message = (
                str(exc)
                if isinstance(exc, render.SynthesisFailed)
                else f"Internal error during generation: {exc}"
            )

            def failed(rec: Record) -> None:
                rec.data.update(status="failed", phase=None, error=message, progress_pct=None)

            with self.db.transaction():
                self._update(kind, media_id, failed)
                if not seeding:
                    self.db.settle(
                        org_id,
                        kind,
                        media_id,
                        seconds / 60 * CREDITS_PER_NARRATION_MINUTE,
                        f"failed run, narration {seconds:.1f} s",
                    )
                self.db.finish_job(job_id)
            return

        def complete(rec: Record) -> None:
            rec.meta["video_file"] = relative
            rec.meta["ready_at"] = 0 if seeding else CLOCK.time() + scaled(8)
            rec.meta["duration"] = result["duration"]
            rec.data.update(
                status="completed",
                phase=None,
                error=None,
                progress_pct=100,
                duration_seconds=round(result["duration"], 2),
            )

        with self.db.transaction():
            self._update(kind, media_id, complete)
            if not seeding:
                minutes, images, clips = estimate(kind, result["duration"])
                self.db.settle(
                    org_id,
                    kind,
                    media_id,
                    credits_for(kind, result["duration"]),
                    f"narration {minutes:.2f} min, {images} images, {clips} clips",
                )
            self.db.finish_job(job_id)

    async def _await_sources(self, source_ids: list[str]) -> None:
        """Sources still processing may be attached (spec 3.2): the workflow waits for them, within limits;
        one that is still processing afterwards is skipped like a failed one."""
        deadline = CLOCK.monotonic() + self.settings.scaled(120)
        while CLOCK.monotonic() < deadline:
            pending = [
                s
                for s in (self.db.get("source", source_id) for source_id in source_ids)
                if s is not None and s.data.get("status") == "processing"
            ]
            if not pending:
                return
            await CLOCK.sleep(max(0.05, self.settings.scaled(1)))

    def _media_script(
        self, kind: str, record: Record, spec: dict[str, Any], speakers: list[Speaker]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        host_ids = [s.host_id for s in speakers]
        text = str(spec.get("text") or "").replace(FAIL_PHRASE, " ")
        seconds = float(spec.get("planned_seconds") or 60)
        sources, _ = self._sources(list(record.data.get("source_ids") or []))
        if record.data.get("mode") == "script":
            parsed = importer.parse_script_text(text)
            labels: dict[str, str] = spec.get("labels") or {}
            lines = [
                (
                    host_ids.index(labels[s.label]) if labels.get(s.label) in host_ids else 0,
                    clean_spoken_text(s.text),
                )
                for s in parsed.segments
            ]
            turns = [
                {"speaker": i, "text": t, "voice": self._voice(host_ids[i])} for i, t in lines if t.strip()
            ]
            slides = [
                {"start": None, "title": record.data.get("title") or "", "body": _excerpt(t)}
                for _, t in lines[:: max(1, len(lines) // 12 or 1)]
            ]
            return turns, slides
        prompt = text.strip() or "A guided walk through the attached visuals"
        script = writer.write_video(prompt, speakers, sources, int(seconds), seed=int(spec.get("seed") or 1))
        turns = [
            {"speaker": line.speaker, "text": line.text, "voice": self._voice(host_ids[line.speaker])}
            for chapter in script.chapters
            for line in chapter.lines
        ]
        if kind == "voiceover":
            slides = self._visual_slides(record)
        else:
            slides = [
                {
                    "start": None,
                    "title": chapter.title,
                    "body": _excerpt(chapter.lines[0].text) if chapter.lines else "",
                }
                for chapter in script.chapters
            ]
        return turns, slides

    def _visual_slides(self, record: Record) -> list[dict[str, Any]]:
        slides: list[dict[str, Any]] = []
        for source_id in record.data.get("source_ids") or []:
            source = self.db.get("source", source_id)
            if source is None:
                continue
            metadata = source.data.get("metadata") or {}
            path = self.sandbox.file_path(f"uploads/{source_id}")
            mime = str(metadata.get("mime_type", ""))
            title = str(source.data.get("title") or "")
            if mime.startswith("image/") and path.exists():
                slides.append({"start": None, "title": title, "body": "", "image": str(path)})
            else:
                count = int(metadata.get("visual_count") or 1)
                slides.extend(
                    {"start": None, "title": title, "body": f"Page {page} of {count}"}
                    for page in range(1, count + 1)
                )
        return slides

    # sources --------------------------------------------------------------------------------------------------------
    async def _source(self, job_id: str, spec: dict[str, Any]) -> None:
        source_id = spec["source_id"]
        await CLOCK.sleep(self.settings.scaled(3))
        record = self.db.get("source", source_id)
        if record is None:
            self.db.finish_job(job_id)
            return
        outcome = await asyncio.to_thread(
            process_source, record, self.sandbox.file_path(f"uploads/{record.id}")
        )

        def apply(rec: Record) -> None:
            error, metadata, text = outcome
            rec.data["status"] = "error" if error else "completed"
            rec.data["error_message"] = error
            merged = dict(rec.data.get("metadata") or {})
            merged.update(metadata)
            rec.data["metadata"] = merged
            if text is not None:
                rec.meta["text"] = text

        with self.db.transaction():
            self._update("source", source_id, apply)
            self.db.finish_job(job_id)


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


def _excerpt(text: str, limit: int = 240) -> str:
    """At most ``limit`` characters for a slide, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    return text[: cut if cut > 0 else limit - 1].rstrip(",;:") + "…"


def _title_from(lines: list[tuple[int, str]]) -> str:
    words = " ".join(text for _, text in lines[:1]).split()[:8]
    return (" ".join(words).rstrip(".,;:!?") or "Untitled episode")[:120]
