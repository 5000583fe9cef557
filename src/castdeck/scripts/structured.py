"""The structured form of a script (spec 2.4's ``script`` object) and the conversions to and from text.

``{"chapters": [{"title": "…", "segments": [{"host_id": "…", "text": "…"}]}]}``: 1..50 chapters,
1..200 segments each, at most 600 segments, segment text 1..5,000 characters, titles 1..200,
75,000 text characters in total, every host an active host of the organization. A segment
``speed`` appears in one reference only; the strict schema does not list it, so it is refused here
and never sent. A file may also hold a whole generate body: its ``script`` member is read.

Text -> structured uses the mapping (label -> host id; unmapped labels match host names) and keeps
every chapter, label and spoken word. Structured -> text turns host ids back into labels with the
same table (inverted), else the host's name, else the id itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from castdeck.api.models.limits import (
    MAX_CHAPTER_TITLE_CHARS,
    MAX_SCRIPT_CHAPTERS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_SEGMENTS,
    MAX_SEGMENT_CHARS,
    MAX_SEGMENTS_PER_CHAPTER,
    MIN_CHAPTER_TITLE_CHARS,
)

from .json_doc import JsonNode, JsonSyntaxError, line_column, read_json
from .lines import label_key
from .problems import BOTH, ERROR, GENERATE, WARNING, Problem
from .speakers import HostRef, resolve
from .text_form import ParsedScript, parse_text

__all__ = [
    "StructuredChapter",
    "StructuredScript",
    "StructuredSegment",
    "check_structured",
    "labels_for_hosts",
    "read_structured",
    "to_structured",
    "to_text",
]

SCRIPT_FIELDS = {"chapters"}
CHAPTER_FIELDS = {"segments", "title"}
SEGMENT_FIELDS = {"host_id", "text"}


@dataclass(frozen=True, slots=True)
class StructuredSegment:
    host_id: str
    text: str
    offset: int = 0  # where the segment starts in its JSON file


@dataclass(frozen=True, slots=True)
class StructuredChapter:
    title: str | None
    segments: tuple[StructuredSegment, ...]
    offset: int = 0


@dataclass(frozen=True)
class StructuredScript:
    chapters: tuple[StructuredChapter, ...]

    def to_dict(self) -> dict[str, Any]:
        """The ``script`` object as spec 2.4 takes it (a chapter without a title has no ``title``)."""
        chapters: list[dict[str, Any]] = []
        for chapter in self.chapters:
            item: dict[str, Any] = {}
            if chapter.title is not None:
                item["title"] = chapter.title
            item["segments"] = [{"host_id": s.host_id, "text": s.text} for s in chapter.segments]
            chapters.append(item)
        return {"chapters": chapters}

    @property
    def host_ids(self) -> list[str]:
        return list(dict.fromkeys(s.host_id for c in self.chapters for s in c.segments))

    @property
    def segment_count(self) -> int:
        return sum(len(c.segments) for c in self.chapters)


def _n(value: int) -> str:
    return f"{value:,}"


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def add(self, offset: int, code: str, message: str, *, severity: str = ERROR, scope: str = BOTH,
            labels: tuple[str, ...] = ()) -> None:  # fmt: skip
        line, column = line_column(self.source, offset)
        self.problems.append(Problem(line, column, 1, severity, code, message, scope, labels))

    def unknown(self, node: JsonNode, allowed: set[str], what: str) -> None:
        for key in node.members:
            if key in allowed:
                continue
            if key == "speed" and what == "segment":
                self.add(node.key_offsets[key], "segment_speed",
                         "A segment “speed” is not part of the spec's strict schema (whether the service "
                         "accepts it is not shown); leave it out.")  # fmt: skip
            else:
                self.add(node.key_offsets[key], "unknown_field",
                         f"Unknown field “{key}” in a {what}; the service rejects unknown fields.")  # fmt: skip


def _text(node: JsonNode | None, checker: _Checker, offset: int, name: str, low: int, high: int,
          code: str) -> str | None:  # fmt: skip
    if node is None:
        checker.add(offset, f"missing_{name}", f"“{name}” is required.")
        return None
    if node.kind != "string":
        checker.add(node.offset, f"{name}_not_text", f"“{name}” must be a string, not {node.kind}.")
        return None
    value: str = node.value
    if len(value) < low:
        checker.add(node.offset, f"{name}_empty", f"“{name}” must have at least {low} character.")
    elif len(value) > high:
        checker.add(node.offset, code, f"“{name}” has {_n(len(value))} characters; at most {_n(high)}.",
                    scope=GENERATE)  # fmt: skip
    return value


def read_structured(
    source: str, *, hosts: Iterable[HostRef] | None = None
) -> tuple[StructuredScript | None, list[Problem]]:
    """Read and check a structured script file. The script is None when the file cannot be read as
    one (bad JSON, wrong shape); otherwise it holds every readable segment, and ``problems`` says
    what breaks the spec's rules."""
    checker = _Checker(source)
    try:
        root = read_json(source)
    except JsonSyntaxError as error:
        checker.add(error.offset, "json", f"Not valid JSON: {error.message}.")
        return None, checker.problems
    if root.kind == "object" and "chapters" not in root.members and "script" in root.members:
        root = root.members["script"]  # a whole generate body
    if root.kind != "object":
        checker.add(root.offset, "not_a_script", "A structured script is a JSON object with “chapters”.")
        return None, checker.problems
    checker.unknown(root, SCRIPT_FIELDS, "script")
    chapters_node = root.members.get("chapters")
    if chapters_node is None or chapters_node.kind != "array":
        checker.add(root.offset if chapters_node is None else chapters_node.offset, "no_chapters",
                    "“chapters” must be an array of chapters.")  # fmt: skip
        return None, checker.problems
    chapters: list[StructuredChapter] = []
    if not chapters_node.items:
        checker.add(chapters_node.offset, "no_chapters", "A script needs at least one chapter.")
    for c_index, c_node in enumerate(chapters_node.items):
        if c_index == MAX_SCRIPT_CHAPTERS:
            checker.add(c_node.offset, "too_many_chapters",
                        f"A script may have at most {MAX_SCRIPT_CHAPTERS} chapters; this is chapter "
                        f"{c_index + 1} of {len(chapters_node.items)}.", scope=GENERATE)  # fmt: skip
        if c_node.kind != "object":
            checker.add(c_node.offset, "chapter_not_object", "A chapter must be an object with “segments”.")
            continue
        checker.unknown(c_node, CHAPTER_FIELDS, "chapter")
        title_node = c_node.members.get("title")
        title = None
        if title_node is not None and title_node.kind != "null":
            title = _text(title_node, checker, c_node.offset, "title", MIN_CHAPTER_TITLE_CHARS,
                          MAX_CHAPTER_TITLE_CHARS, "chapter_title_too_long")  # fmt: skip
        segs_node = c_node.members.get("segments")
        if segs_node is None or segs_node.kind != "array":
            checker.add(c_node.offset if segs_node is None else segs_node.offset, "no_segments",
                        "A chapter needs “segments”, an array of segments.")  # fmt: skip
            continue
        if not segs_node.items:
            checker.add(segs_node.offset, "empty_chapter", "A chapter needs at least one segment.",
                        scope=GENERATE)  # fmt: skip
        segments: list[StructuredSegment] = []
        for s_index, s_node in enumerate(segs_node.items):
            if s_index == MAX_SEGMENTS_PER_CHAPTER:
                checker.add(s_node.offset, "too_many_segments_in_chapter",
                            f"A chapter may have at most {MAX_SEGMENTS_PER_CHAPTER} segments; this one has "
                            f"{len(segs_node.items)}.", scope=GENERATE)  # fmt: skip
            if s_node.kind != "object":
                checker.add(s_node.offset, "segment_not_object", "A segment must be an object with "
                            "“host_id” and “text”.")  # fmt: skip
                continue
            checker.unknown(s_node, SEGMENT_FIELDS, "segment")
            host_id = _text(s_node.members.get("host_id"), checker, s_node.offset, "host_id", 1, 10**9, "")
            text = _text(s_node.members.get("text"), checker, s_node.offset, "text", 1, MAX_SEGMENT_CHARS,
                         "segment_too_long")  # fmt: skip
            if host_id is not None and text is not None:
                segments.append(StructuredSegment(host_id, text, s_node.offset))
        chapters.append(StructuredChapter(title if isinstance(title, str) else None, tuple(segments),
                                          c_node.offset))  # fmt: skip
    script = StructuredScript(tuple(chapters))
    _totals(script, checker)
    if hosts is not None:
        _hosts(script, list(hosts), checker)
    checker.problems.sort(key=lambda p: (p.line, p.column))
    return script, checker.problems


