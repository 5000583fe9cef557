"""Real speech synthesis: a small ctypes binding of the eSpeak NG library.

The library and its data come from the ``espeakng-loader`` wheel. eSpeak NG keeps global state, so every
call into it happens under one module-level lock, and the engine is initialised lazily, once per process
(which also makes the module safe to use from a freshly spawned worker process).

Word timings are the ones eSpeak reports: the ``audio_position`` of its word events. A word ends where the
next word starts, or where the audio of its sentence batch ends, in both cases trimmed of trailing silence.
"""

from __future__ import annotations

import ctypes
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Speech",
    "SpeechEngineError",
    "VoiceSpec",
    "Word",
    "available_variants",
    "available_voices",
    "synthesize",
]

Int16Array = npt.NDArray[np.int16]

# --- speak_lib.h constants ------------------------------------------------------------------------------
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_ENDPAUSE = 0x1000
_EE_OK = 0
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1
_EVENT_SENTENCE = 2
_EVENT_END = 5
_EVENT_MSG_TERMINATED = 6
_PARAM_RATE = 1
_PARAM_PITCH = 3
_PARAM_RANGE = 4

_RATE_MIN, _RATE_MAX = 80, 450

# Text is synthesised in batches of whole sentences of at most this many characters.
_BATCH_CHARS = 1500
# Samples at or below this amplitude count as silence when trimming word ends.
_SILENCE_LEVEL = 200
_TRIM_WINDOW = 0.005  # seconds
_MIN_WORD = 0.04  # seconds


class SpeechEngineError(RuntimeError):
    """The eSpeak NG library could not be loaded, initialised or driven."""


@dataclass(frozen=True)
class VoiceSpec:
    """A synthetic voice: an eSpeak voice (language) name, an optional variant and prosody settings."""

    language: str  # BCP 47-ish language tag shown to users, e.g. "en-US"
    espeak_voice: str  # eSpeak voice name, e.g. "en-us", "en-gb-x-rp", "fr-fr", "de", "es"
    variant: str | None = None  # a name in espeak-ng-data/voices/!v, e.g. "m3", "f2", "klatt"
    rate: int = 165  # words per minute (80..450)
    pitch: int = 50  # 0..100
    pitch_range: int = 50  # 0..100


@dataclass(frozen=True)
class Word:
    """A spoken word: times in seconds, offsets into the synthesised text (``text[char_start:char_end]``)."""

    start: float
    end: float
    text: str
    char_start: int
    char_end: int


@dataclass
class Speech:
    """Mono 16-bit audio with its word timings."""

    samples: Int16Array
    sample_rate: int
    words: list[Word] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate if self.sample_rate else 0.0


# --- the binding ------------------------------------------------------------------------------------------


