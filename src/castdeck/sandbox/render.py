"""Real media from narration: the worker entry points for episodes and media, and cover art.

``render_episode`` and ``render_media`` turn a spec (plain data) into files and run in a spawned
worker process; ``render_cover`` draws generative cover art. They are built from the parts in
``render_audio`` (narration, MP3), ``render_drawing`` (fonts, text, slide frames) and
``render_mp4`` (slide videos). Everything here is a pure function of its arguments (the only
global state is the eSpeak engine in ``speech``).
"""

from __future__ import annotations

import colorsys
import random
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from castdeck.sandbox.speech import VoiceSpec

from .render_audio import Narration, TimedWord, Turn, as_written, encode_mp3, narrate, partial_path
from .render_drawing import RGB, Slide, gradient, line_height, load_font, wrap
from .render_mp4 import render_video

# Narration, Slide, Turn, as_written, encode_mp3, narrate and render_video are re-exported: the
# tests and benchmarks import them from here.
__all__ = [
    "Narration",
    "Slide",
    "SynthesisFailed",
    "Turn",
    "as_written",
    "encode_mp3",
    "narrate",
    "render_cover",
    "render_episode",
    "render_media",
    "render_video",
]


class SynthesisFailed(RuntimeError):
    """Synthesis stopped part way; ``seconds_synthesized`` of audio had been produced (and can be billed)."""

    def __init__(self, message: str, seconds_synthesized: float = 0.0) -> None:
        super().__init__(message, seconds_synthesized)  # both in args: survives pickling between processes
        self.message = message
        self.seconds_synthesized = seconds_synthesized

    def __str__(self) -> str:
        return self.message


# --- cover art --------------------------------------------------------------------------------------------


