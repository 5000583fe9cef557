"""Real media from narration: speech concatenation, MP3 audio, MP4 slide videos and cover art.

Everything here is a pure function of its arguments (the only global state is the eSpeak engine in
``speech``), so ``render_episode`` and ``render_media`` can run in a spawned worker process.
"""

from __future__ import annotations

import bisect
import colorsys
import functools
import hashlib
import math
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps

from castdeck.sandbox.speech import Int16Array, Speech, VoiceSpec, synthesize

if TYPE_CHECKING:
    import av

# PyAV (``av``) is imported inside the functions that encode, never at module level: it bundles its own
# FFmpeg, which must not be loaded next to QtMultimedia's in one process (the test process imports this
# module; the sandbox renders media in child processes).

__all__ = [
    "Narration",
    "Slide",
    "SynthesisFailed",
    "TimedWord",
    "Turn",
    "encode_mp3",
    "narrate",
    "render_cover",
    "render_episode",
    "render_media",
    "render_video",
]

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
RGB = tuple[int, int, int]


class SynthesisFailed(RuntimeError):
    """Synthesis stopped part way; ``seconds_synthesized`` of audio had been produced (and can be billed)."""

    def __init__(self, message: str, seconds_synthesized: float = 0.0) -> None:
        super().__init__(message, seconds_synthesized)  # both in args: survives pickling between processes
        self.message = message
        self.seconds_synthesized = seconds_synthesized

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Turn:
    speaker: int  # index into the episode's speakers
    text: str
    voice: VoiceSpec


@dataclass(frozen=True)
class TimedWord:
    start: float
    end: float
    text: str
    speaker: int | None


@dataclass
class Narration:
    samples: Int16Array  # int16 mono
    sample_rate: int
    words: list[TimedWord] = field(default_factory=list)
    turn_starts: list[float] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate if self.sample_rate else 0.0


@dataclass(frozen=True)
class Slide:
    start: float  # seconds
    title: str
    body: str
    image: Path | None = None  # a user-supplied picture (png/jpeg/webp) shown with the text


# --- narration --------------------------------------------------------------------------------------------

_DEFAULT_RATE = 22050


def narrate(
    turns: list[Turn], *, pause: float = 0.35, progress: Callable[[float], None] | None = None
) -> Narration:
    """Speak the turns one after another, ``pause`` seconds apart, with word times on one timeline."""
    total_chars = sum(len(t.text) for t in turns) or 1
    done_chars = 0
    pieces: list[Int16Array] = []
    words: list[TimedWord] = []
    turn_starts: list[float] = []
    sample_rate = 0
    offset = 0  # samples
    for index, turn in enumerate(turns):
        speech = synthesize(turn.text, turn.voice)
        if sample_rate == 0:
            sample_rate = speech.sample_rate
        elif speech.sample_rate != sample_rate:  # eSpeak has one rate per process; guard anyway
            speech = _resample(speech, sample_rate)
        if index > 0 and pause > 0:
            gap = np.zeros(round(pause * sample_rate), dtype=np.int16)
            pieces.append(gap)
            offset += len(gap)
        shift = offset / sample_rate
        turn_starts.append(shift)
        words.extend(
            TimedWord(
                w.start + shift, w.end + shift, as_written(turn.text, w.char_start, w.char_end), turn.speaker
            )
            for w in speech.words
        )
        pieces.append(speech.samples)
        offset += len(speech.samples)
        done_chars += len(turn.text)
        if progress is not None:
            progress(min(1.0, done_chars / total_chars))
    samples = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int16)
    return Narration(samples.astype(np.int16, copy=False), sample_rate or _DEFAULT_RATE, words, turn_starts)


def _resample(speech: Speech, rate: int) -> Speech:
    n = round(len(speech.samples) * rate / speech.sample_rate)
    x = np.linspace(0, len(speech.samples) - 1, n) if n else np.zeros(0)
    samples = np.interp(x, np.arange(len(speech.samples)), speech.samples).astype(np.int16)
    return Speech(samples, rate, speech.words)


# --- audio encoding ---------------------------------------------------------------------------------------

AudioSource = Narration | Speech | Int16Array


def _samples_of(source: AudioSource, sample_rate: int | None) -> tuple[Int16Array, int]:
    if isinstance(source, Narration | Speech):
        return source.samples, source.sample_rate
    if sample_rate is None:
        raise ValueError("sample_rate is required with raw samples")
    return np.asarray(source, dtype=np.int16).reshape(-1), sample_rate


