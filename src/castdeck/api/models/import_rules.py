"""The rules by which the service reads imported script text (spec 4.2 "Import behavior").

Which lines are clearly unspoken (headings, titles, production notes, music, visual and duration
directions, time codes, separators), which bracketed words are delivery tags kept in the text, what
a speaker label looks like and how a label names a host. The embedded sandbox imports text with
them and the offline script editor shows, before anything is sent, what the service will do: both
read this one module, so the two cannot drift apart. Pure functions and constants, no I/O.
"""

from __future__ import annotations

import re

__all__ = [
    "CHAPTER_RE",
    "DELIVERY_TAGS",
    "DIRECTION_WORDS",
    "HONORIFICS",
    "LABEL_INLINE_RE",
    "LABEL_LINE_RE",
    "LONG_LABEL_RE",
    "SRT_INDEX_RE",
    "TAG_RE",
    "first_name_match",
    "is_delivery_tag",
    "is_direction_label",
    "is_time_code",
    "label_key",
    "name_tokens",
    "unspoken_reason",
    "unwrap",
    "words_of",
]


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

TIME_CODE = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
TIME_CODE_LINE_RE = re.compile(
    rf"^[\[(]?\s*{TIME_CODE}\s*(?:(?:-->|–|—|-|to)\s*{TIME_CODE}\s*)?[\])]?$", re.IGNORECASE
)
TIME_CODE_RE = re.compile(TIME_CODE)
LABEL_LINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?$")
LABEL_INLINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?\s+(\S.*)$")
LONG_LABEL_RE = re.compile(r"^\[([^\[\]]{201,})\]\s*:?(?:\s+\S.*)?$")
PAREN_LINE_RE = re.compile(r"^\(([^()]{1,300})\)\.?$")
HEADING_RE = re.compile(r"^#{1,6}(?:\s|$)")
CHAPTER_RE = re.compile(r"^#(?:\s+(.*))?$")
SEPARATOR_RE = re.compile(r"^(?:[-*_=~•·]\s*){3,}$")
TITLE_LINE_RE = re.compile(
    r"^(?:title|episode(?:\s*(?:#|no\.?)?\s*\d+)?|ep\.?\s*#?\d+|podcast|show|series|season\s*\d+"
    r"(?:\s*,?\s*episode\s*\d+)?|chapter\s*\d+|part\s*\d+|subtitle|working\s+title)\s*[:\-–—|]\s*\S",
    re.IGNORECASE,
)
NOTE_LINE_RE = re.compile(
    r"^(?:(?:production|producer'?s?|director'?s?|editor'?s?|host|recording|technical|show|"
    r"general|script|style|format)\s+)?(?:notes?|rules?|guidelines?|instructions?|directions?)\b"
    r"\s*(?:[:\-–—(]|$)|^(?:tone|format|style|audience|target\s+audience|voice|pacing)\s*:",
    re.IGNORECASE,
)
DURATION_LINE_RE = re.compile(
    r"^(?:(?:target|estimated|approx(?:imate)?\.?|total|expected)\s+)?(?:duration|length|runtime|"
    r"run\s*time|running\s+time|time|word\s+count)\s*[:\-–—]\s*\S",
    re.IGNORECASE,
)
DURATION_WORD_RE = re.compile(r"\d|minute|hour|second", re.IGNORECASE)
DIRECTION_PREFIX_RE = re.compile(
    r"^(?:visual|visuals|on[\s-]screen|b-?roll|camera|scene|shot|graphic|graphics|lower\s+third|"
    r"cut\s+to|sfx|fx|music|sound|sound\s+effects?|audio|transition|slide|caption|stage\s+direction)"
    r"\s*(?:\d+\s*)?[:\-–—]\s*",
    re.IGNORECASE,
)
SRT_INDEX_RE = re.compile(r"^\d{1,5}$")
WORDS_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
NUMERIC_RE = re.compile(r"[\d:.,\s\-–>]+")
EMPHASIS_RE = re.compile(r"(\*{1,3}|_{1,3})([^*_]|[^*_].*?[^*_])\1")
TAG_RE = re.compile(r"\[[^\[\]\n]{1,200}\]|\([^()\n]{1,300}\)")


