"""Script writer of the sandbox: turns a prompt and attached sources into a spoken script.

Prompt-mode generation is real work, not a timer: the writer builds a multi-host conversation
(or a monologue for one speaker) from the prompt's key phrases and sentences quoted from the
attached sources, with an intro, several chapters and an outro, sized at about
``WORDS_PER_MINUTE`` words per minute of requested length (within a few percent).

Everything here is pure and deterministic for a given ``seed``; output is speakable plain text
(no markup, no control phrases such as ``[sandbox:fail]``).
"""

from __future__ import annotations

import random
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field

__all__ = [
    "WORDS_PER_MINUTE",
    "Line",
    "SourceText",
    "Speaker",
    "WrittenChapter",
    "WrittenScript",
    "clean_spoken_text",
    "minutes_from_prompt",
    "title_from_prompt",
    "write_episode",
    "write_video",
]

WORDS_PER_MINUTE = 150


@dataclass(frozen=True)
class SourceText:
    """Extracted text of an attached source (``text`` may be empty)."""

    title: str
    text: str


@dataclass(frozen=True)
class Speaker:
    host_id: str
    name: str
    title: str | None = None


@dataclass(frozen=True)
class Line:
    """One spoken turn; ``speaker`` is an index into the speakers passed to the writer."""

    speaker: int
    text: str


@dataclass(frozen=True)
class WrittenChapter:
    title: str
    lines: list[Line]


@dataclass(frozen=True)
class WrittenScript:
    title: str
    description: str
    chapters: list[WrittenChapter]

    def word_count(self) -> int:
        return sum(len(line.text.split()) for chapter in self.chapters for line in chapter.lines)


# --------------------------------------------------------------------------------------------
# Text cleaning
# --------------------------------------------------------------------------------------------

_CONTROL_RE = re.compile(r"\[\s*sandbox\s*:[^\]]*\]|\bsandbox:[\w.:-]+", re.IGNORECASE)
_URL_RE = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_BRACKET_RE = re.compile(r"\[[^\]]{0,200}\]")
_ENTITY_RE = re.compile(r"&(?:nbsp|amp|quot|apos|lt|gt|#\d+);")
_UNSPEAKABLE_RE = re.compile(r"[*#_`|<>{}\[\]~^=\\]")
_SPACE_RE = re.compile(r"\s+")


def clean_spoken_text(text: str) -> str:
    """Reduce ``text`` to speakable plain text: no control phrases, markup, URLs or brackets."""
    text = _CONTROL_RE.sub(" ", text)
    text = _URL_RE.sub(" ", text)
    text = _TAG_RE.sub(" ", text)
    text = _ENTITY_RE.sub(
        lambda m: {"&amp;": " and ", "&quot;": '"', "&apos;": "'"}.get(m.group(0), " "), text
    )
    text = _BRACKET_RE.sub(" ", text)
    text = text.replace("&", " and ")
    text = _UNSPEAKABLE_RE.sub(" ", text)
    text = _SPACE_RE.sub(" ", text).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    return _SPACE_RE.sub(" ", text).strip()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _words(text: str) -> int:
    return len(text.split())


_SMALL_WORDS = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "vs"}


def _title_case(text: str) -> str:
    words = text.split()
    out: list[str] = []
    for i, word in enumerate(words):
        if word.isupper() and len(word) > 1:
            out.append(word)
        elif i > 0 and word.lower() in _SMALL_WORDS and not words[i - 1].endswith(":"):
            out.append(word.lower())
        else:
            out.append(word[:1].upper() + word[1:])
    return " ".join(out)


def _source_title(raw: str) -> str:
    """A speakable title for a source; URLs become their last path part or their domain."""
    title = raw.strip()
    if re.match(r"^(?:https?://|www\.)", title, re.IGNORECASE):
        parsed = urllib.parse.urlparse(title if "://" in title else "http://" + title)
        parts = [p for p in parsed.path.split("/") if p]
        if parts:
            last = urllib.parse.unquote(parts[-1])
            last = re.sub(r"\.[a-z0-9]{2,5}$", "", last, flags=re.IGNORECASE)
            title = re.sub(r"[_\-+]+", " ", last)
        else:
            title = (parsed.hostname or "").removeprefix("www.")
    title = clean_spoken_text(title).strip(" .,:;")
    words = title.split()
    if len(words) > 12:
        title = " ".join(words[:12])
    return title


