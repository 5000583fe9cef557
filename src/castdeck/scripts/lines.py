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
from dataclasses import dataclass

from castdeck.api.models.import_rules import (
    CHAPTER_RE,
    DELIVERY_TAGS,
    DIRECTION_WORDS,
    LABEL_INLINE_RE,
    LABEL_LINE_RE,
    LONG_LABEL_RE,
    TAG_RE,
    is_delivery_tag,
    is_direction_label,
    label_key,
    unspoken_reason,
    unwrap,
)

__all__ = [
    "BLANK",
    "CHAPTER",
    "DELIVERY_TAGS",
    "DIRECTION_WORDS",
    "DROPPED",
    "EMPTY",
    "LABEL",
    "LABEL_INLINE",
    "LINES_KEPT",
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


LINES_KEPT = 2048
"""Lines whose class is kept (each new line typed is a new entry): the open script at the spec's
75,000 characters has about 1,200, so re-highlighting it classifies nothing again; four times
as many were kept before, and a long session of new scripts filled them (about 4 MiB)."""


def _bracket_span(raw: str) -> tuple[int, int]:
    start = raw.find("[")
    end = raw.find("]", start + 1)
    if start < 0 or end < 0:
        return 0, len(raw)
    return start, end + 1


@functools.lru_cache(maxsize=LINES_KEPT)
def classify_line(raw: str, after_label: bool) -> LineInfo:
    """Classify one line; ``after_label``: a speaker label came before it in the script."""
    line = raw.strip()
    if not line:
        return LineInfo(BLANK)
    chapter = CHAPTER_RE.match(line)
    if chapter:
        title = (chapter.group(1) or "").strip()
        return LineInfo(CHAPTER, title=title or None)
    unwrapped = unwrap(line)
    if not unwrapped:
        return LineInfo(EMPTY)
    reason = unspoken_reason(unwrapped, not after_label)
    if reason is not None:
        return LineInfo(DROPPED, reason=reason)
    m_line = LABEL_LINE_RE.match(unwrapped)
    if m_line and not is_delivery_tag(m_line.group(1)):
        label = " ".join(m_line.group(1).split()).strip(":").strip()
        start, end = _bracket_span(raw)
        if not label:
            return LineInfo(DROPPED, reason="an empty speaker label")
        return LineInfo(LABEL, label=label, label_start=start, label_end=end)
    m_inline = None if m_line else LABEL_INLINE_RE.match(unwrapped)
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
    return LineInfo(SPOKEN, spoken=unwrapped, long_label=bool(LONG_LABEL_RE.match(unwrapped)))


def inline_tags(raw: str) -> list[tuple[int, int]]:
    """``(start, end)`` columns of the bracketed and parenthesized parts of a spoken line (delivery
    tags such as ``(laughs)``; the service keeps them in the text)."""
    return [(m.start(), m.end()) for m in TAG_RE.finditer(raw)]
