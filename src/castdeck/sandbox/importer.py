"""Import of finished script text (spec 4.2 "Import behavior" and finished-script Video mode).

``parse_script_text`` splits text with bracketed speaker labels into segments and removes clearly
unspoken lines (headings, titles, production notes, music/visual/duration directions, time codes,
separators) while keeping narration, inline delivery tags such as ``(laughs)`` or ``[whispers]``
and uncertain lines. ``resolve_labels`` maps labels to hosts (explicit assignments first, then
names), and ``cut_to_words`` shortens text longer than the plan's maximum episode length.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "DELIVERY_TAGS",
    "DIRECTION_WORDS",
    "ImportedSegment",
    "ParsedImport",
    "cut_to_words",
    "is_direction_label",
    "parse_script_text",
    "resolve_labels",
]


@dataclass(frozen=True)
class ImportedSegment:
    label: str
    text: str


@dataclass(frozen=True)
class ParsedImport:
    segments: list[ImportedSegment]
    dropped_lines: list[str]
    labels: list[str]  # first-appearance order, original spelling of the first appearance


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that make a bracketed or parenthesized line a production direction, not a speaker.
DIRECTION_WORDS = _word_set(
    """music musical jingle theme sting stinger sfx fx sound sounds soundbite audio intro outro pause
    paused cut cuts fade fades fading faded visual visuals scene transition applause laughter silence
    break ad ads advert advertisement sponsor sponsored sponsorship commercial timecode timestamp
    b-roll broll montage footage graphic graphics caption captions slide screen camera shot angle
    beat bumper cue underscore swell swells ambience ambient crossfade segue interlude"""
)
# Delivery tags kept inside spoken text (also when they open a line, e.g. "[whispers] ...").
DELIVERY_TAGS = _word_set(
    """laughs laughing laugh chuckles chuckling chuckle giggles giggling sighs sighing sigh whispers
    whispering whisper softly quietly loudly excited excitedly sarcastic sarcastically gasps gasp
    groans groan shouts shouting yells cheerfully seriously thoughtfully smiling smiles smirks
    hesitates hesitating emphatically dramatically nervously warmly happily sadly angrily surprised
    curious curiously clears throat coughs cough sniffs pauses inhales exhales breathes deep breath
    mock-serious deadpan teasing playfully laughter-in-voice grins grinning amused"""
)

_TIME_CODE = r"\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?"
_TIME_CODE_LINE_RE = re.compile(
    rf"^[\[(]?\s*{_TIME_CODE}\s*(?:(?:-->|–|—|-|to)\s*{_TIME_CODE}\s*)?[\])]?$", re.IGNORECASE
)
_LABEL_LINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?$")
_LABEL_INLINE_RE = re.compile(r"^\[([^\[\]]{1,200})\]\s*:?\s+(\S.*)$")
_PAREN_LINE_RE = re.compile(r"^\(([^()]{1,300})\)\.?$")
_HEADING_RE = re.compile(r"^#{1,6}(?:\s|$)")
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
_DIRECTION_PREFIX_RE = re.compile(
    r"^(?:visual|visuals|on[\s-]screen|b-?roll|camera|scene|shot|graphic|graphics|lower\s+third|"
    r"cut\s+to|sfx|fx|music|sound|sound\s+effects?|audio|transition|slide|caption|stage\s+direction)"
    r"\s*(?:\d+\s*)?[:\-–—]\s*",
    re.IGNORECASE,
)
_SRT_INDEX_RE = re.compile(r"^\d{1,5}$")


def _words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())


def _is_time_code(text: str) -> bool:
    return bool(_TIME_CODE_LINE_RE.match(text.strip()))


def is_direction_label(content: str) -> bool:
    """True when the content of a bracket or parenthesis is a production direction."""
    inner = content.strip().strip(":").strip()
    if not inner or _is_time_code(inner) or re.fullmatch(r"[\d:.,\s\-–>]+", inner):
        return True
    words = _words_of(inner)
    return any(w in DIRECTION_WORDS for w in words) or bool(_DIRECTION_PREFIX_RE.match(inner + ":"))


def _is_delivery_tag(content: str) -> bool:
    words = _words_of(content)
    return bool(words) and len(words) <= 4 and (words[0] in DELIVERY_TAGS or words[-1] in DELIVERY_TAGS)


def _unwrap(line: str) -> str:
    """Strip markdown emphasis wrapped around a whole line, such as ``**[Alex]**`` or ``*(music)*``."""
    stripped = line.strip()
    for _ in range(3):
        m = re.fullmatch(r"(\*{1,3}|_{1,3})([^*_]|[^*_].*?[^*_])\1", stripped)
        if not m:
            break
        stripped = m.group(2).strip()
    return stripped


def _classify_unspoken(line: str, before_first_label: bool) -> bool:
    """True for clearly unspoken lines (dropped); uncertain lines return False and are kept."""
    if _HEADING_RE.match(line) or _SEPARATOR_RE.match(line):
        return True
    if _is_time_code(line) or ("-->" in line and re.search(_TIME_CODE, line)):
        return True
    if before_first_label and (_TITLE_LINE_RE.match(line) or _SRT_INDEX_RE.match(line)):
        return True
    if _NOTE_LINE_RE.match(line):
        return True
    if _DURATION_LINE_RE.match(line) and re.search(r"\d|minute|hour|second", line, re.IGNORECASE):
        return True
    if _DIRECTION_PREFIX_RE.match(line):
        return True
    m = _PAREN_LINE_RE.match(line)
    if m and is_direction_label(m.group(1)) and not _is_delivery_tag(m.group(1)):
        return True
    m = _LABEL_LINE_RE.match(line)
    return bool(m and is_direction_label(m.group(1)) and not _is_delivery_tag(m.group(1)))


def _label_key(label: str) -> str:
    return " ".join(label.split()).casefold()


def parse_script_text(text: str) -> ParsedImport:
    """Split ``text`` into labelled segments; see the module docstring for the rules.

    A label is ``[Label]`` alone on its line (optional trailing colon) or ``[Label] text`` /
    ``[Label]: text`` opening a line. Bracketed directions such as ``[MUSIC]`` or ``[Music fades]``
    and delivery tags such as ``[whispers]`` are never labels. Lines of one segment are joined with
    spaces; blank lines start a new paragraph (``"\\n\\n"``) within the same segment. Text before the
    first label has no speaker and is reported in ``dropped_lines``; with no labels at all there are
    no segments. Segment labels use the spelling of the label's first appearance, so labels that
    differ only in case or spacing are one speaker. Labels whose segments are all empty are left out.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    segments: list[ImportedSegment] = []
    dropped: list[str] = []
    canonical: dict[str, str] = {}
    current: str | None = None
    paragraphs: list[list[str]] = [[]]

    def flush() -> None:
        if current is None:
            return
        body = "\n\n".join(" ".join(p) for p in paragraphs if p).strip()
        if body:
            segments.append(ImportedSegment(label=current, text=body))

    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        unwrapped = _unwrap(line)
        label: str | None = None
        spoken: str | None = unwrapped
        m_line = _LABEL_LINE_RE.match(unwrapped)
        m_inline = None if m_line else _LABEL_INLINE_RE.match(unwrapped)
        if _classify_unspoken(unwrapped, current is None):
            dropped.append(raw.strip())
            continue
        if m_line and not _is_delivery_tag(m_line.group(1)):
            label = m_line.group(1).strip()
            spoken = None
        elif m_inline:
            content = m_inline.group(1)
            if _is_delivery_tag(content):
                spoken = unwrapped
            elif is_direction_label(content):
                spoken = m_inline.group(2).strip()  # keep the words, lose the direction
            else:
                label = content.strip()
                spoken = m_inline.group(2).strip()
        if label is not None:
            label = " ".join(label.split()).strip(":").strip()
        if label:
            flush()
            current = canonical.setdefault(_label_key(label), label)
            paragraphs = [[]]
        if spoken:
            if current is None:
                dropped.append(raw.strip())
            else:
                paragraphs[-1].append(spoken)
    flush()
    labels = list(dict.fromkeys(s.label for s in segments))
    return ParsedImport(segments=segments, dropped_lines=dropped, labels=labels)