class _EventId(ctypes.Union):
    _fields_ = [
        ("number", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("string", ctypes.c_char * 8),
    ]


class _Event(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


_SynthCallback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)


@dataclass
class _Collector:
    """What the synth callback gathers for one espeak_Synth call."""

    chunks: list[bytes] = field(default_factory=list)
    n_samples: int = 0
    # (text_position, length, audio_position_ms) of word events
    words: list[tuple[int, int, int]] = field(default_factory=list)
    sentence_ends: list[int] = field(default_factory=list)  # audio_position (ms) of END events


class _Engine:
    def __init__(self) -> None:
        import espeakng_loader

        lib_path = espeakng_loader.get_library_path()
        data_path = espeakng_loader.get_data_path()
        try:
            lib = ctypes.CDLL(str(lib_path))
        except OSError as exc:
            raise SpeechEngineError(f"cannot load eSpeak NG from {lib_path}: {exc}") from exc
        self.lib = lib
        self.data_path = Path(data_path)

        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.POINTER(ctypes.c_uint),
            ctypes.c_void_p,
        ]
        lib.espeak_Synth.restype = ctypes.c_int

        # The data directory itself is accepted as the path (as is its parent).
        rate = lib.espeak_Initialize(
            _AUDIO_OUTPUT_SYNCHRONOUS, 0, str(self.data_path).encode(), _INITIALIZE_DONT_EXIT
        )
        if rate <= 0:
            raise SpeechEngineError(f"espeak_Initialize failed ({rate}) with data at {self.data_path}")
        self.sample_rate = int(rate)
        self.collector: _Collector | None = None
        # Keep a reference to the callback for the life of the process: the library holds the pointer.
        self._callback = _SynthCallback(self._on_synth)
        lib.espeak_SetSynthCallback(self._callback)
        self.current_voice: str | None = None

    def _on_synth(self, wav: Any, numsamples: int, events: Any) -> int:
        col = self.collector
        if col is None:
            return 0
        if wav and numsamples > 0:
            col.chunks.append(ctypes.string_at(wav, numsamples * 2))
            col.n_samples += numsamples
        if events:
            i = 0
            while True:
                ev = events[i]
                kind = ev.type
                if kind == _EVENT_LIST_TERMINATED:
                    break
                if kind == _EVENT_WORD:
                    col.words.append((ev.text_position, ev.length, ev.audio_position))
                elif kind == _EVENT_END:
                    col.sentence_ends.append(ev.audio_position)
                elif kind == _EVENT_MSG_TERMINATED:
                    pass
                i += 1
        return 0

    def set_voice(self, voice: VoiceSpec) -> None:
        name = voice.espeak_voice.strip()
        if not name or "+" in name:
            raise ValueError(f"invalid eSpeak voice name {voice.espeak_voice!r}")
        if voice.variant and voice.variant not in _variants(self.data_path):
            raise ValueError(f"unknown eSpeak voice variant {voice.variant!r}")
        if voice.variant:
            name = f"{name}+{voice.variant}"
        if name != self.current_voice:
            if not self._select(name, voice.variant):
                self.current_voice = None
                raise ValueError(f"unknown eSpeak voice {voice.espeak_voice!r}")
            self.current_voice = name
        for param, value, lo, hi in (
            (_PARAM_RATE, voice.rate, _RATE_MIN, _RATE_MAX),
            (_PARAM_PITCH, voice.pitch, 0, 100),
            (_PARAM_RANGE, voice.pitch_range, 0, 100),
        ):
            self.lib.espeak_SetParameter(param, max(lo, min(hi, int(value))), 0)

    def _select(self, name: str, variant: str | None) -> bool:
        """Select a voice by name, file identifier or language tag (e.g. "fr-fr"), with a variant."""
        suffix = f"+{variant}" if variant else ""
        base = name.removesuffix(suffix)
        candidates = [name]
        identifier = _language_index(self.data_path).get(base.lower())
        if identifier is not None:
            candidates.append(identifier + suffix)
        return any(self.lib.espeak_SetVoiceByName(c.encode()) == _EE_OK for c in candidates)

    def synth(self, text: str) -> _Collector:
        """Synthesise one batch of plain text (no SSML) and return what the callback collected."""
        data = text.encode("utf-8") + b"\0"
        buf = ctypes.create_string_buffer(data, len(data))
        col = _Collector()
        self.collector = col
        try:
            err = self.lib.espeak_Synth(
                buf, len(data), 0, _POS_CHARACTER, 0, _CHARS_UTF8 | _ENDPAUSE, None, None
            )
        finally:
            self.collector = None
        if err != _EE_OK:
            raise SpeechEngineError(f"espeak_Synth failed ({err})")
        return col


_lock = threading.Lock()
_engine: _Engine | None = None


def _get_engine() -> _Engine:
    """The process's engine, created on first use; call with the lock held."""
    global _engine
    if _engine is None:
        _engine = _Engine()
    return _engine


_variant_cache: dict[Path, frozenset[str]] = {}


def _variants(data_path: Path) -> frozenset[str]:
    found = _variant_cache.get(data_path)
    if found is None:
        vdir = data_path / "voices" / "!v"
        found = frozenset(p.name for p in vdir.iterdir() if p.is_file()) if vdir.is_dir() else frozenset()
        _variant_cache[data_path] = found
    return found


_language_cache: dict[Path, dict[str, str]] = {}


