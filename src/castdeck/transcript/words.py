"""Words with times, speakers and speaker turns, normalised from what the service sends.

Two word shapes exist: ``{start, end, speaker, text}`` where ``speaker`` indexes a ``speakers``
list of ``{host_id, name}`` (the interface specification), and the older ``{word, start, end}``
without speakers. :func:`normalise` reads either (or a bare list of words) into a
:class:`Transcript` whose words are sorted by start time, with sane times and non-empty text.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Speaker", "Transcript", "Turn", "Word", "normalise", "word_at"]


@dataclass(frozen=True, slots=True)
class Word:
    start: float
    end: float
    text: str
    speaker: int | None = None


@dataclass(frozen=True, slots=True)
class Speaker:
    name: str
    host_id: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """Consecutive words of one speaker: ``words[first:last]`` of the transcript."""

    speaker: int | None
    first: int
    last: int


@dataclass
class Transcript:
    episode_id: str | None
    speakers: list[Speaker]
    words: list[Word]
    starts: list[float] = field(init=False, repr=False)
    duration: float = field(init=False, repr=False)
    """Seconds until the last word ends."""

    def __post_init__(self) -> None:
        self.starts = [word.start for word in self.words]
        self.duration = max((word.end for word in self.words), default=0.0)

    def speaker_name(self, index: int | None) -> str:
        if index is not None and 0 <= index < len(self.speakers):
            return self.speakers[index].name
        return "Speaker" if self.speakers else ""

    def turns(self) -> list[Turn]:
        """Runs of one speaker. A transcript without speakers is cut into paragraphs of about 60
        words at sentence ends, so that no paragraph grows long (a reading view re-lays out a
        whole paragraph when it changes)."""
        out: list[Turn] = []
        first = 0
        for i in range(1, len(self.words) + 1):
            if i < len(self.words):
                same = self.words[i].speaker == self.words[first].speaker
                long_enough = i - first >= 60 and self.words[i - 1].text.endswith((".", "?", "!"))
                if same and not long_enough and i - first < 120:
                    continue
            if i > first:
                out.append(Turn(self.words[first].speaker, first, i))
            first = i
        return out

    def word_at(self, seconds: float) -> int:
        return word_at(self.starts, seconds)


def word_at(starts: Sequence[float], seconds: float) -> int:
    """The index of the word being heard at ``seconds`` (the last one started), -1 before the first."""
    return bisect_right(starts, seconds) - 1


MAX_SECONDS = 7 * 24 * 3600.0
"""Times beyond a week are not times in an episode (and in milliseconds they would overflow the
player's positions and the subtitle clocks): such a word is dropped, such an end clamped."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):  # an int beyond a double, digits of other scripts
        return None
    return number if math.isfinite(number) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def normalise(payload: Any, episode_id: str | None = None) -> Transcript:
    """A transcript from the service's word timestamps (either shape; a dict, or a bare word list).

    Words without text or without a usable start are dropped; a negative start becomes 0, an end
    before its start becomes the start; a speaker index outside ``speakers`` becomes ``None``.
    Whitespace inside a word is collapsed (a cue line never breaks inside one).
    """
    if isinstance(payload, list):
        payload = {"words": payload}
    if not isinstance(payload, dict):
        raise ValueError("word timestamps must be an object or a list of words")
    speakers: list[Speaker] = []
    for i, raw in enumerate(_list(payload.get("speakers"))):
        if isinstance(raw, dict):
            name = str(raw.get("name") or raw.get("host_id") or f"Speaker {i + 1}").strip()
            host = raw.get("host_id")
            speakers.append(Speaker(name or f"Speaker {i + 1}", str(host) if host is not None else None))
        else:
            speakers.append(Speaker(str(raw).strip() or f"Speaker {i + 1}"))
    words: list[Word] = []
    for raw in _list(payload.get("words")):
        if not isinstance(raw, dict):
            continue
        text = raw.get("text", raw.get("word"))
        if not isinstance(text, str):
            continue
        text = " ".join(text.split())
        start = _number(raw.get("start"))
        if not text or start is None or start > MAX_SECONDS:
            continue
        start = max(start, 0.0)
        end = _number(raw.get("end"))
        end = start if end is None or end < start else min(end, MAX_SECONDS)
        speaker = raw.get("speaker")
        if not isinstance(speaker, int) or isinstance(speaker, bool) or not 0 <= speaker < len(speakers):
            speaker = None
        words.append(Word(start, end, text, speaker))
    words.sort(key=lambda word: word.start)  # stable: words with one start keep their order
    found = payload.get("episode_id")
    return Transcript(str(found) if found is not None else episode_id, speakers, words)
