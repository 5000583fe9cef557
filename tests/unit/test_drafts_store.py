"""The drafts file: saves, version history on widening cadences, runs that never ended, its schema,
and script files written atomically with changes on disk noticed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from castdeck.store.drafts import (
    AUTO_SNAPSHOT_EVERY,
    DAY,
    HOUR,
    NAMED_KEPT,
    DraftStore,
    SnapshotInfo,
    snapshots_to_keep,
)
from castdeck.store.script_files import ScriptFileError, fingerprint, read_script_file, write_script_file
from castdeck.store.sqlite import StoreTooNewError


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock):
    opened = DraftStore(tmp_path / "drafts.sqlite3", clock=clock)
    yield opened
    opened.close()


def test_a_draft_is_created_saved_listed_and_put_aside(store: DraftStore, clock: Clock) -> None:
    draft = store.create("Tides", "[Alex]\nHi.\n", mapping={"Alex": "a1"}, words=1, minutes=0.1)
    assert store.get(draft.id) == draft
    clock.now += 10
    saved = store.save(draft.id, "[Alex]\nHi there.\n", title="Tides", words=2, minutes=0.2)
    assert (saved.revision, saved.text, saved.mapping, saved.updated_at) == (2, "[Alex]\nHi there.\n",
                                                                             {"Alex": "a1"}, clock.now)  # fmt: skip
    other = store.create("Other")
    listed = store.list_drafts()
    assert [d.id for d in listed] == [other.id, draft.id] and listed[1].text == ""  # lists carry no text
    store.delete(draft.id)
    assert store.get(draft.id) is None and [d.id for d in store.list_drafts()] == [other.id]
    store.undelete(draft.id)
    assert store.get(draft.id) is not None
    updated = store.update(draft.id, state="queued", outbox_entry="e1", options={"render": True})
    assert (updated.state, updated.outbox_entry, updated.options, updated.text) == (
        "queued", "e1", {"render": True}, "[Alex]\nHi there.\n")  # fmt: skip
    with pytest.raises(ValueError):
        store.update(draft.id, text="not through update")


def test_saves_take_automatic_snapshots_on_a_cadence(store: DraftStore, clock: Clock) -> None:
    draft = store.create("T", "a")
    store.save(draft.id, "a b", title="T", words=2, minutes=0)  # the first save: the first snapshot
    clock.now += AUTO_SNAPSHOT_EVERY - 1
    store.save(draft.id, "a b c", title="T", words=3, minutes=0)  # too soon
    assert [s.reason for s in store.snapshots(draft.id)] == ["auto"]
    clock.now += 1
    store.save(draft.id, "a b c d", title="T", words=4, minutes=0)
    snaps = store.snapshots(draft.id)
    assert [s.words for s in snaps] == [4, 2]
    assert store.snapshot_content(snaps[0].id) == ("a b c d", {})
    named = store.snapshot(draft.id, "before_import")
    assert store.snapshots(draft.id)[0] == named and named.reason == "before_import"


def test_old_snapshots_thin_out_but_a_copy_from_before_the_damage_remains(clock: Clock) -> None:
    now = clock.now
    snaps = [SnapshotInfo(i, "d", "auto", 0, now - age) for i, age in enumerate(
        [60, 1800, 2 * HOUR, 2 * HOUR + 600, 5 * HOUR, 2 * DAY, 2 * DAY + 3600, 10 * DAY, 40 * DAY, 41 * DAY,
         60 * DAY])]  # fmt: skip
    named = [SnapshotInfo(100 + i, "d", "before_replace", 0, now - i * 60) for i in range(NAMED_KEPT + 5)]
    keep = snapshots_to_keep(snaps + named, now)
    # all of the last hour (0, 1); the newest of an hour (2, not 3; 4); of a day (5, not 6; 7); of a
    # week (8 and 9 fall in two weeks; 10)
    assert keep & {s.id for s in snaps} == {0, 1, 2, 4, 5, 7, 8, 9, 10}
    assert {s.id for s in named[:NAMED_KEPT]} <= keep and not {s.id for s in named[NAMED_KEPT:]} & keep


def test_runs_that_never_ended_are_found(store: DraftStore, clock: Clock) -> None:
    draft = store.create("T", "x")
    crashed = store.begin_run(pid=999_999)
    store.set_open(crashed, draft.id, changed=True)
    ended = store.begin_run(pid=1)
    store.end_run(ended)
    mine = store.begin_run(pid=os.getpid())
    (found,) = store.unfinished_runs(exclude=mine)
    assert (found.id, found.open_draft, found.changed_at) == (crashed, draft.id, clock.now)
    store.end_run(crashed)
    assert store.unfinished_runs(exclude=mine) == []
    clock.now += 40 * DAY
    store.forget_runs(clock.now - 30 * DAY)
    assert [r.id for r in store.unfinished_runs()] == [mine]


def test_a_new_file_gets_its_schema_through_migration_one(tmp_path: Path) -> None:
    empty = tmp_path / "drafts.sqlite3"
    sqlite3.connect(empty).close()  # what there was before: no file, or an empty one (schema 0)
    store = DraftStore(empty)
    store.create("T", "x")
    store.close()
    db = sqlite3.connect(empty)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"drafts", "snapshots", "runs"} <= tables
    db.execute("PRAGMA user_version = 2")  # a newer Castdeck wrote it
    db.commit()
    db.close()
    with pytest.raises(StoreTooNewError):
        DraftStore(empty)


def test_files_are_written_atomically_and_changes_on_disk_show(tmp_path: Path) -> None:
    path = tmp_path / "script.txt"
    first = write_script_file(path, "[Alex]\nHi.\n")
    assert path.read_text() == "[Alex]\nHi.\n" and fingerprint(path) == first
    assert [p.name for p in tmp_path.iterdir()] == ["script.txt"]  # no temporary file left
    text, found = read_script_file(path)
    assert (text, found) == ("[Alex]\nHi.\n", first)
    path.write_text("[Alex]\nChanged elsewhere.\n")
    assert fingerprint(path) != first
    assert fingerprint(tmp_path / "gone.txt") is None
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf[A]\nx\n")
    assert read_script_file(tmp_path / "bom.txt")[0] == "[A]\nx\n"
    (tmp_path / "bin.txt").write_bytes(b"[A]\n\x00\x01")
    with pytest.raises(ScriptFileError, match="binary"):
        read_script_file(tmp_path / "bin.txt")
    with pytest.raises(ScriptFileError, match="Cannot write"):
        write_script_file(path / "inside-a-file.txt", "x")
