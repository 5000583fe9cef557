"""MP4 slide videos: caption lines, the frame timeline, and H.264 + AAC encoding.

``render_video`` shows slides over a narration as long as the narration, with an optional slow
zoom and captions grouped from the narration's word times. It samples the timeline on the
frame grid but encodes a frame only when the picture changes (a variable-frame-rate MP4).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .render_audio import Narration, TimedWord, audio_frames, partial_path
from .render_drawing import Slide, SlideRenderer, palette

if TYPE_CHECKING:
    import av

# PyAV (``av``) is imported inside the functions that encode, never at module level: it bundles its own
# FFmpeg, which must not be loaded next to QtMultimedia's in one process (the test process imports this
# module; the sandbox renders media in child processes).

__all__ = ["render_video"]


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
    renderer = SlideRenderer((w, h), ordered, captions)
    caption_lines = _captions(narration.words, renderer.caption_chars()) if captions else []
    ctx = _Timeline(starts, duration, [(c.start, c.end) for c in caption_lines], motion == "dynamic")

    path = Path(path)
    tmp = partial_path(path)
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

            audio = audio_frames(samples, rate, "fltp")
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
                    accent = palette(key.slide, ordered[key.slide].title)[2]
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
