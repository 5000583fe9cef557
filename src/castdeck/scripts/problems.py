"""What is wrong with a text script, where, before anything is sent.

Every rule of the spec that a script can break is checked here with its position (0-based line
and column): the import's 1..75,000 characters (2.5), and for Generate from script (2.4) 1..50
chapters, 1..200 turns per chapter, at most 600 turns, 1..5,000 characters per turn, chapter
titles 1..200 characters and 75,000 characters of spoken text; a script with no usable turn; text
before the first label; labels that resolve to no host (4.2); lines the service will leave out.

A problem's ``scope`` says what it stops: ``both`` (import and generate), ``import`` or
``generate`` (a limit only the structured form has: a 700-turn script can still be imported).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from castdeck.api.models.limits import (
    MAX_CHAPTER_TITLE_CHARS,
    MAX_IMPORT_SCRIPT_CHARS,
    MAX_SCRIPT_CHAPTERS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_SEGMENTS,
    MAX_SEGMENT_CHARS,
    MAX_SEGMENTS_PER_CHAPTER,
    MAX_SPEAKER_CHARACTERS,
    MAX_SPEAKER_LABEL_CHARS,
    MIN_IMPORT_SCRIPT_CHARS,
)

from .lines import label_key
from .speakers import HostRef, resolve
from .text_form import ParsedScript

__all__ = ["BOTH", "ERROR", "GENERATE", "IMPORT", "WARNING", "Problem", "blocking", "check_text"]

ERROR = "error"
WARNING = "warning"
BOTH = "both"
IMPORT = "import"
GENERATE = "generate"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: where (0-based ``line`` and ``column``; ``length`` characters, 0 for the rest of
    the line), how bad, a stable ``code``, a sentence, what it stops, and the labels it is about."""

    line: int
    column: int
    length: int
    severity: str
    code: str
    message: str
    scope: str = BOTH
    labels: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def stops(self, action: str) -> bool:
        """True when this problem keeps ``action`` ("import" or "generate") from being sent."""
        return self.is_error and self.scope in (BOTH, action)


def blocking(problems: Iterable[Problem], action: str) -> list[Problem]:
    return [p for p in problems if p.stops(action)]


def _n(value: int) -> str:
    return f"{value:,}"


def check_text(
    script: ParsedScript,
    *,
    hosts: Iterable[HostRef] | None = None,
    mapping: Mapping[str, str] | None = None,
    check_speakers: bool = True,
) -> list[Problem]:
    """Every problem of a parsed text script, in the order of the text.

    ``hosts``: the organization's active hosts (None: not known, so labels are not resolved by
    name); ``mapping``: label -> host id. ``check_speakers`` False leaves speaker resolution out.
    """
    out: list[Problem] = []
    text = script.text
    lines = script.lines
    if len(text) < MIN_IMPORT_SCRIPT_CHARS or not text.strip():
        out.append(Problem(0, 0, 0, ERROR, "empty", "The script is empty: write a speaker label such "
                           "as [Alex] on its own line, then what they say."))  # fmt: skip
        return out
    if len(text) > MAX_IMPORT_SCRIPT_CHARS:
        line, column = script.position(MAX_IMPORT_SCRIPT_CHARS)
        out.append(Problem(
            line, column, 0, ERROR, "script_too_long",
            f"The script has {_n(len(text))} characters; an import takes at most "
            f"{_n(MAX_IMPORT_SCRIPT_CHARS)} (the text from here on is too much).", IMPORT,
        ))  # fmt: skip
    if not script.segment_count:
        out.append(Problem(0, 0, 0, ERROR, "no_segments", "No speaker turn: put a speaker label such as "
                           "[Alex] on its own line before the text it introduces."))  # fmt: skip
    _orphans(script, out)
    for index in script.dropped_lines:
        reason = script.infos[index].reason or "not spoken"
        out.append(Problem(index, 0, len(lines[index]), WARNING, "dropped",
                           f"Not spoken: {reason}. The service leaves this line out on import."))  # fmt: skip
    for index in script.long_labels:
        out.append(Problem(
            index, 0, len(lines[index]), ERROR, "label_too_long",
            f"A speaker label may have at most {MAX_SPEAKER_LABEL_CHARS} characters; this one is read "
            "as spoken text.",
        ))  # fmt: skip
    for index, label in script.empty_turns:
        out.append(Problem(index, 0, len(lines[index]), WARNING, "empty_turn",
                           f"[{label}] has nothing to say; the service leaves this turn out."))  # fmt: skip
    _structure(script, out)
    if check_speakers:
        _speakers(script, hosts, mapping or {}, out)
    out.sort(key=lambda p: (p.line, p.column, p.severity != ERROR))
    return out


def _orphans(script: ParsedScript, out: list[Problem]) -> None:
    """Spoken lines before the first label (they all come before it): one problem at the first."""
    if not script.orphan_lines:
        return
    first = script.orphan_lines[0]
    count = len(script.orphan_lines)
    lines = f" ({count} lines)" if count > 1 else ""
    out.append(Problem(
        first, 0, len(script.lines[first]), WARNING, "before_first_label",
        f"Text before the first speaker label has no speaker{lines}; the service leaves it out. "
        "Put a label such as [Alex] above it.",
    ))  # fmt: skip


