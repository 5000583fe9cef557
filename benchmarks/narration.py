"""Narration benchmark: speed of real speech synthesis and of MP3 / MP4 encoding.

Run with ``uv run python benchmarks/narration.py``. Speeds are seconds of audio (or video) produced per
second of CPU time of this process (``time.process_time``), so they do not depend on machine load.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from castdeck.sandbox.render import Narration, Slide, Turn, encode_mp3, narrate, render_video
from castdeck.sandbox.speech import Speech, VoiceSpec, synthesize

VOICES = {
    "en-us+m3": VoiceSpec("en-US", "en-us", "m3"),
    "en-gb-x-rp+f2": VoiceSpec("en-GB", "en-gb-x-rp", "f2"),
    "en-us+klatt": VoiceSpec("en-US", "en-us", "klatt"),
}

PARAGRAPH = (
    "Radio did not begin as entertainment. For its first two decades it was a tool for ships, armies and "
    "a few thousand hobbyists who built their own receivers from crystals and coils of wire. Then, almost "
    "overnight, it became the centre of the living room. Families gathered to hear news, music and serial "
    "dramas, and advertisers learned that a voice in the home could sell soap better than any poster. "
    "Podcasts, a century later, rediscovered the same intimacy: a person speaking directly to you, "
    "whenever and wherever you choose to listen. "
)


def english_text(minutes: float = 2.0, words_per_minute: int = 165) -> str:
    """About ``minutes`` of English speech at ``words_per_minute``."""
    target = int(minutes * words_per_minute)
    words = PARAGRAPH.split()
    repeats = target // len(words) + 1
    return " ".join((PARAGRAPH * repeats).split()[:target]).rstrip(",;") + "."


@dataclass(frozen=True)
class Figure:
    name: str
    media_seconds: float
    cpu_seconds: float

    @property
    def speed(self) -> float:
        return self.media_seconds / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")


def measure_synthesis(text: str) -> tuple[list[Figure], dict[str, Speech]]:
    """Synthesis speed per voice (the first call also pays for engine initialisation; warm up first)."""
    synthesize("Warm up.", VoiceSpec("en-US", "en-us"))
    figures, speeches = [], {}
    for name, voice in VOICES.items():
        start = time.process_time()
        speech = synthesize(text, voice)
        figures.append(Figure(f"synthesize {name}", speech.duration, time.process_time() - start))
        speeches[name] = speech
    return figures, speeches


def measure_mp3(speech: Speech, directory: Path) -> Figure:
    start = time.process_time()
    encode_mp3(speech, directory / "bench.mp3")
    return Figure("encode MP3 64 kbit/s", speech.duration, time.process_time() - start)


def two_voice_narration(text: str) -> Narration:
    sentences = [s.strip() + "." for s in text.split(".") if s.strip()]
    voices = list(VOICES.values())[:2]
    return narrate([Turn(i % 2, s, voices[i % 2]) for i, s in enumerate(sentences)])


def measure_video(narration: Narration, directory: Path, *, captions: bool, motion: str) -> Figure:
    slides = [Slide(narration.duration * i / 6, f"Part {i + 1}", PARAGRAPH[: 120 + 20 * i]) for i in range(6)]
    start = time.process_time()
    render_video(directory / "bench.mp4", narration, slides, captions=captions, motion=motion)
    label = f"render MP4 640x360 {motion}{' +captions' if captions else ''}"
    return Figure(label, narration.duration, time.process_time() - start)


def print_table(figures: list[Figure]) -> None:
    print(f"{'task':<40} {'media s':>9} {'CPU s':>8} {'media s / CPU s':>16}")
    print("-" * 76)
    for f in figures:
        print(f"{f.name:<40} {f.media_seconds:>9.1f} {f.cpu_seconds:>8.3f} {f.speed:>16.1f}")


def main() -> None:
    text = english_text(2.0)
    figures, speeches = measure_synthesis(text)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        figures.append(measure_mp3(speeches["en-us+m3"], directory))
        narration = two_voice_narration(text)
        figures.append(measure_video(narration, directory, captions=False, motion="static"))
        figures.append(measure_video(narration, directory, captions=True, motion="dynamic"))
    print(f"text: {len(text.split())} words, {len(text)} characters")
    print_table(figures)


if __name__ == "__main__":
    main()
