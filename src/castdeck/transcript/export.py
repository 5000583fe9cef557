"""Subtitles and text from the words: SRT, WebVTT, plain text by speaker turn, and JSON.

Cues follow the usual subtitle rules: at most two lines of at most 42 characters and at most
seven seconds each, never two speakers in one cue, and a new cue after a sentence end once the
cue holds a line's worth. A single word longer than a line stays whole on its own line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .words import Transcript, Word

__all__ = [
    "FORMATS",
    "MAX_CUE_SECONDS",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "Cue",
    "clock",
    "cues",
    "export",
    "suffix_of",
    "to_json",
    "to_srt",
    "to_text",
    "to_vtt",
]

MAX_LINE_CHARS = 42
MAX_LINES = 2
MAX_CUE_SECONDS = 7.0
FORMATS = ("srt", "vtt", "txt", "json")
_SENTENCE_ENDS = (".", "?", "!", '."', '?"', '!"')


@dataclass(frozen=True, slots=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]
    speaker: int | None
    first_word: int
    last_word: int  # exclusive
    opens_turn: bool


def clock(seconds: float, sep: str = ".", *, hours: bool = True) -> str:
    """``HH:MM:SS.mmm`` (``sep`` before the milliseconds; ``,`` for SRT)."""
    millis = max(round(seconds * 1000), 0)
    h, millis = divmod(millis, 3_600_000)
    m, millis = divmod(millis, 60_000)
    s, millis = divmod(millis, 1000)
    if not hours and not h:
        return f"{m:02d}:{s:02d}{sep}{millis:03d}"
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{millis:03d}"


def _wrap(texts: list[str], prefix: str) -> list[str] | None:
    """Greedy wrap into lines of MAX_LINE_CHARS; None when more than MAX_LINES are needed."""
    lines: list[str] = []
    line = prefix.rstrip()
    for text in texts:
        candidate = f"{line} {text}" if line else text
        if len(candidate) <= MAX_LINE_CHARS or not line:
            line = candidate
        else:
            lines.append(line)
            line = text
    if line:
        lines.append(line)
    return lines if len(lines) <= MAX_LINES else None


def cues(transcript: Transcript, *, speaker_prefix: bool = False) -> list[Cue]:
    """The words as subtitle cues. With ``speaker_prefix`` the first cue of each speaker turn
    starts with ``Name:`` (counted in its line length), as SRT has no voice tags."""
    words = transcript.words
    named = speaker_prefix and bool(transcript.speakers)
    out: list[Cue] = []
    i = 0
    previous_speaker: int | object | None = object()
    while i < len(words):
        first = i
        speaker = words[i].speaker
        opens = speaker != previous_speaker
        prefix = f"{transcript.speaker_name(speaker)}:" if named and opens else ""
        texts = [words[i].text]
        lines = _wrap(texts, prefix) or [f"{prefix} {words[i].text}".strip()]
        i += 1
        while i < len(words):
            word = words[i]
            if word.speaker != speaker or word.end - words[first].start > MAX_CUE_SECONDS:
                break
            if words[i - 1].text.endswith(_SENTENCE_ENDS) and sum(map(len, lines)) >= MAX_LINE_CHARS * 0.75:
                break
            wrapped = _wrap([*texts, word.text], prefix)
            if wrapped is None:
                break
            texts.append(word.text)
            lines = wrapped
            i += 1
        out.append(Cue(words[first].start, _cue_end(words, first, i), tuple(lines), speaker, first, i, opens))
        previous_speaker = speaker
    return out


def _cue_end(words: list[Word], first: int, last: int) -> float:
    """The cue ends with its last word, never after the next word starts, and lasts at least 1 ms."""
    end = max(words[last - 1].end, words[first].start + 0.001)
    if last < len(words):
        end = min(end, max(words[last].start, words[first].start + 0.001))
    return end


def to_srt(transcript: Transcript) -> str:
    blocks = []
    for number, cue in enumerate(cues(transcript, speaker_prefix=True), 1):
        text = "\n".join(line.replace("-->", "->") for line in cue.lines)
        blocks.append(f"{number}\n{clock(cue.start, ',')} --> {clock(cue.end, ',')}\n{text}\n")
    return "\n".join(blocks)


def _escape_vtt(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_vtt(transcript: Transcript) -> str:
    """WebVTT with a voice span (``<v Name>``) on every cue when the transcript names speakers."""
    parts = ["WEBVTT", ""]
    for cue in cues(transcript):
        parts.append(f"{clock(cue.start)} --> {clock(cue.end)}")
        lines = [_escape_vtt(line) for line in cue.lines]
        if transcript.speakers:
            name = _escape_vtt(transcript.speaker_name(cue.speaker)).replace(">", "")
            lines[0] = f"<v {name}>{lines[0]}"
        parts.extend(lines)
        parts.append("")
    return "\n".join(parts)


def to_text(transcript: Transcript) -> str:
    """One paragraph per speaker turn, each under its speaker's name and start time."""
    out: list[str] = []
    last_speaker: int | object | None = object()
    for turn in transcript.turns():
        words = transcript.words[turn.first : turn.last]
        if turn.speaker != last_speaker:
            name = transcript.speaker_name(turn.speaker)
            stamp = clock(words[0].start, hours=True)[:8]
            out.append(f"{name} [{stamp}]" if name else f"[{stamp}]")
            last_speaker = turn.speaker
        out.append(" ".join(word.text for word in words))
        out.append("")
    return "\n".join(out)


def to_json(transcript: Transcript) -> str:
    """The normalised words in the interface's shape, with the speaker turns beside them."""
    body = {
        "episode_id": transcript.episode_id,
        "speakers": [{"host_id": s.host_id, "name": s.name} for s in transcript.speakers],
        "words": [
            {"start": round(w.start, 3), "end": round(w.end, 3), "speaker": w.speaker, "text": w.text}
            for w in transcript.words
        ],
        "turns": [
            {
                "speaker": turn.speaker,
                "start": round(transcript.words[turn.first].start, 3),
                "end": round(transcript.words[turn.last - 1].end, 3),
                "text": " ".join(w.text for w in transcript.words[turn.first : turn.last]),
            }
            for turn in transcript.turns()
        ],
    }
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def export(transcript: Transcript, fmt: str) -> str:
    """The transcript in ``fmt`` (one of :data:`FORMATS`)."""
    writers = {"srt": to_srt, "vtt": to_vtt, "txt": to_text, "json": to_json}
    if fmt not in writers:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return writers[fmt](transcript)


def suffix_of(fmt: str) -> str:
    return "." + fmt
