"""Speakable text for the script writer: cleaning, casing and the quotable sentences of a source.

``clean_spoken_text`` reduces any text to speakable plain text (no control phrases such as
``[sandbox:fail]``, no markup, URLs or brackets); the rest gives a source a speakable title and
picks the complete, plain sentences the writer may quote from it.
"""

from __future__ import annotations

import re
import urllib.parse

__all__ = [
    "CONTROL_RE",
    "SPACE_RE",
    "capitalized",
    "clean_spoken_text",
    "count_words",
    "source_sentences",
    "source_title",
    "title_case",
]

CONTROL_RE = re.compile(r"\[\s*sandbox\s*:[^\]]*\]|\bsandbox:[\w.:-]+", re.IGNORECASE)
_URL_RE = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_BRACKET_RE = re.compile(r"\[[^\]]{0,200}\]")
_ENTITY_RE = re.compile(r"&(?:nbsp|amp|quot|apos|lt|gt|#\d+);")
_UNSPEAKABLE_RE = re.compile(r"[*#_`|<>{}\[\]~^=\\]")
SPACE_RE = re.compile(r"\s+")


def clean_spoken_text(text: str) -> str:
    """Reduce ``text`` to speakable plain text: no control phrases, markup, URLs or brackets."""
    text = CONTROL_RE.sub(" ", text)
    text = _URL_RE.sub(" ", text)
    text = _TAG_RE.sub(" ", text)
    text = _ENTITY_RE.sub(
        lambda m: {"&amp;": " and ", "&quot;": '"', "&apos;": "'"}.get(m.group(0), " "), text
    )
    text = _BRACKET_RE.sub(" ", text)
    text = text.replace("&", " and ")
    text = _UNSPEAKABLE_RE.sub(" ", text)
    text = SPACE_RE.sub(" ", text).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"\(\s*\)", "", text)
    return SPACE_RE.sub(" ", text).strip()


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def count_words(text: str) -> int:
    return len(text.split())


_SMALL_WORDS = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "vs"}


def title_case(text: str) -> str:
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


def source_title(raw: str) -> str:
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


def source_sentences(text: str) -> list[str]:
    """Quotable sentences of a source text: complete, plain, 6 to 40 words."""
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", text)
    out: list[str] = []
    seen: set[str] = set()
    for paragraph in paragraphs:
        cleaned = clean_spoken_text(re.sub(r"^\s*(?:#+|[-*•]|\d+[.)])\s+", "", paragraph, flags=re.M))
        for sentence in _SENTENCE_SPLIT_RE.split(cleaned):
            sentence = sentence.strip()
            n = count_words(sentence)
            if not 6 <= n <= 40 or sentence[-1:] not in ".!?":
                continue
            alpha = sum(1 for w in sentence.split() if re.search(r"[A-Za-zÀ-ÿ]", w))
            if alpha < 0.7 * n:
                continue
            key = sentence.lower()
            if key not in seen:
                seen.add(key)
                out.append(capitalized(sentence))
    if not out:
        # No complete sentences: fall back to plain word runs so the source still contributes.
        words = clean_spoken_text(text).split()
        for start in range(0, min(len(words), 400), 18):
            chunk = words[start : start + 18]
            if len(chunk) >= 6:
                out.append(capitalized(" ".join(chunk).rstrip(",;:") + "."))
    return out
