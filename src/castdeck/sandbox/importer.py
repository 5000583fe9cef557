"""Import of finished script text (spec 4.2 "Import behavior" and finished-script Video mode).

``parse_script_text`` splits text with bracketed speaker labels into segments and removes clearly
unspoken lines (headings, titles, production notes, music/visual/duration directions, time codes,
separators) while keeping narration, inline delivery tags such as ``(laughs)`` or ``[whispers]``
and uncertain lines. ``resolve_labels`` maps labels to hosts (explicit assignments first, then
names), and ``cut_to_words`` shortens text longer than the plan's maximum episode length.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from castdeck.api.models.import_rules import (
    DELIVERY_TAGS,
    DIRECTION_WORDS,
    LABEL_INLINE_RE,
    LABEL_LINE_RE,
    first_name_match,
    is_delivery_tag,
    is_direction_label,
    label_key,
    name_tokens,
    unspoken_reason,
    unwrap,
)

__all__ = [
    "DELIVERY_TAGS",
    "DIRECTION_WORDS",
    "ImportedSegment",
    "ParsedImport",
    "cut_to_words",
    "is_direction_label",
    "parse_script_text",
    "resolve_labels",
]


@dataclass(frozen=True)
class ImportedSegment:
    label: str
    text: str


@dataclass(frozen=True)
class ParsedImport:
    segments: list[ImportedSegment]
    dropped_lines: list[str]
    labels: list[str]  # first-appearance order, original spelling of the first appearance


def _dropped(line: str, before_first_label: bool) -> bool:
    """Clearly unspoken lines are dropped; uncertain lines are kept."""
    return unspoken_reason(line, before_first_label) is not None


def parse_script_text(text: str) -> ParsedImport:
    """Split ``text`` into labelled segments; see the module docstring for the rules.

    A label is ``[Label]`` alone on its line (optional trailing colon) or ``[Label] text`` /
    ``[Label]: text`` opening a line. Bracketed directions such as ``[MUSIC]`` or ``[Music fades]``
    and delivery tags such as ``[whispers]`` are never labels. Lines of one segment are joined with
    spaces; blank lines start a new paragraph (``"\\n\\n"``) within the same segment. Text before the
    first label has no speaker and is reported in ``dropped_lines``; with no labels at all there are
    no segments. Segment labels use the spelling of the label's first appearance, so labels that
    differ only in case or spacing are one speaker. Labels whose segments are all empty are left out.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    segments: list[ImportedSegment] = []
    dropped: list[str] = []
    canonical: dict[str, str] = {}
    current: str | None = None
    paragraphs: list[list[str]] = [[]]

    def flush() -> None:
        if current is None:
            return
        body = "\n\n".join(" ".join(p) for p in paragraphs if p).strip()
        if body:
            segments.append(ImportedSegment(label=current, text=body))

    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        unwrapped = unwrap(line)
        label: str | None = None
        spoken: str | None = unwrapped
        m_line = LABEL_LINE_RE.match(unwrapped)
        m_inline = None if m_line else LABEL_INLINE_RE.match(unwrapped)
        if _dropped(unwrapped, current is None):
            dropped.append(raw.strip())
            continue
        if m_line and not is_delivery_tag(m_line.group(1)):
            label = m_line.group(1).strip()
            spoken = None
        elif m_inline:
            content = m_inline.group(1)
            if is_delivery_tag(content):
                spoken = unwrapped
            elif is_direction_label(content):
                spoken = m_inline.group(2).strip()  # keep the words, lose the direction
            else:
                label = content.strip()
                spoken = m_inline.group(2).strip()
        if label is not None:
            label = " ".join(label.split()).strip(":").strip()
        if label:
            flush()
            current = canonical.setdefault(label_key(label), label)
            paragraphs = [[]]
        if spoken:
            if current is None:
                dropped.append(raw.strip())
            else:
                paragraphs[-1].append(spoken)
    flush()
    labels = list(dict.fromkeys(s.label for s in segments))
    return ParsedImport(segments=segments, dropped_lines=dropped, labels=labels)


def resolve_labels(
    labels: list[str], hosts: list[tuple[str, str]], assignments: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Map script labels to host IDs.

    ``hosts`` is ``[(host_id, name)]``; ``assignments`` maps label to host ID (from
    ``speaker_characters``) and overrides name matching; labels compare case-insensitively with
    whitespace trimmed and collapsed. Otherwise a label matches a host by full name
    (case-insensitive, honorifics and parenthesized notes ignored), then by a unique first-name
    match. Returns ``(label -> host_id, unresolved labels in order)``.
    """
    assigned = {label_key(k): v for k, v in assignments.items()}
    resolved: dict[str, str] = {}
    unresolved: list[str] = []
    for label in labels:
        key = label_key(label)
        if key in assigned:
            resolved[label] = assigned[key]
            continue
        exact = [hid for hid, name in hosts if label_key(name) == key]
        if not exact:
            tokens = name_tokens(label)
            exact = [hid for hid, name in hosts if tokens and name_tokens(name) == tokens]
        if exact:
            resolved[label] = exact[0]
            continue
        tokens = name_tokens(label)
        candidates: list[str] = []
        if tokens:
            for hid, name in hosts:
                host_tokens = name_tokens(name)
                if first_name_match(tokens, host_tokens):
                    candidates.append(hid)
        if len(set(candidates)) == 1:
            resolved[label] = candidates[0]
        else:
            unresolved.append(label)
    return resolved, unresolved


def cut_to_words(segments: list[ImportedSegment], max_words: int) -> list[ImportedSegment]:
    """Keep the first ``max_words`` words: whole segments, then the start of the one that crosses.

    The crossing segment is cut at the last sentence end within the allowance when that keeps at
    least half of the allowed words, otherwise at the word limit (with a closing full stop).
    """
    if max_words <= 0:
        return []
    out: list[ImportedSegment] = []
    remaining = max_words
    for segment in segments:
        words = segment.text.split()
        if len(words) <= remaining:
            out.append(segment)
            remaining -= len(words)
            if remaining == 0:
                break
            continue
        # Cut inside this segment, keeping paragraph breaks of the part that stays.
        kept = _first_words(segment.text, remaining)
        sentence_end = max(kept.rfind(". "), kept.rfind("! "), kept.rfind("? "), kept.rfind(".\n"))
        if kept[-1:] in ".!?":
            sentence_end = len(kept) - 1
        if sentence_end > 0 and len(kept[: sentence_end + 1].split()) >= remaining / 2:
            kept = kept[: sentence_end + 1]
        else:
            kept = kept.rstrip(",;:-–— ") + "."
        if kept.strip(" ."):
            out.append(ImportedSegment(label=segment.label, text=kept.strip()))
        break
    return out


def _first_words(text: str, n: int) -> str:
    for count, m in enumerate(re.finditer(r"\S+", text), 1):
        if count == n:
            return text[: m.end()]
    return text