def _language_index(data_path: Path) -> dict[str, str]:
    """Lower-cased language tags and voice file names -> voice identifier ("roa/fr"), best priority first."""
    index = _language_cache.get(data_path)
    if index is None:
        best: dict[str, tuple[int, str]] = {}
        lang_dir = data_path / "lang"
        for path in sorted(lang_dir.rglob("*")) if lang_dir.is_dir() else []:
            if not path.is_file():
                continue
            identifier = path.relative_to(lang_dir).as_posix()
            entries = [(path.name.lower(), 0)]
            try:
                lines = path.read_text("utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                parts = line.split()
                if len(parts) >= 2 and parts[0] == "language":
                    priority = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 5
                    entries.append((parts[1].lower(), priority))
            for tag, priority in entries:
                if tag not in best or priority < best[tag][0]:
                    best[tag] = (priority, identifier)
        index = {tag: ident for tag, (_, ident) in best.items()}
        _language_cache[data_path] = index
    return index


def _data_path() -> Path:
    import espeakng_loader

    return Path(espeakng_loader.get_data_path())


def available_variants() -> list[str]:
    """Names of the eSpeak voice variants (``espeak-ng-data/voices/!v``), sorted."""
    return sorted(_variants(_data_path()))


def available_voices() -> list[str]:
    """Voice names accepted as ``VoiceSpec.espeak_voice``: eSpeak voice file names and language tags."""
    return sorted(_language_index(_data_path()))


# --- text batching ----------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?…。！？;:])[\"'”’»)\]]*\s+|\n\s*\n?")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:[-'’.]\w+)*")
_TRAILING_PUNCTUATION = frozenset(".,;:!?…\"'”’»)]}-–—/")


def _batches(text: str, limit: int = _BATCH_CHARS) -> list[tuple[int, int]]:
    """Split ``text`` into (start, end) spans of whole sentences of at most ``limit`` characters.

    A sentence longer than the limit is split at whitespace (or, failing that, hard at the limit).
    Spans cover the text without gaps; blank spans are dropped.
    """
    pieces: list[tuple[int, int]] = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        pieces.append((pos, m.end()))
        pos = m.end()
    if pos < len(text):
        pieces.append((pos, len(text)))

    spans: list[tuple[int, int]] = []
    for start, end in pieces:
        while end - start > limit:
            cut = -1
            for m in _SPACE.finditer(text, start + 1, start + limit):
                cut = m.end()
            if cut <= start:
                cut = start + limit
            spans.append((start, cut))
            start = cut
        spans.append((start, end))

    batches: list[tuple[int, int]] = []
    for start, end in spans:
        if batches and end - batches[-1][0] <= limit:
            batches[-1] = (batches[-1][0], end)
        else:
            batches.append((start, end))
    return [(s, e) for s, e in batches if text[s:e].strip()]


# --- synthesis --------------------------------------------------------------------------------------------


def _trim_end(samples: Int16Array, start: int, end: int, sample_rate: int) -> int:
    """The end of the last non-silent window within samples[start:end] (at least a short minimum)."""
    minimum = min(end, start + int(_MIN_WORD * sample_rate))
    if end <= minimum:
        return end
    window = max(1, int(_TRIM_WINDOW * sample_rate))
    seg = np.abs(samples[start:end].astype(np.int32))
    n = len(seg) // window
    if n == 0:
        return end
    peaks = seg[: n * window].reshape(n, window).max(axis=1)
    loud = np.nonzero(peaks > _SILENCE_LEVEL)[0]
    if len(loud) == 0:
        return minimum
    last = start + int(loud[-1] + 1) * window
    if last >= start + n * window:  # loud up to the last full window: keep the tail too
        last = end
    return max(minimum, min(end, last))


def _words_for_batch(
    batch_start: int, batch_text: str, col: _Collector, samples: Int16Array, sample_rate: int
) -> list[Word]:
    """Word timings of one batch, relative to the start of its audio ``samples``."""
    n = len(samples)
    raw: list[tuple[int, int, int]] = []  # (sample position within batch, char_start, char_end)
    for text_position, length, audio_ms in col.words:
        # eSpeak's text positions count characters from 1.
        cs = max(0, text_position - 1)
        ce = min(len(batch_text), cs + max(0, length))
        # Word events sometimes include leading/trailing spaces or punctuation; strip spaces.
        while cs < ce and batch_text[cs].isspace():
            cs += 1
        while ce > cs and batch_text[ce - 1].isspace():
            ce -= 1
        if ce <= cs:
            continue
        pos = min(n, max(0, round(audio_ms * sample_rate / 1000)))
        raw.append((pos, cs, ce))
    raw.sort(key=lambda r: (r[1], r[0]))
    # eSpeak reports one event per spoken word, so "1234" gives several events inside one written word:
    # fold events that start inside the previous word's characters into it.
    merged: list[tuple[int, int, int]] = []
    for pos, cs, ce in raw:
        if merged and merged[-1][1] <= cs < merged[-1][2]:
            p0, c0, e0 = merged[-1]
            merged[-1] = (min(p0, pos), c0, max(e0, ce))
        else:
            merged.append((pos, cs, ce))
    # A hyphenated compound ("state-of-the-art") gets one event whose length covers only its first part:
    # extend each word over the rest of its run of non-space characters, up to the next word, without
    # the trailing punctuation the event did not include.
    # (sample position, [(char_start, char_end), ...]): the engine's word plus any written words it
    # spoke without an event of their own (eSpeak reads some phrases, like "the while", as one word).
    groups: list[tuple[int, list[tuple[int, int]]]] = []
    last_pos = 0
    for i, (pos, cs, ce) in enumerate(merged):
        limit = merged[i + 1][1] if i + 1 < len(merged) else len(batch_text)
        end = ce
        while end < limit and not batch_text[end].isspace():
            end += 1
        while end > ce and batch_text[end - 1] in _TRAILING_PUNCTUATION:
            end -= 1
        spans = [(cs, end)]
        for m in _WORD.finditer(batch_text, end, limit):
            spans.append((m.start(), m.end()))
        last_pos = max(last_pos, pos)  # keep starts monotonic
        groups.append((last_pos, spans))
    ends_ms = sorted(col.sentence_ends)
    words: list[Word] = []
    for i, (pos, spans) in enumerate(groups):
        boundary = groups[i + 1][0] if i + 1 < len(groups) else n
        # A sentence/clause end between this word and the next closes the word earlier.
        for end_ms in ends_ms:
            e = round(end_ms * sample_rate / 1000)
            if pos < e < boundary:
                boundary = e
                break
        end = max(pos, _trim_end(samples, pos, boundary, sample_rate))
        # Share the group's time among its words in proportion to their length.
        weights = [ce - cs for cs, ce in spans]
        total = sum(weights)
        t: float = pos
        for (cs, ce), weight in zip(spans, weights, strict=True):
            t_end = t + (end - pos) * weight / total
            words.append(
                Word(
                    start=t / sample_rate,
                    end=t_end / sample_rate,
                    text=batch_text[cs:ce],
                    char_start=batch_start + cs,
                    char_end=batch_start + ce,
                )
            )
            t = t_end
    return words


def synthesize(text: str, voice: VoiceSpec) -> Speech:
    """Speak ``text`` (plain text, any length, any script eSpeak knows) with ``voice``.

    Raises ValueError for an unknown voice or variant, SpeechEngineError if the library fails.
    """
    with _lock:
        engine = _get_engine()
        engine.set_voice(voice)  # validates the voice even for empty text
        sample_rate = engine.sample_rate
        if not text.strip():
            return Speech(np.zeros(0, dtype=np.int16), sample_rate, [])
        pieces: list[Int16Array] = []
        words: list[Word] = []
        total = 0
        for start, end in _batches(text):
            batch_text = text[start:end]
            col = engine.synth(batch_text)
            audio = np.frombuffer(b"".join(col.chunks), dtype=np.int16)
            pieces.append(audio)
            batch_words = _words_for_batch(start, batch_text, col, audio, sample_rate)
            shift = total / sample_rate
            words.extend(
                Word(w.start + shift, w.end + shift, w.text, w.char_start, w.char_end) for w in batch_words
            )
            total += len(audio)
    samples = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int16)
    return Speech(samples.astype(np.int16, copy=False), sample_rate, words)
