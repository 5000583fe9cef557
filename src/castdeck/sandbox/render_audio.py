"""Narration and audio for the sandbox's renders: turns spoken one after another, MP3 encoding.

``narrate`` speaks a list of turns on one timeline with word times (each word as written, with
its punctuation: ``as_written``); ``encode_mp3`` writes a narration, a speech or raw samples as
MP3. ``audio_frames`` and ``partial_path`` are shared with the video and cover renders. Pure
functions of their arguments (the only global state is the eSpeak engine in ``speech``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from castdeck.sandbox.speech import Int16Array, Speech, VoiceSpec, synthesize

if TYPE_CHECKING:
    import av

# PyAV (``av``) is imported inside the functions that encode, never at module level: it bundles its own
# FFmpeg, which must not be loaded next to QtMultimedia's in one process (the test process imports this
# module; the sandbox renders media in child processes).

__all__ = [
    "AudioSource",
    "Narration",
    "TimedWord",
    "Turn",
    "as_written",
    "audio_frames",
    "encode_mp3",
    "narrate",
    "partial_path",
]


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


def audio_frames(
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


def partial_path(path: Path) -> Path:
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
    tmp = partial_path(path)
    try:
        with av.open(str(tmp), "w", format="mp3") as container:
            stream = container.add_stream("libmp3lame", rate=rate)
            stream.layout = "mono"
            stream.format = "s16p"
            stream.bit_rate = bitrate
            stream.options = {"compression_level": "7"}  # LAME -q 7: fast, transparent enough for speech
            for frame in audio_frames(samples, rate, "s16p"):
                container.mux(stream.encode(frame))
            container.mux(stream.encode(None))
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


# --- word timings -----------------------------------------------------------------------------------------

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