_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(]?[A-Z0-9])")


def _source_sentences(text: str) -> list[str]:
    """Quotable sentences of a source text: complete, plain, 6 to 40 words."""
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", text)
    out: list[str] = []
    seen: set[str] = set()
    for paragraph in paragraphs:
        cleaned = clean_spoken_text(re.sub(r"^\s*(?:#+|[-*•]|\d+[.)])\s+", "", paragraph, flags=re.M))
        for sentence in _SENTENCE_SPLIT_RE.split(cleaned):
            sentence = sentence.strip()
            n = _words(sentence)
            if not 6 <= n <= 40 or sentence[-1:] not in ".!?":
                continue
            alpha = sum(1 for w in sentence.split() if re.search(r"[A-Za-zÀ-ÿ]", w))
            if alpha < 0.7 * n:
                continue
            key = sentence.lower()
            if key not in seen:
                seen.add(key)
                out.append(_cap(sentence))
    if not out:
        # No complete sentences: fall back to plain word runs so the source still contributes.
        words = clean_spoken_text(text).split()
        for start in range(0, min(len(words), 400), 18):
            chunk = words[start : start + 18]
            if len(chunk) >= 6:
                out.append(_cap(" ".join(chunk).rstrip(",;:") + "."))
    return out


# --------------------------------------------------------------------------------------------
# Prompt analysis
# --------------------------------------------------------------------------------------------

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
    text = _CONTROL_RE.sub(" ", prompt)
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
    text = _CONTROL_RE.sub(" ", prompt)
    for start, end, _m in reversed(_duration_matches(text)):
        text = text[:start] + " " + text[end:]
    text = re.sub(r"\b(?:long|in\s+length)\b(?=\s*[,.;]|\s*$)", " ", text, flags=re.IGNORECASE)
    text = clean_spoken_text(text)
    text = re.sub(r"\b(?:about|around|roughly|approximately)\s+(?=[,.;]|$)", "", text, flags=re.IGNORECASE)
    return _SPACE_RE.sub(" ", text).strip()


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
    title = _title_case(topic.strip(" .,;:!?-–—'\""))
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


def _key_phrases(prompt: str, sources: list[SourceText]) -> tuple[str, list[str]]:
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
        titled = [_source_title(s.title) for s in sources if _source_title(s.title)]
        topic = out[0] if out else (titled[0] if titled else "today's topic")
        if not out:
            out.append(topic)
    return topic, out[:10]


# --------------------------------------------------------------------------------------------
# Templates
# --------------------------------------------------------------------------------------------

