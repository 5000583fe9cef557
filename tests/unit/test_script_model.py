"""The script model by example: the text form, problems with their positions, speakers, conversions,
edits, and agreement with the sandbox's own import rules (the service side of spec 4.2)."""

from __future__ import annotations

import json

import pytest

from castdeck.api.models import Script
from castdeck.sandbox import importer
from castdeck.scripts import (
    HostRef,
    analyze,
    parse_text,
    read_structured,
    resolve,
    speaker_characters,
    to_structured,
    to_text,
)
from castdeck.scripts.edits import (
    apply_edits,
    assemble,
    blocks_of,
    find_all,
    label_edits,
    replace_edits,
    segment_label_edit,
)
from castdeck.scripts.estimate import credits_for, estimate, syllables
from castdeck.scripts.json_doc import JsonSyntaxError, read_json

HOSTS = [HostRef("a1", "Alex Rivera"), HostRef("p1", "Priya Natarajan"), HostRef("m1", "Dr. Maya Chen")]

SCRIPT = """Title: The tide
# The tide comes in
[Alex]
Welcome back. (laughs)

Today: tides.
[MUSIC: intro swells]
[Maya] Thanks, Alex.
# Part two
more from Maya
[Bob]
[Priya]
Bye for now.
"""


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_the_text_form_reads_chapters_turns_and_the_lines_the_service_drops() -> None:
    script = parse_text(SCRIPT)
    assert [c.title for c in script.chapters] == ["The tide comes in", "Part two"]
    turns = [(s.label, s.text) for s in script.segments]
    assert turns == [
        ("Alex", "Welcome back. (laughs)\n\nToday: tides."),
        ("Maya", "Thanks, Alex."),
        ("Maya", "more from Maya"),  # a chapter line does not change who speaks
        ("Priya", "Bye for now."),
    ]
    assert script.labels == ("Alex", "Maya", "Priya")  # Bob says nothing
    assert script.dropped_lines == (0, 6)  # the title line and the music cue
    assert script.empty_turns == ((10, "Bob"),)


def test_problems_name_their_line_and_column() -> None:
    analysis = analyze(SCRIPT, hosts=HOSTS)
    found = {(p.code, p.line, p.column) for p in analysis.problems}
    assert ("dropped", 0, 0) in found
    assert ("dropped", 6, 0) in found
    assert ("empty_turn", 10, 0) in found
    assert not analysis.errors  # Alex, Maya and Priya resolve by name


def test_a_label_that_matches_no_host_is_flagged_with_the_closest_hosts() -> None:
    analysis = analyze("[Alex]\nHi.\n[Pria]\nHello.\n", hosts=HOSTS)
    (problem,) = analysis.errors
    assert (problem.code, problem.line, problem.column, problem.length) == ("unresolved_speaker", 2, 0, 6)
    assert problem.labels == ("Pria",)
    assert "Closest: Priya Natarajan" in problem.message
    # an explicit mapping resolves it and becomes speaker_characters
    mapped = analyze("[Alex]\nHi.\n[Pria]\nHello.\n", hosts=HOSTS, mapping={"pria": "p1"})
    assert not mapped.errors
    assert speaker_characters(mapped.script.labels, {"pria": "p1"}) == [
        {"character_id": "p1", "label": "Pria"}
    ]


def test_a_mapping_to_a_host_that_is_not_active_is_an_error() -> None:
    analysis = analyze("[Alex]\nHi.\n", hosts=HOSTS, mapping={"Alex": "gone1"})
    assert codes(analysis.errors) == ["inactive_host"]


def test_without_known_hosts_unmapped_labels_are_only_a_warning() -> None:
    analysis = analyze("[Sam]\nHi.\n", hosts=None)
    assert not analysis.errors
    assert codes(analysis.warnings) == ["speaker_unknown"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("   \n\n", "empty"),
        ("Just some words.\n", "no_segments"),
        ("Intro words.\n[Alex]\nHi.\n", "before_first_label"),
        ("[" + "x" * 201 + "]\nHi.\n[Alex]\nHi.\n", "label_too_long"),
        ("# Empty\n# Next\n[Alex]\nHi.\n", "empty_chapter"),
    ],
)
def test_rules_of_the_text_form(text: str, code: str) -> None:
    assert code in codes(analyze(text, check_speakers=False).problems)


