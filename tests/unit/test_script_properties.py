"""Property tests of the script model (hypothesis): any input has a reading and no function raises;
text -> structured -> text keeps every label, chapter and word; the model agrees with the sandbox's
import rules and with the wire model. Together these run 5,200 cases, the same ones on every run
(the suite's hypothesis profile is derandomized); ``--hypothesis-profile default`` draws new ones."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from castdeck.api.models import Script
from castdeck.cli.script import main as script_main
from castdeck.sandbox import importer
from castdeck.scripts import HostRef, analyze, parse_text, read_structured, to_structured, to_text
from castdeck.scripts.edits import assemble, blocks_of
from castdeck.scripts.json_doc import JsonSyntaxError, read_json
from castdeck.scripts.lines import classify_line, label_key

FAST = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}

# Text that is mostly the characters that give a script its shape.
SHAPE = st.sampled_from([*"[]()#:*_-\n \t\r", "\n\n", "[Alex]", "[Maya]:", "# ", "(laughs)", "[MUSIC]",
                                                     "Title: ", "00:01", "-->", "\ufeff", "é", "Music: "])  # fmt: skip
ANY_TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(SHAPE, st.text(alphabet="abc XY.,!?'0", max_size=12)), max_size=80).map("".join),
)
NAMES = st.sampled_from(["Alex", "Maya Chen", "Dr. Priya", "Sam", "alex", "Zoë", "O'Neil", "Host 2"])
HOSTS = st.lists(st.builds(HostRef, st.text("abcdef0123", min_size=1, max_size=4), NAMES), max_size=4)


def words_of_turns(script: Any) -> list[tuple[str, list[str]]]:
    """(label key, words) per turn, a turn that goes on under a chapter line joined to the one before."""
    out: list[tuple[str, list[str]]] = []
    for segment in script.segments:
        if segment.label_line is None and out:
            out[-1][1].extend(segment.text.split())
        else:
            out.append((segment.key, segment.text.split()))
    return out


@settings(max_examples=1500, **FAST)
@given(text=ANY_TEXT, hosts=st.one_of(st.none(), HOSTS), mapped=st.booleans())
def test_any_text_has_a_reading_and_nothing_raises(
    text: str, hosts: list[HostRef] | None, mapped: bool
) -> None:
    script = parse_text(text)
    mapping = {label: f"h{i}" for i, label in enumerate(script.labels)} if mapped else {}
    analysis = analyze(text, hosts=hosts, mapping=mapping)
    for problem in analysis.problems:
        assert 0 <= problem.line < len(script.lines)
        assert problem.severity in ("error", "warning") and problem.message
    for segment in script.segments:
        assert segment.text and segment.text == segment.text.strip()
        assert 0 <= segment.line < segment.end_line <= len(script.lines)
    assert analysis.estimate.seconds >= 0 and analysis.estimate.credits >= 0
    # every line is kept in exactly one block, whatever the script holds
    rebuilt = parse_text(assemble(blocks_of(script)))
    assert words_of_turns(rebuilt) == words_of_turns(script)
    structured, table, problems = to_structured(script, mapping)
    if not mapped and script.labels:
        assert structured is None and {p.labels[0] for p in problems} == set(script.labels)
        return
    assert structured is not None
    back, _, warnings = to_text(structured, table)
    again = parse_text(back)
    if not warnings:
        assert [c.title for c in again.chapters] == [c.title for c in script.chapters]
        assert [(s.key, s.text.split()) for s in again.segments] == [
            (s.key, s.text.split()) for s in script.segments
        ]


VOCABULARY = str.split(
    "the tide comes in and goes out twice a day because moon pulls on oceans Alex said that fishermen "
    "knew it long before science explained why notes rules music intro sound scene Cornwall lighthouse "
    "keepers watched storms every night quietly whispering stories about ships"
)
WORD = st.one_of(st.sampled_from(VOCABULARY), st.text(alphabet="abcdefghijXYZéß", min_size=1, max_size=6))
TAG = st.sampled_from(["(laughs)", "[whispers]", "(sighs)"])
LINE = st.lists(st.one_of(WORD, WORD.map(lambda w: w + "."), WORD.map(lambda w: w + ","), TAG),
                min_size=1, max_size=8).map(" ".join)  # fmt: skip
PARAGRAPH = st.lists(LINE, min_size=1, max_size=2)  # the lines of one paragraph
TURN = st.tuples(NAMES, st.lists(PARAGRAPH, min_size=1, max_size=2))
CHAPTER = st.tuples(st.one_of(st.none(), st.text(alphabet="abc XYZ'-", min_size=1, max_size=30).map(str.strip)
                              .filter(bool)), st.lists(TURN, min_size=1, max_size=4))  # fmt: skip


def _spoken(line: str) -> bool:
    """A line a writer means as speech that the service also reads as speech (not "Notes" alone)."""
    return classify_line(line, True).kind == "spoken"


def write(chapters: list[tuple[str | None, list[tuple[str, list[list[str]]]]]], inline: bool) -> str:
    out: list[str] = []
    for index, (title, turns) in enumerate(chapters):
        if title is not None or index:
            out.append(f"# {title}" if title is not None else "#")
            out.append("")
        for label, paragraphs in turns:
            lines = ["\n".join(p) for p in paragraphs]
            body = "\n\n".join(lines)
            out.append(f"[{label}] {body}" if inline else f"[{label}]\n{body}")
            out.append("")
    return "\n".join(out)


@settings(max_examples=1000, **FAST)
@given(chapters=st.lists(CHAPTER, min_size=1, max_size=4), inline=st.booleans())
def test_text_to_structured_to_text_keeps_every_label_chapter_and_word(chapters: Any, inline: bool) -> None:
    assume(all(_spoken(line) for _t, turns in chapters for _l, ps in turns for p in ps for line in p))
    text = write(chapters, inline)
    script = parse_text(text)
    assert [c.title for c in script.chapters] == [t for t, _ in chapters]
    written_words = [
        w for _t, turns in chapters for _l, ps in turns for p in ps for line in p for w in line.split()
    ]
    assert [w for s in script.segments for w in s.text.split()] == written_words
    assert [s.label for s in script.segments] == [
        next(x for _t, ts in chapters for x, _ in ts if x.casefold() == label.casefold())
        for _t, turns in chapters for label, _ in turns
    ]  # fmt: skip
    mapping = {label: f"host{i}" for i, label in enumerate(script.labels)}
    structured, table, problems = to_structured(script, mapping)
    assert structured is not None and not problems
    Script.model_validate(structured.to_dict())  # within every limit, so the wire model takes it
    back, back_table, warnings = to_text(structured, table)
    assert not warnings and back_table == table
    again = parse_text(back)
    assert [c.title for c in again.chapters] == [c.title for c in script.chapters]
    assert [(s.label, s.text) for s in again.segments] == [(s.label, s.text) for s in script.segments]
    assert to_structured(again, back_table)[0] == structured


@settings(max_examples=800, **FAST)
@given(text=ANY_TEXT)
def test_turns_and_dropped_lines_agree_with_the_sandbox(text: str) -> None:
    ours = parse_text(text)
    theirs = importer.parse_script_text(text)
    assert words_of_turns(ours) == [(label_key(s.label), s.text.split()) for s in theirs.segments]
    if not any(ours.infos[i].kind == "chapter" for i in range(len(ours.lines))):
        assert [(s.label, s.text) for s in ours.segments] == [(s.label, s.text) for s in theirs.segments]
        kept_out = sorted(ours.dropped_lines + ours.orphan_lines)
        assert [ours.lines[i].strip() for i in kept_out] == theirs.dropped_lines


SHORT_TEXT = st.one_of(st.just(""), st.text(max_size=6), st.integers(), st.none())
SEGMENT = st.one_of(
    st.fixed_dictionaries({"host_id": SHORT_TEXT, "text": SHORT_TEXT},
                          optional={"speed": st.floats(0.5, 2), "other": st.just(1)}),
    st.integers(), st.just([]),
)  # fmt: skip
CHAPTER_DICT = st.one_of(
    st.fixed_dictionaries({"segments": st.one_of(st.lists(SEGMENT, max_size=3), st.none(), st.just("x"))},
                          optional={"title": st.one_of(SHORT_TEXT, st.text(min_size=199, max_size=202))}),
    st.none(),
)  # fmt: skip
SCRIPT_DICT = st.fixed_dictionaries(
    {"chapters": st.lists(CHAPTER_DICT, max_size=3)}, optional={"x": st.just(1)}
)


@settings(max_examples=800, **FAST)
@given(script=SCRIPT_DICT)
def test_structured_reader_agrees_with_the_wire_model(script: dict[str, Any]) -> None:
    _, problems = read_structured(json.dumps(script))
    try:
        Script.model_validate(script)
    except ValidationError:
        assert any(p.is_error for p in problems)
    else:
        assert not any(p.is_error for p in problems), problems


@settings(max_examples=800, **FAST)
@given(text=st.one_of(st.text(max_size=60), st.lists(st.sampled_from(list('{}[]",:0123456789.-eE tfnrul\\u')),
                                                             max_size=40).map("".join)))  # fmt: skip
def test_the_json_reader_agrees_with_json(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(JsonSyntaxError):
            read_json(text)
        return
    try:
        node = read_json(text)
    except JsonSyntaxError:
        assert re.search(r"NaN|Infinity", text), text  # Python's json takes these; JSON does not
        return
    assert node.value == expected


@settings(max_examples=300, **FAST)
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".txt", ".md", ".json"]))
def test_the_command_line_never_shows_a_traceback(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                                  suffix: str) -> None:  # fmt: skip
    path: Path = tmp_path_factory.mktemp("cli") / f"script{suffix}"
    path.write_bytes(data)
    assert script_main(["check", str(path)]) in (0, 1, 2)
    assert script_main(["convert", str(path), "--to", "json", "--map", "a=b"]) in (0, 1, 2)