_ELABORATIONS = [
    "When it comes to {P}, the details matter more than the headlines.",
    "What I find striking about {P} is how many small decisions add up to the big picture.",
    "The honest answer is that {P} depends a lot on context.",
    "People often talk about {P} as if it were settled, but there is still plenty of debate.",
    "If you only remember one thing about {P}, remember that the trade-offs are real.",
    "There is a practical side to {P} that rarely makes it into the news.",
    "It also connects to {P2}, which is easy to overlook.",
    "You can't really understand {P} without looking at {P2} as well.",
    "The numbers are only half the story when we talk about {P}.",
    "I think the most useful question to ask about {P} is who benefits and who pays.",
    "A lot of the early assumptions about {P} have not aged very well.",
    "For anyone new to this, the key idea behind {P} is simpler than it sounds.",
    "It is worth slowing down here, because {P} has a few moving parts.",
    "In practice, {P} looks very different from one place to the next.",
    "The people closest to {P} usually describe it in much more down to earth terms.",
    "That tension between ambition and reality runs right through {P}.",
    "The timeline matters too, because progress on {P} rarely happens in a straight line.",
    "Some of the most interesting work on {P} is happening at a surprisingly small scale.",
    "It's a good reminder that {P} is as much about people as it is about ideas.",
    "There is a lesson in {P} about patience.",
    "Looking back, the turning points for {P} were often quiet ones.",
    "I would love to see more open discussion of {P2} alongside it.",
    "The risk is that we treat {P} as a slogan instead of a subject.",
    "Every time I read more about {P}, I find another layer to it.",
    "The surprising part is how often {P} comes down to ordinary choices.",
    "Context is everything here, and {P2} is a big part of that context.",
    "Nobody has all the answers on {P}, and that is fine.",
    "Think of {P} less as a single thing and more as a set of related questions.",
    "It's the kind of subject where a little curiosity goes a long way.",
    "And the costs of getting {P} wrong tend to show up years later.",
    "What changes the picture is when you compare {P} with {P2}.",
    "Most of the disagreement about {P} is really disagreement about priorities.",
]
_QUESTIONS = [
    "{N}, what stood out to you about {P}?",
    "{N}, how would you explain {P} to someone hearing about it for the first time?",
    "So {N}, where do people get {P} wrong?",
    "{N}, what's your take on {P}?",
    "What do you make of that, {N}?",
    "{N}, is there a detail about {P} that surprised you?",
    "{N}, why does {P} matter right now?",
    "How does {P2} fit into this, {N}?",
    "{N}, what would you tell a skeptic about {P}?",
    "And {N}, what should people keep an eye on when it comes to {P}?",
    "{N}, can you give us a concrete example?",
    "{N}, where do you land on {P}?",
]
_OPENERS = [
    "Good question.",
    "Sure.",
    "I think about this a lot.",
    "Great question, {N}.",
    "That's a big one.",
    "Oh, I love this part.",
    "Let me take that one step at a time.",
    "Right, so here's how I see it.",
    "Honestly, it's more interesting than it looks.",
    "Happy to.",
]
_REACTIONS = [
    "That's a really useful way to put it.",
    "Right, exactly.",
    "I hadn't thought about it that way, {N}.",
    "Interesting.",
    "That makes a lot of sense.",
    "Yes, and I think that's the crux of it.",
    "Fair point.",
    "Hmm, that's a good point, {N}.",
    "I love that example.",
    "That surprised me too.",
    "Mm, that's well said.",
    "Okay, that helps.",
]
_BUILDS = [
    "Building on that, I'd add one thing.",
    "Can I jump in here, {N}?",
    "If I can add something, {N}.",
    "I want to pick up on what {N} just said.",
    "Let me add a slightly different angle.",
]
_PUSHBACKS = [
    "I'd push back a little on that, {N}.",
    "I'm not completely sure I agree, {N}.",
    "Let me play devil's advocate for a second.",
]
_CONCEDES = [
    "Fair enough.",
    "That's a reasonable challenge.",
    "Okay, I'll give you that.",
    "You might be right there.",
]
_SOURCE_FRAMES = [
    "{T} makes a point I keep coming back to: {S}",
    "Here's a line from {T}. {S}",
    "{T} puts it like this. {S}",
    "{S} That comes straight from {T}.",
    "There's a passage in {T} that sums it up. {S}",
    "One detail from {T} really stuck with me. {S}",
    "If you read {T}, you'll find this: {S}",
    "{T} says it plainly. {S}",
]
_SOURCE_REFRAMES = [
    "Going back to {T} for a moment. {S}",
    "It's worth repeating what {T} said. {S}",
    "Remember the point from {T}? {S}",
]
_CHAPTER_OPENERS = [
    "Let's talk about {P}.",
    "Which brings us to {P}.",
    "Next up: {P}.",
    "Now I want to get into {P}.",
    "Let's turn to {P}.",
    "So, on to {P}.",
]
_MONO_TRANSITIONS = [
    "Let's look at this from another angle.",
    "Here's another piece of the puzzle.",
    "Now, consider this.",
    "It helps to pause here for a moment.",
    "Here's a detail worth knowing.",
    "This is where it gets interesting.",
]
_CHAPTER_TITLES = [
    "{P}",
    "{P}: The Basics",
    "{P} in Practice",
    "{P}: What the Sources Say",
    "{P}: Open Questions",
    "Looking Ahead: {P}",
    "{P}, Up Close",
]


