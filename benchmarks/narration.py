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


def measure_episode(minutes: int = 7, *, render: bool = False, speed: float = 1.0) -> dict[str, float]:
    """Wall time of a prompt-mode episode on a real sandbox at ``--speed``, polled as the service asks.

    The baseline beside it is the simulated floor at that speed (writing 6 s + narration 14 s,
    + 8 s when rendering, divided by the speed): the excess is what real work adds.
    """
    import subprocess
    import sys

    import httpx

    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "castdeck.sandbox", "--port", "0", "--data", tmp, "--speed", str(speed),
                   "--no-seed-media"]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None
            base_url = process.stdout.readline().strip().removeprefix("listening on ")
            headers = {"Authorization": "Bearer sk_sandbox_demo"}
            with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
                podcast = client.get("/v1/podcasts").json()["data"][0]["id"]
                body = {
                    "podcast_id": podcast,
                    "prompt": "A conversation about how tides work and whether tidal power can pay the bills.",
                    "options": {"episode_length_minutes": minutes},
                    "render": render,
                }
                started = time.monotonic()
                accepted = client.post("/v1/episodes/generate", json=body)
                accepted.raise_for_status()
                wait = float(accepted.headers["retry-after"])
                while True:
                    time.sleep(wait)
                    answer = client.get(accepted.headers["location"])
                    generation = answer.json()["data"]["generation"]
                    if generation["state"] != "generating":
                        break
                    wait = float(answer.headers.get("retry-after", "1"))
                elapsed = time.monotonic() - started
                assert generation["state"] == "completed", generation
                duration = float(answer.json()["data"]["duration"])
        finally:
            process.terminate()
            process.wait(timeout=15)
    floor = (6 + 14 + (8 if render else 0)) / speed
    return {"wall_seconds": elapsed, "floor_seconds": floor, "audio_seconds": duration}


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
    print()
    print("7-minute prompt-mode episode on a sandbox at --speed 1 (request to completed, polling as hinted):")
    print(f"{'render':<8} {'wall s':>8} {'floor s':>8} {'wall / floor':>13} {'audio s':>8}")
    for render in (False, True):
        result = measure_episode(7, render=render)
        ratio = result["wall_seconds"] / result["floor_seconds"]
        print(
            f"{str(render).lower():<8} {result['wall_seconds']:>8.1f} {result['floor_seconds']:>8.1f}"
            f" {ratio:>13.2f} {result['audio_seconds']:>8.1f}"
        )


if __name__ == "__main__":
    main()