def test_speaker_resolution_follows_the_service() -> None:
    found = resolve(["Alex", "maya chen", "Dr. Maya Chen", "Priya N.", "Sam"], HOSTS, {"sam": "a1"})
    assert {k: v.host_id for k, v in found.items()} == {
        "Alex": "a1", "maya chen": "m1", "Dr. Maya Chen": "m1", "Priya N.": "p1", "Sam": "a1",
    }  # fmt: skip
    assert found["Sam"].how == "mapped" and found["Alex"].how == "name"


def test_the_sandbox_resolves_labels_the_same_way() -> None:
    hosts = [*HOSTS, HostRef("a2", "Alex Moreno")]
    labels = ["Alex", "Alex R.", "alex moreno", "Maya", "Priya", "Dr Maya Chen", "Nobody", "Alex (host)"]
    ours = resolve(labels, hosts, {"Nobody": "p1"})
    theirs, unresolved = importer.resolve_labels(labels, [(h.id, h.name) for h in hosts], {"Nobody": "p1"})
    assert {k: v.host_id for k, v in ours.items() if v.host_id} == theirs
    assert [k for k, v in ours.items() if v.host_id is None] == unresolved


def test_text_to_structured_and_back_keeps_labels_chapters_and_words() -> None:
    script = parse_text(SCRIPT)
    structured, table, problems = to_structured(script, {"Bob": "b1"}, HOSTS)
    assert structured is not None and not problems
    Script.model_validate(structured.to_dict())  # the wire model takes it
    assert table == {"Alex": "a1", "Maya": "m1", "Priya": "p1"}
    text, back, warnings = to_text(structured, table)
    assert not warnings and back == table
    again = parse_text(text)
    assert [c.title for c in again.chapters] == [c.title for c in script.chapters]
    assert [(s.label, s.text.split()) for s in again.segments] == [
        (s.label, s.text.split()) for s in script.segments
    ]


def test_converting_an_unmapped_label_names_it() -> None:
    structured, _table, problems = to_structured(parse_text("[Alex]\nHi.\n[Sam]\nYo.\n"), {}, HOSTS)
    assert structured is None
    assert [(p.code, p.labels, p.line) for p in problems] == [("unmapped_label", ("Sam",), 2)]


def test_structured_to_text_uses_the_table_then_names_then_ids() -> None:
    structured, _ = read_structured(json.dumps({"chapters": [
        {"title": "One", "segments": [{"host_id": "a1", "text": "Hi."}, {"host_id": "zz", "text": "Yo."}]},
        {"segments": [{"host_id": "m1", "text": "Bye."}]},
    ]}))  # fmt: skip
    assert structured is not None
    text, back, warnings = to_text(structured, {"Host": "a1"}, HOSTS)
    assert text == "# One\n\n[Host]\nHi.\n\n[zz]\nYo.\n\n#\n\n[Dr. Maya Chen]\nBye.\n"
    assert back == {"Host": "a1", "zz": "zz", "Dr. Maya Chen": "m1"} and not warnings


def test_structured_text_that_would_not_read_back_is_a_warning() -> None:
    structured, _ = read_structured(
        '{"chapters":[{"segments":[{"host_id":"a1","text":"Hi.\\n[Bob]\\nsneaky"}]}]}'
    )
    assert structured is not None
    _text, _back, warnings = to_text(structured)
    assert codes(warnings) == ["not_text_safe"]


def test_structured_problems_point_into_the_json() -> None:
    source = '{\n  "chapters": [\n    {"title": "", "segments": [\n      {"host_id": "a1", "text": "x", "speed": 1}\n    ]}\n  ]\n}'
    script, problems = read_structured(source)
    assert script is not None
    assert [(p.code, p.line, p.column) for p in problems] == [
        ("title_empty", 2, 14),
        ("segment_speed", 3, 37),
    ]
    _, broken = read_structured('{"chapters": [\n  {"segments": [}\n]}')
    assert [(p.code, p.line, p.column) for p in broken] == [("json", 1, 16)]


def test_a_whole_generate_body_is_read_for_its_script() -> None:
    script, problems = read_structured(json.dumps({"podcast_id": "x", "script": {"chapters": [
        {"segments": [{"host_id": "a1", "text": "Hi."}]}]}}))  # fmt: skip
    assert script is not None and not problems and script.host_ids == ["a1"]


