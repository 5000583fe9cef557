"""Local files written by the previous Castdeck open in this one, with nothing lost.

``tests/fixtures/stores/v0/*.sql`` are dumps of files that the code of the last release without
schema versions wrote (commit 32160d9, user_version 0): jobs and the outbox in files of their own,
the upload queue and the cache. Each test rebuilds such a file from its dump and opens it with
today's stores.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from castdeck.store.background import BackgroundStore
from castdeck.store.cache import Cache
from castdeck.store.jobs import SCHEMA as JOBS_SCHEMA
from castdeck.store.sqlite import Migration, SqliteStore, StoreMigrationError, StoreTooNewError
from castdeck.store.uploads import UploadStore

V0 = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "v0"


def old_file(folder: Path, name: str) -> Path:
    """``name``.sqlite3 as the previous release left it (schema version 0)."""
    path = folder / f"{name}.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript((V0 / f"{name}.sql").read_text(encoding="utf-8"))
    db.close()
    return path


def version_of(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def rows(path: Path, table: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    finally:
        db.close()


def test_the_old_jobs_and_outbox_files_move_into_one_database_once(tmp_path: Path) -> None:
    jobs_file, outbox_file = old_file(tmp_path, "jobs"), old_file(tmp_path, "outbox")
    old_jobs, old_outbox = rows(jobs_file, "jobs"), rows(outbox_file, "outbox")

    store = BackgroundStore(tmp_path / "background.sqlite3", legacy_dir=tmp_path)
    try:
        # every job, with its progress and extra data
        assert len(store.jobs.list("Sandbox")) == 2 and len(store.jobs.list("Work")) == 1
        running = store.jobs.get("Sandbox", "episode", "ep_running")
        assert running is not None
        assert (running.state, running.phase, running.progress) == ("running", "script", 0.25)
        assert running.extra == {"outbox_entry": "e_sent", "attempts": 1}
        failed = store.jobs.get("Work", "source", "src_1")
        assert failed is not None and failed.error == "could not be read"
        # the unanswered write keeps its idempotency key: the next start resends it under that key
        [pending] = store.outbox.pending("Sandbox")
        assert pending.id == "e_pending"
        assert pending.idempotency_key == "castdeck-11111111-2222-3333-4444-555555555555"
        assert pending.body == {"podcast_id": "pod_1", "prompt": "Why the tide turns"}
        assert pending.last_error == "No answer from the service (timed out)"
        sent = store.outbox.get("e_sent")
        assert sent is not None and (sent.state, sent.resource_id) == ("sent", "vid_done")
    finally:
        store.close()

    assert version_of(tmp_path / "background.sqlite3") == 1
    # the old files are kept, renamed, with what they held
    assert not jobs_file.exists() and not outbox_file.exists()
    assert rows(tmp_path / "jobs.sqlite3.imported", "jobs") == old_jobs
    assert rows(tmp_path / "outbox.sqlite3.imported", "outbox") == old_outbox

    # opened again: nothing imported twice
    again = BackgroundStore(tmp_path / "background.sqlite3", legacy_dir=tmp_path)
    try:
        assert len(again.jobs.list("Sandbox")) == 2 and len(again.outbox.list("Sandbox")) == 2
    finally:
        again.close()


def test_old_files_are_left_alone_when_the_new_database_already_holds_work(tmp_path: Path) -> None:
    first = BackgroundStore(tmp_path / "background.sqlite3")
    first.outbox.add("Sandbox", "episode_generate", {"prompt": "new"}, "castdeck-new-key")
    first.close()
    jobs_file = old_file(tmp_path, "jobs")

    store = BackgroundStore(tmp_path / "background.sqlite3", legacy_dir=tmp_path)
    try:
        assert store.jobs.list("Sandbox") == []
        assert [e.idempotency_key for e in store.outbox.list("Sandbox")] == ["castdeck-new-key"]
    finally:
        store.close()
    assert jobs_file.exists() and version_of(jobs_file) == 0


@pytest.mark.parametrize(
    ("name", "store_type", "table"), [("uploads", UploadStore, "uploads"), ("cache", Cache, "records")]
)
def test_a_single_store_file_adopts_version_one_with_a_backup(
    tmp_path: Path, name: str, store_type: type[SqliteStore], table: str
) -> None:
    path = old_file(tmp_path, name)
    before = rows(path, table)
    assert before

    store_type(path).close()  # type: ignore[call-arg]

    assert version_of(path) == 1
    assert rows(path, table) == before
    backup = tmp_path / f"{name}.sqlite3.v0.bak"
    assert version_of(backup) == 0 and rows(backup, table) == before


def test_the_upload_queue_reads_its_old_items(tmp_path: Path) -> None:
    store = UploadStore(old_file(tmp_path, "uploads"))
    try:
        items = {item.id: item for item in store.list("Sandbox")}
        assert items["u1"].state == "done" and items["u1"].source_id == "src_done"
        assert items["u2"].state == "queued" and items["u2"].prepare_visuals
        assert store.next_position("Sandbox") == 2
    finally:
        store.close()


def test_a_file_from_a_newer_castdeck_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = old_file(tmp_path, "uploads")
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    before = path.read_bytes()

    with pytest.raises(StoreTooNewError) as raised:
        UploadStore(path)

    assert raised.value.found == 99 and raised.value.known == 1
    assert "newer Castdeck" in str(raised.value)
    assert path.read_bytes() == before
    assert not (tmp_path / "uploads.sqlite3.v99.bak").exists()


def test_a_failing_migration_leaves_the_file_at_its_old_version_with_its_data(tmp_path: Path) -> None:
    path = old_file(tmp_path, "jobs")
    before = rows(path, "jobs")

    def add_column_then_fail(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE jobs ADD COLUMN owner TEXT")
        raise sqlite3.OperationalError("disk I/O error")

    steps = [Migration(1, "jobs", JOBS_SCHEMA), Migration(2, "owner", add_column_then_fail)]
    with pytest.raises(StoreMigrationError) as raised:
        SqliteStore(path, steps)

    assert "migration 2 (owner) failed" in str(raised.value)
    assert version_of(path) == 0
    assert rows(path, "jobs") == before  # no half-added column, no lost row
    db = sqlite3.connect(path)
    try:
        assert "owner" not in [column[1] for column in db.execute("PRAGMA table_info(jobs)")]
    finally:
        db.close()
    # the next (fixed) release migrates the same file
    SqliteStore(
        path,
        [Migration(1, "jobs", JOBS_SCHEMA), Migration(2, "owner", "ALTER TABLE jobs ADD COLUMN owner TEXT")],
    ).close()
    assert version_of(path) == 2 and len(rows(path, "jobs")) == len(before)
