"""``castdeck script check|convert``: the lines it prints, its exit statuses, and the files it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from castdeck.api.models import Script
from castdeck.cli import COMMANDS, dispatch
from castdeck.cli.script import main
from castdeck.scripts import parse_text

GOOD = "# Opening\n[Alex]\nWelcome back.\n\n[Maya]\nThanks, Alex.\n"
BAD = "Intro words.\n[Alex]\nHi.\n# Empty\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "good": tmp_path / "good.txt",
        "bad": tmp_path / "bad.md",
        "good_json": tmp_path / "good.json",
        "broken_json": tmp_path / "broken.json",
        "latin1": tmp_path / "latin1.txt",
    }
    out["good"].write_text(GOOD, encoding="utf-8")
    out["bad"].write_text(BAD, encoding="utf-8")
    out["good_json"].write_text(json.dumps({"chapters": [{"segments": [{"host_id": "a1", "text": "Hi."}]}]}))
    out["broken_json"].write_text('{"chapters": [\n  {"segments": [1,]}\n]}')
    out["latin1"].write_bytes("[Zoë]\nCafé\n".encode("latin-1"))
    return out


def test_the_command_is_registered() -> None:
    assert COMMANDS["script"] == "script"
    assert dispatch(["no-such-command"]) is None


def test_check_prints_one_line_per_problem_and_exits_1(files: dict[str, Path], capsys) -> None:
    assert main(["check", str(files["good"]), str(files["bad"])]) == 1
    captured = capsys.readouterr()
    bad = files["bad"]
    assert captured.out.splitlines() == [
        f"{bad}:1:1: warning: Text before the first speaker label has no speaker; the service leaves it out. "
        "Put a label such as [Alex] above it.",
        f"{bad}:4:1: error: Chapter 2 “Empty” has no speaker turn; a chapter needs at least one.",
    ]
    assert "1 error, 1 warning in 2 files" in captured.err


def test_check_a_clean_file_exits_0(files: dict[str, Path], capsys) -> None:
    assert main(["check", str(files["good"]), str(files["good_json"])]) == 0
    assert capsys.readouterr().out == ""


def test_hosts_resolve_labels(files: dict[str, Path], capsys) -> None:
    assert main(["check", "--hosts", "Alex Rivera", "--hosts", "Priya", str(files["good"])]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{files['good']}:5:1: error: No host is called “Maya”")
    assert main(["check", "--hosts", "Alex Rivera,Dr. Maya Chen", str(files["good"])]) == 0
    # in a structured file a host id is checked: ID=NAME names it
    assert main(["check", "--hosts", "zz=Zed", str(files["good_json"])]) == 1
    assert "Host “a1” is not an active host" in capsys.readouterr().out
    assert main(["check", "--hosts", "a1=Alex", str(files["good_json"])]) == 0


def test_json_output_has_the_same_problems(files: dict[str, Path], capsys) -> None:
    assert main(["check", "--json", str(files["bad"]), str(files["broken_json"])]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 2 and report["warnings"] == 1
    bad, broken = report["files"]
    assert [(p["line"], p["column"], p["severity"], p["code"]) for p in bad["problems"]] == [
        (1, 1, "warning", "before_first_label"),
        (4, 1, "error", "empty_chapter"),
    ]
    assert [(p["line"], p["column"], p["code"]) for p in broken["problems"]] == [(2, 19, "json")]


def test_unreadable_files_exit_2_and_the_others_are_still_checked(
    files: dict[str, Path], tmp_path, capsys
) -> None:
    assert (
        main(["check", str(tmp_path / "missing.txt"), str(files["latin1"]), str(files["bad"]), str(tmp_path)])
        == 2
    )
    captured = capsys.readouterr()
    assert f"{files['bad']}:4:1: error:" in captured.out
    errors = captured.err.splitlines()
    assert any("missing.txt: error: Cannot read" in e for e in errors)
    assert any("latin1.txt: error: latin1.txt is not UTF-8 text" in e for e in errors)
    assert any("is a folder" in e for e in errors)
    assert "Traceback" not in captured.err


def test_wrong_arguments_exit_2(capsys) -> None:
    assert main([]) == 2
    assert main(["check"]) == 2
    assert main(["check", "--for", "nothing", "x.txt"]) == 2
    assert main(["convert", "x.txt"]) == 2
    assert main(["convert", "x.txt", "--to", "text", "--map", "no-equals"]) == 2
    assert main(["--help"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_convert_text_to_json_needs_every_label_mapped(files: dict[str, Path], tmp_path, capsys) -> None:
    out = tmp_path / "out.json"
    assert main(["convert", str(files["good"]), "--to", "json", "--map", "Alex=a1", "-o", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{files['good']}:5:1: error: The label “Maya” is not mapped to a host id; add --map 'Maya=HOST_ID'."
    ]
    assert not out.exists()  # nothing written
    assert main(["convert", str(files["good"]), "--to", "json", "--map", "Alex=a1", "--map", "maya=m1",
                 "-o", str(out)]) == 0  # fmt: skip
    written = json.loads(out.read_text())
    Script.model_validate(written)
    assert written == {"chapters": [{"title": "Opening", "segments": [
        {"host_id": "a1", "text": "Welcome back."}, {"host_id": "m1", "text": "Thanks, Alex."}]}]}  # fmt: skip


def test_convert_json_to_text_and_back(files: dict[str, Path], tmp_path, capsys) -> None:
    out = tmp_path / "back.txt"
    assert main(["convert", str(files["good_json"]), "--to", "text", "--map", "Alex=a1", "-o", str(out)]) == 0
    assert out.read_text() == "[Alex]\nHi.\n"
    assert main(["convert", str(out), "--to", "json", "--map", "Alex=a1"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(files["good_json"].read_text())


def test_convert_refuses_a_script_with_errors(files: dict[str, Path], capsys) -> None:
    assert main(["convert", str(files["broken_json"]), "--to", "text"]) == 1
    assert "broken.json:2:19: error: Not valid JSON" in capsys.readouterr().err
    assert main(["convert", str(files["bad"]), "--to", "json", "--map", "Alex=a1"]) == 1
    assert "bad.md:4:1: error: Chapter 2" in capsys.readouterr().err


def test_convert_cannot_write_exits_2(files: dict[str, Path], tmp_path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["convert", str(files["good_json"]), "--to", "text", "-o", str(blocker / "out.txt")]) == 2
    assert "error: Cannot write" in capsys.readouterr().err


def test_the_castdeck_command_runs_it(files: dict[str, Path]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "castdeck", "script", "check", str(files["bad"])],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stdout.splitlines()[1].startswith(f"{files['bad']}:4:1: error:")
    converted = subprocess.run(
        [sys.executable, "-m", "castdeck", "script", "convert", str(files["good"]), "--to", "json",
         "--map", "Alex=a1", "--map", "Maya=m1"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert converted.returncode == 0, converted.stderr
    assert len(json.loads(converted.stdout)["chapters"][0]["segments"]) == len(parse_text(GOOD).segments)
