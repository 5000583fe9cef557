"""Unit tests of the sandbox script writer, the import parser and the seed content."""

from __future__ import annotations

import re

import pytest

from castdeck.sandbox.importer import (
    ImportedSegment,
    cut_to_words,
    parse_script_text,
    resolve_labels,
)
from castdeck.sandbox.seed_content import (
    EPISODES,
    HOSTS,
    MEDIA,
    PODCASTS,
    SOURCES,
    VOICES,
    analytics_numbers,
)
from castdeck.sandbox.writer import (
    WORDS_PER_MINUTE,
    SourceText,
    Speaker,
    minutes_from_prompt,
    title_from_prompt,
    write_episode,
    write_video,
)

TIDAL = SourceText(
    title="Tidal energy primer",
    text=(
        "Tidal energy is produced by the regular rise and fall of the sea. Unlike wind and sunshine, "
        "tides can be predicted decades in advance. The Rance station in Brittany opened in 1966 and "
        "still produces electricity today. Because water is much denser than air, a tidal turbine can "
        "be smaller than a wind turbine of the same capacity."
    ),
)
SPEAKERS = [
    Speaker("h1", "Alex Rivera", "Host"),
    Speaker("h2", "Priya Natarajan", "Co-host"),
    Speaker("h3", "Dr. Maya Chen", "Marine Scientist"),
    Speaker("h4", "Oliver Grant", "Narrator"),
]
PROMPT = "[sandbox:fail] Make an episode about tidal energy for coastal towns, including costs and fish."


def _text(script: object) -> str:
    chapters = getattr(script, "chapters", [])
    return " ".join(line.text for chapter in chapters for line in chapter.lines)


@pytest.mark.parametrize("minutes", [1, 7, 75])
@pytest.mark.parametrize("n_speakers", [1, 2, 4])
def test_word_count_within_tolerance(minutes: int, n_speakers: int) -> None:
    script = write_episode(PROMPT, SPEAKERS[:n_speakers], [TIDAL], minutes, seed=7)
    target = minutes * WORDS_PER_MINUTE
    assert abs(script.word_count() - target) <= 0.1 * target
    assert script.word_count() == len(_text(script).split())
    assert len(script.chapters) >= 4  # intro, at least two chapters, outro


def test_word_count_without_sources() -> None:
    for minutes in (1, 7, 75):
        script = write_episode("Explain why sleep matters for memory", SPEAKERS[:2], [], minutes, seed=1)
        assert abs(script.word_count() - minutes * 150) <= 15 * minutes


@pytest.mark.parametrize("n_speakers", [2, 3, 4])
def test_all_speakers_speak_and_take_turns(n_speakers: int) -> None:
    script = write_episode(PROMPT, SPEAKERS[:n_speakers], [TIDAL], 7, seed=3)
    lines = [line for chapter in script.chapters for line in chapter.lines]
    assert {line.speaker for line in lines} == set(range(n_speakers))
    for chapter in script.chapters:  # turns alternate within a chapter
        assert all(a.speaker != b.speaker for a, b in zip(chapter.lines, chapter.lines[1:], strict=False))
    body = script.chapters[1:-1]
    assert all(len({line.speaker for line in c.lines}) >= 2 for c in body)
    text = _text(script)
    assert "?" in text  # questions and answers
    assert any(s.name.split()[-1] in text or s.name.split()[0] in text for s in SPEAKERS[1:n_speakers])


@pytest.mark.parametrize("n_speakers", [1, 2, 4])
def test_short_episode_still_has_every_speaker(n_speakers: int) -> None:
    script = write_episode(PROMPT, SPEAKERS[:n_speakers], [TIDAL], 1, seed=5)
    speakers = {line.speaker for chapter in script.chapters for line in chapter.lines}
    assert speakers == set(range(n_speakers))


def test_monologue_uses_one_speaker() -> None:
    script = write_episode(PROMPT, SPEAKERS[:1], [TIDAL], 7, seed=2)
    assert {line.speaker for c in script.chapters for line in c.lines} == {0}
    assert "?" not in re.sub(r"Remember the point from [^?]*\?", "", _text(script))  # no Q and A


def test_source_sentences_and_titles_appear() -> None:
    script = write_episode(PROMPT, SPEAKERS[:2], [TIDAL], 7, seed=11)
    text = _text(script)
    assert "The Rance station" in text  # a sentence of the source (seed 11 picks this one)
    assert "Tidal energy primer" in text
    assert "tidal energy" in text.lower() and "costs" in text.lower()


def test_no_control_phrases_or_markup() -> None:
    src = SourceText("https://en.wikipedia.org/wiki/Tidal_power", "## Heading\n" + TIDAL.text + " [1]")
    for minutes in (1, 7):
        script = write_episode(PROMPT + " **bold** <b>x</b>", SPEAKERS[:3], [src], minutes, seed=4)
        text = _text(script) + " " + " ".join(c.title for c in script.chapters) + script.title
        assert "sandbox" not in text.lower()
        assert not re.search(r"[\[\]<>*#_`{}|]", text)
        assert "Tidal power" in text  # URL title turned into a speakable title