def _audio_frames(
    samples: Int16Array, sample_rate: int, fmt: str, chunk: float = 1.0
) -> Iterator[av.AudioFrame]:
    import av

    step = max(1, int(sample_rate * chunk))
    for start in range(0, len(samples), step):
        part = samples[start : start + step]
        data: np.ndarray[Any, Any] = (
            (part.astype(np.float32) / 32768.0).reshape(1, -1) if fmt == "fltp" else part.reshape(1, -1)
        )
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(data), format=fmt, layout="mono")
        frame.sample_rate = sample_rate
        frame.pts = start
        frame.time_base = Fraction(1, sample_rate)
        yield frame


def _partial_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.part")


def encode_mp3(
    source: AudioSource, path: Path, *, sample_rate: int | None = None, bitrate: int = 64_000
) -> None:
    """Write mono MP3 (libmp3lame, CBR ``bitrate``) of a Narration, a Speech or int16 samples.

    The file appears atomically at ``path`` once complete.
    """
    import av

    samples, rate = _samples_of(source, sample_rate)
    if len(samples) == 0:
        samples = np.zeros(rate // 10, dtype=np.int16)  # an empty MP3 is not a valid file: 0.1 s of silence
    path = Path(path)
    tmp = _partial_path(path)
    try:
        with av.open(str(tmp), "w", format="mp3") as container:
            stream = container.add_stream("libmp3lame", rate=rate)
            stream.layout = "mono"
            stream.format = "s16p"
            stream.bit_rate = bitrate
            stream.options = {"compression_level": "7"}  # LAME -q 7: fast, transparent enough for speech
            for frame in _audio_frames(samples, rate, "s16p"):
                container.mux(stream.encode(frame))
            container.mux(stream.encode(None))
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


# --- fonts, text and pictures -----------------------------------------------------------------------------

_FONT_CANDIDATES = {
    False: (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/System/Library/Fonts/Supplemental/Arial.ttf",
        "/Library/Fonts/Arial.ttf",
        "C:\\Windows\\Fonts\\arial.ttf",
    ),
    True: (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
        "/System/Library/Fonts/Supplemental/Arial Bold.ttf",
        "/Library/Fonts/Arial Bold.ttf",
        "C:\\Windows\\Fonts\\arialbd.ttf",
    ),
}


@functools.lru_cache(maxsize=64)
def _font(size: int, bold: bool = False) -> Font:
    size = max(6, size)
    for candidate in _FONT_CANDIDATES[bold]:
        if os.path.exists(candidate):
            try:
                return ImageFont.truetype(candidate, size)
            except OSError:
                continue
    return ImageFont.load_default(size)


def _text_width(font: Font, text: str) -> float:
    return float(font.getlength(text))


def _wrap(text: str, font: Font, width: float, max_lines: int) -> list[str]:
    """Greedy word wrap to ``width`` pixels; the last line gets an ellipsis when text is left over."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        words = paragraph.split()
        line = ""
        for word in words:
            candidate = f"{line} {word}" if line else word
            if _text_width(font, candidate) <= width or not line:
                line = candidate
                while _text_width(font, line) > width and len(line) > 1:  # a single over-long word
                    lo, hi = 1, len(line) - 1  # the longest prefix that fits (at least one character)
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        if _text_width(font, line[:mid]) <= width:
                            lo = mid
                        else:
                            hi = mid - 1
                    lines.append(line[:lo])
                    line = line[lo:]
            else:
                lines.append(line)
                line = word
        lines.append(line)
    lines = [ln for ln in lines if ln.strip()] or []
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and _text_width(font, last + "…") > width:
            last = last[:-1]
        lines[-1] = last.rstrip() + "…"
    return lines


def _line_height(font: Font) -> int:
    box = font.getbbox("Ág")
    return int((box[3] - box[1]) * 1.3) + 1


def _palette(index: int, seed: str = "") -> tuple[RGB, RGB, RGB]:
    """Two background colours and an accent for slide ``index`` (deterministic)."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    hue = (digest[0] / 255.0 + index * 0.13) % 1.0

    def rgb(h: float, light: float, sat: float) -> RGB:
        r, g, b = colorsys.hls_to_rgb(h % 1.0, light, sat)
        return (round(r * 255), round(g * 255), round(b * 255))

    return rgb(hue, 0.20, 0.45), rgb(hue + 0.08, 0.09, 0.40), rgb(hue + 0.5, 0.62, 0.80)


def _gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    w, h = size
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    column = (np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t).astype(np.uint8)
    return Image.fromarray(np.ascontiguousarray(np.broadcast_to(column[:, None, :], (h, w, 3))), "RGB")


def _load_picture(path: Path | None) -> Image.Image | None:
    if path is None:
        return None
    try:
        with Image.open(path) as im:
            im.draft("RGB", (2048, 2048))  # JPEG: decode at a reduced scale when large
            return ImageOps.exif_transpose(im).convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


# --- video ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Caption:
    start: float
    end: float
    text: str


def _captions(words: Sequence[TimedWord], max_chars: int) -> list[_Caption]:
    """Group words into caption lines: a line breaks at ``max_chars``, a speaker change or a long gap."""
    out: list[_Caption] = []
    line: list[TimedWord] = []

    def flush() -> None:
        if line:
            out.append(_Caption(line[0].start, line[-1].end, " ".join(w.text for w in line)))
            line.clear()

    for word in words:
        if line and (
            len(" ".join(w.text for w in line)) + 1 + len(word.text) > max_chars
            or word.speaker != line[-1].speaker
            or word.start - line[-1].end > 0.8
        ):
            flush()
        line.append(word)
    flush()
    return out


class _SlideRenderer:
    """Draws slide backgrounds once, then per-frame overlays (progress bar, captions)."""

    def __init__(self, size: tuple[int, int], slides: Sequence[Slide], captions: bool) -> None:
        self.size = size
        self.slides = slides
        self.captions = captions
        w, h = size
        self.unit = min(w, h)
        self.bar_h = max(3, h // 90)
        self.caption_h = int(self.unit * 0.16) if captions else 0
        self.caption_font = _font(int(self.unit * 0.06), bold=True)
        self._bases: dict[int, Image.Image] = {}

    def caption_chars(self) -> int:
        """About how many characters fit on one caption line."""
        sample = "the quick brown fox jumps over a lazy dog "
        per_char = _text_width(self.caption_font, sample) / len(sample)
        return max(8, int(self.size[0] * 0.86 / max(1.0, per_char)))

    def base(self, index: int) -> Image.Image:
        img = self._bases.get(index)
        if img is None:
            img = self._draw_slide(index)
            self._bases[index] = img
        return img

    def _draw_slide(self, index: int) -> Image.Image:
        w, h = self.size
        slide = self.slides[index] if self.slides else Slide(0.0, "", "")
        top, bottom, accent = _palette(index, slide.title)
        img = _gradient(self.size, top, bottom)
        draw = ImageDraw.Draw(img)
        margin = int(self.unit * 0.07)
        bottom_limit = h - self.bar_h - self.caption_h - margin // 2
        title_font = _font(int(self.unit * 0.085), bold=True)
        body_font = _font(int(self.unit * 0.052))
        picture = _load_picture(slide.image)
        landscape = w >= h

        text_w = w - 2 * margin
        if picture is not None and landscape:
            text_w = int((w - 3 * margin) * 0.5)
        # Title (up to two lines) with an accent rule under it.
        y = margin
        title_lines = _wrap(slide.title, title_font, w - 2 * margin, 2)
        th = _line_height(title_font)
        for line in title_lines:
            draw.text((margin, y), line, font=title_font, fill=(255, 255, 255))
            y += th
        if title_lines:
            y += int(self.unit * 0.015)
            draw.rectangle((margin, y, margin + int(self.unit * 0.12), y + max(2, h // 120)), fill=accent)
            y += int(self.unit * 0.05)

        if picture is not None:
            if landscape:
                box = (margin * 2 + text_w, y, w - margin, bottom_limit)
            else:
                box = (margin, y, w - margin, y + int((bottom_limit - y) * 0.5))
            bw, bh = box[2] - box[0], box[3] - box[1]
            if bw > 8 and bh > 8:
                fitted = ImageOps.contain(picture, (bw, bh), Image.Resampling.BILINEAR)
                px = box[0] + (bw - fitted.width) // 2
                py = box[1] + (bh - fitted.height) // 2
                img.paste(fitted, (px, py))
                if not landscape:
                    y = box[3] + int(self.unit * 0.04)

        bh_line = _line_height(body_font)
        max_lines = max(0, (bottom_limit - y) // bh_line)
        for line in _wrap(slide.body, body_font, text_w, max_lines) if max_lines else []:
            draw.text((margin, y), line, font=body_font, fill=(232, 232, 240))
            y += bh_line
        return img

    def zoomed(self, index: int, zoom: float) -> Image.Image:
        base = self.base(index)
        if zoom <= 1.0005:
            return base
        w, h = self.size
        cw, ch = w / zoom, h / zoom
        x0, y0 = (w - cw) / 2, (h - ch) / 2
        return base.resize(self.size, Image.Resampling.BILINEAR, box=(x0, y0, x0 + cw, y0 + ch))

    def overlay(self, img: Image.Image, progress_px: int, caption: str | None, accent: RGB) -> Image.Image:
        w, h = self.size
        out = img.copy()
        draw = ImageDraw.Draw(out)
        draw.rectangle((0, h - self.bar_h, w, h), fill=(20, 20, 26))
        if progress_px > 0:
            draw.rectangle((0, h - self.bar_h, progress_px, h), fill=accent)
        if caption:
            font = self.caption_font
            lines = _wrap(caption, font, w * 0.9, 2)
            lh = _line_height(font)
            top = h - self.bar_h - self.caption_h
            box_top = top + (self.caption_h - lh * len(lines)) // 2 - 4
            widest = max((_text_width(font, ln) for ln in lines), default=0.0)
            pad = int(self.unit * 0.02)
            draw.rectangle(
                ((w - widest) / 2 - pad, box_top, (w + widest) / 2 + pad, box_top + lh * len(lines) + 8),
                fill=(0, 0, 0),
            )
            for i, line in enumerate(lines):
                x = (w - _text_width(font, line)) / 2
                draw.text((x, box_top + 4 + i * lh), line, font=font, fill=(255, 236, 120))
        return out


_MOTIONS = ("static", "dynamic", "auto")
_MAX_HOLD = 3.0  # seconds a frame may stay on screen before it is repeated (keeps seeking responsive)
_PROGRESS_STEPS = 160  # the progress bar moves in this many steps over the whole video
_ZOOM = 0.08  # "dynamic" motion zooms each slide in by this fraction over its time on screen
_CAPTION_HOLD = 0.6  # seconds a caption line stays up after its last word


@dataclass(frozen=True)
class _Timeline:
    slide_starts: list[float]
    duration: float
    captions: list[tuple[float, float]]
    zoom: bool

    @functools.cached_property
    def caption_starts(self) -> list[float]:
        return [start for start, _ in self.captions]


@dataclass(frozen=True)
class _FrameKey:
    """Everything a frame's picture depends on: equal keys, identical pictures."""

    slide: int
    progress_step: int
    caption: int  # index into the caption lines, -1 for none
    zoom_step: int  # 0..1000

    @classmethod
    def at(cls, t: float, tl: _Timeline) -> _FrameKey:
        starts = tl.slide_starts
        index = max(0, bisect.bisect_right(starts, t) - 1)
        progress = int(_PROGRESS_STEPS * min(1.0, t / tl.duration)) if tl.duration > 0 else 0
        caption = -1
        if tl.captions:
            c = bisect.bisect_right(tl.caption_starts, t) - 1
            if c >= 0 and t <= tl.captions[c][1] + _CAPTION_HOLD:
                caption = c
        zoom_step = 0
        if tl.zoom:
            seg_end = starts[index + 1] if index + 1 < len(starts) else tl.duration
            span = max(1.0, seg_end - starts[index])
            zoom_step = round(1000 * min(1.0, max(0.0, (t - starts[index]) / span)))
        return cls(index, progress, caption, zoom_step)


def render_video(
    path: Path,
    narration: Narration,
    slides: list[Slide],
    *,
    size: tuple[int, int] = (640, 360),
    fps: int = 2,
    captions: bool = False,
    motion: str = "static",
) -> None:
    """Write an MP4 (H.264 yuv420p + AAC) of ``slides`` over ``narration``, as long as the narration.

    Each slide shows from its ``start`` until the next one's. ``motion="dynamic"`` slowly zooms into each
    slide; ``"auto"`` zooms when a slide has a picture. The file appears atomically at ``path``.
    """
    import av

    if motion not in _MOTIONS:
        raise ValueError(f"unknown motion {motion!r}")
    if motion == "auto":
        motion = "dynamic" if any(s.image is not None for s in slides) else "static"
    w, h = (int(size[0]) // 2 * 2, int(size[1]) // 2 * 2)  # yuv420p needs even dimensions
    if w < 16 or h < 16:
        raise ValueError(f"video size too small: {size}")
    fps = max(1, int(fps))
    ordered = sorted(slides, key=lambda s: s.start) or [Slide(0.0, "", "")]
    starts = [s.start for s in ordered]
    duration = narration.duration
    rate = narration.sample_rate
    samples = narration.samples
    if len(samples) == 0:  # a video needs some length: one frame of silence
        samples = np.zeros(max(1, rate // fps), dtype=np.int16)
        duration = len(samples) / rate
    duration_ms = max(1, round(duration * 1000))
    n_frames = max(1, math.ceil(duration * fps - 1e-9))
    renderer = _SlideRenderer((w, h), ordered, captions)
    caption_lines = _captions(narration.words, renderer.caption_chars()) if captions else []
    ctx = _Timeline(starts, duration, [(c.start, c.end) for c in caption_lines], motion == "dynamic")

    path = Path(path)
    tmp = _partial_path(path)
    try:
        with av.open(str(tmp), "w", format="mp4") as container:
            vstream = container.add_stream("libx264", rate=fps)
            vstream.width, vstream.height = w, h
            vstream.pix_fmt = "yuv420p"
            vstream.time_base = Fraction(1, 1000)
            vstream.codec_context.time_base = Fraction(1, 1000)
            vstream.options = {"preset": "fast", "crf": "26", "tune": "stillimage", "g": "10"}
            vstream.codec_context.thread_count = 1
            astream = container.add_stream("aac", rate=rate)
            astream.layout = "mono"
            astream.bit_rate = 64_000
            astream.options = {"aac_coder": "fast"}  # the default two-loop search costs ~10x the CPU

            audio = _audio_frames(samples, rate, "fltp")
            audio_done = 0.0  # seconds of audio sent to the encoder
            # Sample the timeline on the 1/fps grid but only encode a frame when the picture changes
            # (or every _MAX_HOLD seconds): a variable-frame-rate MP4, far cheaper than repeating frames.
            ticks = [_FrameKey.at(i / fps, ctx) for i in range(n_frames)]
            hold_ticks = max(1, round(_MAX_HOLD * fps))
            emitted: list[tuple[int, _FrameKey]] = []  # (pts in ms, key)
            last_tick = -hold_ticks
            for i, key in enumerate(ticks):
                if not emitted or key != emitted[-1][1] or i - last_tick >= hold_ticks:
                    emitted.append((min(duration_ms - 1, round(i * 1000 / fps)), key))
                    last_tick = i
            durations = {
                pts: (emitted[j + 1][0] if j + 1 < len(emitted) else duration_ms) - pts
                for j, (pts, _) in enumerate(emitted)
            }

            def mux_video(packets: list[av.Packet[Any]]) -> None:
                for packet in packets:
                    if packet.pts is not None and packet.pts in durations:
                        packet.duration = max(1, durations[packet.pts])
                container.mux(packets)

            last_key: _FrameKey | None = None
            last_frame: av.VideoFrame | None = None
            for pts, key in emitted:
                t = pts / 1000
                while audio_done < t + 1.0:
                    aframe = next(audio, None)
                    if aframe is None:
                        audio_done = math.inf
                        break
                    container.mux(astream.encode(aframe))
                    audio_done = (aframe.pts or 0) / rate + aframe.samples / rate
                if key != last_key or last_frame is None:
                    picture = renderer.zoomed(key.slide, 1.0 + _ZOOM * key.zoom_step / 1000)
                    accent = _palette(key.slide, ordered[key.slide].title)[2]
                    caption = caption_lines[key.caption].text if key.caption >= 0 else None
                    progress_px = round(w * key.progress_step / _PROGRESS_STEPS)
                    image = renderer.overlay(picture, progress_px, caption, accent)
                    rgb = np.asarray(image, dtype=np.uint8)
                    last_frame = av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")
                    last_key = key
                last_frame.pts = pts
                last_frame.time_base = Fraction(1, 1000)
                mux_video(vstream.encode(last_frame))
            mux_video(vstream.encode(None))
            for aframe in audio:
                container.mux(astream.encode(aframe))
            container.mux(astream.encode(None))
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


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

    img = _gradient(size, rgb(hue, 0.32, 0.55), rgb(hue + 0.12, 0.10, 0.45)).convert("RGBA")
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
    title_font = _font(int(unit * 0.095), bold=True)
    sub_font = _font(int(unit * 0.045))
    title_lines = _wrap(title, title_font, w - 2 * margin, 3)
    sub_lines = _wrap(subtitle, sub_font, w - 2 * margin, 2)
    tl, sl = _line_height(title_font), _line_height(sub_font)
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
    tmp = _partial_path(path)
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


_CLOSING = frozenset(".,;:!?…\"'”’»)]}")
_OPENING = frozenset("\"'“‘«([{¿¡")


def as_written(text: str, start: int, end: int) -> str:
    """The word at ``text[start:end]`` with the punctuation written against it, as speech services
    give word timings ("floodplains." then "With"): closing marks after it, opening ones before it.
    A hyphen or dash between two words stays out (each word is timed on its own)."""
    while end < len(text) and text[end] in _CLOSING:
        end += 1
    while start > 0 and text[start - 1] in _OPENING:
        start -= 1
    return text[start:end]


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
