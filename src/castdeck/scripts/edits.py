"""Edits of a text script that keep everything the writer wrote: rename a speaker everywhere,
find and replace, and reorder turns and chapters (the structured view's drag and drop).

Edits are computed as ``(line, start column, end column, new text)`` so an editor can apply them
as one undoable step; :func:`apply_edits` applies them to a string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .lines import LABEL, LABEL_INLINE, label_key
from .text_form import ParsedScript, TextSegment

__all__ = [
    "Blocks",
    "ChapterBlock",
    "Edit",
    "SegmentBlock",
    "apply_edits",
    "assemble",
    "blocks_of",
    "find_all",
    "label_edits",
    "replace_edits",
    "segment_label_edit",
]

Edit = tuple[int, int, int, str]
"""(line, start column, end column, replacement) on one line."""


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with the edits applied (they must not overlap)."""
    lines = text.split("\n")
    for line, start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        raw = lines[line]
        lines[line] = raw[:start] + new + raw[end:]
    return "\n".join(lines)


def label_edits(script: ParsedScript, old: str, new: str) -> list[Edit]:
    """Rename the speaker ``old`` (any spelling of it) to ``new`` on every label line."""
    key = label_key(old)
    label = " ".join(new.split())
    edits: list[Edit] = []
    for index, info in enumerate(script.infos):
        if info.kind in (LABEL, LABEL_INLINE) and info.label is not None and label_key(info.label) == key:
            edits.append((index, info.label_start, info.label_end, f"[{label}]"))
    return edits


def segment_label_edit(script: ParsedScript, segment: TextSegment, new: str) -> Edit:
    """Give one turn another speaker: its label is replaced; a turn that goes on under a chapter
    line gets a label line of its own."""
    label = " ".join(new.split())
    if segment.label_line is None:
        line = segment.line - 1  # the chapter line above it
        raw = script.lines[line]
        return (line, len(raw), len(raw), f"\n[{label}]")
    info = script.infos[segment.label_line]
    return (segment.label_line, info.label_start, info.label_end, f"[{label}]")


def _pattern(needle: str, *, case: bool, words: bool, regex: bool = False) -> re.Pattern[str]:
    body = needle if regex else re.escape(needle)
    if words:
        body = rf"(?<!\w){body}(?!\w)"
    return re.compile(body, 0 if case else re.IGNORECASE)


def find_all(text: str, needle: str, *, case: bool = False, words: bool = False) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of every match (empty for an empty needle)."""
    if not needle:
        return []
    return [(m.start(), m.end()) for m in _pattern(needle, case=case, words=words).finditer(text)]


def replace_edits(text: str, needle: str, replacement: str, *, case: bool = False,
                  words: bool = False) -> list[Edit]:  # fmt: skip
    """Replace every match of ``needle`` that lies within one line."""
    if not needle or "\n" in needle:
        return []
    pattern = _pattern(needle, case=case, words=words)
    edits: list[Edit] = []
    for index, raw in enumerate(text.split("\n")):
        edits.extend((index, m.start(), m.end(), replacement) for m in pattern.finditer(raw))
    return edits


# --- blocks: reordering turns and chapters ---------------------------------------------------------------------


@dataclass
class SegmentBlock:
    """A turn with every line under it up to the next turn (blank lines, directions, notes)."""

    label: str
    lines: list[str]
    continued: bool = False  # it goes on under a chapter line and has no label line of its own


@dataclass
class ChapterBlock:
    heading: bool  # it has a "#" line (the part before any chapter line has none)
    header: list[str]
    segments: list[SegmentBlock] = field(default_factory=list)


@dataclass
class Blocks:
    preamble: list[str]
    chapters: list[ChapterBlock]


def blocks_of(script: ParsedScript) -> Blocks:
    """The script cut into its chapters and turns, every line kept in exactly one place."""
    lines = list(script.lines)
    chapters = script.chapters
    if not chapters:
        return Blocks(lines, [])
    first = chapters[0]
    if first.line is None:
        start = first.segments[0].line if first.segments else first.end_line
        preamble = lines[:start]
    else:
        preamble = lines[: first.line]
    out: list[ChapterBlock] = []
    for chapter in chapters:
        segs = chapter.segments
        content_start = segs[0].line if segs else chapter.end_line
        header = lines[chapter.line : content_start] if chapter.line is not None else []
        block = ChapterBlock(chapter.line is not None, header)
        for index, segment in enumerate(segs):
            end = segs[index + 1].line if index + 1 < len(segs) else chapter.end_line
            block.segments.append(
                SegmentBlock(segment.label, lines[segment.line : end], segment.label_line is None)
            )
        out.append(block)
    return Blocks(preamble, out)


def assemble(blocks: Blocks) -> str:
    """The text of ``blocks`` in their (new) order."""
    lines = list(blocks.preamble)
    for index, chapter in enumerate(blocks.chapters):
        if not chapter.heading and index > 0:
            lines.append("#")  # the part before any chapter line, moved down: now a chapter of its own
        lines.extend(chapter.header)
        for segment in chapter.segments:
            if segment.continued:
                lines.append(f"[{segment.label}]")
            lines.extend(segment.lines)
    return "\n".join(lines)