def render_cover(
    path: Path,
    title: str,
    subtitle: str,
    *,
    seed: int,
    size: tuple[int, int] = (1400, 1400),
    fmt: str = "JPEG",
) -> None:
    """Generative cover art (gradient, translucent shapes, title and subtitle), deterministic in ``seed``."""
    rng = random.Random(seed)
    w, h = size
    unit = min(w, h)
    hue = rng.random()

    def rgb(hh: float, light: float, sat: float) -> RGB:
        r, g, b = colorsys.hls_to_rgb(hh % 1.0, light, sat)
        return (round(r * 255), round(g * 255), round(b * 255))

    img = gradient(size, rgb(hue, 0.32, 0.55), rgb(hue + 0.12, 0.10, 0.45)).convert("RGBA")
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for _ in range(rng.randint(6, 12)):
        r = rng.uniform(0.08, 0.45) * unit
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        color = (*rgb(hue + rng.uniform(-0.2, 0.45), rng.uniform(0.35, 0.7), 0.7), rng.randint(40, 110))
        if rng.random() < 0.6:
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=color)
        else:
            draw.rectangle((cx - r, cy - r * 0.6, cx + r, cy + r * 0.6), fill=color)
    for _ in range(rng.randint(2, 5)):  # a few bold stripes
        y = rng.uniform(0, h)
        draw.line(
            (0, y, w, y + rng.uniform(-0.3, 0.3) * h), fill=(255, 255, 255, 50), width=max(2, unit // 80)
        )
    img = Image.alpha_composite(img, layer)
    # Darken the lower part for legible text.
    shade = np.zeros((h, 1, 4), np.uint8)
    shade[:, 0, 3] = (np.clip(np.linspace(-0.6, 1.0, h), 0, 1) * 190).astype(np.uint8)
    img = Image.alpha_composite(img, Image.fromarray(np.repeat(shade, w, axis=1), "RGBA"))

    draw2 = ImageDraw.Draw(img)
    margin = int(unit * 0.07)
    title_font = load_font(int(unit * 0.095), bold=True)
    sub_font = load_font(int(unit * 0.045))
    title_lines = wrap(title, title_font, w - 2 * margin, 3)
    sub_lines = wrap(subtitle, sub_font, w - 2 * margin, 2)
    tl, sl = line_height(title_font), line_height(sub_font)
    y = h - margin - tl * len(title_lines) - (sl * len(sub_lines) + margin // 3 if sub_lines else 0)
    for line in title_lines:
        draw2.text((margin, y), line, font=title_font, fill=(255, 255, 255, 255))
        y += tl
    y += margin // 3
    for line in sub_lines:
        draw2.text((margin, y), line, font=sub_font, fill=(230, 230, 235, 255))
        y += sl
    out = img.convert("RGB")
    fmt = fmt.upper()
    path = Path(path)
    tmp = partial_path(path)
    try:
        if fmt in ("JPEG", "JPG"):
            out.save(tmp, "JPEG", quality=88, optimize=True)
        elif fmt == "WEBP":
            out.save(tmp, "WEBP", quality=85)
        else:
            out.save(tmp, fmt)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


# --- worker entry points ----------------------------------------------------------------------------------

_VOICE_FIELDS = tuple(f.name for f in fields(VoiceSpec))


def _turns_from_spec(raw: Sequence[dict[str, Any]]) -> list[Turn]:
    turns = []
    for item in raw:
        voice = item["voice"]
        spec = (
            voice
            if isinstance(voice, VoiceSpec)
            else VoiceSpec(**{k: voice[k] for k in _VOICE_FIELDS if k in voice})
        )
        turns.append(Turn(int(item["speaker"]), str(item["text"]), spec))
    return turns


def _first_third(turns: list[Turn]) -> list[Turn]:
    """The turns covering about the first third of the text (the last one cut at a word boundary)."""
    budget = max(1, sum(len(t.text) for t in turns) // 3)
    out: list[Turn] = []
    for turn in turns:
        if budget <= 0:
            break
        if len(turn.text) <= budget:
            out.append(turn)
        else:
            cut = turn.text.rfind(" ", 0, budget)
            text = turn.text[: cut if cut > 0 else budget]
            out.append(Turn(turn.speaker, text, turn.voice))
        budget -= len(turn.text)
    return out


def _fail_after_a_third(turns: list[Turn], what: str) -> None:
    partial = narrate(_first_third(turns))
    raise SynthesisFailed(
        f"{what} failed after synthesizing {partial.duration:.1f} s of audio (simulated engine fault)",
        partial.duration,
    )


def _excerpt(text: str, limit: int = 260) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + "…"


def _episode_slides(title: str, turns: list[Turn], narration: Narration, target: float = 30.0) -> list[Slide]:
    """One slide per group of consecutive turns lasting about ``target`` seconds."""
    slides: list[Slide] = []
    starts = narration.turn_starts
    group_start = 0
    for i in range(len(turns) + 1):
        end_time = starts[i] if i < len(starts) else narration.duration
        if i == len(turns) or (i > group_start and end_time - starts[group_start] >= target):
            if group_start < len(turns):
                first = turns[group_start]
                slides.append(
                    Slide(
                        start=starts[group_start] if slides else 0.0,
                        title=title,
                        body=f"Speaker {first.speaker + 1}: {_excerpt(first.text)}",
                    )
                )
            group_start = i
    return slides or [Slide(0.0, title, "")]


def _words_out(words: Sequence[TimedWord]) -> list[list[Any]]:
    return [[round(w.start, 3), round(w.end, 3), w.text, w.speaker] for w in words]


def render_episode(spec: dict[str, Any]) -> dict[str, Any]:
    """Narrate an episode to MP3 (and optionally an MP4 slideshow); see the module docs for ``spec``.

    spec: {"turns": [{"speaker", "text", "voice": {VoiceSpec fields}}], "audio_path": str,
           "video_path": str | None, "title": str, "fail": bool, optional "size": [w, h], "captions": bool}
    returns {"duration", "words": [[start, end, text, speaker], ...], "audio_path", "video_path"}
    Raises SynthesisFailed (with ``seconds_synthesized``) after a third of the work when ``fail``.
    """
    turns = _turns_from_spec(spec.get("turns", []))
    if spec.get("fail"):
        _fail_after_a_third(turns, "episode synthesis")
    narration = narrate(turns)
    audio_path = str(spec["audio_path"])
    encode_mp3(narration, Path(audio_path))
    video_path = spec.get("video_path")
    if video_path:
        size = spec.get("size") or (640, 360)
        render_video(
            Path(video_path),
            narration,
            _episode_slides(str(spec.get("title", "")), turns, narration),
            size=(int(size[0]), int(size[1])),
            captions=bool(spec.get("captions", False)),
        )
    return {
        "duration": narration.duration,
        "words": _words_out(narration.words),
        "audio_path": audio_path,
        "video_path": str(video_path) if video_path else None,
    }


def render_media(spec: dict[str, Any]) -> dict[str, Any]:
    """Narrate turns over slides into an MP4 (video, short or voiceover jobs).

    spec: {"turns": [...], "slides": [{"start": float | None, "title", "body", "image": str | None}],
           "video_path": str, "size": [w, h], "captions": bool, "motion": "static"|"dynamic"|"auto",
           "fail": bool, optional "fps": int, "title": str}
    Slides whose start is None are spread evenly over the narration.
    returns {"duration", "video_path", "words": [[start, end, text, speaker], ...]}
    """
    turns = _turns_from_spec(spec.get("turns", []))
    if spec.get("fail"):
        _fail_after_a_third(turns, "media synthesis")
    narration = narrate(turns)
    raw_slides = list(spec.get("slides") or [])
    n = len(raw_slides)
    slides = []
    for i, raw in enumerate(raw_slides):
        start = raw.get("start")
        image = raw.get("image")
        slides.append(
            Slide(
                start=float(start) if start is not None else narration.duration * i / n,
                title=str(raw.get("title", "")),
                body=str(raw.get("body", "")),
                image=Path(image) if image else None,
            )
        )
    if not slides:
        body = _excerpt(turns[0].text) if turns else ""
        slides = [Slide(0.0, str(spec.get("title", "")), body)]
    size = spec.get("size") or (640, 360)
    video_path = str(spec["video_path"])
    render_video(
        Path(video_path),
        narration,
        slides,
        size=(int(size[0]), int(size[1])),
        fps=int(spec.get("fps", 2)),
        captions=bool(spec.get("captions", False)),
        motion=str(spec.get("motion", "static")),
    )
    return {"duration": narration.duration, "video_path": video_path, "words": _words_out(narration.words)}