def test_the_json_reader_reads_what_json_reads() -> None:
    source = '{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"], "b": {}, "a": 0}'
    assert read_json(source).value == json.loads(source)
    for bad in ("", "{", '{"a" 1}', "[1,]", "01", '"\\x"', "[" * 300 + "]" * 300, "1" * 5000):
        with pytest.raises(JsonSyntaxError):
            read_json(bad)


def test_estimates_count_words_per_speaker_and_credits() -> None:
    result = estimate(parse_text("[Alex]\nOne two three.\n[Maya]\nFour five. (laughs)\n[Alex]\nSix.\n"))
    assert result.words == 7 and result.words_by_speaker == {"Alex": 4, "Maya": 3}
    assert list(result.seconds_by_speaker) == ["Alex", "Maya"]
    assert result.seconds == pytest.approx(sum(result.seconds_by_speaker.values()) + 2 * 0.35)
    assert syllables("(laughs) Tomorrow") == syllables("Tomorrow") == 3
    assert credits_for(1.0) == 30 and credits_for(0.01) == 1 and credits_for(0) == 0


def test_renaming_a_speaker_everywhere_changes_only_label_lines() -> None:
    text = "[Alex]\nAlex said hi.\n[ALEX]: again\n[Maya]\nHi Alex.\n"
    edits = label_edits(parse_text(text), "alex", "Alex Rivera")
    assert (
        apply_edits(text, edits) == "[Alex Rivera]\nAlex said hi.\n[Alex Rivera]: again\n[Maya]\nHi Alex.\n"
    )


def test_find_and_replace() -> None:
    text = "The tide. the Tide!\nTides"
    assert find_all(text, "tide") == [(4, 8), (14, 18), (20, 24)]
    assert find_all(text, "Tide", words=True, case=True) == [(14, 18)]
    assert apply_edits(text, replace_edits(text, "tide", "sea", words=True)) == "The sea. the sea!\nTides"


def test_giving_a_turn_another_speaker() -> None:
    script = parse_text(SCRIPT)
    continued = script.segments[2]  # goes on under "# Part two"
    changed = apply_edits(SCRIPT, [segment_label_edit(script, continued, "Priya")])
    assert [(s.label, s.text) for s in parse_text(changed).segments][2] == ("Priya", "more from Maya")
    first = apply_edits(SCRIPT, [segment_label_edit(script, script.segments[0], "Priya")])
    assert parse_text(first).segments[0].label == "Priya"


def test_blocks_keep_every_line_and_reorder_turns_and_chapters() -> None:
    script = parse_text(SCRIPT)
    blocks = blocks_of(script)
    same = parse_text(assemble(blocks))
    assert [(s.label, s.text) for s in same.segments] == [(s.label, s.text) for s in script.segments]
    blocks.chapters.reverse()
    blocks.chapters[0].segments.reverse()
    moved = parse_text(assemble(blocks))
    assert [c.title for c in moved.chapters] == ["Part two", "The tide comes in"]
    assert [s.text for s in moved.segments] == [
        "Bye for now.", "more from Maya", "Welcome back. (laughs)\n\nToday: tides.", "Thanks, Alex.",
    ]  # fmt: skip
    assert sorted(assemble(blocks).split("\n")) == sorted([*SCRIPT.split("\n"), "[Maya]"])  # nothing lost


def test_lines_the_service_drops_match_the_sandbox_on_a_realistic_script() -> None:
    text = """EPISODE 12: Tides
Format: two hosts
Target length: 7 minutes
---
[INTRO MUSIC]
**[Alex]**
Welcome back. [whispers] It's tide time.
(music fades)
VISUAL: a chart of tides
[Maya]: Thanks. (laughs)
00:01:02 --> 00:01:05
[Alex] Right!
Uncertain line stays.
"""
    ours = parse_text(text)
    theirs = importer.parse_script_text(text)
    assert [(s.label, s.text) for s in ours.segments] == [(s.label, s.text) for s in theirs.segments]
    assert [
        ours.lines[i].strip() for i in sorted(ours.dropped_lines + ours.orphan_lines)
    ] == theirs.dropped_lines


def test_a_line_of_emphasis_marks_alone_is_nothing_as_at_the_service() -> None:
    text = "* *\n[Alex]\nHi\n* *\nthere.\n"
    ours, theirs = parse_text(text), importer.parse_script_text(text)
    assert [(s.label, s.text) for s in ours.segments] == [(s.label, s.text) for s in theirs.segments]
    assert ours.segments[0].text == "Hi there." and theirs.dropped_lines == []
    assert not analyze(text, check_speakers=False).problems