def _totals(script: StructuredScript, checker: _Checker) -> None:
    count = 0
    chars = 0
    total_chars = sum(len(s.text) for c in script.chapters for s in c.segments)
    total = script.segment_count
    for chapter in script.chapters:
        for segment in chapter.segments:
            count += 1
            if count == MAX_SCRIPT_SEGMENTS + 1:
                checker.add(segment.offset, "too_many_segments",
                            f"A script may have at most {MAX_SCRIPT_SEGMENTS} segments; this is segment "
                            f"{count} of {total}.", scope=GENERATE)  # fmt: skip
            before, chars = chars, chars + len(segment.text)
            if before <= MAX_SCRIPT_CHARS < chars:
                checker.add(segment.offset, "text_too_long",
                            f"The segments hold {_n(total_chars)} characters of text; a script may hold at "
                            f"most {_n(MAX_SCRIPT_CHARS)} (this segment goes past it).", scope=GENERATE)  # fmt: skip


def _hosts(script: StructuredScript, hosts: list[HostRef], checker: _Checker) -> None:
    ids = {h.id for h in hosts}
    seen: set[str] = set()
    for chapter in script.chapters:
        for segment in chapter.segments:
            if segment.host_id in ids or segment.host_id in seen:
                continue
            seen.add(segment.host_id)
            checker.add(segment.offset, "unknown_host",
                        f"Host “{segment.host_id}” is not an active host of the organization.",
                        scope=GENERATE, labels=(segment.host_id,))  # fmt: skip