class _Deck:
    """Deals items in shuffled rounds so templates do not repeat back to back."""

    def __init__(self, items: list[str], rng: random.Random) -> None:
        self._items = list(items)
        self._rng = rng
        self._pool: list[str] = []

    def draw(self) -> str:
        if not self._pool:
            self._pool = list(self._items)
            self._rng.shuffle(self._pool)
        return self._pool.pop()


@dataclass
class _DraftLine:
    speaker: int
    sentences: list[str]
    removable: bool = True


@dataclass
class _DraftChapter:
    title: str
    kind: str  # "intro", "body" or "outro"
    lines: list[_DraftLine] = field(default_factory=list)

    def words(self) -> int:
        return sum(_words(s) for line in self.lines for s in line.sentences)


def _join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _first_name(name: str) -> str:
    parts = [p for p in name.split() if p.lower().rstrip(".") not in ("dr", "prof", "mr", "mrs", "ms", "mx")]
    return (parts or name.split() or ["friend"])[0]


class _Composer:
    def __init__(
        self,
        prompt: str,
        speakers: list[Speaker],
        sources: list[SourceText],
        target_words: int,
        seed: int,
        video: bool,
    ) -> None:
        self.rng = random.Random(f"castdeck-writer:{seed}:{video}:{prompt}")
        self.video = video
        self.speakers = speakers or [Speaker(host_id="", name="your host")]
        self.names = [clean_spoken_text(s.name) or f"Host {i + 1}" for i, s in enumerate(self.speakers)]
        self.first = [_first_name(n) for n in self.names]
        self.titles = [clean_spoken_text(s.title or "") for s in self.speakers]
        self.n = len(self.speakers)
        self.target = max(target_words, 20)
        self.topic, self.phrases = _key_phrases(prompt, sources)
        # A prompt with nothing to pick a phrase from (digits, punctuation) still gets a script.
        self.phrases = self.phrases or [self.topic or "this topic"]
        self.topic = self.topic or self.phrases[0]
        self.source_titles = [_source_title(s.title) for s in sources]
        # Quotable material, interleaved across sources so every source is heard early.
        per_source = [_source_sentences(s.text) for s in sources]
        self.quotes: list[tuple[str, str]] = []
        for i in range(max((len(q) for q in per_source), default=0)):
            for title, sentences in zip(self.source_titles, per_source, strict=True):
                if i < len(sentences):
                    self.quotes.append((title or "one of our sources", sentences[i]))
        self.quote_pos = 0
        # The first quote of each source survives trimming (within 40% of the length), so sources are heard.
        self.protected: set[str] = set()
        self.sources_quoted = sum(1 for q in per_source if q)
        self.decks = {
            name: _Deck(items, self.rng)
            for name, items in (
                ("elab", _ELABORATIONS),
                ("question", _QUESTIONS),
                ("opener", _OPENERS),
                ("reaction", _REACTIONS),
                ("build", _BUILDS),
                ("push", _PUSHBACKS),
                ("concede", _CONCEDES),
                ("frame", _SOURCE_FRAMES),
                ("reframe", _SOURCE_REFRAMES),
                ("chopen", _CHAPTER_OPENERS),
                ("mono", _MONO_TRANSITIONS),
                ("chtitle", [t for t in _CHAPTER_TITLES if self.quotes or "Sources" not in t]),
            )
        }
        self.beat_no = 0

    # -- sentence makers ------------------------------------------------------------------

    def _fill(self, template: str, phrase: str, name: str = "") -> str:
        others = [p for p in self.phrases if p.lower() != phrase.lower()] or [self.topic]
        text = template.format(P=phrase, P2=self.rng.choice(others), N=name)
        return _cap(text)

    def elaboration(self, phrase: str) -> str:
        return self._fill(self.decks["elab"].draw(), phrase)

    def content(self, phrase: str) -> list[str]:
        """One or two sentences of substance: a source quote when available, else an elaboration."""
        if self.quotes:
            first_pass = self.quote_pos < len(self.quotes)
            if first_pass or self.beat_no % 3 == 0:
                title, sentence = self.quotes[self.quote_pos % len(self.quotes)]
                self.quote_pos += 1
                frame = self.decks["frame" if first_pass else "reframe"].draw()
                quoted = _cap(frame.format(T=title, S=sentence))
                kept = sum(_words(q) for q in self.protected) + _words(quoted)
                if self.quote_pos <= self.sources_quoted and kept <= 0.4 * self.target:
                    self.protected.add(quoted)
                return [quoted]
        return [self.elaboration(phrase)]

    # -- structure --------------------------------------------------------------------------

    def intro(self, budget: int, plan: list[str]) -> _DraftChapter:
        chapter = _DraftChapter(title="Introduction" if not self.video else "Welcome", kind="intro")
        lead: list[str] = []
        if self.video:
            lead.append(f"Hi, I'm {self.names[0]}.")
            lead.append(f"In this video, we're looking at {self.topic}.")
        elif self.n == 1:
            lead.append(f"Hello and welcome. I'm {self.names[0]}, and this is a closer look at {self.topic}.")
        else:
            lead.append(
                f"Hello and welcome. I'm {self.names[0]}, and today we're talking about {self.topic}."
            )
        if self.n >= 2:
            guests = [
                f"{self.names[i]}, {self.titles[i].lower() if self.titles[i] else ''}".rstrip(", ")
                for i in range(1, self.n)
            ]
            verb = "is" if self.n == 2 else "are"
            lead.append(f"With me today {verb} {_join_names(guests)}.")
        titled = [t for t in self.source_titles if t]
        if titled:
            shown = titled[:3]
            more = " among others" if len(titled) > 3 else ""
            lead.append(
                f"We've been reading {_join_names(shown)}{more}, so expect a few quotes along the way."
            )
        if len(plan) >= 2:
            lead.append(f"We'll start with {plan[0]}, and work our way to {plan[-1]}.")
        if budget > 90:
            lead.append(self.elaboration(self.topic))
        chapter.lines.append(_DraftLine(0, lead, removable=False))
        hellos = [
            "Thanks, {N}. Great to be here.",
            "Thanks for having me, {N}.",
            "Happy to be here, {N}.",
            "Hi everyone. Thanks, {N}.",
        ]
        for i in range(1, self.n):
            hello = hellos[(i - 1) % len(hellos)].format(N=self.first[0])
            sentences = [hello]
            if budget > 60 * self.n:
                sentences.append(f"I've been looking forward to this one, because {self.topic} matters.")
            chapter.lines.append(_DraftLine(i, sentences, removable=False))
        return chapter

    def outro(self, budget: int, covered: list[str]) -> _DraftChapter:
        chapter = _DraftChapter(title="Wrapping Up" if not self.video else "Summary", kind="outro")
        lead = ["That's about all we have time for today." if not self.video else "So, to sum up."]
        if len(covered) >= 2:
            lead.append(f"We covered {_join_names(covered[:4])}.")
        if budget > 60:
            lead.append(self.elaboration(self.topic))
        chapter.lines.append(_DraftLine(0, lead, removable=False))
        byes = [
            "Thanks, {N}. This was fun.",
            "Thanks for having me.",
            "Thanks, everyone.",
            "Until next time.",
        ]
        for i in range(1, self.n):
            chapter.lines.append(_DraftLine(i, [byes[(i - 1) % len(byes)].format(N=self.first[0])], False))
        closing = "Thanks for watching." if self.video else "Thanks for listening, and see you next time."
        if self.n > 1:
            chapter.lines.append(_DraftLine(0, [closing], removable=False))
        else:
            lead.append(closing)
        return chapter

    def beat(self, phrase: str) -> list[_DraftLine]:
        """One exchange about ``phrase``: a few lines that read like a conversation."""
        self.beat_no += 1
        if self.n == 1:
            sentences = [self.decks["mono"].draw()] if self.beat_no % 2 == 0 else []
            sentences += self.content(phrase)
            sentences.append(self.elaboration(phrase))
            return [_DraftLine(0, sentences)]
        kind = self.rng.random()
        a = (self.beat_no - 1) % self.n
        b = (a + 1 + self.rng.randrange(self.n - 1)) % self.n
        lines: list[_DraftLine] = []
        if kind < 0.6:
            # question, answer, reaction
            q = self._fill(self.decks["question"].draw(), phrase, self.first[b])
            lines.append(_DraftLine(a, [q], removable=False))
            answer = [self._fill(self.decks["opener"].draw(), phrase, self.first[a])]
            answer += self.content(phrase)
            answer.append(self.elaboration(phrase))
            lines.append(_DraftLine(b, answer, removable=False))
            reactor = a
            if self.n >= 3 and self.rng.random() < 0.5:
                reactor = next(i for i in range(self.n) if i not in (a, b))
                lines.append(
                    _DraftLine(
                        reactor,
                        [
                            self._fill(self.decks["build"].draw(), phrase, self.first[b]),
                            self.elaboration(phrase),
                        ],
                    )
                )
            else:
                lines.append(
                    _DraftLine(
                        reactor,
                        [
                            self._fill(self.decks["reaction"].draw(), phrase, self.first[b]),
                            self.elaboration(phrase),
                        ],
                    )
                )
        elif kind < 0.85:
            # statement and build
            lines.append(_DraftLine(a, [*self.content(phrase), self.elaboration(phrase)], removable=False))
            follow = self._fill(self.decks["build"].draw(), phrase, self.first[a])
            lines.append(_DraftLine(b, [follow, self.elaboration(phrase)]))
        else:
            # gentle disagreement
            lines.append(_DraftLine(a, [*self.content(phrase), self.elaboration(phrase)], removable=False))
            follow = self._fill(self.decks["push"].draw(), phrase, self.first[a])
            lines.append(_DraftLine(b, [follow, self.elaboration(phrase)]))
            lines.append(
                _DraftLine(a, [self._fill(self.decks["concede"].draw(), phrase), self.elaboration(phrase)])
            )
        return lines

    def compose(self, n_body: int) -> list[_DraftChapter]:
        focus = [self.phrases[i % len(self.phrases)] for i in range(n_body)]
        if n_body > 1 and len(self.phrases) > 1 and focus[0].lower() == self.topic.lower():
            # start the body on a concrete sub-phrase when there are several
            focus = [self.phrases[(i + 1) % len(self.phrases)] for i in range(n_body)]
        plan = list(dict.fromkeys(focus))
        intro_budget = max(15, min(int(self.target * 0.12), 220))
        outro_budget = max(10, min(int(self.target * 0.07), 150))
        intro = self.intro(intro_budget, plan if self.target > 300 else [])
        outro = self.outro(outro_budget, plan)
        remaining = self.target - intro.words() - outro.words()
        body_budget = max(remaining, 20 * n_body)
        chapters = [intro]
        used_titles: set[str] = set()
        for i, phrase in enumerate(focus):
            title = ""
            for _ in range(len(_CHAPTER_TITLES)):
                title = _title_case(self.decks["chtitle"].draw().format(P=phrase))
                if title.lower() not in used_titles:
                    break
            if title.lower() in used_titles:
                title = f"{title}, Part {i + 1}"
            used_titles.add(title.lower())
            chapter = _DraftChapter(title=title[:200], kind="body")
            opener = self._fill(self.decks["chopen"].draw(), phrase)
            lead = i % self.n if self.n > 1 else 0
            chapter.lines.append(_DraftLine(lead, [opener], removable=False))
            budget = body_budget * (i + 1) // n_body - body_budget * i // n_body
            while chapter.words() < budget:
                for line in self.beat(phrase):
                    chapter.lines.append(line)
            chapters.append(chapter)
        chapters.append(outro)
        return chapters


