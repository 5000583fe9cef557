"""Video, Short and Voiceover jobs: write the narration, lay out the slides, render the MP4.

A prompt-mode video is written by the script writer (a slide per chapter; a voiceover's slides
are its attached visuals), a script-mode one speaks its parsed segments. Sources still being
processed are waited for, within limits. The MP4 is rendered in a worker; the record carries
the phase and percentage meanwhile.
"""

from __future__ import annotations

from typing import Any

from castdeck.api.models import CREDITS_PER_NARRATION_MINUTE

from . import importer, render, writer
from .clock import CLOCK
from .config import FAIL_PHRASE
from .db import Record
from .jobs_base import JobBase
from .routes.media import credits_for, estimate
from .writer_model import Speaker
from .writer_text import clean_spoken_text

__all__ = ["MEDIA_COLLECTIONS", "SIZES", "MediaJobs"]

SIZES = {"LANDSCAPE": (640, 360), "PORTRAIT": (360, 640), "SQUARE": (480, 480)}
MEDIA_COLLECTIONS = {"video": "videos", "short": "shorts", "voiceover": "voiceovers"}


class MediaJobs(JobBase):
    """The runner's video, short and voiceover jobs."""

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


def _excerpt(text: str, limit: int = 240) -> str:
    """At most ``limit`` characters for a slide, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    return text[: cut if cut > 0 else limit - 1].rstrip(",;:") + "…"
