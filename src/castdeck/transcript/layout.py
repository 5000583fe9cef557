"""Where each word sits in a reading view's text, searching that text, and copying with times.

The view shows one paragraph (one text block) per speaker turn: the turn's words separated by
single spaces; the speaker's name and the turn's start time (its heading) are drawn beside the
text, not in it. An empty block separates paragraphs (a reading view whose layout ignores
paragraph margins spaces them so). :func:`plan_document` computes that text and the character position of every
word in it, so the view finds a word under the mouse, and the character range of the word being
heard, by binary search, without asking the text layout.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from .export import clock
from .words import Transcript

__all__ = ["DocumentPlan", "find_all", "plan_document", "timed_text", "turns_said"]


@dataclass
class DocumentPlan:
    """The text of each paragraph and the absolute character position of each word.

    Positions count as a ``QTextDocument`` does: blocks are separated by one character, and
    paragraph ``i`` is document block ``2 * i`` (an empty block between paragraphs).
    """

    blocks: list[str]
    headings: list[str]  # per block: the speaker's name ("" for a paragraph going on with the same speaker)
    block_starts: list[float]  # per block: the start time of its first word
    block_speakers: list[int | None]
    block_first_word: list[int]
    block_positions: list[int]
    word_positions: list[int]
    word_lengths: list[int]

    @property
    def text(self) -> str:
        """The whole text as one string, blocks joined by ``\\n`` (one character, as in the document)."""
        return "\n\n".join(self.blocks)

    @staticmethod
    def paragraph_of_block(block_number: int) -> int | None:
        """The paragraph shown by document block ``block_number`` (None for the empty ones)."""
        return None if block_number % 2 else block_number // 2

    def word_at_position(self, position: int) -> int:
        """The word whose characters include ``position`` (or the nearest before it); -1 if none."""
        index = bisect_right(self.word_positions, position) - 1
        if index < 0:
            return -1 if not self.word_positions else 0
        return index

    def paragraph_of_word(self, index: int) -> int:
        """The paragraph (a speaker's turn) word ``index`` is in; -1 for none."""
        if index < 0 or not self.block_first_word:
            return -1
        return bisect_right(self.block_first_word, index) - 1

    def words_between(self, start: int, end: int) -> range:
        """The words overlapping the character range ``[start, end)``."""
        first = max(self.word_at_position(start), 0)
        if (
            first < len(self.word_positions)
            and self.word_positions[first] + self.word_lengths[first] <= start
        ):
            first += 1
        last = bisect_right(self.word_positions, max(end - 1, start))
        return range(first, max(last, first))


def plan_document(transcript: Transcript) -> DocumentPlan:
    blocks: list[str] = []
    headings: list[str] = []
    starts: list[float] = []
    speakers: list[int | None] = []
    firsts: list[int] = []
    block_positions: list[int] = []
    positions: list[int] = [0] * len(transcript.words)
    lengths: list[int] = [0] * len(transcript.words)
    position = 0
    previous: int | object | None = object()
    for turn in transcript.turns():
        words = transcript.words[turn.first : turn.last]
        heading = transcript.speaker_name(turn.speaker) if turn.speaker != previous else ""
        previous = turn.speaker
        parts: list[str] = []
        offset = 0
        for i, word in enumerate(words, start=turn.first):
            positions[i] = position + offset
            lengths[i] = len(word.text)
            parts.append(word.text)
            offset += len(word.text) + 1
        text = " ".join(parts)
        blocks.append(text)
        headings.append(heading)
        starts.append(words[0].start)
        speakers.append(turn.speaker)
        firsts.append(turn.first)
        block_positions.append(position)
        position += len(text) + 2  # the paragraph's end and the empty block after it
    return DocumentPlan(blocks, headings, starts, speakers, firsts, block_positions, positions, lengths)


def find_all(text: str, needle: str) -> list[int]:
    """Start positions of ``needle`` in ``text``, ignoring case (non-overlapping)."""
    if not needle:
        return []
    haystack, folded = text.casefold(), needle.casefold()
    if len(haystack) != len(text) or len(folded) != len(needle):
        # a character whose case fold changes length (ß): positions must stay the text's own
        haystack, folded = text.lower(), needle.lower()
    needle = folded
    found: list[int] = []
    at = haystack.find(needle)
    while at >= 0:
        found.append(at)
        at = haystack.find(needle, at + len(needle))
    return found


def timed_text(transcript: Transcript, first: int, last: int, *, times: bool) -> str:
    """Words ``first..last`` (exclusive) as text: by speaker turn, each line starting with
    ``[HH:MM:SS] Name:`` when ``times`` (or ``Name:`` alone), plain words otherwise."""
    words = transcript.words[first:last]
    if not words:
        return ""
    if not times:
        return " ".join(word.text for word in words)
    lines: list[str] = []
    current: list[str] = []
    speaker: int | object | None = object()
    start = 0.0
    for word in words:
        if word.speaker != speaker and current:
            lines.append(_line(transcript, speaker, start, current))
            current = []
        if not current:
            speaker, start = word.speaker, word.start
        current.append(word.text)
    lines.append(_line(transcript, speaker, start, current))
    return "\n".join(lines)


def _line(transcript: Transcript, speaker: object, start: float, words: list[str]) -> str:
    name = transcript.speaker_name(speaker if isinstance(speaker, int) else None)
    stamp = f"[{clock(start)[:8]}]"
    return f"{stamp} {name}: {' '.join(words)}" if name else f"{stamp} {' '.join(words)}"


def turns_said(plan: DocumentPlan, transcript: Transcript, chosen: int, heard: int) -> str:
    """What a screen reader is told of the transcript's turns: the turn gone to (``chosen``, its
    speaker and start) and the turn being heard (``heard``); -1 for neither.
    "Turn 4 of 12, Tom, at 01:05. Heard now: turn 3 of 12, Maya"."""
    count = len(plan.blocks)

    def who(turn: int, word: str = "turn") -> str:
        return f"{word} {turn + 1} of {count}, {transcript.speaker_name(plan.block_speakers[turn])}"

    parts = []
    if 0 <= chosen < count:
        at = clock(max(plan.block_starts[chosen], 0.0) // 1, hours=False).split(".")[0]
        parts.append(f"{who(chosen, 'Turn')}, at {at}")
    if 0 <= heard < count:
        parts.append(f"Heard now: {who(heard)}")
    return ". ".join(parts)