_HONORIFICS = {"dr", "prof", "professor", "mr", "mrs", "ms", "mx", "miss", "sir", "dame", "rev"}


def _name_tokens(name: str) -> list[str]:
    name = re.sub(r"\([^)]*\)", " ", name)  # "Alex (host)" -> "Alex"
    tokens = [t.strip(".,:;'\"").casefold() for t in name.split()]
    return [t for t in tokens if t and t not in _HONORIFICS]


def _first_name_match(tokens: list[str], host_tokens: list[str]) -> bool:
    """ "Alex" matches "Alex Rivera", "Maya Chen" matches "Maya", "Alex R." matches "Alex Rivera"."""
    if not tokens or not host_tokens or tokens[0] != host_tokens[0]:
        return False
    if len(tokens) == 1 or len(host_tokens) == 1:
        return True
    if len(tokens) > len(host_tokens):
        return False
    return all(host_tokens[i].startswith(t) for i, t in enumerate(tokens[1:], 1))


def resolve_labels(
    labels: list[str], hosts: list[tuple[str, str]], assignments: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Map script labels to host IDs.

    ``hosts`` is ``[(host_id, name)]``; ``assignments`` maps label to host ID (from
    ``speaker_characters``) and overrides name matching; labels compare case-insensitively with
    whitespace trimmed and collapsed. Otherwise a label matches a host by full name
    (case-insensitive, honorifics and parenthesized notes ignored), then by a unique first-name
    match. Returns ``(label -> host_id, unresolved labels in order)``.
    """
    assigned = {_label_key(k): v for k, v in assignments.items()}
    resolved: dict[str, str] = {}
    unresolved: list[str] = []
    for label in labels:
        key = _label_key(label)
        if key in assigned:
            resolved[label] = assigned[key]
            continue
        exact = [hid for hid, name in hosts if _label_key(name) == key]
        if not exact:
            tokens = _name_tokens(label)
            exact = [hid for hid, name in hosts if tokens and _name_tokens(name) == tokens]
        if exact:
            resolved[label] = exact[0]
            continue
        tokens = _name_tokens(label)
        candidates: list[str] = []
        if tokens:
            for hid, name in hosts:
                host_tokens = _name_tokens(name)
                if _first_name_match(tokens, host_tokens):
                    candidates.append(hid)
        if len(set(candidates)) == 1:
            resolved[label] = candidates[0]
        else:
            unresolved.append(label)
    return resolved, unresolved


def cut_to_words(segments: list[ImportedSegment], max_words: int) -> list[ImportedSegment]:
    """Keep the first ``max_words`` words: whole segments, then the start of the one that crosses.

    The crossing segment is cut at the last sentence end within the allowance when that keeps at
    least half of the allowed words, otherwise at the word limit (with a closing full stop).
    """
    if max_words <= 0:
        return []
    out: list[ImportedSegment] = []
    remaining = max_words
    for segment in segments:
        words = segment.text.split()
        if len(words) <= remaining:
            out.append(segment)
            remaining -= len(words)
            if remaining == 0:
                break
            continue
        # Cut inside this segment, keeping paragraph breaks of the part that stays.
        kept = _first_words(segment.text, remaining)
        sentence_end = max(kept.rfind(". "), kept.rfind("! "), kept.rfind("? "), kept.rfind(".\n"))
        if kept[-1:] in ".!?":
            sentence_end = len(kept) - 1
        if sentence_end > 0 and len(kept[: sentence_end + 1].split()) >= remaining / 2:
            kept = kept[: sentence_end + 1]
        else:
            kept = kept.rstrip(",;:-–— ") + "."
        if kept.strip(" ."):
            out.append(ImportedSegment(label=segment.label, text=kept.strip()))
        break
    return out


def _first_words(text: str, n: int) -> str:
    for count, m in enumerate(re.finditer(r"\S+", text), 1):
        if count == n:
            return text[: m.end()]
    return text
