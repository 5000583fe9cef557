"""The text form of a script: parse it into chapters and speaker turns, with the lines they came from.

Text form (the import format of spec 2.5, with chapters)::

    # The tide comes in            <- a chapter line: "#", a space, the title ("#" alone: no title)
    [Alex]                         <- a speaker label alone on its line ("[Alex]:" too)
    Welcome back. (laughs)         <- spoken text; inline delivery tags are kept
                                   <- a blank line starts a new paragraph of the same turn
    Today: tides.
    [Maya] Thanks, Alex.           <- a label may also open the line of its text

A turn's lines are joined with spaces and its paragraphs with a blank line, as the service joins
them. A chapter line does not change who speaks: text right under it continues the turn before.
Lines the service leaves out on import (see :mod:`castdeck.scripts.lines`) are kept in the draft
but are not part of any turn. Nothing here reads files; positions are 0-based lines and columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .lines import (
    BLANK,
    CHAPTER,
    DROPPED,
    EMPTY,
    LABEL,
    LABEL_INLINE,
    SPOKEN,
    LineInfo,
    classify_line,
    label_key,
)

__all__ = ["ParsedScript", "TextChapter", "TextSegment", "parse_text", "split_lines"]


@dataclass(frozen=True, slots=True)
class TextSegment:
    """One speaker turn: its label (spelled as it first appeared in the script), the spoken text,
    and the lines it spans (``line`` to ``end_line``, exclusive). ``line`` is its label's line, or
    the line after a chapter line when the turn goes on under a new chapter (``label_line`` None)."""

    label: str
    text: str
    line: int
    end_line: int
    label_line: int | None  # the line of its own [Label]; None when it continues the turn before a chapter

    @property
    def key(self) -> str:
        return label_key(self.label)


@dataclass(frozen=True, slots=True)
class TextChapter:
    """A chapter: its title (None: untitled), its ``# `` line (None for the part before any chapter
    line), its lines (``line`` to ``end_line``) and its turns."""

    title: str | None
    line: int | None
    start_line: int
    end_line: int
    segments: tuple[TextSegment, ...]


@dataclass(frozen=True)
class ParsedScript:
    """A parsed text script. ``labels`` are the speakers in order of first appearance (spelled as
    first written); ``empty_turns`` are labels with nothing to say (``(line, label)``);
    ``orphan_lines`` are spoken lines before the first label (no speaker: the service drops them)."""

    text: str
    lines: tuple[str, ...]
    infos: tuple[LineInfo, ...]
    line_starts: tuple[int, ...]
    chapters: tuple[TextChapter, ...]
    labels: tuple[str, ...]
    empty_turns: tuple[tuple[int, str], ...] = ()
    orphan_lines: tuple[int, ...] = ()
    dropped_lines: tuple[int, ...] = ()
    long_labels: tuple[int, ...] = ()
    label_lines: dict[str, list[int]] = field(default_factory=dict)

    @property
    def segments(self) -> list[TextSegment]:
        return [s for c in self.chapters for s in c.segments]

    @property
    def segment_count(self) -> int:
        return sum(len(c.segments) for c in self.chapters)

    @property
    def text_chars(self) -> int:
        """Characters of spoken text in all turns (the structured form's 75,000-character total)."""
        return sum(len(s.text) for c in self.chapters for s in c.segments)

    def position(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` (0-based) of a character offset."""
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo, offset - self.line_starts[lo]


def split_lines(text: str) -> list[str]:
    """Lines as the service reads them: ``\\r\\n`` and ``\\r`` end lines too; a byte-order mark is ignored."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\ufeff" in text:
        text = text.replace("\ufeff", "")
    return text.split("\n")


class _Builder:
    def __init__(self) -> None:
        self.chapters: list[TextChapter] = []
        self.chapter_title: str | None = None
        self.chapter_line: int | None = None
        self.chapter_start = 0
        self.segments: list[TextSegment] = []
        self.label: str | None = None
        self.label_line: int | None = None
        self.seg_start = 0
        self.paragraphs: list[list[str]] = [[]]
        self.empty: list[tuple[int, str]] = []

    def end_turn(self, end_line: int) -> None:
        if self.label is None:
            return
        body = "\n\n".join(" ".join(p) for p in self.paragraphs if p).strip()
        if body:
            self.segments.append(TextSegment(self.label, body, self.seg_start, end_line, self.label_line))
        elif self.label_line is not None:
            self.empty.append((self.label_line, self.label))
        self.paragraphs = [[]]

    def end_chapter(self, end_line: int) -> None:
        self.end_turn(end_line)
        if self.chapter_line is not None or self.segments or self.chapters:
            self.chapters.append(
                TextChapter(
                    self.chapter_title, self.chapter_line, self.chapter_start, end_line, tuple(self.segments)
                )
            )
        self.segments = []


def parse_text(text: str) -> ParsedScript:
    """Parse ``text`` (never raises; every input has a reading)."""
    lines = split_lines(text)
    starts: list[int] = []
    offset = 0
    for raw in lines:
        starts.append(offset)
        offset += len(raw) + 1
    canonical: dict[str, str] = {}
    label_lines: dict[str, list[int]] = {}
    infos: list[LineInfo] = []
    orphans: list[int] = []
    dropped: list[int] = []
    long_labels: list[int] = []
    b = _Builder()
    after_label = False
    for index, raw in enumerate(lines):
        info = classify_line(raw, after_label)
        infos.append(info)
        kind = info.kind
        if kind == BLANK:
            if b.paragraphs[-1]:
                b.paragraphs.append([])
            continue
        if kind == SPOKEN:
            if info.long_label:
                long_labels.append(index)
            if b.label is None:
                orphans.append(index)
            else:
                b.paragraphs[-1].append(info.spoken or "")
            continue
        if kind == DROPPED:
            dropped.append(index)
            continue
        if kind == EMPTY:
            continue
        if kind == CHAPTER:
            b.end_chapter(index)
            b.chapter_title, b.chapter_line, b.chapter_start = info.title, index, index
            if b.label is not None:  # the turn goes on under the new chapter
                b.seg_start, b.label_line = index + 1, None
            continue
        # a label (alone, or opening its text)
        assert kind in (LABEL, LABEL_INLINE)
        b.end_turn(index)
        label = info.label or ""
        key = label_key(label)
        b.label = canonical.setdefault(key, label)
        label_lines.setdefault(key, []).append(index)
        b.label_line = b.seg_start = index
        after_label = True
        if kind == LABEL_INLINE:
            b.paragraphs[-1].append(info.spoken or "")
    b.end_chapter(len(lines))
    labels = tuple(dict.fromkeys(s.label for c in b.chapters for s in c.segments))
    return ParsedScript(
        text=text,
        lines=tuple(lines),
        infos=tuple(infos),
        line_starts=tuple(starts),
        chapters=tuple(b.chapters),
        labels=labels,
        empty_turns=tuple(b.empty),
        orphan_lines=tuple(orphans),
        dropped_lines=tuple(dropped),
        long_labels=tuple(long_labels),
        label_lines=label_lines,
    )
