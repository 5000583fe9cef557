"""The sandbox's record queries that filter in SQLite (a list of ten thousand episodes must not
decode every record at each page: ``benchmarks/episodes_scale.py``)."""

from __future__ import annotations

from pathlib import Path

from castdeck.sandbox.db import Database


def test_matching_reads_only_the_records_with_that_field_value_oldest_first(tmp_path: Path) -> None:
    db = Database(tmp_path / "sandbox.sqlite3")
    with db.transaction():
        for number in range(6):
            status = "scheduled" if number % 3 == 0 else "draft"
            db.insert("episode", f"e{number}", "org-a", {"status": status, "podcast_id": "p1"})
        db.insert("episode", "other-org", "org-b", {"status": "scheduled"})
        db.insert("podcast", "not-an-episode", "org-a", {"status": "scheduled"})
        db.insert("episode", "no-status", "org-a", {"podcast_id": "p1"})

    assert [r.id for r in db.matching("episode", "org-a", "status", "scheduled")] == ["e0", "e3"]
    assert [r.id for r in db.matching("episode", "org-b", "status", "scheduled")] == ["other-org"]
    assert [r.id for r in db.matching("episode", "org-a", "podcast_id", "p1")] == [
        "e0", "e1", "e2", "e3", "e4", "e5", "no-status",
    ]  # fmt: skip
    assert db.matching("episode", "org-a", "status", "published") == []
    found = db.matching("episode", "org-a", "status", "scheduled")[1]
    assert (found.kind, found.org_id, found.data) == (
        "episode",
        "org-a",
        {"status": "scheduled", "podcast_id": "p1"},
    )
