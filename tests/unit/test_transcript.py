"""The Qt-free transcript core: both word shapes, speaker turns, the reading view's plan, search,
copying with times, and exports read back by independent SRT and WebVTT parsers."""

from __future__ import annotations

import itertools
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from castdeck.transcript import (
    clock,
    cues,
    find_all,
    normalise,
    plan_document,
    timed_text,
    to_json,
    to_srt,
    to_text,
    to_vtt,
    word_at,
)
from castdeck.transcript.export import MAX_CUE_SECONDS, MAX_LINE_CHARS, MAX_LINES
from tests.subtitle_parsers import parse_srt, parse_vtt

SPEAKERS = [{"host_id": "h1", "name": "Alex Rivera"}, {"host_id": "h2", "name": "Priya Natarajan"}]


def spoken(count: int, *, turn: int = 23, step: float = 0.37) -> dict:
    """``count`` words, speakers alternating every ``turn`` words, sentences of 9 words."""
    words = []
    for i in range(count):
        text = f"word{i}" + ("." if i % 9 == 8 else "")
        words.append({"start": round(i * step, 3), "end": round(i * step + step * 0.8, 3),
                      "speaker": (i // turn) % 2, "text": text})  # fmt: skip
    return {"episode_id": "e1", "speakers": SPEAKERS, "words": words}


def srt_words(cue_text: str) -> list[str]:
    """The words of an SRT cue without its speaker label (``Name:`` opens a turn's first cue)."""
    for speaker in SPEAKERS:
        cue_text = cue_text.removeprefix(f"{speaker['name']}: ")
    return cue_text.split()


# --- normalising ---------------------------------------------------------------------------------------------


def test_both_shapes_give_the_same_words() -> None:
    new = normalise({"episode_id": "e", "speakers": [{"host_id": "a", "name": "Ann"}],
                     "words": [{"start": 0.5, "end": 0.9, "speaker": 0, "text": "Hello"},
                               {"start": 1.0, "end": 1.4, "speaker": 0, "text": "there"}]})  # fmt: skip
    old = normalise(
        [{"word": "Hello", "start": 0.5, "end": 0.9}, {"word": "there", "start": 1.0, "end": 1.4}], "e"
    )
    assert [(w.start, w.end, w.text) for w in new.words] == [(w.start, w.end, w.text) for w in old.words]
    assert [w.speaker for w in new.words] == [0, 0]
    assert [w.speaker for w in old.words] == [None, None]
    assert new.speaker_name(0) == "Ann" and old.speaker_name(None) == ""
    assert old.episode_id == "e"


def test_bad_words_are_dropped_or_repaired() -> None:
    t = normalise({"speakers": [{"name": "A"}], "words": [
        {"start": 2.0, "end": 1.0, "speaker": 0, "text": "backwards"},
        {"start": -1, "end": 0.2, "speaker": 7, "text": "early"},
        {"start": "x", "end": 1, "text": "nostart"},
        {"start": 3, "end": 4, "text": "   "},
        {"start": float("nan"), "end": 1, "text": "nan"},
        {"start": 1.5, "end": 1.7, "text": "two\n words"},
        "not a word",
    ]})  # fmt: skip
    assert [(w.start, w.end, w.text, w.speaker) for w in t.words] == [
        (0.0, 0.2, "early", None),
        (1.5, 1.7, "two words", None),
        (2.0, 2.0, "backwards", 0),
    ]


def test_word_at_is_the_last_word_started() -> None:
    t = normalise(spoken(10))
    assert word_at(t.starts, -0.1) == -1
    assert t.word_at(0.0) == 0
    assert t.word_at(0.37 * 3 + 0.01) == 3
    assert t.word_at(0.37 * 3 - 0.01) == 2
    assert t.word_at(1e9) == 9


def test_turns_follow_speakers_and_stay_short() -> None:
    t = normalise(spoken(300, turn=150))
    turns = t.turns()
    assert turns[0].first == 0 and turns[-1].last == 300
    assert all(a.last == b.first for a, b in itertools.pairwise(turns))
    assert all(turn.last - turn.first <= 120 for turn in turns)
    assert all(len({w.speaker for w in t.words[turn.first : turn.last]}) == 1 for turn in turns)
    assert {turn.speaker for turn in turns} == {0, 1}


# --- exports --------------------------------------------------------------------------------------------------


def test_srt_parses_and_holds_every_word_in_order() -> None:
    t = normalise(spoken(400))
    parsed = parse_srt(to_srt(t))
    assert [w for cue in parsed for w in srt_words(cue.text)] == [w.text for w in t.words]
    for cue in parsed:
        assert len(cue.lines) <= MAX_LINES and all(len(line) <= MAX_LINE_CHARS for line in cue.lines), cue
        assert 0 < cue.end - cue.start <= MAX_CUE_SECONDS, cue
    assert all(a.end <= b.start for a, b in itertools.pairwise(parsed))
    assert parsed[0].lines[0].startswith("Alex Rivera: ")


def test_vtt_parses_with_voices_split_at_speaker_changes() -> None:
    t = normalise(spoken(400))
    parsed = parse_vtt(to_vtt(t))
    assert [w for cue in parsed for w in cue.text.split()] == [w.text for w in t.words]
    by_word = iter(t.words)
    for cue in parsed:
        said = [next(by_word) for _ in cue.text.split()]
        assert {t.speaker_name(w.speaker) for w in said} == {cue.voice}, cue
        assert cue.start == round(said[0].start, 3)
        assert len(cue.lines) <= MAX_LINES and all(len(line) <= MAX_LINE_CHARS for line in cue.lines)


def test_vtt_escapes_markup_in_words() -> None:
    t = normalise([{"word": "a<b>&c", "start": 0, "end": 1}, {"word": "-->", "start": 1, "end": 2}])
    body = to_vtt(t)
    assert "<b>" not in body
    assert [cue.text for cue in parse_vtt(body)] == ["a<b>&c -->"]


def test_a_word_longer_than_a_line_stands_alone() -> None:
    long = "x" * 60
    t = normalise([{"word": "short", "start": 0, "end": 0.5}, {"word": long, "start": 0.5, "end": 1},
                   {"word": "after", "start": 1, "end": 1.5}])  # fmt: skip
    lines = [line for cue in cues(t) for line in cue.lines]
    assert long in lines
    assert [w for line in lines for w in line.split()] == ["short", long, "after"]


def test_text_is_paragraphs_by_speaker_turn() -> None:
    t = normalise(spoken(60, turn=20))
    text = to_text(t)
    headings = re.findall(r"^(.+) \[(\d\d:\d\d:\d\d)\]$", text, flags=re.M)
    assert [h[0] for h in headings] == ["Alex Rivera", "Priya Natarajan", "Alex Rivera"]
    assert headings[1][1] == clock(t.words[20].start)[:8]
    assert " ".join(
        w for line in text.splitlines() if not line.endswith("]") for w in line.split()
    ) == " ".join(w.text for w in t.words)


def test_json_round_trips_through_normalise() -> None:
    t = normalise(spoken(50))
    body = json.loads(to_json(t))
    again = normalise(body)
    assert again.words == t.words and again.speakers == t.speakers
    assert body["turns"][0]["text"].split() == [
        w.text for w in t.words[: len(body["turns"][0]["text"].split())]
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(
                alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                min_size=1,
                max_size=50,
            ),
            st.floats(min_value=0.01, max_value=9.0),
            st.integers(min_value=0, max_value=2),
        ),
        min_size=1,
        max_size=120,
    )
)
def test_any_words_make_valid_subtitles(items: list[tuple[str, float, int]]) -> None:
    words, at = [], 0.0
    for text, length, speaker in items:
        words.append({"start": at, "end": at + length, "speaker": speaker % 2, "text": text})
        at += length
    t = normalise({"speakers": SPEAKERS, "words": words})
    expected = [w.text for w in t.words]
    vtt = parse_vtt(to_vtt(t))
    assert [w for cue in vtt for w in cue.text.split()] == [w for text in expected for w in text.split()]
    # each format's cues are its own plan: SRT's "Name: " prefix takes room on the first line, so a
    # long word can start a new cue there and not in WebVTT (whose voice tag takes none)
    assert len(vtt) == len(cues(t, speaker_prefix=False))
    srt = parse_srt(to_srt(t))
    for cue, made in zip(srt, cues(t, speaker_prefix=True), strict=True):
        assert cue.end > cue.start
        one_word = made.last_word - made.first_word == 1
        assert one_word or (len(cue.lines) <= MAX_LINES and max(map(len, cue.lines)) <= MAX_LINE_CHARS)
        assert one_word or made.end - made.start <= MAX_CUE_SECONDS
        assert len({t.words[i].speaker for i in range(made.first_word, made.last_word)}) == 1


# --- the reading view's plan, search, copy --------------------------------------------------------------------


def test_plan_positions_point_at_each_word() -> None:
    t = normalise(spoken(500, turn=37))
    plan = plan_document(t)
    text = plan.text
    for i, word in enumerate(t.words):
        assert text[plan.word_positions[i] : plan.word_positions[i] + plan.word_lengths[i]] == word.text
        assert plan.word_at_position(plan.word_positions[i] + 1) == i
    for number, first in enumerate(plan.block_first_word):
        assert text[plan.block_positions[number] :].startswith(t.words[first].text)
        assert (
            plan.paragraph_of_block(2 * number) == number and plan.paragraph_of_block(2 * number + 1) is None
        )
    assert [h for h in plan.headings if h][:2] == ["Alex Rivera", "Priya Natarajan"]
    assert list(plan.words_between(plan.word_positions[3] + 1, plan.word_positions[6] + 2)) == [3, 4, 5, 6]


def test_find_all_ignores_case() -> None:
    assert find_all("Tide tide TIDE tidal", "tide") == [0, 5, 10]
    assert find_all("abc", "") == []
    assert find_all("Straße STRASSE", "straße") == [0]


def test_timed_text_by_speaker() -> None:
    t = normalise(spoken(30, turn=10))
    assert timed_text(t, 8, 12, times=False) == "word8. word9 word10 word11"
    assert timed_text(t, 8, 12, times=True).splitlines() == [
        f"[{clock(t.words[8].start)[:8]}] Alex Rivera: word8. word9",
        f"[{clock(t.words[10].start)[:8]}] Priya Natarajan: word10 word11",
    ]


def test_a_speaker_prefix_can_make_an_srt_cue_more_than_its_webvtt_twin() -> None:
    """Found by the property test above: SRT puts "Name: " before the first word of a turn, and
    the line limit then leaves no room for a long word that WebVTT (a voice tag) still fits."""
    t = normalise({"speakers": SPEAKERS, "words": [
        {"start": 0.0, "end": 1.0, "speaker": 0, "text": "0" * 8},
        {"start": 1.0, "end": 2.0, "speaker": 0, "text": "0" * 21},
        {"start": 2.0, "end": 3.0, "speaker": 0, "text": "0" * 21},
    ]})  # fmt: skip
    vtt, srt = parse_vtt(to_vtt(t)), parse_srt(to_srt(t))
    assert (len(vtt), len(srt)) == (1, 2)
    assert [w for cue in srt for w in cue.text.split()][-3:] == [w.text for w in t.words]
