"""A batch of scripts checked together: problems by script, labels to map once for all, the whole
batch's credits against the balance and which scripts, in order, it covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from castdeck.cli.script import main
from castdeck.scripts import HostRef, analyze
from castdeck.scripts.batch import check_batch, duration_text

HOSTS = [HostRef("h-alex", "Alex"), HostRef("h-maya", "Maya")]


def script(words: int, guest: str | None = None) -> str:
    """A script of about ``words`` words between Alex and Maya (and ``guest`` once)."""
    line = "The tide comes in twice a day, and the harbour fills again. "
    turns = [f"[{'Alex' if n % 2 == 0 else 'Maya'}]\n{line * max(1, words // 24)}\n" for n in range(2)]
    if guest:
        turns.append(f"[{guest}]\nThanks for having me.\n")
    return "\n".join(turns)


def test_the_batch_adds_up_each_script_and_names_the_labels_to_map_once() -> None:
    texts = [("one.txt", script(300)), ("two.txt", script(600, "Guest")), ("three.txt", script(300, "guest")),
             ("four.txt", "[Alex]\nHi.\n# Empty\n")]  # fmt: skip
    batch = check_batch(texts, hosts=HOSTS)
    singles = [analyze(text, hosts=HOSTS) for _, text in texts]
    assert batch.credits == sum(one.estimate.credits for one in singles)
    assert batch.seconds == pytest.approx(sum(one.estimate.seconds for one in singles))
    # one label in two spellings: mapped once, for both scripts that use it
    assert batch.unresolved() == {"Guest": ["two.txt", "three.txt"]}
    assert [s.name for s in batch.with_problems()] == ["two.txt", "three.txt", "four.txt"]
    assert [s.name for s in check_batch(texts, hosts=HOSTS, mapping={"GUEST": "h-maya"}).with_problems()] == [
        "four.txt"
    ]


def test_the_balance_covers_the_first_scripts_in_order_and_says_by_how_much_it_falls_short() -> None:
    texts = [(f"{n}.txt", script(900)) for n in range(1, 6)]
    batch = check_batch(texts, hosts=HOSTS)
    each = batch.scripts[0].credits
    assert each > 0 and {s.credits for s in batch.scripts} == {each}
    short = batch.budget(each * 3 + each // 2)
    assert (short.fits, short.sendable, short.credits, short.short_by) == (
        3,
        5,
        each * 5,
        each * 5 - (each * 3 + each // 2),
    )
    assert not short.enough
    enough = batch.budget(each * 5)
    assert enough.enough and enough.fits == 5 and enough.short_by == 0
    assert batch.budget(each - 1).fits == 0


def test_durations_read_as_a_creator_says_them() -> None:
    assert [duration_text(s) for s in (44.6, 60, 419, 4980)] == ["45 s", "1 min", "7 min", "1 h 23 min"]


def test_script_check_says_what_the_batch_needs_against_the_balance(tmp_path: Path, capsys) -> None:
    paths = []
    for n in range(1, 5):
        path = tmp_path / f"ep{n}.txt"
        path.write_text(script(900, "Guest" if n in (2, 4) else None), encoding="utf-8")
        paths.append(str(path))
    each = check_batch([("x", script(900))], hosts=HOSTS).credits
    hosts = ["--hosts", "h-alex=Alex,h-maya=Maya,h-guest=Guest"]
    assert main(["check", *hosts, "--balance", str(each * 4 + 10), *paths]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "0 errors, 0 warnings in 4 files"
    assert err[1].startswith("4 scripts: ") and err[1].endswith(" credits")
    assert err[2].startswith("balance ") and ": enough for the batch (" in err[2]

    # over the balance: exit 1, how much more, and which fit
    assert main(["check", *hosts, "--balance", str(each * 2 + 1), *paths]) == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert f"more than the balance; the first 2 fit (through {paths[1]})" in last

    # a label no host answers to in two of them: said once, with both files
    assert main(["check", "--hosts", "Alex,Maya", *paths]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert f"the label “Guest” has no host in 2 scripts ({paths[1]}, {paths[3]})" in lines
    assert main(["check", "--balance", "lots", *paths]) == 2


def test_a_dropped_folder_gives_its_scripts_by_path_in_natural_order_without_hidden_ones(
    tmp_path: Path,
) -> None:
    from castdeck.services.script_batches import script_files

    season = tmp_path / "season"
    (season / "b-sides").mkdir(parents=True)
    (season / ".git").mkdir()
    for name in (
        "Ep 10.md",
        "Ep 2.txt",
        "Ep 1.json",
        "notes.pdf",
        ".swap.txt",
        "b-sides/Ep 3.md",
        ".git/x.txt",
    ):
        (season / name).write_text("[A]\nHi.\n", encoding="utf-8")
    loose = tmp_path / "loose.txt"
    loose.write_text("[A]\nHi.\n", encoding="utf-8")
    files, more = script_files([loose, season, tmp_path / "picture.png", loose])
    assert [str(p.relative_to(tmp_path)) for p in files] == [
        "loose.txt", "season/b-sides/Ep 3.md", "season/Ep 1.json", "season/Ep 2.txt", "season/Ep 10.md",
    ]  # fmt: skip
    assert more == 0
    first_two, more = script_files([season], limit=2)
    assert [p.name for p in first_two] == ["Ep 3.md", "Ep 1.json"] and more == 2