def check_structured(script: dict[str, Any], *, hosts: Iterable[HostRef] | None = None) -> list[Problem]:
    """The problems of a ``script`` object given as Python data (positions are in its JSON dump)."""
    import json

    _, problems = read_structured(json.dumps(script, ensure_ascii=False, indent=1), hosts=hosts)
    return problems


# --- conversions --------------------------------------------------------------------------------------------


def to_structured(
    script: ParsedScript, mapping: Mapping[str, str], hosts: Iterable[HostRef] | None = None
) -> tuple[StructuredScript | None, dict[str, str], list[Problem]]:
    """The structured form of a text script: each label becomes its host id (the mapping first,
    then host names when ``hosts`` are known). Also returns the table used (label -> host id, name
    matches included), which :func:`to_text` turns back into the same labels. Every label that
    resolves to nothing is an error naming it, and the script is then None."""
    known = list(hosts) if hosts is not None else None
    found = resolve(script.labels, known, mapping)
    problems: list[Problem] = []
    for label, resolution in found.items():
        if resolution.host_id is None:
            line = script.label_lines.get(label_key(label), [0])[0]
            info = script.infos[line]
            problems.append(Problem(
                line, info.label_start, max(info.label_end - info.label_start, 1), ERROR, "unmapped_label",
                f"The label “{label}” is not mapped to a host id.", GENERATE, (label,),
            ))  # fmt: skip
    table = {label: str(r.host_id) for label, r in found.items() if r.host_id is not None}
    if problems:
        return None, table, problems
    chapters = tuple(
        StructuredChapter(
            chapter.title,
            tuple(StructuredSegment(str(found[s.label].host_id), s.text) for s in chapter.segments),
        )
        for chapter in script.chapters
    )
    return StructuredScript(chapters), table, problems


