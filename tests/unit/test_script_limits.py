"""Every limit of spec 2.4/2.5 at its boundary and one past it: in the text form, in the structured form
(which the wire model must agree with), and through ``castdeck script check``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import ValidationError

from castdeck.api.models import EpisodeImportInput, Script
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
)
from castdeck.cli.script import main as script_main
from castdeck.scripts import HostRef, analyze, read_structured

PODCAST = "6f1c1d0e-3b7a-4c55-9a43-2d0c8a1b9e10"


def words(n: int) -> str:
    """Exactly ``n`` characters of plain words (no line looks like a label or a direction)."""
    base = ("tide moon sea " * (n // 14 + 2))[:n]
    return base[:-1] + "x" if base.endswith(" ") else base


# --- the text form ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextCase:
    code: str
    build: Callable[[int], str]  # the script with the limit's value (at it, or one past it)
    limit: int
    line: int  # 0-based line of the problem one past the limit
    target: str = "generate"  # what the limit is for (castdeck script check --for)


def chapters(n: int) -> str:
    return "".join(f"# Part {i}\n[A]\nhi\n" for i in range(n))


def turns(n: int) -> str:
    return "# One\n" + "".join(f"[A{i % 2}]\nhi\n" for i in range(n))


def total_turns(n: int) -> str:
    out = []
    for index in range(n):
        if index % MAX_SEGMENTS_PER_CHAPTER == 0:
            out.append(f"# Part {index // MAX_SEGMENTS_PER_CHAPTER}\n")
        out.append("[A]\nhi\n")
    return "".join(out)


def long_text(n: int) -> str:
    """Turns of 5,000 characters, then one of the rest: ``n`` characters of spoken text in all."""
    out = []
    while n > 0:
        size = min(n, MAX_SEGMENT_CHARS)
        out.append(f"[A]\n{words(size)}\n")
        n -= size
    return "".join(out)


def import_text(n: int) -> str:
    head = "[A]\n"
    return head + words(n - len(head))


TEXT_CASES = {
    "import characters": TextCase("script_too_long", import_text, MAX_IMPORT_SCRIPT_CHARS, 1, "import"),
    "chapters": TextCase("too_many_chapters", chapters, MAX_SCRIPT_CHAPTERS, 3 * MAX_SCRIPT_CHAPTERS),
    "turns per chapter": TextCase(
        "too_many_segments_in_chapter", turns, MAX_SEGMENTS_PER_CHAPTER, 1 + 2 * MAX_SEGMENTS_PER_CHAPTER
    ),
    "turns": TextCase("too_many_segments", total_turns, MAX_SCRIPT_SEGMENTS, 2 * MAX_SCRIPT_SEGMENTS + 3 + 1),
    "turn characters": TextCase("segment_too_long", lambda n: f"[A]\n{words(n)}\n", MAX_SEGMENT_CHARS, 0),
    "chapter title": TextCase(
        "chapter_title_too_long", lambda n: f"# {'T' * n}\n[A]\nhi\n", MAX_CHAPTER_TITLE_CHARS, 0
    ),
    "spoken characters": TextCase(
        "text_too_long", long_text, MAX_SCRIPT_CHARS, 2 * (MAX_SCRIPT_CHARS // MAX_SEGMENT_CHARS)
    ),
    "label characters": TextCase(
        "label_too_long", lambda n: f"[A]\nhi\n[{'L' * n}]\nhi\n", MAX_SPEAKER_LABEL_CHARS, 2, "both"
    ),
}


@pytest.mark.parametrize("name", TEXT_CASES)
def test_text_limits_at_and_one_past(name: str) -> None:
    case = TEXT_CASES[name]
    at = analyze(case.build(case.limit), check_speakers=False)
    assert case.code not in [p.code for p in at.problems]
    past = analyze(case.build(case.limit + 1), check_speakers=False)
    found = [p for p in past.problems if p.code == case.code]
    assert len(found) == 1, [p.code for p in past.problems]
    assert found[0].is_error and found[0].line == case.line


def test_the_import_length_limit_is_the_wire_models() -> None:
    at, past = import_text(MAX_IMPORT_SCRIPT_CHARS), import_text(MAX_IMPORT_SCRIPT_CHARS + 1)
    assert len(at) == MAX_IMPORT_SCRIPT_CHARS and len(past) == MAX_IMPORT_SCRIPT_CHARS + 1
    EpisodeImportInput(podcast_id=PODCAST, script=at)
    with pytest.raises(ValidationError):
        EpisodeImportInput(podcast_id=PODCAST, script=past)
    (problem,) = [p for p in analyze(past, check_speakers=False).problems if p.code == "script_too_long"]
    assert (problem.line, problem.column) == (1, MAX_IMPORT_SCRIPT_CHARS - 4)  # the first character too many
    assert problem.scope == "import"


def test_speaker_characters_limit() -> None:
    hosts = [HostRef("h1", "Host")]

    def mapped(n: int) -> tuple[str, dict[str, str]]:
        return "".join(f"[L{i}]\nhi\n" for i in range(n)), {f"L{i}": "h1" for i in range(n)}

    text, mapping = mapped(MAX_SPEAKER_CHARACTERS)
    assert "too_many_mapped" not in [p.code for p in analyze(text, hosts=hosts, mapping=mapping).problems]
    text, mapping = mapped(MAX_SPEAKER_CHARACTERS + 1)
    found = [p for p in analyze(text, hosts=hosts, mapping=mapping).problems if p.code == "too_many_mapped"]
    assert len(found) == 1 and found[0].scope == "import"


def test_structure_limits_do_not_stop_an_import() -> None:
    past = analyze(total_turns(MAX_SCRIPT_SEGMENTS + 1), check_speakers=False)
    assert past.blocking("generate") and not past.blocking("import")


# --- the structured form ------------------------------------------------------------------------------------


def segment(text: str = "hi", host: str = "h1") -> dict[str, str]:
    return {"host_id": host, "text": text}


def structured(chapter_list: list[dict[str, object]]) -> dict[str, object]:
    return {"chapters": chapter_list}


STRUCTURED_CASES: dict[str, tuple[str, Callable[[int], dict[str, object]], int]] = {
    "chapters": ("too_many_chapters",
                 lambda n: structured([{"segments": [segment()]} for _ in range(n)]), MAX_SCRIPT_CHAPTERS),
    "segments per chapter": ("too_many_segments_in_chapter",
                             lambda n: structured([{"segments": [segment()] * n}]), MAX_SEGMENTS_PER_CHAPTER),
    "segments": ("too_many_segments",
                 lambda n: structured([{"segments": [segment()] * min(200, n - i)}
                                       for i in range(0, n, 200)]), MAX_SCRIPT_SEGMENTS),
    "segment text": ("segment_too_long",
                     lambda n: structured([{"segments": [segment(words(n))]}]), MAX_SEGMENT_CHARS),
    "chapter title": ("chapter_title_too_long",
                      lambda n: structured([{"title": "T" * n, "segments": [segment()]}]), MAX_CHAPTER_TITLE_CHARS),
    "text in all": ("text_too_long",
                    lambda n: structured([{"segments": [segment(words(min(5000, n - i)))
                                                        for i in range(0, n, 5000)]}]), MAX_SCRIPT_CHARS),
}  # fmt: skip


def json_text(script: dict[str, object]) -> str:
    return json.dumps(script, indent=1)


@pytest.mark.parametrize("name", STRUCTURED_CASES)
def test_structured_limits_at_and_one_past_agree_with_the_wire_model(name: str) -> None:
    code, build, limit = STRUCTURED_CASES[name]
    at_script = build(limit)
    _, at = read_structured(json_text(at_script))
    assert not at, at
    Script.model_validate(at_script)
    past_script = build(limit + 1)
    _, past = read_structured(json_text(past_script))
    assert [p.code for p in past] == [code]
    with pytest.raises(ValidationError):
        Script.model_validate(past_script)


@pytest.mark.parametrize(
    ("script", "code"),
    [
        (structured([]), "no_chapters"),
        (structured([{"segments": []}]), "empty_chapter"),
        (structured([{"segments": [segment("")]}]), "text_empty"),
        (structured([{"title": "", "segments": [segment()]}]), "title_empty"),
        (structured([{"segments": [segment(host="")]}]), "host_id_empty"),
        (structured([{"segments": [{**segment(), "speed": 1.0}]}]), "segment_speed"),
        (structured([{"segments": [segment()], "extra": 1}]), "unknown_field"),
        (structured([{"segments": [{"text": "hi"}]}]), "missing_host_id"),
        (structured([{"segments": [{"host_id": 7, "text": "hi"}]}]), "host_id_not_text"),
    ],
)
def test_structured_lower_bounds_and_shape(script: dict[str, object], code: str) -> None:
    _, problems = read_structured(json_text(script))
    assert code in [p.code for p in problems]
    with pytest.raises(ValidationError):
        Script.model_validate(script)


# --- through the command line --------------------------------------------------------------------------------


def run_check(capsys: pytest.CaptureFixture[str], path: Path, target: str = "both") -> tuple[int, list[str]]:
    code = script_main(["check", "--for", target, str(path)])
    out = capsys.readouterr().out
    return code, [line for line in out.splitlines() if line]


@pytest.mark.parametrize("name", TEXT_CASES)
def test_text_limits_through_the_cli(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = TEXT_CASES[name]
    at, past = tmp_path / "at.txt", tmp_path / "past.md"
    at.write_text(case.build(case.limit), encoding="utf-8")
    past.write_text(case.build(case.limit + 1), encoding="utf-8")
    assert run_check(capsys, at, case.target) == (0, [])
    code, lines = run_check(capsys, past, case.target)
    assert code == 1
    assert any(line.startswith(f"{past}:{case.line + 1}:") and ": error: " in line for line in lines), lines


@pytest.mark.parametrize("name", STRUCTURED_CASES)
def test_structured_limits_through_the_cli(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, build, limit = STRUCTURED_CASES[name]
    at, past = tmp_path / "at.json", tmp_path / "past.json"
    at.write_text(json_text(build(limit)), encoding="utf-8")
    past.write_text(json_text(build(limit + 1)), encoding="utf-8")
    assert run_check(capsys, at) == (0, [])
    code, lines = run_check(capsys, past)
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"{past}:") and ": error: " in lines[0]
