"""What one line of a text script is: a chapter line, a speaker label, spoken text, or a line the
service leaves out when it imports the text.

The text form is the import format of spec 2.5 (``[Label]`` alone on its line, then the spoken
text) with ``# Title`` lines marking chapters. Spec 4.2 (3) says an import "removes clearly unspoken
titles, production rules and visual or duration directions, keeps narration and inline delivery
tags, and keeps uncertain lines"; the rules below are those the embedded sandbox applies (a test
compares the two line by line), so the editor can show, before anything is sent, which lines will
not be spoken.

:func:`classify_line` depends only on the line and on whether a speaker label came before it, so
an editor can classify one changed line without reading the others; results are cached.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = [
    "BLANK",
    "CHAPTER",
    "DELIVERY_TAGS",
    "DIRECTION_WORDS",
    "DROPPED",
    "EMPTY",
    "LABEL",
    "LABEL_INLINE",
    "SPOKEN",
    "LineInfo",
    "classify_line",
    "inline_tags",
    "label_key",
]

BLANK = "blank"
CHAPTER = "chapter"
LABEL = "label"  # ``[Label]`` alone on its line
LABEL_INLINE = "label_inline"  # ``[Label] spoken text`` on one line
SPOKEN = "spoken"
DROPPED = "dropped"
EMPTY = "empty"  # only emphasis marks ("* *"): nothing to say, and not a paragraph break either


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


DIRECTION_WORDS = _word_set(
    """music musical jingle theme sting stinger sfx fx sound sounds soundbite audio intro outro pause
    paused cut cuts fade fades fading faded visual visuals scene transition applause laughter silence
    break ad ads advert advertisement sponsor sponsored sponsorship commercial timecode timestamp
    b-roll broll montage footage graphic graphics caption captions slide screen camera shot angle
    beat bumper cue underscore swell swells ambience ambient crossfade segue interlude"""
)
"""Words that make a bracketed or parenthesized line a production direction, not a speaker."""

DELIVERY_TAGS = _word_set(
    """laughs laughing laugh chuckles chuckling chuckle giggles giggling sighs sighing sigh whispers
    whispering whisper softly quietly loudly excited excitedly sarcastic sarcastically gasps gasp
    groans groan shouts shouting yells cheerfully seriously thoughtfully smiling smiles smirks
    hesitates hesitating emphatically dramatically nervously warmly happily sadly angrily surprised
    curious curiously clears throat coughs cough sniffs pauses inhales exhales breathes deep breath
    mock-serious deadpan teasing playfully laughter-in-voice grins grinning amused"""
)
"""Delivery tags kept inside spoken text, such as ``(laughs)`` or ``[whispers]``."""

_TIME_CODE = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
_TIME_CODE_LINE_RE = re.compile(
    rf"^[\[(]?\s*{_TIME_CODE}\s*(?:(?:-->|–|—|-|to)\s*{_TIME_CODE}\s*)?[\])]?$", re.IGNORECASE
)
_TIME_CODE_RE = re.compile(_TIME_CODE)
_LABEL_LINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?$")
_LABEL_INLINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?\s+(\S.*)$")
_LONG_LABEL_RE = re.compile(r"^\[([^\[\]]{201,})\]\s*:?(?:\s+\S.*)?$")
_PAREN_LINE_RE = re.compile(r"^\(([^()]{1,300})\)\.?$")
_HEADING_RE = re.compile(r"^#{1,6}(?:\s|$)")
_CHAPTER_RE = re.compile(r"^#(?:\s+(.*))?$")
_SEPARATOR_RE = re.compile(r"^(?:[-*_=~•·]\s*){3,}$")
_TITLE_LINE_RE = re.compile(
    r"^(?:title|episode(?:\s*(?:#|no\.?)?\s*\d+)?|ep\.?\s*#?\d+|podcast|show|series|season\s*\d+"
    r"(?:\s*,?\s*episode\s*\d+)?|chapter\s*\d+|part\s*\d+|subtitle|working\s+title)\s*[:\-–—|]\s*\S",
    re.IGNORECASE,
)
_NOTE_LINE_RE = re.compile(
    r"^(?:(?:production|producer'?s?|director'?s?|editor'?s?|host|recording|technical|show|"
    r"general|script|style|format)\s+)?(?:notes?|rules?|guidelines?|instructions?|directions?)\b"
    r"\s*(?:[:\-–—(]|$)|^(?:tone|format|style|audience|target\s+audience|voice|pacing)\s*:",
    re.IGNORECASE,
)
_DURATION_LINE_RE = re.compile(
    r"^(?:(?:target|estimated|approx(?:imate)?\.?|total|expected)\s+)?(?:duration|length|runtime|"
    r"run\s*time|running\s+time|time|word\s+count)\s*[:\-–—]\s*\S",
    re.IGNORECASE,
)
_DURATION_WORD_RE = re.compile(r"\d|minute|hour|second", re.IGNORECASE)
_DIRECTION_PREFIX_RE = re.compile(
    r"^(?:visual|visuals|on[\s-]screen|b-?roll|camera|scene|shot|graphic|graphics|lower\s+third|"
    r"cut\s+to|sfx|fx|music|sound|sound\s+effects?|audio|transition|slide|caption|stage\s+direction)"
    r"\s*(?:\d+\s*)?[:\-–—]\s*",
    re.IGNORECASE,
)
_SRT_INDEX_RE = re.compile(r"^\d{1,5}$")
_WORDS_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NUMERIC_RE = re.compile(r"[\d:.,\s\-–>]+")
_EMPHASIS_RE = re.compile(r"(\*{1,3}|_{1,3})([^*_]|[^*_].*?[^*_])\1")
_TAG_RE = re.compile(r"\[[^\[\]\n]{1,200}\]|\([^()\n]{1,300}\)")


@dataclass(frozen=True, slots=True)
class LineInfo:
    """One classified line. Columns are offsets into the line as written (0-based).

    ``label`` is the speaker label as written with its spaces collapsed (``LABEL``/``LABEL_INLINE``);
    ``spoken`` the words of the line that are spoken (``SPOKEN``/``LABEL_INLINE``); ``title`` the
    chapter title (``CHAPTER``; None for a bare ``#``); ``reason`` why a ``DROPPED`` line is left out;
    ``long_label``: the line is a bracketed label longer than the spec's 200 characters (it is read
    as text, not as a label).
    """

    kind: str
    label: str | None = None
    label_start: int = 0
    label_end: int = 0
    spoken: str | None = None
    title: str | None = None
    reason: str | None = None
    long_label: bool = False


def label_key(label: str) -> str:
    """Labels compare without case and with spaces collapsed (as the service compares them)."""
    return " ".join(label.split()).casefold()


def _words_of(text: str) -> list[str]:
    return _WORDS_RE.findall(text.lower())


def _is_time_code(text: str) -> bool:
    return bool(_TIME_CODE_LINE_RE.match(text.strip()))


def is_direction_label(content: str) -> bool:
    """True when the content of a bracket or parenthesis is a production direction."""
    inner = content.strip().strip(":").strip()
    if not inner or _is_time_code(inner) or _NUMERIC_RE.fullmatch(inner):
        return True
    words = _words_of(inner)
    return any(w in DIRECTION_WORDS for w in words) or bool(_DIRECTION_PREFIX_RE.match(inner + ":"))


def is_delivery_tag(content: str) -> bool:
    words = _words_of(content)
    return bool(words) and len(words) <= 4 and (words[0] in DELIVERY_TAGS or words[-1] in DELIVERY_TAGS)


def _unwrap(line: str) -> str:
    """Strip markdown emphasis wrapped around a whole line, such as ``**[Alex]**`` or ``*(music)*``."""
    stripped = line.strip()
    for _ in range(3):
        m = _EMPHASIS_RE.fullmatch(stripped)
        if not m:
            break
        stripped = m.group(2).strip()
    return stripped


def _unspoken_reason(line: str, before_first_label: bool) -> str | None:
    """Why the service leaves ``line`` out, or None (spoken; uncertain lines are kept)."""
    if _HEADING_RE.match(line):
        return "a heading"
    if _SEPARATOR_RE.match(line):
        return "a separator"
    if _is_time_code(line) or ("-->" in line and _TIME_CODE_RE.search(line)):
        return "a time code"
    if before_first_label and _TITLE_LINE_RE.match(line):
        return "a title line before the first speaker"
    if before_first_label and _SRT_INDEX_RE.match(line):
        return "a subtitle number"
    if _NOTE_LINE_RE.match(line):
        return "a production note"
    if _DURATION_LINE_RE.match(line) and _DURATION_WORD_RE.search(line):
        return "a duration or length direction"
    if _DIRECTION_PREFIX_RE.match(line):
        return "a visual, sound or music direction"
    m = _PAREN_LINE_RE.match(line)
    if m and is_direction_label(m.group(1)) and not is_delivery_tag(m.group(1)):
        return "a production direction"
    m = _LABEL_LINE_RE.match(line)
    if m and is_direction_label(m.group(1)) and not is_delivery_tag(m.group(1)):
        return "a production direction"
    return None


def _bracket_span(raw: str) -> tuple[int, int]:
    start = raw.find("[")
    end = raw.find("]", start + 1)
    if start < 0 or end < 0:
        return 0, len(raw)
    return start, end + 1


@functools.lru_cache(maxsize=32768)
def classify_line(raw: str, after_label: bool) -> LineInfo:
    """Classify one line; ``after_label``: a speaker label came before it in the script."""
    line = raw.strip()
    if not line:
        return LineInfo(BLANK)
    chapter = _CHAPTER_RE.match(line)
    if chapter:
        title = (chapter.group(1) or "").strip()
        return LineInfo(CHAPTER, title=title or None)
    unwrapped = _unwrap(line)
    if not unwrapped:
        return LineInfo(EMPTY)
    reason = _unspoken_reason(unwrapped, not after_label)
    if reason is not None:
        return LineInfo(DROPPED, reason=reason)
    m_line = _LABEL_LINE_RE.match(unwrapped)
    if m_line and not is_delivery_tag(m_line.group(1)):
        label = " ".join(m_line.group(1).split()).strip(":").strip()
        start, end = _bracket_span(raw)
        if not label:
            return LineInfo(DROPPED, reason="an empty speaker label")
        return LineInfo(LABEL, label=label, label_start=start, label_end=end)
    m_inline = None if m_line else _LABEL_INLINE_RE.match(unwrapped)
    if m_inline:
        content = m_inline.group(1)
        if is_delivery_tag(content):
            return LineInfo(SPOKEN, spoken=unwrapped)
        if is_direction_label(content):
            return LineInfo(SPOKEN, spoken=m_inline.group(2).strip())  # the words stay, the direction goes
        label = " ".join(content.split()).strip(":").strip()
        start, end = _bracket_span(raw)
        if not label:
            return LineInfo(SPOKEN, spoken=m_inline.group(2).strip())
        return LineInfo(
            LABEL_INLINE, label=label, label_start=start, label_end=end, spoken=m_inline.group(2).strip()
        )
    return LineInfo(SPOKEN, spoken=unwrapped, long_label=bool(_LONG_LABEL_RE.match(unwrapped)))


def inline_tags(raw: str) -> list[tuple[int, int]]:
    """``(start, end)`` columns of the bracketed and parenthesized parts of a spoken line (delivery
    tags such as ``(laughs)``; the service keeps them in the text)."""
    return [(m.start(), m.end()) for m in _TAG_RE.finditer(raw)]
