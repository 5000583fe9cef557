"""Prompt analysis for the script writer: the requested length, the title and the key phrases.

``minutes_from_prompt`` reads a duration phrase ("a 12-minute episode", "half an hour");
``title_from_prompt`` derives a short title from the prompt's topic; ``key_phrases`` gives the
topic and the phrases (from the prompt, then the attached sources) the chapters are about.
"""

from __future__ import annotations

import re
from collections import Counter

from .writer_model import SourceText
from .writer_text import CONTROL_RE, SPACE_RE, clean_spoken_text, source_title, title_case

__all__ = ["key_phrases", "minutes_from_prompt", "title_from_prompt"]

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUM_WORD_ALT = "|".join(sorted((w for w in _NUMBER_WORDS if w not in ("a", "an")), key=len, reverse=True))
_NUM = (
    rf"(?:\d+(?:[.,]\d+)?|(?:{'|'.join(_TENS)})[\s-]+(?:one|two|three|four|five|six|seven|eight|nine)"
    rf"|{_NUM_WORD_ALT}|an?)"
)
_UNIT = r"(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)"
_RANGE_RE = re.compile(rf"\b({_NUM})\s*(?:-|–|—|to|or|and)\s*({_NUM})[\s-]*({_UNIT})\b", re.IGNORECASE)
_SINGLE_RE = re.compile(rf"\b({_NUM})[\s-]*(and[\s-]a[\s-]half[\s-]*)?({_UNIT})\b", re.IGNORECASE)
_HALF_HOUR_RE = re.compile(r"\bhalf(?:[\s-]an)?[\s-]hour\b", re.IGNORECASE)
_QUARTER_RE = re.compile(r"\b(three[\s-])?quarters?[\s-](?:of[\s-]an[\s-])?hour\b", re.IGNORECASE)
_HOUR_AND_HALF_RE = re.compile(r"\b(?:an?|one)[\s-]hour[\s-]and[\s-]a[\s-]half\b", re.IGNORECASE)
_FEW_RE = re.compile(r"\ba\s+(couple(?:\s+of)?|few)\s+minutes\b", re.IGNORECASE)


def _parse_number(text: str) -> float | None:
    t = text.strip().lower()
    if re.fullmatch(r"\d+(?:[.,]\d+)?", t):
        return float(t.replace(",", "."))
    parts = re.split(r"[\s-]+", t)
    total = 0
    for part in parts:
        if part not in _NUMBER_WORDS:
            return None
        total += _NUMBER_WORDS[part]
    return float(total)


def _unit_minutes(unit: str) -> float:
    u = unit.lower()
    if u.startswith("h"):
        return 60.0
    if u.startswith("s"):
        return 1.0 / 60.0
    return 1.0


def _duration_matches(prompt: str) -> list[tuple[int, int, float]]:
    """Every duration phrase in ``prompt`` as (start, end, minutes), in order of appearance."""
    found: list[tuple[int, int, float]] = []

    def add(start: int, end: int, minutes: float) -> None:
        if any(s < end and start < e for s, e, _ in found):
            return
        found.append((start, end, minutes))

    for m in _HOUR_AND_HALF_RE.finditer(prompt):
        add(m.start(), m.end(), 90.0)
    for m in _HALF_HOUR_RE.finditer(prompt):
        add(m.start(), m.end(), 30.0)
    for m in _QUARTER_RE.finditer(prompt):
        add(m.start(), m.end(), 45.0 if m.group(1) else 15.0)
    for m in _FEW_RE.finditer(prompt):
        add(m.start(), m.end(), 2.0 if m.group(1).lower().startswith("couple") else 3.0)
    for m in _RANGE_RE.finditer(prompt):
        a, b = _parse_number(m.group(1)), _parse_number(m.group(2))
        if m.group(1).lower() in _TENS and _parse_number(f"{m.group(1)} {m.group(2)}") is not None:
            continue  # "twenty-five minutes" is one number, not a range
        if a is not None and b is not None:
            add(m.start(), m.end(), (a + b) / 2 * _unit_minutes(m.group(3)))
    for m in _SINGLE_RE.finditer(prompt):
        n = _parse_number(m.group(1))
        if n is not None:
            if m.group(2):
                n += 0.5
            add(m.start(), m.end(), n * _unit_minutes(m.group(3)))
    found.sort()
    return found