def _total(chapters: list[_DraftChapter]) -> int:
    return sum(c.words() for c in chapters)


def _fit(chapters: list[_DraftChapter], target: int, protected: frozenset[str] = frozenset()) -> None:
    """Remove sentences or whole lines until the total is as close to ``target`` as it gets.

    ``protected`` sentences (the first quote of each source) are never removed.
    """
    total = _total(chapters)
    while total > target:
        best: tuple[int, int, int, int] | None = None  # (distance, chapter, line, sentence or -1)
        spoken_by: Counter[int] = Counter(line.speaker for c in chapters for line in c.lines)
        for ci, chapter in enumerate(chapters):
            for li, line in enumerate(chapter.lines):
                for si in range(1, len(line.sentences)):
                    if line.sentences[si] in protected:
                        continue
                    dist = abs(total - _words(line.sentences[si]) - target)
                    if best is None or dist < best[0]:
                        best = (dist, ci, li, si)
                if (
                    chapter.kind == "body"
                    and line.removable
                    and len(chapter.lines) > 2
                    and spoken_by[line.speaker] > 1
                    and not protected.intersection(line.sentences)
                ):
                    dist = abs(total - sum(_words(s) for s in line.sentences) - target)
                    if best is None or dist < best[0]:
                        best = (dist, ci, li, -1)
        if best is None or best[0] >= abs(total - target):
            break
        _dist, ci, li, si = best
        if si < 0:
            del chapters[ci].lines[li]
        else:
            del chapters[ci].lines[li].sentences[si]
        total = _total(chapters)