def label_key(label: str) -> str:
    """Labels compare without case and with spaces collapsed (as the service compares them)."""
    return " ".join(label.split()).casefold()


def words_of(text: str) -> list[str]:
    return WORDS_RE.findall(text.lower())


def is_time_code(text: str) -> bool:
    return bool(TIME_CODE_LINE_RE.match(text.strip()))


def is_direction_label(content: str) -> bool:
    """True when the content of a bracket or parenthesis is a production direction."""
    inner = content.strip().strip(":").strip()
    if not inner or is_time_code(inner) or NUMERIC_RE.fullmatch(inner):
        return True
    words = words_of(inner)
    return any(w in DIRECTION_WORDS for w in words) or bool(DIRECTION_PREFIX_RE.match(inner + ":"))


def is_delivery_tag(content: str) -> bool:
    words = words_of(content)
    return bool(words) and len(words) <= 4 and (words[0] in DELIVERY_TAGS or words[-1] in DELIVERY_TAGS)


def unwrap(line: str) -> str:
    """Strip markdown emphasis wrapped around a whole line, such as ``**[Alex]**`` or ``*(music)*``."""
    stripped = line.strip()
    for _ in range(3):
        m = EMPHASIS_RE.fullmatch(stripped)
        if not m:
            break
        stripped = m.group(2).strip()
    return stripped


def unspoken_reason(line: str, before_first_label: bool) -> str | None:
    """Why the service leaves ``line`` out, or None (spoken; uncertain lines are kept)."""
    if HEADING_RE.match(line):
        return "a heading"
    if SEPARATOR_RE.match(line):
        return "a separator"
    if is_time_code(line) or ("-->" in line and TIME_CODE_RE.search(line)):
        return "a time code"
    if before_first_label and TITLE_LINE_RE.match(line):
        return "a title line before the first speaker"
    if before_first_label and SRT_INDEX_RE.match(line):
        return "a subtitle number"
    if NOTE_LINE_RE.match(line):
        return "a production note"
    if DURATION_LINE_RE.match(line) and DURATION_WORD_RE.search(line):
        return "a duration or length direction"
    if DIRECTION_PREFIX_RE.match(line):
        return "a visual, sound or music direction"
    m = PAREN_LINE_RE.match(line)
    if m and is_direction_label(m.group(1)) and not is_delivery_tag(m.group(1)):
        return "a production direction"
    m = LABEL_LINE_RE.match(line)
    if m and is_direction_label(m.group(1)) and not is_delivery_tag(m.group(1)):
        return "a production direction"
    return None


HONORIFICS = frozenset({"dr", "prof", "professor", "mr", "mrs", "ms", "mx", "miss", "sir", "dame", "rev"})
"""Titles a name is compared without ("Dr. Maya Chen" is "Maya Chen")."""
PAREN_RE = re.compile(r"\([^)]*\)")


def name_tokens(name: str) -> list[str]:
    """A name's words for matching: without case, honorifics and parenthesized notes ("Alex (host)")."""
    tokens = [t.strip(".,:;'\"").casefold() for t in PAREN_RE.sub(" ", name).split()]
    return [t for t in tokens if t and t not in HONORIFICS]


def first_name_match(tokens: list[str], host_tokens: list[str]) -> bool:
    """ "Alex" matches "Alex Rivera", "Maya Chen" matches "Maya", "Alex R." matches "Alex Rivera"."""
    if not tokens or not host_tokens or tokens[0] != host_tokens[0]:
        return False
    if len(tokens) == 1 or len(host_tokens) == 1:
        return True
    if len(tokens) > len(host_tokens):
        return False
    return all(host_tokens[i].startswith(t) for i, t in enumerate(tokens[1:], 1))