def minutes_from_prompt(prompt: str) -> float | None:
    """The duration requested in the prompt, in minutes, or None when it names none.

    Understands "a 12-minute episode", "about 5 minutes long", "half an hour", "an hour and a
    half", "90 seconds", "5 to 7 minutes" (the midpoint) and spelled-out numbers. The value is
    not clamped; the caller applies the 1..75 limit and the default of 7.
    """
    text = CONTROL_RE.sub(" ", prompt)
    for _start, _end, minutes in _duration_matches(text):
        if minutes > 0:
            return round(minutes, 3)
    return None


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP = _word_set(
    """a an the and or but if then so of to in on at by for with from into onto about over under as is
    are was were be been being it its this that these those there their they them we us our you your
    i me my he she his her him what which who whom whose how why when where will would should could
    can may might must shall do does did done make makes made create write generate produce record
    give get please episode episodes podcast podcasts show video videos short shorts talk talks
    discuss discussing cover covering explain explaining explore exploring focus focusing include
    including mention want need like just also very really some any each every all more most much
    many long length minute minutes min mins hour hours second seconds duration keep around roughly
    approximately sandbox conversation script hosts host listeners audience tone style format using
    use both between across through than not no yes one two three four five ten new kind sort has have
    had said says such other only well while after before during within without because since until
    however although though often still even first last large high low mainly widely used relatively
    traditionally yet been being into per via etc among"""
)
_LEAD_RE = re.compile(
    r"^\s*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:(?:i|we)\s+(?:want|need|would\s+like)\s+"
    r"(?:you\s+to\s+)?)?(?:create|make|write|generate|produce|record|give\s+me|draft|put\s+together)?"
    r"\s*(?:me\s+|us\s+)?(?:a|an|the)?\s*(?:short|long|brief|quick|fun|lively|casual|deep|"
    r"in-depth|friendly|engaging|informative|\s)*(?:podcast\s+episode|podcast|episode|show|video|"
    r"short|explainer|conversation|discussion|narration|monologue|segment)?\s*",
    re.IGNORECASE,
)
_TOPIC_RE = re.compile(
    r"\b(?:about|covering|exploring|explaining|discussing|regarding|on\s+the\s+topic\s+of|on)\s*:?\s+(.+)",
    re.IGNORECASE,
)
_TOPIC_CUT_RE = re.compile(
    r"[.;:!?()\n]|,|\s(?:with|using|that|which|where|in\s+a|in\s+the\s+style|keep|make\s+it|"
    r"aimed|targeted|and\s+keep|and\s+make|so\s+that|please)\s",
    re.IGNORECASE,
)


_TOPIC_LIST_RE = re.compile(r"^((?:[\w'-]+(?:\s[\w'-]+){0,2},\s+)+[\w'-]+(?:\s[\w'-]+){0,3})")


def _strip_prompt(prompt: str) -> str:
    text = CONTROL_RE.sub(" ", prompt)
    for start, end, _m in reversed(_duration_matches(text)):
        text = text[:start] + " " + text[end:]
    text = re.sub(r"\b(?:long|in\s+length)\b(?=\s*[,.;]|\s*$)", " ", text, flags=re.IGNORECASE)
    text = clean_spoken_text(text)
    text = re.sub(r"\b(?:about|around|roughly|approximately)\s+(?=[,.;]|$)", "", text, flags=re.IGNORECASE)
    return SPACE_RE.sub(" ", text).strip()


def _trim_phrase(words: list[str]) -> list[str]:
    while words and words[0].lower().strip("'\"") in _STOP:
        words = words[1:]
    while words and words[-1].lower().strip("'\"") in _STOP:
        words = words[:-1]
    return words