def _structure(script: ParsedScript, out: list[Problem]) -> None:
    lines = script.lines
    chapters = script.chapters
    total_segments = 0
    total_chars = 0
    for number, chapter in enumerate(chapters, 1):
        where = chapter.line if chapter.line is not None else chapter.start_line
        name = f"Chapter {number}" + (f" “{chapter.title}”" if chapter.title else "")
        if number == MAX_SCRIPT_CHAPTERS + 1:
            out.append(Problem(
                where, 0, len(lines[where]), ERROR, "too_many_chapters",
                f"A script may have at most {MAX_SCRIPT_CHAPTERS} chapters; this is chapter {number} of "
                f"{len(chapters)}.", GENERATE,
            ))  # fmt: skip
        if chapter.title is not None and len(chapter.title) > MAX_CHAPTER_TITLE_CHARS:
            out.append(Problem(
                where, 0, len(lines[where]), ERROR, "chapter_title_too_long",
                f"A chapter title may have at most {MAX_CHAPTER_TITLE_CHARS} characters; this one has "
                f"{_n(len(chapter.title))}.", GENERATE,
            ))  # fmt: skip
        if not chapter.segments:
            out.append(Problem(where, 0, len(lines[where]), ERROR, "empty_chapter",
                               f"{name} has no speaker turn; a chapter needs at least one.", GENERATE))  # fmt: skip
        for index, segment in enumerate(chapter.segments, 1):
            total_segments += 1
            at = segment.line
            if index == MAX_SEGMENTS_PER_CHAPTER + 1:
                out.append(Problem(
                    at, 0, len(lines[at]), ERROR, "too_many_segments_in_chapter",
                    f"A chapter may have at most {MAX_SEGMENTS_PER_CHAPTER} turns; {name} has "
                    f"{len(chapter.segments)} (this is turn {index}). Start a new chapter with a # line.",
                    GENERATE,
                ))  # fmt: skip
            if total_segments == MAX_SCRIPT_SEGMENTS + 1:
                out.append(Problem(
                    at, 0, len(lines[at]), ERROR, "too_many_segments",
                    f"A script may have at most {MAX_SCRIPT_SEGMENTS} turns; this is turn {total_segments} "
                    f"of {script.segment_count}.", GENERATE,
                ))  # fmt: skip
            if len(segment.text) > MAX_SEGMENT_CHARS:
                out.append(Problem(
                    at, 0, len(lines[at]), ERROR, "segment_too_long",
                    f"This turn has {_n(len(segment.text))} characters; a turn may have at most "
                    f"{_n(MAX_SEGMENT_CHARS)}. Split it with another [{segment.label}] label.", GENERATE,
                ))  # fmt: skip
            before = total_chars
            total_chars += len(segment.text)
            if before <= MAX_SCRIPT_CHARS < total_chars:
                out.append(Problem(
                    at, 0, len(lines[at]), ERROR, "text_too_long",
                    f"The turns hold {_n(script.text_chars)} characters of text; a script may hold at "
                    f"most {_n(MAX_SCRIPT_CHARS)} (this turn goes past it).", GENERATE,
                ))  # fmt: skip


def _speakers(
    script: ParsedScript, hosts: Iterable[HostRef] | None, mapping: Mapping[str, str], out: list[Problem]
) -> None:
    known = list(hosts) if hosts is not None else None
    resolutions = resolve(script.labels, known, mapping)
    active = {h.id for h in known} if known is not None else None
    mapped_labels = 0
    mapped_keys = {label_key(k) for k, v in mapping.items() if v}
    for label, found in resolutions.items():
        first = script.label_lines.get(label_key(label), [0])[0]
        info = script.infos[first]
        column, length = info.label_start, max(info.label_end - info.label_start, 1)
        if label_key(label) in mapped_keys:
            mapped_labels += 1
        if found.host_id is None and known is not None:
            closest = ", ".join(h.name for h in found.suggestions)
            hint = f" Closest: {closest}." if closest else ""
            out.append(Problem(
                first, column, length, ERROR, "unresolved_speaker",
                f"No host is called “{label}”: map the label to a host, or create the host first.{hint}",
                BOTH, (label,),
            ))  # fmt: skip
        elif found.host_id is None:
            out.append(Problem(
                first, column, length, WARNING, "speaker_unknown",
                f"“{label}” is not mapped and the hosts are not known yet (offline); it must match a "
                "host's name when the script is sent.", BOTH, (label,),
            ))  # fmt: skip
        elif active is not None and found.host_id not in active:
            out.append(Problem(
                first, column, length, ERROR, "inactive_host",
                f"“{label}” is mapped to {found.host_id}, which is not an active host of the "
                "organization; map it to another host.", BOTH, (label,),
            ))  # fmt: skip
    if mapped_labels > MAX_SPEAKER_CHARACTERS:
        out.append(Problem(
            0, 0, 0, ERROR, "too_many_mapped",
            f"An import can assign at most {MAX_SPEAKER_CHARACTERS} labels to hosts; this script maps "
            f"{mapped_labels}.", IMPORT,
        ))  # fmt: skip
