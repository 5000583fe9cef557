"""What the script writer takes and gives: speakers and source texts in, a written script out."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Line", "SourceText", "Speaker", "WrittenChapter", "WrittenScript"]


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