def _topic(prompt: str) -> str:
    text = _strip_prompt(prompt)
    if not text:
        return ""
    m = _TOPIC_RE.search(text)
    candidate = m.group(1) if m else _LEAD_RE.sub("", text, count=1)
    listed = _TOPIC_LIST_RE.match(candidate)
    candidate = listed.group(1) if listed else _TOPIC_CUT_RE.split(candidate, maxsplit=1)[0]
    words = [w.strip("\"'") for w in candidate.strip(" .,;:!?").split()]
    words = [w for w in words if w]
    while words and words[0].lower() in _STOP and words[0].lower() not in ("how", "why", "what"):
        words = words[1:]
    while words and words[-1].lower() in _STOP:
        words = words[:-1]
    if len(words) > 9:
        words = _trim_phrase(words[:9])
    if not words:
        words = _trim_phrase(text.split()[:6])
    return " ".join(words)


def title_from_prompt(prompt: str) -> str:
    """A short title for the script, derived from the prompt's topic."""
    topic = _topic(prompt)
    if not topic:
        return "Untitled Episode"
    title = title_case(topic.strip(" .,;:!?-–—'\""))
    if len(title) > 100:
        title = title[:100].rsplit(" ", 1)[0][:100]
    return title or "Untitled Episode"


def _prompt_phrases(prompt: str) -> list[str]:
    text = _strip_prompt(prompt)
    chunks = re.split(
        r"[.,;:!?()\n]|\s(?:and|or|including|such\s+as|like|with|then|also|plus|versus|vs)\s",
        text,
        flags=re.IGNORECASE,
    )
    out: list[str] = []
    for chunk in chunks:
        chunk = _LEAD_RE.sub("", chunk.strip(), count=1)
        words = _trim_phrase([w.strip("\"'") for w in chunk.split() if w.strip("\"'")])
        if not 1 <= len(words) <= 6:
            continue
        if not any(len(w) >= 3 and w.lower() not in _STOP for w in words):
            continue
        out.append(" ".join(words))
    return out


def _source_phrases(sources: list[SourceText], limit: int = 5) -> list[str]:
    bigrams: Counter[str] = Counter()
    unigrams: Counter[str] = Counter()
    for source in sources:
        tokens = [t.lower() for t in re.findall(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'-]+", source.text)]
        for i, token in enumerate(tokens):
            if token in _STOP or len(token) < 3:
                continue
            unigrams[token] += 1
            if i + 1 < len(tokens):
                nxt = tokens[i + 1]
                if nxt not in _STOP and len(nxt) >= 3:
                    bigrams[f"{token} {nxt}"] += 1
    phrases = [p for p, n in bigrams.most_common(limit * 2) if n >= 2][:limit]
    if len(phrases) < 2:
        singles = [p for p, n in unigrams.most_common(limit) if n >= 3 and len(p) >= 5]
        phrases += singles[: limit - len(phrases)]
    return phrases


def key_phrases(prompt: str, sources: list[SourceText]) -> tuple[str, list[str]]:
    topic = _topic(prompt)
    candidates = ([topic] if topic else []) + _prompt_phrases(prompt) + _source_phrases(sources)
    out: list[str] = []
    for phrase in candidates:
        key = phrase.lower()
        if len(phrase) > 80 or any(key in o.lower() or o.lower() in key for o in out):
            continue
        out.append(phrase)
    if topic and len(out) < 3:
        # Few phrases: split the topic into its leading and trailing content words.
        content = [w for w in topic.split() if w.lower() not in _STOP and len(w) >= 4]
        if len(content) >= 2:
            tail = " ".join(content[-2:])
            tail = tail if tail.lower() in topic.lower() else content[-1]
            out += [p for p in (content[0], tail) if p.lower() not in (o.lower() for o in out)]
    if not topic:
        titled = [source_title(s.title) for s in sources if source_title(s.title)]
        topic = out[0] if out else (titled[0] if titled else "today's topic")
        if not out:
            out.append(topic)
    return topic, out[:10]
