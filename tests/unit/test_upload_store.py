"""The upload queue's store: rows survive reopening, order, clearing, and a full database."""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from castdeck.store.uploads import UPLOAD_STATES, UploadItem, UploadStore


def item(profile: str = "Sandbox", position: int = 0, state: str = "queued", **changes: object) -> UploadItem:
    now = time.time()
    made = UploadItem(
        id=uuid.uuid4().hex,
        profile=profile,
        path=f"/tmp/file-{position}.txt",
        name=f"file-{position}.txt",
        mime_type="text/plain",
        size=1000 + position,
        mtime_ns=123456789,
        prepare_visuals=False,
        batch="b1",
        position=position,
        state=state,
        created_at=now,
        updated_at=now,
    )
    return made.with_changes(**changes) if changes else made


def test_items_survive_reopening_with_every_field(tmp_path: Path) -> None:
    path = tmp_path / "uploads.sqlite3"
    store = UploadStore(path)
    slot = {"url": "http://x/uploads/s1?sig=1", "method": "PUT", "headers": {"Content-Type": "text/plain"},
            "expires_at": "2030-01-01T00:00:00Z"}  # fmt: skip
    first = item(position=1, state="uploading", source_id="s1", slot=slot, sent=10, reserving=True, title="T")
    second = item(
        position=0, prepare_visuals=True, mime_type=None, state="refused", error="the file is empty"
    )
    store.add_many([first, second])
    store.close()

    reopened = UploadStore(path)
    listed = reopened.list("Sandbox")
    assert [i.id for i in listed] == [second.id, first.id]  # queue order
    assert listed[1] == first and listed[0] == second
    assert listed[1].slot == slot and listed[1].reserving is True and listed[0].prepare_visuals is True
    assert reopened.list("Other") == []
    assert reopened.next_position("Sandbox") == 2 and reopened.next_position("Other") == 0
    reopened.close()


def test_update_remove_and_clear_finished(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "uploads.sqlite3")
    items = [item(position=n, state=state) for n, state in enumerate(UPLOAD_STATES)]
    store.add_many(items)
    paused = store.update(items[0].with_changes(state="paused", error=None))
    assert store.get(items[0].id) == paused
    assert store.clear_finished("Sandbox") == 3  # done, refused, cancelled
    assert [i.state for i in store.list("Sandbox")] == [
        "paused",
        "uploading",
        "completing",
        "paused",
        "failed",
    ]
    store.remove(items[1].id)
    store.remove_many([items[2].id, items[3].id])
    assert [i.state for i in store.list("Sandbox")] == ["paused", "failed"]
    assert store.get(items[1].id) is None
    store.close()


def test_item_flags_follow_the_state() -> None:
    assert item(state="queued").active and item(state="queued").can_pause
    assert item(state="completing").active and not item(state="completing").can_pause
    assert not item(state="completing").can_cancel and not item(state="completing").can_remove
    assert item(state="paused").can_resume and item(state="paused").can_cancel
    assert item(state="failed").can_retry and item(state="failed").can_remove
    assert item(state="done").finished and not item(state="done").can_retry
    assert item(state="refused").finished and item(state="refused").can_retry


def test_a_full_database_refuses_the_write_and_keeps_what_was_stored(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "uploads.sqlite3")
    kept = store.add_many([item()])[0]
    store.limit_size(0)
    with pytest.raises(sqlite3.OperationalError, match="full"):
        store.add_many([item(position=n, error="x" * 500) for n in range(1, 40)])
    assert store.list("Sandbox") == [kept]
    store.close()