def labels_for_hosts(mapping: Mapping[str, str], hosts: Iterable[HostRef] | None = None) -> dict[str, str]:
    """host id -> label: the mapping inverted (its first label for a host), then host names."""
    table: dict[str, str] = {}
    for host in hosts or ():
        if host.name.strip() and "[" not in host.name and "]" not in host.name:
            table[host.id] = " ".join(host.name.split())
    inverted: dict[str, str] = {}
    for label, host_id in mapping.items():
        if host_id and host_id not in inverted:
            inverted[host_id] = label
    table.update(inverted)
    return table


def _label_for(host_id: str, table: Mapping[str, str]) -> str:
    label = table.get(host_id) or host_id
    label = " ".join(label.replace("[", "(").replace("]", ")").split())
    return label or "Speaker"


def to_text(
    script: StructuredScript, mapping: Mapping[str, str] | None = None, hosts: Iterable[HostRef] | None = None
) -> tuple[str, dict[str, str], list[Problem]]:
    """The text form of a structured script, the mapping that converts it back (label -> host id),
    and warnings for any segment whose text would not read back the same from the text form (a line
    of it that looks like a label, a chapter line or a direction the service leaves out)."""
    table = labels_for_hosts(mapping or {}, hosts)
    back: dict[str, str] = {}
    blocks: list[str] = []
    expected: list[tuple[str | None, list[tuple[str, str]]]] = []
    for index, chapter in enumerate(script.chapters):
        parts: list[str] = []
        if chapter.title is not None:
            parts.append(f"# {chapter.title}")
        elif index > 0:
            parts.append("#")
        turns: list[tuple[str, str]] = []
        for segment in chapter.segments:
            label = _label_for(segment.host_id, table)
            key = label_key(label)
            owner = next((k for k in back if label_key(k) == key), None)
            if owner is not None and back[owner] != segment.host_id:
                label = f"{label} ({segment.host_id})"  # two hosts with one name: keep them apart
            back.setdefault(label, segment.host_id)
            parts.append(f"[{label}]\n{segment.text.strip()}")
            turns.append((label, segment.text))
        blocks.append("\n\n".join(parts))
        expected.append((chapter.title, turns))
    text = "\n\n".join(b for b in blocks if b) + "\n"
    return text, back, _round_trip_warnings(text, script, expected)


def _normal(text: str) -> str:
    return " ".join(text.split())


def _round_trip_warnings(
    text: str, script: StructuredScript, expected: list[tuple[str | None, list[tuple[str, str]]]]
) -> list[Problem]:
    parsed = parse_text(text)
    got = [(c.title, [(s.label, _normal(s.text)) for s in c.segments]) for c in parsed.chapters]
    want = [(t, [(label, _normal(body)) for label, body in turns]) for t, turns in expected]
    if got == want:
        return []
    problems: list[Problem] = []
    for index, chapter in enumerate(script.chapters):
        have = got[index] if index < len(got) else None
        if have is None or have != want[index]:
            title = f" “{chapter.title}”" if chapter.title else ""
            problems.append(Problem(
                0, 0, 0, WARNING, "not_text_safe",
                f"Chapter {index + 1}{title} does not read back the same from the text form: a line of "
                "its text looks like a speaker label, a chapter line or a direction the service leaves out.",
            ))  # fmt: skip
            break
    return problems or [
        Problem(
            0,
            0,
            0,
            WARNING,
            "not_text_safe",
            "The text form does not read back exactly as the structured script.",
        )
    ]