_PADDING = [
    "And that matters.",
    "Keep that in mind.",
    "It's worth thinking about.",
    "That's the key point here.",
    "It's a bigger deal than it sounds.",
    "That part is easy to miss.",
]


def _pad(chapters: list[_DraftChapter], target: int) -> None:
    """Append short sentences to body lines while that brings the total closer to ``target``."""
    body = [c for c in chapters if c.kind == "body" and c.lines] or [c for c in chapters if c.lines]
    total = _total(chapters)
    i = 0
    while total < target and body:
        gap = target - total
        best = min(_PADDING, key=lambda s: abs(gap - _words(s)))
        if abs(gap - _words(best)) >= gap:
            break
        chapter = body[i % len(body)]
        chapter.lines[-1].sentences.append(best)
        total += _words(best)
        i += 1


def _finish(chapters: list[_DraftChapter]) -> list[WrittenChapter]:
    out: list[WrittenChapter] = []
    for chapter in chapters:
        lines: list[Line] = []
        for line in chapter.lines:
            text = clean_spoken_text(" ".join(line.sentences))
            if not text:
                continue
            if lines and lines[-1].speaker == line.speaker:
                lines[-1] = Line(speaker=line.speaker, text=f"{lines[-1].text} {text}")
            else:
                lines.append(Line(speaker=line.speaker, text=text))
        if lines:
            out.append(WrittenChapter(title=clean_spoken_text(chapter.title) or "Chapter", lines=lines))
    return out


