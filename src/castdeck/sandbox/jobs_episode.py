"""Episode jobs: write the script (prompt mode) or take the given one, narrate it, settle the credits.

An episode's progress is its ``generation`` object (phase and percentage); a prompt-mode episode is
written by the script writer from its prompt and attached sources, a scripted or imported one
speaks its segments. The narration (and the optional slide video) is rendered in a worker.
"""

from __future__ import annotations

import logging
from typing import Any

from castdeck.api.models import CREDITS_PER_NARRATION_MINUTE

from . import render, writer
from .clock import CLOCK
from .config import FAIL_PHRASE
from .db import Record
from .jobs_base import JobBase
from .service import now_iso
from .writer_model import Speaker
from .writer_text import clean_spoken_text

__all__ = ["EpisodeJobs"]

# one logger for every part of the job runner, by the name its records have always had
log = logging.getLogger("castdeck.sandbox.jobs")


class EpisodeJobs(JobBase):
    """The runner's episode jobs."""

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


def _title_from(lines: list[tuple[int, str]]) -> str:
    words = " ".join(text for _, text in lines[:1]).split()[:8]
    return (" ".join(words).rstrip(".,;:!?") or "Untitled episode")[:120]