def test_deterministic_per_seed() -> None:
    a = write_episode(PROMPT, SPEAKERS[:3], [TIDAL], 7, seed=42)
    b = write_episode(PROMPT, SPEAKERS[:3], [TIDAL], 7, seed=42)
    c = write_episode(PROMPT, SPEAKERS[:3], [TIDAL], 7, seed=43)
    assert a == b
    assert _text(a) != _text(c)


def test_title_and_description() -> None:
    script = write_episode(PROMPT, SPEAKERS[:2], [TIDAL], 2, seed=1)
    assert script.title == "Tidal Energy for Coastal Towns"
    assert "Alex Rivera" in script.description and "Tidal energy primer" in script.description
    assert title_from_prompt("Create a 10 minute podcast episode about the history of jazz.") == (
        "History of Jazz"
    )
    assert title_from_prompt("[sandbox:fail]") == "Untitled Episode"


@pytest.mark.parametrize("seconds", [30, 60, 300, 1200])
def test_video_narration(seconds: int) -> None:
    script = write_video(
        "A short explainer on how vaccines train the immune system", SPEAKERS[:1], [], seconds, seed=2
    )
    target = seconds / 60 * WORDS_PER_MINUTE
    assert abs(script.word_count() - target) <= 0.1 * target
    assert len(script.chapters) >= 3
    assert all(c.title and len(c.title) <= 200 for c in script.chapters)


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Make a 12-minute episode about tides", 12.0),
        ("about 5 minutes long, please", 5.0),
        ("A half an hour deep dive", 30.0),
        ("a half-hour special", 30.0),
        ("an hour and a half on jazz", 90.0),
        ("twenty-five minutes on bees", 25.0),
        ("a ten minute chat", 10.0),
        ("between 5 and 7 minutes", 6.0),
        ("5 to 7 minutes", 6.0),
        ("a 90-second teaser", 1.5),
        ("one hour episode", 60.0),
        ("2.5 min recap", 2.5),
        ("an episode about tides", None),
        ("the minutes of the meeting", None),
    ],
)
def test_minutes_from_prompt(prompt: str, expected: float | None) -> None:
    assert minutes_from_prompt(prompt) == expected


MESSY = (
    "\ufeff# The Tide Turns\r\n"
    "Episode 3: Power from the Sea\r\n"
    "Duration: 5 minutes\r\n"
    "Production note: keep it light and friendly.\r\n"
    "---\r\n"
    "[MUSIC]\r\n"
    "(Intro music)\r\n"
    "[00:00:05]\r\n"
    "[Alex]\r\n"
    "Welcome back to the show! (laughs) Today we talk tides.\r\n"
    "It's a big one.\r\n"
    "\r\n"
    "Really big.\r\n"
    "[Music fades]\r\n"
    "**[Dr. Maya Chen]:**\r\n"
    "[whispers] Tides are predictable.\r\n"
    "(Visual: chart of tidal ranges)\r\n"
    "They come twice a day.\r\n"
    "[SFX waves crashing]\r\n"
    "[alex] So what about the fish?\r\n"
    "***\r\n"
    "ALEX: this line has no bracket label and is kept.\r\n"
    "[Sam]\r\n"
    "Good question.\r\n"
    "[Narrator]\r\n"
    "\r\n"
    "[Music: outro theme]\r\n"
    "Rules: no swearing\r\n"
)


def test_parse_messy_transcript() -> None:
    parsed = parse_script_text(MESSY)
    assert parsed.labels == ["Alex", "Dr. Maya Chen", "Sam"]  # [MUSIC] is no label; [Narrator] is empty
    assert [s.label for s in parsed.segments] == ["Alex", "Dr. Maya Chen", "Alex", "Sam"]
    first = parsed.segments[0].text
    assert first == "Welcome back to the show! (laughs) Today we talk tides. It's a big one.\n\nReally big."
    assert parsed.segments[1].text == "[whispers] Tides are predictable. They come twice a day."
    assert parsed.segments[2].text == (
        "So what about the fish? ALEX: this line has no bracket label and is kept."
    )
    dropped = set(parsed.dropped_lines)
    for line in (
        "# The Tide Turns",
        "Episode 3: Power from the Sea",
        "Duration: 5 minutes",
        "Production note: keep it light and friendly.",
        "---",
        "[MUSIC]",
        "(Intro music)",
        "[00:00:05]",
        "[Music fades]",
        "(Visual: chart of tidal ranges)",
        "[SFX waves crashing]",
        "***",
        "[Music: outro theme]",
        "Rules: no swearing",
    ):
        assert line in dropped, line
    all_text = " ".join(s.text for s in parsed.segments)
    assert "MUSIC" not in all_text and "Visual" not in all_text and "00:00" not in all_text