def _describe(composer: _Composer, video: bool) -> str:
    names = _join_names(composer.names)
    kind = "video" if video else ("conversation" if composer.n > 1 else "episode")
    text = f"A {kind} with {names} about {composer.topic}."
    titled = [t for t in composer.source_titles if t]
    if titled:
        text += f" Drawing on {_join_names(titled[:5])}."
    extra = [p for p in composer.phrases if p.lower() != composer.topic.lower()][:4]
    if extra:
        text += f" Topics include {_join_names(extra)}."
    return text[:2000]


def _write(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], minutes: float, seed: int, video: bool
) -> WrittenScript:
    minutes = max(float(minutes), 0.1)
    target = max(round(minutes * WORDS_PER_MINUTE), 15)
    composer = _Composer(prompt, speakers, sources, target, seed, video)
    # A video gets a slide about every 45 seconds; an episode a chapter about every 2.5 minutes.
    n_body = max(1, min(14, round(minutes * 60 / 45) - 2)) if video else max(2, min(14, round(minutes / 2.5)))
    chapters = composer.compose(n_body)
    _fit(chapters, target, frozenset(composer.protected))
    _pad(chapters, target)
    title = title_from_prompt(prompt)
    if title == "Untitled Episode" and video:
        title = "Untitled Video"
    return WrittenScript(title=title, description=_describe(composer, video), chapters=_finish(chapters))


def write_episode(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], minutes: float, *, seed: int
) -> WrittenScript:
    """Write a podcast script of about ``minutes * WORDS_PER_MINUTE`` words.

    One speaker gives a monologue; two to four speakers hold a conversation with questions,
    answers and hand-offs by name. Sentences of the sources are quoted with their titles.
    """
    return _write(prompt, speakers, sources, minutes, seed, video=False)


def write_video(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], seconds: int, *, seed: int
) -> WrittenScript:
    """Write narration for a Video or Short of ``seconds``; each chapter becomes one slide."""
    return _write(prompt, speakers, sources, max(seconds, 5) / 60.0, seed, video=True)
