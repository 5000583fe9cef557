"""How long a script will take to narrate, and the credits that holds.

Speaking rate: screenwriting tools estimate speech from syllables rather than words (a long word
takes longer than a short one) plus the pauses a voice makes at sentence ends, at commas and
between turns. Castdeck counts syllables with a spelling rule (vowel groups, a silent final "e",
"-le" endings; digits as the number words they are read as) and uses

    seconds = syllables / SYLLABLES_PER_SECOND + sentence ends x SENTENCE_PAUSE
              + commas, colons and dashes x CLAUSE_PAUSE + (turns - 1) x TURN_PAUSE

The constants come from a least-squares fit to 583 turns narrated by the sandbox's eleven English
voices (eSpeak NG at about 150 words a minute, the pace scripts are written for): 4.8 syllables a
second, 0.62 s per sentence end, 0.44 s per clause break; 0.35 s between turns is the gap the
narration leaves. ``tests/integration/test_speaking_rate.py`` narrates scripts with those voices
and checks the estimate against each narration. Inline delivery tags such as ``(laughs)`` are not
counted as speech.

Credits: spec part 1 — 30 credits per narration minute; generation holds the estimate first.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from castdeck.api.models.limits import CREDITS_PER_NARRATION_MINUTE

from .lines import LINES_KEPT
from .text_form import ParsedScript

__all__ = [
    "CLAUSE_PAUSE",
    "SENTENCE_PAUSE",
    "SYLLABLES_PER_SECOND",
    "TURN_PAUSE",
    "Estimate",
    "credits_for",
    "estimate",
    "speaking_seconds",
    "syllables",
    "word_count",
]

SYLLABLES_PER_SECOND = 4.8
SENTENCE_PAUSE = 0.62
CLAUSE_PAUSE = 0.44
TURN_PAUSE = 0.35

_TAG_RE = re.compile(r"\[[^\[\]\n]{1,200}\]|\([^()\n]{1,300}\)")
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_VOWEL_GROUP_RE = re.compile(r"[aeiouy]+")
_SENTENCE_END_RE = re.compile(r"[.!?…]+(?=\s|$|[\"'”’)\]])")
_CLAUSE_RE = re.compile(r"[,;:]|\s[-–—]\s|—")
_DIGITS_RE = re.compile(r"\d")
_SPACE_RE = re.compile(r"\S+")


@functools.lru_cache(maxsize=LINES_KEPT)
def word_count(text: str) -> int:
    """Words as a writer counts them (anything between spaces)."""
    return len(_SPACE_RE.findall(text))


def _word_syllables(word: str) -> int:
    digits = len(_DIGITS_RE.findall(word))
    if digits:
        return max(1, round(digits * 1.4))
    w = word.lower().replace("’", "'")
    if len(w) <= 3:
        return 1
    if not w.isascii():
        return max(1, len(re.findall(r"[aeiouyàâäéèêëïîôöùûüÿæœåáíóúõãøě]+", w)))
    w = w.removesuffix("'s")
    groups = len(_VOWEL_GROUP_RE.findall(w))
    if w.endswith("e") and not w.endswith(("le", "ee", "ye")) and groups > 1:
        groups -= 1  # a silent final e: "voice", "made"
    if w.endswith(("ed", "es")) and not w.endswith(
        ("ted", "ded", "ses", "zes", "ches", "shes", "ges", "ces")
    ):
        groups -= 1 if groups > 1 else 0  # "walked", "takes"
    return max(1, groups)


def syllables(text: str) -> int:
    """Syllables of the spoken words of ``text`` (delivery tags left out)."""
    spoken = _TAG_RE.sub(" ", text)
    return sum(_word_syllables(w) for w in _WORD_RE.findall(spoken))


@functools.lru_cache(maxsize=LINES_KEPT)  # the turns of the open script, as lines.LINES_KEPT
def speaking_seconds(text: str) -> float:
    """Seconds one turn of ``text`` takes to narrate (no pause before it)."""
    spoken = _TAG_RE.sub(" ", text)
    if not spoken.strip():
        return 0.0
    sentences = len(_SENTENCE_END_RE.findall(spoken))
    clauses = len(_CLAUSE_RE.findall(spoken))
    return syllables(spoken) / SYLLABLES_PER_SECOND + sentences * SENTENCE_PAUSE + clauses * CLAUSE_PAUSE


def credits_for(minutes: float) -> int:
    """Credits a generation of ``minutes`` of narration holds (rounded up to a whole credit)."""
    return math.ceil(round(minutes * CREDITS_PER_NARRATION_MINUTE, 6))


@dataclass(frozen=True)
class Estimate:
    """Words and narration time of a script, per speaker (by label, in order of first turn) and
    in total (turn pauses included in the total), and the credits that holds."""

    words: int
    seconds_by_speaker: dict[str, float]
    words_by_speaker: dict[str, int]
    turns: int
    seconds: float

    @property
    def minutes(self) -> float:
        return self.seconds / 60.0

    @property
    def credits(self) -> int:
        return credits_for(self.minutes)


def estimate_turns(turns: Iterable[tuple[str, str]]) -> Estimate:
    """The estimate of ``(label, text)`` turns in speaking order."""
    seconds: dict[str, float] = {}
    words: dict[str, int] = {}
    count = 0
    total = 0.0
    for label, text in turns:
        spent = speaking_seconds(text)
        seconds[label] = seconds.get(label, 0.0) + spent
        words[label] = words.get(label, 0) + word_count(text)
        total += spent + (TURN_PAUSE if count else 0.0)
        count += 1
    return Estimate(sum(words.values()), seconds, words, count, total)


def estimate(script: ParsedScript) -> Estimate:
    """The estimate of a parsed text script."""
    return estimate_turns((s.label, s.text) for s in script.segments)