def test_parse_without_labels_gives_no_segments() -> None:
    parsed = parse_script_text("Just some narration.\nAnd more narration.\n[Music]\n")
    assert parsed.segments == [] and parsed.labels == []


def test_parse_inline_labels_and_colon() -> None:
    parsed = parse_script_text("[Host]: Hello there.\n[Guest] Hi!\n  [Host]  \nBye.\n")
    assert [(s.label, s.text) for s in parsed.segments] == [
        ("Host", "Hello there."),
        ("Guest", "Hi!"),
        ("Host", "Bye."),
    ]


def test_resolve_labels() -> None:
    hosts = [("h1", "Alex Rivera"), ("h2", "Dr. Maya Chen"), ("h3", "Sam Okafor"), ("h4", "Sam Smith")]
    labels = ["Alex", "Maya Chen", "Sam", "Narrator", "alex rivera"]
    resolved, unresolved = resolve_labels(labels, hosts, {"  SAM ": "h4", "narrator": "h1"})
    assert resolved == {"Alex": "h1", "Maya Chen": "h2", "Sam": "h4", "Narrator": "h1", "alex rivera": "h1"}
    assert unresolved == []
    resolved, unresolved = resolve_labels(["Sam", "Bob", "Alex"], hosts, {})
    assert resolved == {"Alex": "h1"}
    assert unresolved == ["Sam", "Bob"]  # "Sam" is ambiguous, "Bob" matches no host
    resolved, _ = resolve_labels(["Alex"], hosts, {"Alex": "h3"})
    assert resolved == {"Alex": "h3"}  # assignment overrides the name match


def test_cut_to_words() -> None:
    segments = [
        ImportedSegment("A", "One two three. Four five."),
        ImportedSegment("B", "Six seven eight nine ten. Eleven twelve."),
        ImportedSegment("A", "Thirteen."),
    ]
    assert cut_to_words(segments, 100) == segments
    assert cut_to_words(segments, 5) == segments[:1]
    assert cut_to_words(segments, 11) == [segments[0], ImportedSegment("B", "Six seven eight nine ten.")]
    cut = cut_to_words(segments, 7)
    assert cut[-1] == ImportedSegment("B", "Six seven.")
    assert sum(len(s.text.split()) for s in cut) <= 7
    assert cut_to_words(segments, 0) == []


def test_seed_content_consistency() -> None:
    voice_ids = {v["id"] for v in VOICES}
    assert len(VOICES) >= 20 and len(voice_ids) == len(VOICES)
    assert len(
        {(v["espeak"]["espeak_voice"], v["espeak"]["variant"], v["espeak"]["pitch"]) for v in VOICES}
    ) == len(VOICES)
    assert sum(v["language"] == "en" for v in VOICES) >= 10
    assert all(h["voice_id"] in voice_ids and len(h["backstory"]) >= 10 for h in HOSTS)
    assert all(len(p["title"]) <= 100 and all(0 <= i < len(HOSTS) for i in p["hosts"]) for p in PODCASTS)
    states = {e["state"] for e in EPISODES}
    assert {
        "published",
        "scheduled",
        "rendered_draft",
        "unrendered_draft",
        "empty_draft",
        "failed",
        "generating",
    } <= (states)
    assert all(e["minutes"] <= 1.5 for e in EPISODES)
    assert all(0 <= s < len(SOURCES) for e in EPISODES for s in e["sources"])
    for obj in ("video", "short", "voiceover"):
        assert {m["status"] for m in MEDIA if m["object"] == obj} == {
            "idle",
            "generating",
            "completed",
            "failed",
        }


def test_analytics_numbers() -> None:
    for days in (0.5, 3, 10, 45, 400):
        n = analytics_numbers("ep-x", days)
        d, v = n["downloads"], n["video_views"]
        assert 0 <= d["first_7_days"] <= d["first_30_days"] <= d["total"]
        assert 0 <= v["last_7_days"] <= v["last_30_days"] <= v["total"]
        assert sum(n["plays_by_app"].values()) == d["total"]
        assert n == analytics_numbers("ep-x", days)
    assert analytics_numbers("ep-x", 0)["downloads"]["total"] == 0


@pytest.mark.parametrize("prompt", ["0" * 100, "!!!!!!!!!!!!!!", "1234567890 ......", "          x "])
def test_prompts_without_words_still_get_a_script_and_a_title(prompt: str) -> None:
    speakers = [Speaker("a", "Ann Lee"), Speaker("b", "Bob Ray")]
    script = write_episode(prompt, speakers, [], 2.0, seed=870630235)
    assert abs(script.word_count() - 300) <= 30
    assert script.title and len(script.title) <= 100
    assert {line.speaker for chapter in script.chapters for line in chapter.lines} == {0, 1}
